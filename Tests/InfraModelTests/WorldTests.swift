import Foundation
import XCTest
import SimKernel
import Stochastic
@testable import InfraModel

final class WorldTests: XCTestCase {
    private func world(_ config: InfraConfig, objects: Int = 1, policy: CachePolicy = CachePolicy(),
                       surrogateKey: UInt32? = nil, bytes: Int64 = 50_000, seed: UInt64 = 1) throws -> Driver {
        var catalog = ObjectCatalog()
        for _ in 0..<objects { try catalog.add(bytes: bytes, policy: policy, surrogateKey: surrogateKey) }
        return Driver(world: try InfraWorld(config: config, catalog: catalog, masterSeed: seed))
    }

    private func outcomes(_ d: Driver) -> [FetchOutcome] { d.resultOfRequest.map { d.results[$0].outcome } }

    /// N concurrent cold misses: one upstream request with collapsing, N without, at each tier.
    func testRequestCollapsing() throws {
        let n = 25
        for (collapsing, tiering) in [(true, true), (false, true), (true, false), (false, false)] {
            var config = deterministicConfig(hopSeconds: 0.02, originSeconds: 0.4)
            config.tiers.requestCollapsingEnabled = collapsing
            config.tiers.tieringEnabled = tiering
            var d = try world(config)
            var k = Kernel()
            for i in 0..<n { try d.add(request(object: 0, entity: UInt64(i)), at: .milliseconds(Int64(i)), kernel: &k) }
            _ = try k.run(&d)
            let label = "collapsing \(collapsing) tiering \(tiering)"
            XCTAssertEqual(d.world.counters[0].upstreamFetches, collapsing ? 1 : UInt64(n), label)
            XCTAssertEqual(d.world.counters[0].collapsed, collapsing ? UInt64(n - 1) : 0, label)
            XCTAssertEqual(d.world.originCounters.requests, collapsing ? 1 : UInt64(n), label)
            let o = outcomes(d)
            XCTAssertEqual(o.filter { $0 == .miss }.count, collapsing ? 1 : n, label)
            XCTAssertEqual(o.filter { $0 == .collapsed }.count, collapsing ? n - 1 : 0, label)
            XCTAssertTrue(d.results.allSatisfy { $0.servedBy == .origin }, label)
            assertConservation(d.world)
        }
    }

    /// After a purge's propagation delay every PoP misses; before it, they still hit.
    func testPurgePropagatesToAllPops() throws {
        let pops = 5
        var config = deterministicConfig(pops: pops, shields: 2, hopSeconds: 0.01, originSeconds: 0.1)
        config.purgePropagationSeconds = .constant(value: 0.150)
        var d = PurgeDriver(inner: try world(config, surrogateKey: 0))
        var k = Kernel()
        for p in 0..<pops { try d.inner.add(request(object: 0, region: UInt32(p), entity: UInt64(p)), at: .zero, kernel: &k) }
        try k.schedule(at: .seconds(10), kind: PurgeDriver.purgeKind, target: 0)
        for p in 0..<pops { try d.inner.add(request(object: 0, region: UInt32(p), entity: UInt64(100 + p)), at: .seconds(10.1), kernel: &k) }
        for p in 0..<pops { try d.inner.add(request(object: 0, region: UInt32(p), entity: UInt64(200 + p)), at: .seconds(10.2), kernel: &k) }
        _ = try k.run(&d)
        let o = outcomes(d.inner)
        XCTAssertEqual(Array(o[pops..<2 * pops]), [FetchOutcome](repeating: .edgeFreshHit, count: pops), "before the delay: hits")
        XCTAssertEqual(Array(o[2 * pops..<3 * pops]), [FetchOutcome](repeating: .miss, count: pops), "after the delay: every PoP misses")
        // The shields were purged too: the refetch goes to the origin (once per shield).
        XCTAssertEqual(d.inner.world.originCounters.requests, 2 + 2)
        assertConservation(d.inner.world)
    }

    /// A warmed PoP hits on the first device request; top-k warms only the largest audiences;
    /// shield-only warming makes the first request a shield hit.
    func testWarming() throws {
        var config = deterministicConfig(pops: 4, shields: 1, rttSeconds: 0.05, hopSeconds: 0.02, originSeconds: 0.4)
        config.topology.regions = [RegionConfig(popIndex: 0, pathRttSeconds: 0, audienceWeight: 1),
                                   RegionConfig(popIndex: 1, pathRttSeconds: 0, audienceWeight: 5),
                                   RegionConfig(popIndex: 2, pathRttSeconds: 0, audienceWeight: 3),
                                   RegionConfig(popIndex: 3, pathRttSeconds: 0, audienceWeight: 0.5)]
        for (target, expectHit) in [(WarmTarget.allPops, [true, true, true, true]), (.topPops(2), [false, true, true, false]),
                                    (.shieldsOnly, [false, false, false, false])] {
            var d = try world(config)
            var k = Kernel()
            try d.world.warm(objects: [0], at: .seconds(1), target: target, kernel: &k)
            for p in 0..<4 { try d.add(request(object: 0, region: UInt32(p), entity: UInt64(p)), at: .seconds(600), kernel: &k) }
            _ = try k.run(&d)
            let o = outcomes(d)
            XCTAssertEqual(o.map { $0 == .edgeFreshHit }, expectHit, "\(target)")
            if target == .shieldsOnly { XCTAssertTrue(d.results.allSatisfy { $0.servedBy == .shield }, "\(target)") }
            XCTAssertEqual(d.world.originCounters.requests, 1, "\(target): one origin fetch via the shield")
            XCTAssertEqual(d.world.popsByAudience, [1, 2, 0, 3])
            // A hit costs RTT (no set-up in this config): 0.05 s.
            for r in d.results where r.outcome == .edgeFreshHit { XCTAssertEqual(r.durationSeconds, 0.05, accuracy: 1e-5) }
            assertConservation(d.world)
        }
    }

    /// With the signed token in the cache key every device misses; stripped, only the first.
    func testCacheKeyPolicy() throws {
        for includeToken in [false, true] {
            var config = deterministicConfig(hopSeconds: 0.01, originSeconds: 0.1)
            config.cacheKeyIncludesSignedToken = includeToken
            var d = try world(config)
            var k = Kernel()
            for i in 0..<10 {
                var r = request(object: 0, entity: UInt64(i))
                r.signedToken = UInt32(1_000 + i)
                try d.add(r, at: .seconds(Double(i)), kernel: &k)
            }
            _ = try k.run(&d)
            let misses = outcomes(d).filter { $0 == .miss }.count
            XCTAssertEqual(misses, includeToken ? 10 : 1, "includeToken \(includeToken)")
            assertConservation(d.world)
        }
    }

    /// Origin queue full → 503, unless a copy within stale-if-error exists.
    func testOrigin503AndStaleIfError() throws {
        var config = deterministicConfig(originSeconds: 0.1, originServiceSeconds: 1)
        config.tiers.tieringEnabled = false
        config.tiers.requestCollapsingEnabled = false
        config.origin = OriginConfig(workers: 1, serviceSeconds: .constant(value: 1), queueMax: 1)
        var d = try world(config, objects: 4, policy: CachePolicy(maxAgeSeconds: 5, staleWhileRevalidateSeconds: 0, staleIfErrorSeconds: 100))
        var k = Kernel()
        // Object 3 cached at t≈1.1, expired at t≈6.1.
        try d.add(request(object: 3, entity: 99), at: .zero, kernel: &k)
        // At t=20: 3 concurrent misses of objects 0..2 fill worker + queue, then object 3's refetch is rejected.
        for o in 0..<3 { try d.add(request(object: UInt32(o), entity: UInt64(o)), at: .seconds(20), kernel: &k) }
        try d.add(request(object: 3, entity: 98), at: .seconds(20.001), kernel: &k)
        _ = try k.run(&d)
        XCTAssertEqual(outcomes(d), [.miss, .miss, .miss, .origin503, .staleIfError])
        XCTAssertEqual(d.world.originCounters.rejected503, 2)
        XCTAssertEqual(d.world.timeSeries.origin503[20], 2)
        XCTAssertEqual(d.world.counters[0].staleIfErrorServed, 1)
        assertConservation(d.world)
    }

    /// Save-Data and slow connections get the placeholder; others the asset.
    func testPlaceholderPolicy() throws {
        var config = InfraConfig()
        config.topology = TopologyConfig(popCount: 1, shieldCount: 1)
        config.placeholder = PlaceholderPolicy(enabled: true, placeholderBytes: 30_000)
        for c in NetworkClass.allCases {
            config.networks[c].failureProbability = 0
            config.networks[c].stallProbability = 0
        }
        config.networks[.twoG].rttSeconds = .constant(value: 1.5) // ECT 2g by RTT
        var d = try world(config, bytes: 700_000)
        var k = Kernel()
        try d.add(request(object: 0, network: .wifi, entity: 1), at: .zero, kernel: &k)
        var saver = request(object: 0, network: .wifi, entity: 2)
        saver.saveData = true
        try d.add(saver, at: .zero, kernel: &k)
        try d.add(request(object: 0, network: .twoG, entity: 3, timeout: .seconds(120)), at: .zero, kernel: &k)
        _ = try k.run(&d)
        let r = d.resultOfRequest.map { d.results[$0] }
        XCTAssertEqual(r.map(\.outcome), [.miss, .placeholder, .placeholder])
        XCTAssertEqual(r.map(\.bytes), [700_000, 30_000, 30_000])
        XCTAssertEqual(r[2].effectiveConnectionType, .twoG)
    }

    /// Stalled transfers end by timeout; network failures end after set-up; the timeout reply
    /// comes exactly at start + timeout.
    func testTimeoutsAndFailures() throws {
        var config = deterministicConfig(rttSeconds: 0.1)
        config.networks[.threeG].stallProbability = 1
        config.networks[.twoG].failureProbability = 1
        config.connectionSetup = ConnectionSetupConfig()
        var d = try world(config)
        var k = Kernel()
        try d.add(request(object: 0, network: .threeG, entity: 1, timeout: .seconds(8)), at: .seconds(1), kernel: &k)
        try d.add(request(object: 0, network: .twoG, entity: 2), at: .seconds(1), kernel: &k)
        _ = try k.run(&d)
        let r = d.resultOfRequest.map { d.results[$0] }
        XCTAssertEqual(r.map(\.outcome), [.timeout, .networkFailure])
        XCTAssertEqual(r[0].endTime, .seconds(9))
        XCTAssertEqual(r[0].bytes, 0, "a stalled transfer delivers nothing")
        XCTAssertEqual(d.world.tierCounters(.edge).bytesServed, 0)
        XCTAssertEqual(r[1].durationSeconds, 0.3, accuracy: 1e-5, "DNS + TCP + TLS 1.3 = 3 RTT")
        XCTAssertEqual(d.world.requestsInFlight, 0)
        XCTAssertEqual(d.world.fetchesInFlight, 0)
    }

    /// Taps in one region share the region's bottleneck: under overload the link is
    /// work-conserving, so the last transfer ends when all bits have crossed at capacity C
    /// (first response start + total bits / C), and transfers are far slower than alone.
    func testCongestionSharesRegionCapacity() throws {
        var config = deterministicConfig(rttSeconds: 0.07)
        let capacity = 30e6
        config.networks[.lte] = NetworkProfile(rttSeconds: .constant(value: 0.07), downlinkBitsPerSecond: .constant(value: 12e6),
                                               failureProbability: 0, stallProbability: 0, sharedCapacityBitsPerSecond: capacity)
        let bytes: Int64 = 700_000
        let taps = 2_000
        var d = try world(config, bytes: bytes)
        var k = Kernel()
        try d.world.warm(objects: [0], at: .zero, target: .allPops, kernel: &k)
        let gaps = try Sampler(.uniform(lower: 0, upper: 60))
        let rng = RandomStream(masterSeed: 5, entity: 0, purpose: StreamPurpose("test.taps"))
        for i in 0..<taps {
            try d.add(request(object: 0, entity: UInt64(i), timeout: .seconds(600)), at: .seconds(10 + gaps.sample(rng)), kernel: &k)
        }
        _ = try k.run(&d)
        XCTAssertTrue(d.results.allSatisfy { $0.outcome == .edgeFreshHit })
        let firstStart = d.results.map(\.firstByteTime).min()!.seconds
        let lastEnd = d.results.map(\.endTime).max()!.seconds
        let expected = firstStart + Double(taps) * Double(bytes) * 8 / capacity
        // Work conservation holds if the link never idles; demand (187 Mbit/s) is 6× capacity.
        XCTAssertEqual(lastEnd, expected, accuracy: 0.001 * expected)
        let alone = 0.07 + Double(bytes) * 8 / 12e6
        let mean = d.results.reduce(0) { $0 + $1.durationSeconds } / Double(taps)
        XCTAssertGreaterThan(mean, 20 * alone, "congestion must slow transfers down")
    }

    /// A random busy scenario: conservation at every node and tier, exactly one reply per
    /// request, nothing left in flight, and byte-identical results for the same seed.
    func testConservationAndDeterminism() throws {
        func run(seed: UInt64) throws -> [FetchResult] {
            var config = InfraConfig()
            config.topology = TopologyConfig(popCount: 6, shieldCount: 2)
            config.origin = OriginConfig(workers: 1, serviceSeconds: .exponential(mean: 0.2), queueMax: 3)
            config.edgeCache = CacheConfig(capacityBytes: 400_000)
            var catalog = ObjectCatalog()
            for o in 0..<100 {
                try catalog.add(bytes: Int64(20_000 + o * 5_000),
                                policy: CachePolicy(maxAgeSeconds: Double(5 + o), staleWhileRevalidateSeconds: Double(o % 3) * 5,
                                                    staleIfErrorSeconds: Double(o % 2) * 30),
                                surrogateKey: UInt32(o % 4))
            }
            var d = Driver(world: try InfraWorld(config: config, catalog: catalog, masterSeed: seed))
            var k = Kernel()
            try d.world.warm(objects: [0, 1, 2], at: .seconds(1), target: .topPops(3), kernel: &k)
            let rng = RandomStream(masterSeed: seed, entity: 0, purpose: StreamPurpose("test.mix"))
            for i in 0..<3_000 {
                let cls = NetworkClass(rawValue: UInt8(rng.uniformInt(below: 7)))!
                var r = request(object: UInt32(rng.uniformInt(below: 100)), region: UInt32(rng.uniformInt(below: 6)),
                                network: cls, entity: UInt64(i), timeout: .seconds(10))
                r.connectionWarm = rng.bernoulli(0.3)
                try d.add(r, at: .seconds(rng.uniform() * 30), kernel: &k)
            }
            _ = try k.run(&d)
            XCTAssertFalse(d.resultOfRequest.contains(-1), "seed \(seed): a request got no reply")
            XCTAssertEqual(d.world.requestsInFlight, 0, "seed \(seed)")
            XCTAssertEqual(d.world.fetchesInFlight, 0, "seed \(seed)")
            assertConservation(d.world)
            let edge = d.world.tierCounters(.edge)
            let o = d.results.map(\.outcome)
            // Every reply other than a failure or a timeout went through an edge lookup.
            let looked = o.filter { $0 != .networkFailure && $0 != .timeout }.count
            XCTAssertGreaterThanOrEqual(edge.deviceRequests, UInt64(looked), "seed \(seed)")
            XCTAssertLessThanOrEqual(edge.deviceRequests, 3_000, "seed \(seed)")
            XCTAssertGreaterThan(o.filter { $0 == .origin503 || $0 == .staleIfError }.count, 0, "seed \(seed): scenario should overload the origin")
            return d.resultOfRequest.map { d.results[$0] }
        }
        let a = try run(seed: 1234)
        let b = try run(seed: 1234)
        XCTAssertEqual(a, b, "same seed must give identical results")
        XCTAssertNotEqual(a, try run(seed: 1235))
    }

    /// Device-side draws are keyed by the request entity: a request sees the same RTT whatever
    /// else happens in the world (common random numbers across variants).
    func testCommonRandomNumbersPerEntity() throws {
        func duration(extraTraffic: Bool) throws -> Double {
            var config = InfraConfig()
            config.topology = TopologyConfig(popCount: 2, shieldCount: 1)
            for c in NetworkClass.allCases { config.networks[c].failureProbability = 0; config.networks[c].stallProbability = 0 }
            var d = try world(config)
            var k = Kernel()
            try d.world.warm(objects: [0], at: .zero, target: .allPops, kernel: &k)
            if extraTraffic {
                for i in 0..<50 { try d.add(request(object: 0, region: 1, entity: UInt64(1_000 + i)), at: .seconds(30), kernel: &k) }
            }
            try d.add(request(object: 0, region: 0, entity: 7), at: .seconds(60), kernel: &k)
            _ = try k.run(&d)
            return d.results[d.resultOfRequest.last!].durationSeconds
        }
        XCTAssertEqual(try duration(extraTraffic: false), try duration(extraTraffic: true))
    }

    func testTimeSeriesAndTierCounters() throws {
        var config = deterministicConfig(hopSeconds: 0.01, originSeconds: 0.1)
        config.metricsHorizonSeconds = 10
        var d = try world(config, bytes: 1_000)
        var k = Kernel()
        for i in 0..<5 { try d.add(request(object: 0, entity: UInt64(i)), at: .seconds(2.5 + Double(i)), kernel: &k) }
        try d.add(request(object: 0, entity: 9), at: .seconds(12), kernel: &k)
        _ = try k.run(&d)
        let ts = d.world.timeSeries
        XCTAssertEqual(Array(ts.edgeRequests[2...6]), [1, 1, 1, 1, 1])
        XCTAssertEqual(ts.edgeHitRatio(second: 2), 0)
        XCTAssertEqual(ts.edgeHitRatio(second: 3), 1)
        XCTAssertNil(ts.edgeHitRatio(second: 0))
        XCTAssertEqual(ts.originRequests[2], 1)
        XCTAssertEqual(ts.originBytes[2], 1_000)
        XCTAssertEqual(ts.shieldBytes[2], 1_000)
        XCTAssertEqual(ts.edgeBytes.reduce(0, +), 5_000)
        XCTAssertGreaterThan(ts.overflowEvents, 0, "activity after the horizon is counted")
        XCTAssertEqual(d.world.tierCounters(.edge).deviceRequests, 6)
        XCTAssertEqual(d.world.tierCounters(.edge).deviceHits, 5)
    }

    func testRequestErrors() throws {
        var d = try world(deterministicConfig())
        var k = Kernel()
        XCTAssertThrowsError(try d.world.fetch(request(object: 5, entity: 0), kernel: &k)) {
            XCTAssertEqual($0 as? InfraError, .unknownObject(5))
        }
        XCTAssertThrowsError(try d.world.fetch(request(object: 0, region: 3, entity: 0), kernel: &k)) {
            XCTAssertEqual($0 as? InfraError, .unknownRegion(3))
        }
        XCTAssertThrowsError(try d.world.fetch(request(object: 0, entity: 0, timeout: .zero), kernel: &k)) {
            XCTAssertEqual($0 as? InfraError, .invalidTimeout(.zero))
        }
        XCTAssertThrowsError(try d.world.handle(Event(time: .zero, kind: EventKind(0x01FF), target: 0), in: &k))
        var config = deterministicConfig()
        config.requestsInFlightMax = 2
        var small = try world(config)
        _ = try small.world.fetch(request(object: 0, entity: 0), kernel: &k)
        _ = try small.world.fetch(request(object: 0, entity: 1), kernel: &k)
        XCTAssertThrowsError(try small.world.fetch(request(object: 0, entity: 2), kernel: &k)) {
            XCTAssertEqual($0 as? InfraError, .requestsInFlightLimit(2))
        }
    }

    /// A flow cut short leaves the shared link at once, by its timeout or by a cancel alike: the
    /// remaining flow speeds up. C = 1000 bit/s, two 3000-bit hits at t = 10 s; A ends 1 s after
    /// start having received 500 bits; B then has 2500 bits left at full rate → ends at 10 + 3.5 s.
    /// A cancelled request gets no reply, and its pending 30 s timeout goes with it.
    func testFlowCutShortReleasesCapacity() throws {
        for cancelled in [false, true] {
            let label = cancelled ? "cancelled" : "timed out"
            var config = deterministicConfig()
            config.networks[.lte].sharedCapacityBitsPerSecond = 1_000
            var d = try world(config, bytes: 375)
            var k = Kernel()
            try d.world.warm(objects: [0], at: .zero, target: .allPops, kernel: &k)
            try d.add(request(object: 0, entity: 1, timeout: .seconds(cancelled ? 30 : 1)), at: .seconds(10), kernel: &k)
            try d.add(request(object: 0, entity: 2), at: .seconds(10), kernel: &k)
            if cancelled { try d.cancel(0, at: .seconds(11), kernel: &k) }
            _ = try k.run(&d)
            let r = d.resultOfRequest.map { d.results[$0] }
            XCTAssertEqual(r.map(\.outcome), [cancelled ? .cancelled : .timeout, .edgeFreshHit], label)
            XCTAssertEqual(r[0].firstByteTime, .seconds(10), label)
            XCTAssertEqual(r[0].endTime, .seconds(11), label)
            XCTAssertEqual(r[1].endTime.seconds, 13.5, accuracy: 2e-6, label)
            XCTAssertEqual(d.world.activeFlows(region: RegionID(rawValue: 0), networkClass: .lte), 0, label)
            // A received 500 bits = 62.5 bytes (whole bytes: 62); the edge's egress counts what
            // reached the devices, not the 375 bytes A's response would have been.
            XCTAssertEqual(r.map(\.bytes), [62, 375], label)
            XCTAssertEqual(d.world.tierCounters(.edge).bytesServed, 62 + 375, label)
            XCTAssertEqual(d.cancelsTooLate, [], label)
            XCTAssertEqual(k.now, .seconds(13.5), "\(label): nothing pending after B, A's timeout included")
            XCTAssertEqual(d.world.requestsInFlight, 0, label)
        }
    }

    /// Cancelled while the PoP waits on the origin: the device got nothing, but the upstream
    /// fetch carries on and fills the cache (a CDN finishes a fill whose client went away), so
    /// a later request hits.
    func testCancelBeforeFirstByteLeavesTheFillRunning() throws {
        var d = try world(deterministicConfig(originSeconds: 0.4))
        var k = Kernel()
        try d.add(request(object: 0, entity: 1), at: .zero, kernel: &k)
        try d.cancel(0, at: .milliseconds(100), kernel: &k)
        try d.add(request(object: 0, entity: 2), at: .seconds(1), kernel: &k)
        _ = try k.run(&d)
        let r = d.resultOfRequest.map { d.results[$0] }
        XCTAssertEqual(r.map(\.outcome), [.cancelled, .edgeFreshHit])
        XCTAssertEqual(r.map(\.bytes), [0, 50_000])
        XCTAssertEqual(r[0].endTime, .milliseconds(100))
        XCTAssertEqual(r[0].firstByteTime, .milliseconds(100))
        XCTAssertEqual(d.world.originCounters.served, 1)
        XCTAssertEqual(d.world.tierCounters(.edge).bytesServed, 50_000)
        XCTAssertEqual(d.world.requestsInFlight, 0)
        XCTAssertEqual(d.world.fetchesInFlight, 0)
        assertConservation(d.world)
    }

    /// A cancel that finds the reply already scheduled changes nothing and returns nil: the
    /// reply still comes, exactly once. (A network failure with no set-up round trips replies
    /// at its start; the cancel event at the same instant runs before the reply it scheduled.)
    func testCancelAfterTheReplyIsScheduledIsTooLate() throws {
        var config = deterministicConfig()
        config.networks[.twoG].failureProbability = 1
        var d = try world(config)
        var k = Kernel()
        try d.add(request(object: 0, network: .twoG, entity: 1), at: .seconds(1), kernel: &k)
        try d.cancel(0, at: .seconds(1), kernel: &k)
        _ = try k.run(&d)
        XCTAssertEqual(d.cancelsTooLate, [0])
        XCTAssertEqual(outcomes(d), [.networkFailure])
        XCTAssertEqual(d.world.requestsInFlight, 0)
    }

    /// Without a shared link a cut transfer has received downlink × time since its first byte:
    /// 8 000 bit/s for 4 s (timeout) = 4 000 bytes, for 2.5 s (cancel) = 2 500 bytes, of a
    /// 10 000-byte response (10 s at that rate).
    func testCutTransferAtTheDownlinkRate() throws {
        var config = deterministicConfig()
        config.networks[.lte].downlinkBitsPerSecond = .constant(value: 8_000)
        var d = try world(config, bytes: 10_000)
        var k = Kernel()
        try d.world.warm(objects: [0], at: .zero, target: .allPops, kernel: &k)
        try d.add(request(object: 0, entity: 1, timeout: .seconds(4)), at: .seconds(10), kernel: &k)
        try d.add(request(object: 0, entity: 2), at: .seconds(10), kernel: &k)
        try d.cancel(1, at: .seconds(12.5), kernel: &k)
        try d.add(request(object: 0, entity: 3), at: .seconds(10), kernel: &k)
        _ = try k.run(&d)
        let r = d.resultOfRequest.map { d.results[$0] }
        XCTAssertEqual(r.map(\.outcome), [.timeout, .cancelled, .edgeFreshHit])
        XCTAssertEqual(r.map(\.bytes), [4_000, 2_500, 10_000])
        XCTAssertEqual(r[2].endTime, .seconds(20))
        XCTAssertEqual(d.world.tierCounters(.edge).bytesServed, 4_000 + 2_500 + 10_000)
        XCTAssertEqual(d.world.requestsInFlight, 0)
    }

    /// Per-PoP overrides: edge processing and upstream latency of one PoP.
    func testPerPopOverrides() throws {
        var config = deterministicConfig(pops: 2, shields: 1, rttSeconds: 0.05, hopSeconds: 0.02, originSeconds: 0.4)
        config.topology.popOverrides = [PopOverride(popIndex: 1, edgeProcessingSeconds: .constant(value: 0.03),
                                                    upstreamSeconds: .constant(value: 0.2))]
        var d = try world(config)
        var k = Kernel()
        try d.add(request(object: 0, region: 0, entity: 1), at: .zero, kernel: &k)   // miss via shield to origin
        try d.add(request(object: 0, region: 1, entity: 2), at: .seconds(5), kernel: &k) // PoP 1 miss, shield hit
        try d.add(request(object: 0, region: 1, entity: 3), at: .seconds(10), kernel: &k) // PoP 1 hit
        _ = try k.run(&d)
        let r = d.resultOfRequest.map { d.results[$0] }
        XCTAssertEqual(r.map(\.outcome), [.miss, .miss, .edgeFreshHit])
        XCTAssertEqual(r[0].durationSeconds, 0.05 + 0.02 + 0.4, accuracy: 1e-5)
        XCTAssertEqual(r[1].servedBy, .shield)
        XCTAssertEqual(r[1].durationSeconds, 0.05 + 0.2 + 0.03, accuracy: 1e-5)
        XCTAssertEqual(r[2].durationSeconds, 0.05 + 0.03, accuracy: 1e-5)
        assertConservation(d.world)
    }

    /// Extreme (but valid) user distributions are clamped instead of overflowing the clock:
    /// a 1e12-second origin hop becomes 1e6 s, so the request times out.
    func testExtremeDistributionsDoNotTrap() throws {
        var config = deterministicConfig(originSeconds: 1e12)
        config.networks[.lte].rttSeconds = .pareto(alpha: 0.5, scale: 1e9)
        var d = try world(config)
        var k = Kernel()
        try d.add(request(object: 0, entity: 1, timeout: .seconds(600)), at: .zero, kernel: &k)
        _ = try k.run(&d)
        XCTAssertEqual(d.results.map(\.outcome), [.timeout])
        XCTAssertEqual(d.results[0].endTime, .seconds(600))
    }

    /// Concurrent misses from different PoPs collapse at their shared shield: one origin
    /// request with collapsing, one per PoP without.
    func testCollapsingAtShield() throws {
        for collapsing in [true, false] {
            var config = deterministicConfig(pops: 4, shields: 1, hopSeconds: 0.02, originSeconds: 0.4)
            config.tiers.requestCollapsingEnabled = collapsing
            var d = try world(config)
            var k = Kernel()
            for p in 0..<4 { try d.add(request(object: 0, region: UInt32(p), entity: UInt64(p)), at: .milliseconds(Int64(p)), kernel: &k) }
            _ = try k.run(&d)
            let shield = d.world.counters[4]
            XCTAssertEqual(shield.requests, 4, "collapsing \(collapsing)")
            XCTAssertEqual(shield.collapsed, collapsing ? 3 : 0, "collapsing \(collapsing)")
            XCTAssertEqual(d.world.originCounters.requests, collapsing ? 1 : 4, "collapsing \(collapsing)")
            XCTAssertEqual(outcomes(d), [FetchOutcome](repeating: .miss, count: 4), "each PoP fetched for itself")
            assertConservation(d.world)
        }
    }
}
