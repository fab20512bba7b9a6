import Foundation
import InfraModel
import PreloadKit
import SimKernel
import XCTest
@_spi(Benchmark) @testable import PushModel

/// The simulation takes its pre-stage decisions from PreloadKit, and its building blocks
/// (payload plans, far-future buckets, Doze windows) behave as documented.
final class DriverTests: XCTestCase {
    /// PreloadKit's `criticalAssetsMax = 1` halves asset fetches of a two-critical-asset push.
    func testCriticalAssetsMaxOneHalvesFetches() throws {
        let seed: UInt64 = 31
        let two = smallWorld(devices: 2_000)
        var one = two
        one.preloadPolicy.criticalAssetsMax = 1
        let r2 = try simulate(two, seed: seed), r1 = try simulate(one, seed: seed)
        // Both assets (48.2 KB image, 1.8 KB JSON) pass the same gates on every device (same
        // network, Low Data Mode, Save-Data and storage draws), so each session that fetches
        // starts exactly 2 fetches with the default policy and 1 with the limit.
        XCTAssertGreaterThan(r1.value("extension.fetchesStarted"), 0, "seed \(seed)")
        XCTAssertEqual(r2.value("extension.fetchesStarted"), 2 * r1.value("extension.fetchesStarted"), "seed \(seed)")
        // The JSON document was never pre-staged, so taps need the network.
        XCTAssertEqual(r1.value("taps.instantShare"), 0, "seed \(seed)")
        XCTAssertGreaterThan(r2.value("taps.instantShare"), 0.8, "seed \(seed)")
    }

    /// PreloadKit gates pre-staging on 2G: every push is skipped by policy, nothing is fetched.
    func testTwoGGatingSkipsByPolicy() throws {
        let seed: UInt64 = 37
        var c = smallWorld(devices: 1_000)
        c.population.networkMix = NetworkMixConfig(wifi: 0, fiveG: 0, lte: 0, fourG: 0, threeG: 0, twoG: 1, slow2G: 0)
        let r = try simulate(c, seed: seed)
        XCTAssertEqual(r.outcomes.skippedByPolicy, r.pushesTargeted, "seed \(seed)")
        XCTAssertEqual(r.value("extension.fetchesStarted"), 0, "seed \(seed)")
        XCTAssertEqual(r.prestage.requests + r.prestage.notReachingEdge, 0, "seed \(seed)")
        // Honouring Low Data Mode is PreloadKit's too: everyone constrained, policy default.
        var ldm = smallWorld(devices: 1_000)
        ldm.population.lowDataModeShare = 1
        XCTAssertEqual(try simulate(ldm, seed: seed).outcomes.skippedByPolicy, 1_000, "seed \(seed)")
        ldm.preloadPolicy.prefetchInLowDataMode = true
        XCTAssertLessThan(try simulate(ldm, seed: seed).outcomes.skippedByPolicy, 100, "seed \(seed)")
    }

    /// Campaign payloads go through the real parse path once per push part: signed JSON,
    /// verified by PayloadParser; a carousel has one single-asset request per part.
    func testPayloadsParsedOncePerPart() throws {
        var single = CampaignConfig()
        single.assets = [AssetConfig(name: "hero", bytes: 700_000,
                                     variants: [AssetVariantConfig(network: "3g", bytes: 90_000)]),
                         AssetConfig(name: "doc", type: .json, priority: .critical, bytes: 2_000),
                         AssetConfig(name: "extra", type: .image, priority: .normal, bytes: 10_000)]
        var carousel = CampaignConfig()
        carousel.name = "carousel"
        carousel.carouselIntervalSeconds = 90
        carousel.assets = [AssetConfig(name: "a"), AssetConfig(name: "b"), AssetConfig(name: "c")]
        let plans = try CampaignPlans(campaigns: [single, carousel])
        XCTAssertEqual(plans.requests[0].count, 1)
        XCTAssertEqual(plans.requests[1].count, 3)
        let r = plans.requests[0][0]
        XCTAssertEqual(r.signature, .verified)
        XCTAssertEqual(r.format, .inlineManifest)
        XCTAssertEqual(r.assets.count, 3)
        XCTAssertEqual(r.assets[0].variants.count, 1)
        for part in plans.requests[1] {
            XCTAssertEqual(part.assets.count, 1)
            XCTAssertTrue(part.contentAvailable)
        }
        // Every asset URL (and variant) maps to its own catalogue object; critical keys resolve
        // by PreloadKit's variant rule: the 3G device needs the 3G rendition.
        XCTAssertEqual(plans.keys.count, 4 + 3)
        XCTAssertEqual(plans.criticalCount[0], 2)
        let threeG = Int(PKNetworkClass.cellular3G.rawValue) * 2
        XCTAssertEqual(plans.criticalKeys[0][threeG], r.assets[0].variants[0].key)
        XCTAssertEqual(plans.catalog.bytes[Int(plans.criticalObjects[0][threeG])], 90_000)
        let wifi = Int(PKNetworkClass.wifi.rawValue) * 2
        XCTAssertEqual(plans.catalog.bytes[Int(plans.criticalObjects[0][wifi])], 700_000)
    }

    /// A payload too large for a push is reported with its campaign path (the providers' 4 KB
    /// limit is checked on the encoded push before PreloadKit's own 8 KiB document limit).
    func testRefusedPayloadNamesCampaign() {
        var big = CampaignConfig()
        // 16 assets × 7 URLs of ~120 bytes ≈ 17 KB of JSON, above the APNs/FCM 4 KB limit.
        let name = String(repeating: "x", count: 60)
        big.assets = (0..<16).map { i in
            AssetConfig(name: "\(name)\(i)", variants: AssetVariantConfig.networkKeys.map { AssetVariantConfig(network: $0, bytes: 1_000) })
        }
        XCTAssertThrowsError(try CampaignPlans(campaigns: [CampaignConfig(), big])) { error in
            guard let e = error as? PushModelError else { return XCTFail("\(error)") }
            XCTAssertEqual(e.path, "campaigns[1]")
            XCTAssertTrue(e.reason.contains("over the APNs/FCM limit of 4096 bytes"), e.reason)
        }
    }

    /// Far-future events come out at their exact times, in insertion order, while the kernel
    /// holds one flush event per bucket.
    func testBucketQueueExactTimesFewPending() throws {
        struct Collector: EventHandler {
            var far: BucketQueue
            var seen: [(Int64, UInt32)] = []
            var pendingMax = 0
            mutating func handle(_ event: Event, in kernel: inout Kernel) throws {
                pendingMax = max(pendingMax, kernel.pendingCount)
                if case .bucketFlush(let b) = PushEvent(event) {
                    try far.flush(bucket: b, kernel: &kernel)
                } else {
                    seen.append((event.time.ticks, event.target))
                }
            }
        }
        var kernel = Kernel()
        var h = Collector(far: BucketQueue(widthTicks: 10_000_000, horizonTicks: 3_600_000_000))
        var expected: [(Int64, UInt32)] = []
        for i in 0..<1_000 {
            let t = Int64((i * 7_919) % 3_000) * 1_000_000 + Int64(i % 3)  // spread over 50 min, some ties
            try h.far.schedule(at: t, .tap(DeviceID(i), campaign: CampaignID(0), sendTicks: 0), kernel: &kernel)
            expected.append((t, UInt32(i)))
        }
        let near = expected.filter { $0.0 < 20_000_000 }.count  // less than two bucket widths ahead: straight to the kernel
        XCTAssertLessThanOrEqual(kernel.pendingCount, 3_000 / 10 + near, "one flush event per bucket, plus near events")
        XCTAssertLessThan(kernel.pendingCount, 400)
        _ = try kernel.run(&h)
        expected.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
        XCTAssertEqual(h.seen.map(\.0), expected.map(\.0))
        XCTAssertEqual(h.seen.map(\.1), expected.map(\.1), "simultaneous events keep insertion order")
        XCTAssertEqual(h.far.count, 0)
    }

    /// Far-event bucketing is an optimisation only: a world run with and without it gives the same
    /// metrics and histograms, and the kernel's pending set is smaller with it (taps hours ahead
    /// wait in buckets instead of the heap).
    func testBucketingChangesOnlyThePendingSet() throws {
        let seed: UInt64 = 47
        var c = smallWorld(devices: 2_000)
        c.campaigns[0].sendRatePerMinute = 600_000  // the whole send within a few seconds
        var withBuckets = try PushBenchmarkRun(c, masterSeed: seed, replication: 0, bucketFarEvents: true)
        var direct = try PushBenchmarkRun(c, masterSeed: seed, replication: 0, bucketFarEvents: false)
        let a = try withBuckets.run(sampleEveryEvents: 100), b = try direct.run(sampleEveryEvents: 100)
        XCTAssertEqual(a.result.metrics, b.result.metrics, "seed \(seed)")
        XCTAssertEqual(a.result.tapToPaint, b.result.tapToPaint, "seed \(seed)")
        XCTAssertEqual(a.result.outcomes, b.result.outcomes, "seed \(seed)")
        XCTAssertEqual(b.profile.bucketedMean, 0, "nothing is bucketed without bucketing (seed \(seed))")
        XCTAssertGreaterThan(a.profile.bucketedMean, 0, "seed \(seed)")
        XCTAssertLessThan(a.profile.kernelPendingMean, b.profile.kernelPendingMean, "seed \(seed)")
        XCTAssertGreaterThan(a.profile.samples, 10, "seed \(seed)")
    }

    /// Deep Doze windows: idle 60 min, then 120, 240, 360, 360 … min, each followed by the window.
    func testDozeWindows() {
        var a = AndroidRulesConfig()
        a.deepMaintenanceWindowSeconds = 300
        let s = DozeSchedule(a)
        // Entered at t = 0: windows start at 3600, 3600+300+7200 = 11100, +300+14400 = 25800,
        // +300+21600 = 47700, then every 21900.
        XCTAssertEqual(s.nextWindow(atOrAfter: 10, state: .deep, phase: 0), 3_600)
        XCTAssertEqual(s.nextWindow(atOrAfter: 3_700, state: .deep, phase: 0), 3_700, "inside the window")
        XCTAssertEqual(s.nextWindow(atOrAfter: 3_900, state: .deep, phase: 0), 11_100)
        XCTAssertEqual(s.nextWindow(atOrAfter: 20_000, state: .deep, phase: 0), 25_800)
        XCTAssertEqual(s.nextWindow(atOrAfter: 30_000, state: .deep, phase: 0), 47_700)
        XCTAssertEqual(s.nextWindow(atOrAfter: 48_100, state: .deep, phase: 0), 47_700 + 21_900)
        XCTAssertEqual(s.nextWindow(atOrAfter: 100_000, state: .deep, phase: 0), 47_700 + 3 * 21_900)
        // Entered 1 000 s before t = 0.
        XCTAssertEqual(s.nextWindow(atOrAfter: 0, state: .deep, phase: 1_000), 2_600)
        XCTAssertEqual(s.nextWindow(atOrAfter: 5, state: .awake, phase: 0), 5)
        // Light Doze: 900 s idle + 60 s window; phase 0 → windows at [900, 960) + k·960.
        XCTAssertEqual(s.nextWindow(atOrAfter: 100, state: .light, phase: 0), 900)
        XCTAssertEqual(s.nextWindow(atOrAfter: 930, state: .light, phase: 0), 930)
        XCTAssertEqual(s.nextWindow(atOrAfter: 1_000, state: .light, phase: 0), 1_860)
    }
}
