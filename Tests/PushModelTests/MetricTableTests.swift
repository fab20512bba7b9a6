import Foundation
import InfraModel
import XCTest
@testable import PushModel

/// The metric table is the one list of what a result emits.
final class MetricTableTests: XCTestCase {
    /// Every metric of a run is a table row with the row's unit and direction, and every fixed row
    /// is emitted by a run that exercises every path (a small default world, with delivery
    /// receipts, a `budgeted` decision kind and the radio energy model on: their metrics are
    /// emitted only then).
    func testEveryEmittedMetricIsATableRowAndEveryRowIsEmitted() throws {
        var c = smallWorld(devices: 2_000)
        c.preloadPolicy.receiptsEnabled = true
        // The decision kind's metrics are emitted only with one; `budgeted` emits them all.
        var decision = DecisionConfig()
        decision.kind = .budgeted
        c.preloadPolicy.decision = decision
        c.energy.enabled = true
        // Prices with a commit and users' cellular prices: the money metrics are emitted only then.
        var costs = CostsConfig()
        costs.cdn = [CdnPriceConfig(tiers: [PriceTierConfig(fromGB: 0, pricePerGB: 0.085)], pricePer10kRequests: 0.01)]
        costs.commit = CommitConfig()
        costs.cellular = [CellularPriceConfig(pricePerGB: 6)]
        c.costs = costs
        // The push providers' metrics are emitted only with `providers`.
        var providers = ProvidersConfig()
        // The outage counts are emitted only with a scheduled outage (this one misses the send).
        providers.outages = [ProviderOutageConfig(provider: .apns, startSeconds: 3_000, durationSeconds: 10)]
        // The stale-token counts are emitted only with an unregistered share.
        providers.fcm.unregisteredShare = 0.01
        // The offline stores' counts are emitted only with offline windows (or an inactive share).
        providers.offline = ProviderOfflineConfig()
        providers.fcm.inactiveShare = 0.01
        // FCM's per-device cap metrics are emitted only when a device's plan can exceed a cap: two
        // collapsible per-token campaigns against a burst of 1.
        providers.fcm.collapsibleBurstMessages = 1
        for name in ["score-1", "score-2"] {
            var fold = c.campaigns[0]
            fold.name = name
            fold.collapsible = true
            // Two collapse keys: the offline stores keep them by key (the key-limit metric).
            fold.collapseKey = name
            c.campaigns.append(fold)
        }
        c.providers = providers
        // The fan-out and priority-5 metrics are emitted only with a topic / priority-5 campaign.
        c.campaigns[0].sendAs = .topic
        c.campaigns[0].apnsPriority = 5
        // The analytics endpoint's queue metrics are emitted only with `analytics`.
        c.analytics = AnalyticsConfig(capacityPerSecond: 50)
        // The placeholder's metrics are emitted only with it on.
        c.infra.placeholder.enabled = true
        // The faults' metrics are emitted only with scheduled faults.
        c.infra.faults = [InfraFault(kind: .originOutage, startSeconds: 0, durationSeconds: 10)]
        // The latest purge's and warm's times against the send (`cdnApi.*SendSeconds`) are
        // emitted only with a warm call and a creative swap's purge.
        c.campaigns[0].warm = WarmConfig(mode: .topPops, aheadSeconds: 120, topPops: 2)
        c.campaigns[0].creativeSwap = CreativeSwapConfig(secondsBeforeSend: 5, rewarmDelaySeconds: 2)
        // The CDN APIs' metrics are emitted only with a profile.
        c.infra.cdnApi = CdnApiConfig.standard(.akamai)
        // The HLS metrics are emitted only with a playlist of variants.
        c.campaigns[0].assets.insert(HLSPlaylistWorldTests.trailer([200, 800]), at: 0)
        let r = try simulate(c, seed: 7)
        for m in r.metrics {
            guard let spec = MetricTable.spec(named: m.name) else { return XCTFail("\(m.name) is not in MetricTable") }
            XCTAssertEqual(m.unit, spec.unit.rawValue, m.name)
            XCTAssertEqual(m.better, spec.better.rawValue, m.name)
        }
        let emitted = Set(r.metrics.map(\.name))
        for id in MetricID.allCases {
            XCTAssertTrue(emitted.contains(id.rawValue), "\(id.rawValue) not emitted")
        }
    }

    /// Ratios say what they divide; gates and alarms sit on metrics with a better direction, and
    /// an alarm points the way that is worse.
    func testRowsAreConsistent() {
        for id in MetricID.allCases {
            let spec = id.spec
            XCTAssertEqual(spec.name, id.rawValue)
            XCTAssertFalse(spec.title.isEmpty, id.rawValue)
            // A ratio states its parts; so does a mean (a money or bytes figure per push or per run).
            if spec.unit == .ratio { XCTAssertNotNil(spec.ratio, id.rawValue) }
            if spec.gate != nil || spec.alarm != nil { XCTAssertNotEqual(spec.better, .none, id.rawValue) }
            if let alarm = spec.alarm {
                XCTAssertEqual(alarm.when == .below, spec.better == .higher, id.rawValue)
                XCTAssertTrue(alarm.lookAt.contains("see ") || alarm.lookAt.contains("check "), "an alarm says where to look: \(id.rawValue)")
            }
        }
        XCTAssertEqual(MetricTable.benchGated.count, MetricID.allCases.filter { $0.spec.gate != nil }.count)
        XCTAssertEqual(MetricID.edgePrestageHitRatio.spec.alarm?.value, 0.9)
        XCTAssertEqual(MetricID.edgePrestageHitRatio.spec.alarm?.when, .below)
        XCTAssertEqual(MetricID.edgePrestageHitRatio.spec.alarm?.lookAt,
                       "warm earlier or warm the PoPs that miss: see the region chart and the PoP table (pops.csv)")
        XCTAssertEqual(MetricTable.spec(named: "tapToPaint.lte.p90Seconds"),
                       MetricTable.tapToPaint(network: "lte", quantile: .p90))
        XCTAssertNil(MetricTable.spec(named: "tapToPaint.a.b.p90Seconds"))
        XCTAssertNil(MetricTable.spec(named: "no.such"))
    }
}

/// docs/metrics.md states every ratio metric's numerator and denominator exactly as the table does.
final class MetricDocTests: XCTestCase {
    func testEveryRatioIsDefinedInTheDocs() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let doc = try String(contentsOf: root.appendingPathComponent("docs/metrics.md"), encoding: .utf8)
        var missing: [String] = []
        for id in MetricID.allCases {
            guard let ratio = id.spec.ratio else { continue }
            let row = "| `\(id.rawValue)` | \(ratio.numerator) | \(ratio.denominator) |"
            if !doc.contains(row) { missing.append(row) }
        }
        XCTAssertEqual(missing, [], "rows docs/metrics.md lacks:\n" + missing.joined(separator: "\n"))
    }

    /// Every metric, with its unit and better direction, is listed in docs/metrics.md as the table states it.
    func testEveryMetricIsListedWithUnitAndDirection() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let doc = try String(contentsOf: root.appendingPathComponent("docs/metrics.md"), encoding: .utf8)
        let specs = MetricID.allCases.map(\.spec) + [MetricTable.tapToPaint(network: "NETWORK", quantile: .p50),
                                                      MetricTable.tapToPaint(network: "NETWORK", quantile: .p90)]
            + MetricTable.CampaignCostPart.allCases.map { MetricTable.campaignCost("NAME", $0) }
            + [MetricTable.userData(network: "NETWORK", opened: true), MetricTable.userData(network: "NETWORK", opened: false)]
        let missing = specs.map { "| `\($0.name)` | \($0.title) | \($0.unit.rawValue) | \($0.better.rawValue) |" }.filter { !doc.contains($0) }
        XCTAssertEqual(missing, [], "rows docs/metrics.md lacks:\n" + missing.joined(separator: "\n"))
    }

    /// Every column of tap-to-paint-windows.csv is listed in docs/metrics.md as the table states it.
    func testEveryTapToPaintWindowColumnIsDescribed() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let doc = try String(contentsOf: root.appendingPathComponent("docs/metrics.md"), encoding: .utf8)
        let missing = MetricTable.tapToPaintWindowColumns.map { "| `\($0.name)` | \($0.unit.rawValue) | \($0.meaning) |" }.filter { !doc.contains($0) }
        XCTAssertEqual(missing, [], "rows docs/metrics.md lacks:\n" + missing.joined(separator: "\n"))
        XCTAssertTrue(doc.contains("`" + MetricTable.tapToPaintWindowsFile + "`"))
    }
}
