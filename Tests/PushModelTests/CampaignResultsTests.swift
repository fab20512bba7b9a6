import Foundation
import InfraModel
import XCTest
@testable import PushModel

/// The per-campaign rows (`campaign:NAME/METRIC`): each campaign's counters are the pooled ones
/// split by campaign, so on every seeded replication the counts add up to the pooled counts
/// exactly, and a share times its campaign's pushes adds up to the pooled share's numerator.
final class CampaignResultsTests: XCTestCase {
    /// Three campaigns taking different paths: "a" pre-stages at full rate; "b" reaches 60 % of the
    /// devices at 12 pushes a minute from t = 900 s, too slowly to finish by the horizon (pushes
    /// unsent and in the provider at the end); "c" carries no manifest.
    static func threeCampaigns() -> PushWorldConfig {
        var w = smallWorld(devices: 1_800)
        var b = w.campaigns[0], c = w.campaigns[0]
        w.campaigns[0].name = "a"
        b.name = "b"
        b.audienceShare = 0.6
        b.sendStartSeconds = 900
        b.sendRatePerMinute = 12
        c.name = "c"
        c.sendStartSeconds = 1_200
        c.preStage = false
        w.campaigns += [b, c]
        return w
    }

    static let counts = ["pushes.targeted", "extension.fetchesStarted", "taps.count", "tapToPaint.count", "taps.abandoned", "reads.count",
                         "bytes.background", "bytes.foreground", "bytes.cellular", "bytes.neverOpened"]
    static let shares = ["outcomes.completedShare", "outcomes.partialShare", "outcomes.fetchTimedOutShare", "outcomes.fetchFailedShare",
                         "outcomes.timedOutOrKilledShare", "outcomes.skippedByPolicyShare", "outcomes.deferredThenCompletedShare",
                         "outcomes.deferredThenExpiredShare", "outcomes.payloadExpiredShare", "outcomes.notDeliveredShare"]

    func testPerCampaignCountsAddUpToThePooledCounts() throws {
        let world = Self.threeCampaigns()
        let names = world.campaigns.map(\.name)
        for seed: UInt64 in [3, 4] {
            let r = try simulate(world, seed: seed)
            func v(_ c: String, _ m: String) -> Double { r.value(MetricTable.campaignMetricName(c, m)) }
            for m in Self.counts {
                XCTAssertEqual(names.map { v($0, m) }.reduce(0, +), r.value(m), "\(m), seed \(seed)")
            }
            // Shares: numerators recovered as share × pushes (exact integers up to rounding).
            let pooledTargeted = r.value("pushes.targeted")
            for m in Self.shares {
                let sum = names.map { (v($0, m) * v($0, "pushes.targeted")).rounded() }.reduce(0, +)
                XCTAssertEqual(sum, (r.value(m) * pooledTargeted).rounded(), "\(m), seed \(seed)")
            }
            // Each campaign's shares are a partition of its own pushes.
            for c in names { XCTAssertEqual(Self.shares.map { v(c, $0) }.reduce(0, +), 1, accuracy: 1e-9, c) }
            // The campaigns differ where they should: "b" did not reach its whole audience by the
            // horizon; "c" completed nothing and made no pre-stage request.
            XCTAssertGreaterThan(v("b", "outcomes.notDeliveredShare"), 0.3)
            XCTAssertLessThan(v("b", "pushes.targeted"), 1_800)
            XCTAssertEqual(v("c", "outcomes.completedShare"), 0)
            XCTAssertEqual(v("c", "bytes.background"), 0)
            XCTAssertNil(r.metric(MetricTable.campaignMetricName("c", "edge.prestageHitRatio")))
            XCTAssertGreaterThan(v("a", "outcomes.completedShare"), 0.5)
            // Time to 99 % from each campaign's own first send: "b" never gets there, so it reads the
            // time from its send to the horizon; "a" and "c" reach 99 % within a minute, while the
            // pooled figure counts from "a"'s send to when all three together are 99 % delivered.
            XCTAssertEqual(v("b", "delivery.secondsTo99Percent"), 3_600 - 900)
            XCTAssertLessThan(v("a", "delivery.secondsTo99Percent"), 60)
            XCTAssertLessThan(v("c", "delivery.secondsTo99Percent"), 60)
            XCTAssertEqual(r.value("delivery.secondsTo99Percent"), 3_600 - 300)
        }
    }

    func testCampaignRowsAreInScenarioOrderAndCarryThePooledUnits() throws {
        let r = try simulate(Self.threeCampaigns(), seed: 5)
        let rows = r.metrics.filter { $0.name.hasPrefix(MetricTable.campaignPrefix) }
        XCTAssertEqual(Set(rows.map { MetricTable.campaignMetricParts($0.name)?.campaign ?? "" }), ["a", "b", "c"])
        for m in rows {
            let pooled = try XCTUnwrap(MetricTable.spec(named: try XCTUnwrap(MetricTable.campaignMetricParts(m.name)).metric))
            let spec = try XCTUnwrap(MetricTable.spec(named: m.name), m.name)
            XCTAssertEqual(spec.unit, pooled.unit, m.name)
            XCTAssertEqual(m.unit, pooled.unit.rawValue, m.name)
            XCTAssertEqual(spec.ratio == nil, pooled.ratio == nil, m.name)
        }
    }

    /// With one campaign there is nothing per campaign: no row, and the result is the same bytes
    /// as before per-campaign counting existed (its metrics are the pooled ones only).
    func testOneCampaignHasNoCampaignRows() throws {
        let r = try simulate(smallWorld(devices: 800), seed: 9)
        XCTAssertFalse(r.metrics.contains { $0.name.hasPrefix(MetricTable.campaignPrefix) })
        XCTAssertNil(MetricTable.spec(named: "campaign:a/origin.rejected503"), "not a per-campaign metric")
        XCTAssertNotNil(MetricTable.spec(named: "campaign:a/tapToPaint.p95Seconds"))
    }
}
