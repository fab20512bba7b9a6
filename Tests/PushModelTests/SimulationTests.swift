import Foundation
import InfraModel
import XCTest
@testable import PushModel

final class SimulationTests: XCTestCase {
    /// A world exercising every path: an alert campaign, a silent carousel with normal-priority
    /// Android messages in WorkManager jobs, Doze, force-quit apps, a creative swap, and a short
    /// message TTL so some deferred pushes expire.
    func mixedWorld() -> PushWorldConfig {
        var c = smallWorld(devices: 3_000)
        c.horizonSeconds = 7_200
        c.infra.metricsHorizonSeconds = 7_200
        c.population.iosForceQuitShare = 0.2
        c.population.deepDozeElapsedMaxSeconds = 3_000
        var carousel = CampaignConfig()
        carousel.name = "carousel"
        carousel.sendStartSeconds = 900
        carousel.iosPush = .silent
        carousel.androidPriority = .normal
        carousel.androidHandler = .workManager
        carousel.carouselIntervalSeconds = 90
        carousel.messageTtlSeconds = 2_400
        carousel.assets = [AssetConfig(name: "a"), AssetConfig(name: "b"), AssetConfig(name: "c")]
        carousel.warm = WarmConfig(mode: .topPops, aheadSeconds: 300, topPops: 4)
        carousel.creativeSwap = CreativeSwapConfig(secondsBeforeSend: 60)
        c.campaigns.append(carousel)
        return c
    }

    /// Every push lands in exactly one outcome bucket, and requests add up at every tier.
    func testConservation() throws {
        let seed: UInt64 = 11
        let r = try simulate(mixedWorld(), seed: seed)
        let o = r.outcomes
        XCTAssertEqual(o.total, r.pushesTargeted, "pushes = sum of outcomes (seed \(seed))")
        // 3 000 devices × (1 alert + 3 carousel parts), audience share 1.
        XCTAssertEqual(r.pushesTargeted, 3_000 * 4, "seed \(seed)")
        XCTAssertEqual(UInt64(r.value("pushes.targeted")), r.pushesTargeted)
        XCTAssertEqual(r.series.pushesSent.totalCount, r.pushesTargeted, "every push is sent once (seed \(seed))")
        // Every bucket the mixed world is built to reach is reached.
        XCTAssertGreaterThan(o.completed, 0, "seed \(seed)")
        XCTAssertGreaterThan(o.notDelivered, 0, "force-quit iOS silent pushes (seed \(seed))")
        XCTAssertGreaterThan(o.deferredThenCompleted, 0, "Doze-deferred jobs (seed \(seed))")
        XCTAssertGreaterThan(o.deferredThenExpired, 0, "TTL-expired deferred pushes (seed \(seed))")
        XCTAssertGreaterThan(o.skippedByPolicy, 0, "gated by network/Low Data Mode (seed \(seed))")

        let p = r.prestage
        XCTAssertEqual(p.requests, p.hits + p.misses, "pre-stage requests = hits + misses (seed \(seed))")
        XCTAssertEqual(r.pops.reduce(0) { $0 + $1.prestageRequests }, p.requests, "per-PoP requests sum (seed \(seed))")
        XCTAssertEqual(r.pops.reduce(0) { $0 + $1.prestageHits }, p.hits, "per-PoP hits sum (seed \(seed))")
        XCTAssertEqual(r.series.prestageEdgeRequests.totalCount, p.requests, "per-second requests sum (seed \(seed))")
        XCTAssertEqual(r.series.prestageEdgeHits.totalCount, p.hits, "per-second hits sum (seed \(seed))")
        XCTAssertEqual(r.missesByRegion.reduce(0) { $0 + $1.perBin.reduce(0) { $0 + $1[1] } }, p.misses, "misses by region (seed \(seed))")
        for t in r.tiers where t.tier != .origin {
            XCTAssertEqual(t.requests, t.freshHits + t.staleHits + t.misses, "\(t.tier): requests = hits + misses (seed \(seed))")
        }
        let origin = try XCTUnwrap(r.tier(.origin))
        XCTAssertEqual(r.series.originRequests.totalCount, origin.requests, "per-second origin requests sum (seed \(seed))")
        XCTAssertEqual(r.series.origin503.totalCount, origin.rejected503, "per-second 503s sum (seed \(seed))")
        let edge = try XCTUnwrap(r.tier(.edge))
        XCTAssertGreaterThanOrEqual(edge.deviceRequests, p.requests, "pre-stage requests are device requests (seed \(seed))")
        // Taps either painted, failed, or were still in progress at the horizon.
        let taps = r.series.taps.totalCount
        let finished = r.series.paints.totalCount + UInt64(r.value("taps.paintFailed"))
        XCTAssertLessThanOrEqual(finished, taps, "seed \(seed)")
        XCTAssertEqual(r.tapToPaint.count, r.series.paints.totalCount, "seed \(seed)")
        XCTAssertEqual(r.tapToPaintByGroup.reduce(0) { $0 + $1.histogram.count }, r.tapToPaint.count, "groups partition taps (seed \(seed))")
    }

    /// Same inputs and seed → byte-identical encoded result; another replication differs.
    func testDeterminism() throws {
        let seed: UInt64 = 5
        let c = mixedWorld()
        let a = try encoded(simulate(c, seed: seed))
        let b = try encoded(simulate(c, seed: seed))
        XCTAssertEqual(a, b, "same seed must give identical results (seed \(seed))")
        let other = try encoded(simulate(c, seed: seed, replication: 1))
        XCTAssertNotEqual(a, other, "replication 1 must differ from replication 0 (seed \(seed))")
    }

    /// Two variants differing only in warm-ahead see the same devices, audience, open decisions
    /// and tap delays (common random numbers).
    func testCommonRandomNumbers() throws {
        let seed: UInt64 = 7
        var a = smallWorld(devices: 2_000)
        var b = a
        a.campaigns[0].warm = WarmConfig(mode: .none)
        b.campaigns[0].warm = WarmConfig(mode: .allPops, aheadSeconds: 300)
        let runSeed: UInt64 = 0x1234_5678
        let pa = try Population(config: a, runSeed: runSeed)
        let pb = try Population(config: b, runSeed: runSeed)
        var opened = 0
        for d in 0..<2_000 {
            let da = pa.device(DeviceID(d)), db = pb.device(DeviceID(d))
            XCTAssertEqual(da, db, "device \(d) attributes (seed \(seed))")
            let ua = pa.user(DeviceID(d), campaign: CampaignID(0), audienceShare: 0.7, isIOS: da.isIOS, segment: da.segment)
            let ub = pb.user(DeviceID(d), campaign: CampaignID(0), audienceShare: 0.7, isIOS: db.isIOS, segment: db.segment)
            XCTAssertEqual(ua, ub, "device \(d) user draws (seed \(seed))")
            if ua.opens { opened += 1 }
        }
        XCTAssertGreaterThan(opened, 0)
        // Whole runs: the same pushes are targeted and the same users tap.
        let ra = try simulate(a, seed: seed), rb = try simulate(b, seed: seed)
        XCTAssertEqual(ra.pushesTargeted, rb.pushesTargeted, "seed \(seed)")
        XCTAssertEqual(ra.value("taps.count"), rb.value("taps.count"), "seed \(seed)")
        // A different replication draws different devices.
        let pc = try Population(config: a, runSeed: runSeed &+ 1)
        XCTAssertNotEqual((0..<100).map { pa.device(DeviceID($0)).region }, (0..<100).map { pc.device(DeviceID($0)).region })
    }

    /// A tiny NSE budget: `serviceExtensionTimeWillExpire` reaches PreloadKit (expiry input),
    /// which delivers at once; no push completes.
    func testIOSDeadlineKillsCounted() throws {
        let seed: UInt64 = 3
        var c = smallWorld(devices: 1_500)
        c.population.iosShare = 1
        c.platforms.ios.serviceExtensionBudgetSeconds = 0.05
        c.platforms.ios.expiryWarningLeadSeconds = 0.01
        let r = try simulate(c, seed: seed)
        // A fetch needs 4 round trips (set-up + request) of ≥ ~10 ms each plus the transfer, so
        // none can finish within the 40 ms before the expiry warning.
        XCTAssertEqual(r.outcomes.completed, 0, "seed \(seed)")
        XCTAssertEqual(r.outcomes.partial, 0, "seed \(seed)")
        XCTAssertGreaterThan(r.outcomes.timedOutOrKilled, 0, "seed \(seed)")
        XCTAssertEqual(r.outcomes.timedOutOrKilled + r.outcomes.skippedByPolicy, r.pushesTargeted, "seed \(seed)")
        XCTAssertEqual(r.value("sessions.expiryWarnings"), Double(r.outcomes.timedOutOrKilled), "seed \(seed)")

        var normal = c
        normal.platforms.ios = IOSRulesConfig()
        let n = try simulate(normal, seed: seed)
        XCTAssertEqual(n.value("sessions.expiryWarnings"), 0, "seed \(seed)")
        XCTAssertGreaterThan(n.outcomes.completed, r.pushesTargeted / 2, "seed \(seed)")
    }

    /// A policy whose buffers exceed the extension's memory limit gets the NSE killed.
    func testMemoryLimitKills() throws {
        let seed: UInt64 = 4
        var c = smallWorld(devices: 1_000)
        c.population.iosShare = 1
        c.population.lowDataModeShare = 0
        c.population.saveDataShare = 0
        c.preloadPolicy.memoryBudgetBytes = 64 << 20
        c.preloadPolicy.fetchBufferBytes = 8 << 20
        let r = try simulate(c, seed: seed)
        // 16 MiB reserved + 2 × 8 MiB buffers = 32 MiB > 24 MiB: every session that starts both
        // fetches at once is killed; only sessions PreloadKit gated (nothing fetched) escape.
        let started = r.value("sessions.started")
        XCTAssertGreaterThan(started, 0, "seed \(seed)")
        XCTAssertEqual(r.value("sessions.killedByMemory"), started - Double(r.outcomes.skippedByPolicy), "seed \(seed)")
        XCTAssertEqual(Double(r.outcomes.timedOutOrKilled), r.value("sessions.killedByMemory"), "seed \(seed)")
        XCTAssertEqual(r.outcomes.completed, 0, "seed \(seed)")
        // The kill comes as the fetches start, so InfraModel cancels them before a byte
        // arrives: no pre-stage traffic at all, and the CDN's egress is the taps' alone.
        XCTAssertEqual(r.value("extension.fetchesStarted"), r.value("extension.fetchesCancelled"), "seed \(seed)")
        XCTAssertEqual(r.bytes.backgroundBytes, 0, "seed \(seed)")
        XCTAssertEqual(r.bytes.cdnEgressBytes, r.bytes.foregroundBytes, "seed \(seed)")
        let ok = try simulate(smallWorld(devices: 1_000), seed: seed)
        XCTAssertEqual(ok.value("sessions.killedByMemory"), 0, "seed \(seed)")
    }

    /// Android normal-priority pushes wait for the deep-Doze maintenance window; high priority
    /// does not; a TTL shorter than the wait expires them.
    func testDozeDeferral() throws {
        let seed: UInt64 = 9
        var c = smallWorld(devices: 1_500)
        c.horizonSeconds = 7_200
        c.infra.metricsHorizonSeconds = 7_200
        c.population.iosShare = 0
        c.population.doze = DozeSharesConfig()
        c.population.doze.awake = 0
        c.population.doze.lightDoze = 0
        c.population.doze.deepDoze = 1
        c.population.deepDozeElapsedMaxSeconds = 0  // every device entered deep Doze at t = 0
        c.campaigns[0].androidPriority = .normal
        c.campaigns[0].tokenLifetimeSeconds = 7_200  // signed URLs outlive the deferral
        let r = try simulate(c, seed: seed)
        // First maintenance window: t = 3 600 s (60 min idle); nothing is handled before it.
        for s in 0..<3_600 { XCTAssertEqual(r.series.deliveries[s], 0, "delivery at \(s) s before the window (seed \(seed))") }
        XCTAssertEqual(r.outcomes.deferredThenCompleted + r.outcomes.deferredThenExpired, r.pushesTargeted, "seed \(seed)")
        XCTAssertGreaterThan(r.outcomes.deferredThenCompleted, r.pushesTargeted / 2, "seed \(seed)")

        // With 15-minute tokens, the deferred fetch's signed URL has expired (403): not completed.
        var shortToken = c
        shortToken.campaigns[0].tokenLifetimeSeconds = 900
        let st = try simulate(shortToken, seed: seed)
        XCTAssertEqual(st.outcomes.deferredThenCompleted, 0, "seed \(seed)")
        XCTAssertGreaterThan(st.value("os.backgroundTokenExpired"), 0, "seed \(seed)")

        var ttl = c
        ttl.campaigns[0].messageTtlSeconds = 1_800
        let e = try simulate(ttl, seed: seed)
        XCTAssertEqual(e.outcomes.deferredThenExpired, e.pushesTargeted, "seed \(seed)")
        XCTAssertEqual(e.value("sessions.started"), 0, "seed \(seed)")

        var high = c
        high.campaigns[0].androidPriority = .high
        let h = try simulate(high, seed: seed)
        XCTAssertEqual(h.outcomes.deferredThenCompleted + h.outcomes.deferredThenExpired, 0, "seed \(seed)")
    }

    /// iOS silent pushes are not delivered to force-quit apps.
    func testForceQuitSilentPushesNotDelivered() throws {
        let seed: UInt64 = 13
        var c = smallWorld(devices: 1_000)
        c.population.iosShare = 1
        c.population.iosForceQuitShare = 1
        c.campaigns[0].iosPush = .silent
        let r = try simulate(c, seed: seed)
        XCTAssertEqual(r.outcomes.notDelivered, r.pushesTargeted, "seed \(seed)")
        XCTAssertEqual(r.value("sessions.started"), 0, "seed \(seed)")
        XCTAssertEqual(r.value("os.silentForceQuit"), Double(r.pushesTargeted), "seed \(seed)")

        c.population.iosForceQuitShare = 0
        let ok = try simulate(c, seed: seed)
        XCTAssertEqual(ok.outcomes.notDelivered, 0, "one silent push is within the budget (seed \(seed))")
    }

    /// Warming every PoP ahead of the send raises the pre-stage hit ratio and shortens downloads
    /// and (without pre-staging) tap-to-paint; with common random numbers every other draw is equal.
    func testWarmAheadImprovesHitRatioAndTapToPaint() throws {
        let seed: UInt64 = 21
        var cold = smallWorld(devices: 3_000)
        cold.infra.topology = TopologyConfig(popCount: 40, shieldCount: 4)
        var warm = cold
        warm.campaigns[0].warm = WarmConfig(mode: .allPops, aheadSeconds: 300)
        let rc = try simulate(cold, seed: seed), rw = try simulate(warm, seed: seed)
        XCTAssertLessThan(rc.value("edge.prestageHitRatio"), rw.value("edge.prestageHitRatio"), "seed \(seed)")
        // Warmed 5 min ahead with a 4 h max-age: every pre-stage request hits.
        XCTAssertEqual(rw.value("edge.prestageHitRatio"), 1, "seed \(seed)")
        XCTAssertLessThan(rw.value("extension.downloadMeanSeconds"), rc.value("extension.downloadMeanSeconds"), "seed \(seed)")

        var coldPlain = cold
        coldPlain.campaigns[0].preStage = false
        var warmPlain = warm
        warmPlain.campaigns[0].preStage = false
        let pc = try simulate(coldPlain, seed: seed), pw = try simulate(warmPlain, seed: seed)
        XCTAssertEqual(pc.tapToPaint.count, pw.tapToPaint.count, "same taps (seed \(seed))")
        XCTAssertLessThan(try XCTUnwrap(pw.tapToPaint.meanMicroseconds), try XCTUnwrap(pc.tapToPaint.meanMicroseconds), "seed \(seed)")
        // Pre-staging itself: most taps paint from the store.
        XCTAssertGreaterThan(rw.value("taps.instantShare"), 0.8, "seed \(seed)")
        XCTAssertEqual(pw.value("taps.instantShare"), 0, "seed \(seed)")
    }

    /// Campaigns in sequence share the device store: a small store evicts (LRU), a large one does not.
    func testStorageAcrossCampaigns() throws {
        let seed: UInt64 = 17
        var c = smallWorld(devices: 1_000)
        c.population.networkMix = NetworkMixConfig(wifi: 1, fiveG: 0, lte: 0, fourG: 0, threeG: 0, twoG: 0, slow2G: 0)
        c.population.lowDataModeShare = 0
        c.population.saveDataShare = 0
        var campaigns: [CampaignConfig] = []
        for i in 0..<3 {
            var k = CampaignConfig()
            k.name = "c\(i)"
            k.sendStartSeconds = 300 + 600 * Double(i)
            campaigns.append(k)
        }
        c.campaigns = campaigns
        c.preloadPolicy.storeCapacityBytes = 100_000  // two campaigns of 50 000 bytes fit, the third evicts
        let small = try simulate(c, seed: seed)
        XCTAssertGreaterThan(small.value("storage.evictedForSpace"), 0, "seed \(seed)")
        c.preloadPolicy.storeCapacityBytes = 25_000_000
        let large = try simulate(c, seed: seed)
        XCTAssertEqual(large.value("storage.evictedForSpace"), 0, "seed \(seed)")
    }

    /// Bytes: pushes nobody opens waste all their pre-stage bytes; cellular bytes are exactly the
    /// cellular devices' traffic.
    func testByteAccounting() throws {
        let seed: UInt64 = 19
        var c = smallWorld(devices: 1_000)
        c.population.networkMix = NetworkMixConfig(wifi: 0, fiveG: 0, lte: 1, fourG: 0, threeG: 0, twoG: 0, slow2G: 0)
        c.users.segments[0].iosOpenProbability = 0
        c.users.segments[0].androidOpenProbability = 0
        let none = try simulate(c, seed: seed)
        XCTAssertGreaterThan(none.bytes.backgroundBytes, 0, "seed \(seed)")
        XCTAssertEqual(none.bytes.neverOpenedBytes, none.bytes.backgroundBytes, "seed \(seed)")
        XCTAssertEqual(none.bytes.foregroundBytes, 0, "seed \(seed)")
        XCTAssertEqual(none.bytes.cellularBytes, none.bytes.backgroundBytes, "all devices on LTE (seed \(seed))")

        c.users.segments[0].iosOpenProbability = 1
        c.users.segments[0].androidOpenProbability = 1
        c.population.networkMix = NetworkMixConfig(wifi: 1, fiveG: 0, lte: 0, fourG: 0, threeG: 0, twoG: 0, slow2G: 0)
        let all = try simulate(c, seed: seed)
        XCTAssertEqual(all.bytes.neverOpenedBytes, 0, "seed \(seed)")
        XCTAssertEqual(all.bytes.cellularBytes, 0, "all devices on Wi-Fi (seed \(seed))")
        // CDN egress counts every device response: pre-stage plus foreground.
        XCTAssertEqual(all.bytes.cdnEgressBytes, all.bytes.backgroundBytes + all.bytes.foregroundBytes, "seed \(seed)")
    }

    /// Transfers cut by a timeout count the bytes that arrived, at the device and at the CDN
    /// alike. Every device is on one deterministic 80 kbit/s link (10 000 bytes/s, unshared)
    /// and PreloadKit's request timeout is 2 s, so the 48 200-byte image can never finish: no
    /// fetch can receive more than 2 s × 10 000 bytes/s = 20 000 bytes. (Counting a cut
    /// transfer's whole response, as before, gives (48 200 + 1 800) / 2 = 25 000 per fetch.)
    func testCutTransfersCountTheBytesReceived() throws {
        let seed: UInt64 = 23
        var c = smallWorld(devices: 1_000)
        c.population.networkMix = NetworkMixConfig(wifi: 0, fiveG: 0, lte: 1, fourG: 0, threeG: 0, twoG: 0, slow2G: 0)
        c.population.lowDataModeShare = 0
        c.population.saveDataShare = 0
        c.infra.networks[.lte] = NetworkProfile(rttSeconds: .constant(value: 0.05), downlinkBitsPerSecond: .constant(value: 80_000),
                                                failureProbability: 0, stallProbability: 0, sharedCapacityBitsPerSecond: 0)
        c.infra.placeholder.enabled = false
        c.preloadPolicy.requestTimeoutSeconds = 2
        let r = try simulate(c, seed: seed)
        let started = r.value("extension.fetchesStarted")
        XCTAssertGreaterThan(started, 0, "seed \(seed)")
        XCTAssertGreaterThan(r.value("extension.fetchTimeoutShare"), 0.4, "every image times out (seed \(seed))")
        XCTAssertGreaterThan(r.bytes.backgroundBytes, 0, "seed \(seed)")
        XCTAssertLessThanOrEqual(Double(r.bytes.backgroundBytes), started * 20_000, "seed \(seed)")
        XCTAssertEqual(r.bytes.cdnEgressBytes, r.bytes.backgroundBytes + r.bytes.foregroundBytes, "seed \(seed)")
        XCTAssertEqual(r.bytes.cellularBytes, r.bytes.backgroundBytes + r.bytes.foregroundBytes, "all devices on LTE (seed \(seed))")
    }

    /// A creative swap purges the campaign's objects by surrogate key and re-warms them: early
    /// enough, every pre-stage request still hits; seconds before the send, the first requests
    /// find purged caches.
    func testCreativeSwapPurgesByKey() throws {
        let seed: UInt64 = 23
        var c = smallWorld(devices: 2_000)
        c.campaigns[0].warm = WarmConfig(mode: .allPops, aheadSeconds: 300)
        c.campaigns[0].creativeSwap = CreativeSwapConfig(secondsBeforeSend: 120, rewarmDelaySeconds: 5)
        let early = try simulate(c, seed: seed)
        XCTAssertEqual(early.value("campaigns.creativeSwaps"), 1, "seed \(seed)")
        XCTAssertEqual(early.value("edge.prestageHitRatio"), 1, "re-warmed long before the send (seed \(seed))")
        c.campaigns[0].creativeSwap = CreativeSwapConfig(secondsBeforeSend: 1, rewarmDelaySeconds: 30)
        let late = try simulate(c, seed: seed)
        XCTAssertLessThan(late.value("edge.prestageHitRatio"), 1, "purged 1 s before the send, re-warmed 29 s after (seed \(seed))")
    }
}
