import Foundation
import XCTest
import SimKernel
import Stochastic
@testable import InfraModel

/// Freshness (TTL, stale-while-revalidate) and background pressure, validated against renewal
/// theory and Che's approximation through the whole world (device → PoP → origin).
final class CacheSemanticsTests: XCTestCase {
    /// One PoP straight to a zero-latency origin: every fetch completes in the tick it starts.
    func runPoisson(policy: CachePolicy, lambda: Double, requests: Int, seed: UInt64) throws -> [FetchOutcome] {
        var config = deterministicConfig()
        config.tiers.tieringEnabled = false
        var catalog = ObjectCatalog()
        try catalog.add(bytes: 1_000, policy: policy)
        var d = Driver(world: try InfraWorld(config: config, catalog: catalog, masterSeed: seed))
        var k = Kernel()
        let gaps = try Sampler(.exponential(mean: 1 / lambda))
        let rng = RandomStream(masterSeed: seed, entity: 0, purpose: StreamPurpose("test.arrivals"))
        var t = 0.0
        for i in 0..<requests {
            t += gaps.sample(rng)
            try d.add(request(object: 0, entity: UInt64(i)), at: .seconds(t), kernel: &k)
        }
        _ = try k.run(&d)
        assertConservation(d.world)
        return d.resultOfRequest.map { d.results[$0].outcome }
    }

    /// Non-reset TTL T under Poisson(λ) requests. Renewal argument: a cycle starts with a miss
    /// (the object is fetched, instantly here), is followed by the hits in the next T (Poisson,
    /// mean λT), then ends with the next request after expiry (a miss, by memorylessness after
    /// an Exp wait). Hit ratio h = λT/(1 + λT). λ = 1/s, T = 2 s → 2/3.
    /// Bound: 99.9% batch means over 40 batches of 500 requests (cycles span ~3 requests).
    func testTTLHitRatioMatchesRenewalTheory() throws {
        let seed: UInt64 = 11
        let lambda = 1.0, ttl = 2.0
        let outcomes = try runPoisson(policy: CachePolicy(maxAgeSeconds: ttl, staleWhileRevalidateSeconds: 0),
                                      lambda: lambda, requests: 20_000, seed: seed)
        XCTAssertFalse(outcomes.contains(.edgeStaleHit), "seed \(seed): no SWR window configured")
        let expected = lambda * ttl / (1 + lambda * ttl)
        let bm = batchMeans(outcomes.map { $0 == .edgeFreshHit ? 1 : 0 }, batches: 40)
        XCTAssertLessThanOrEqual(abs(bm.mean - expected), bm.halfWidth, "seed \(seed): \(bm.mean) ± \(bm.halfWidth) vs \(expected)")
    }

    /// TTL T plus a stale-while-revalidate window W (RFC 5861), zero-latency revalidation.
    /// Renewal argument: a cycle starts when the copy is (re)fetched; the λT expected requests
    /// within T are fresh hits; the first request after T arrives within the window with
    /// probability q = 1 − e^{−λW} (memoryless wait) and is then a stale hit that revalidates
    /// (starting the next cycle), otherwise it is a miss (also starting the next cycle). So
    /// per cycle: λT fresh, q stale, 1 − q misses out of 1 + λT requests:
    ///   fresh = λT/(1+λT), stale = (1 − e^{−λW})/(1+λT), miss = e^{−λW}/(1+λT).
    /// λ = 1/s, T = 2 s, W = 1 s. Bound: 99.9% batch means (40 × 500).
    func testStaleWhileRevalidateShareMatchesRenewalTheory() throws {
        let seed: UInt64 = 12
        let lambda = 1.0, ttl = 2.0, window = 1.0
        let outcomes = try runPoisson(policy: CachePolicy(maxAgeSeconds: ttl, staleWhileRevalidateSeconds: window),
                                      lambda: lambda, requests: 20_000, seed: seed)
        let q = 1 - exp(-lambda * window)
        let expectedFresh = lambda * ttl / (1 + lambda * ttl)
        let expectedStale = q / (1 + lambda * ttl)
        let fresh = batchMeans(outcomes.map { $0 == .edgeFreshHit ? 1 : 0 }, batches: 40)
        let stale = batchMeans(outcomes.map { $0 == .edgeStaleHit ? 1 : 0 }, batches: 40)
        XCTAssertLessThanOrEqual(abs(fresh.mean - expectedFresh), fresh.halfWidth,
                                 "seed \(seed): fresh \(fresh.mean) ± \(fresh.halfWidth) vs \(expectedFresh)")
        XCTAssertLessThanOrEqual(abs(stale.mean - expectedStale), stale.halfWidth,
                                 "seed \(seed): stale \(stale.mean) ± \(stale.halfWidth) vs \(expectedStale)")
    }

    /// Stale hits are served at once while the revalidation runs in the background.
    func testStaleHitDoesNotWaitForRevalidation() throws {
        var config = deterministicConfig(originSeconds: 0.5)
        config.tiers.tieringEnabled = false
        var catalog = ObjectCatalog()
        try catalog.add(bytes: 1_000, policy: CachePolicy(maxAgeSeconds: 10, staleWhileRevalidateSeconds: 100))
        var d = Driver(world: try InfraWorld(config: config, catalog: catalog, masterSeed: 1))
        var k = Kernel()
        try d.add(request(object: 0, entity: 1), at: .zero, kernel: &k)          // miss, 0.5 s
        try d.add(request(object: 0, entity: 2), at: .seconds(20), kernel: &k)   // stale → instant
        try d.add(request(object: 0, entity: 3), at: .seconds(20.1), kernel: &k) // stale, revalidation in flight
        try d.add(request(object: 0, entity: 4), at: .seconds(21), kernel: &k)   // fresh again
        _ = try k.run(&d)
        let r = d.resultOfRequest.map { d.results[$0] }
        XCTAssertEqual(r.map(\.outcome), [.miss, .edgeStaleHit, .edgeStaleHit, .edgeFreshHit])
        XCTAssertEqual(r[0].durationSeconds, 0.5, accuracy: 1e-5)
        XCTAssertEqual(r[1].durationSeconds, 0, accuracy: 1e-5)
        XCTAssertEqual(d.world.counters[0].revalidations, 1, "the second stale hit joins the revalidation in flight")
        XCTAssertEqual(d.world.originCounters.requests, 2)
        assertConservation(d.world)
    }

    /// Scalable background pressure (characteristic time) vs the explicit Zipf stream: the hit
    /// ratio of 4 tracked objects (Poisson, 0.2/s each) in a PoP shared with a background stream
    /// of 50 req/s over 500 Zipf(0.8) objects, cache 100 objects, all objects equal size.
    /// T_C comes from Che's fixed point over background + tracked rates. Bound: both runs'
    /// 99.9% batch-means half-widths combined in quadrature, plus Che's bias allowance 0.01
    /// (as in `LRUCacheTests`; the explicit run is the exact LRU, the T_C run is Che's model).
    func testCharacteristicTimeModeMatchesExplicitStream() throws {
        let seed: UInt64 = 77
        let bgRate = 50.0, bgObjects = 500, alpha = 0.8, capacity = 100, tracked = 4, trackedRate = 0.2
        let bytes: Int64 = 10_000
        var rates = CheApproximation.zipfPopularities(count: bgObjects, exponent: alpha).map { $0 * bgRate }
        rates += [Double](repeating: trackedRate, count: tracked)
        let tc = CheApproximation.characteristicTime(rates: rates, capacityObjects: Double(capacity))
        let horizon = 6_000.0

        func run(_ background: BackgroundPressure) throws -> [Double] {
            var config = deterministicConfig()
            config.tiers.tieringEnabled = false
            config.edgeCache = CacheConfig(capacityBytes: Int64(capacity) * bytes, entriesMax: 10_000, background: background)
            config.metricsHorizonSeconds = Int(horizon)
            var catalog = ObjectCatalog()
            for _ in 0..<tracked { try catalog.add(bytes: bytes, policy: CachePolicy(maxAgeSeconds: 1e7, staleWhileRevalidateSeconds: 0)) }
            var d = Driver(world: try InfraWorld(config: config, catalog: catalog, masterSeed: seed))
            var k = Kernel()
            try d.world.startBackgroundStreams(kernel: &k)
            let gaps = try Sampler(.exponential(mean: 1 / (trackedRate * Double(tracked))))
            let rng = RandomStream(masterSeed: seed, entity: 0, purpose: StreamPurpose("test.tracked"))
            var t = 0.0
            var i = 0
            while true {
                t += gaps.sample(rng)
                if t >= horizon - 1 { break }
                try d.add(request(object: UInt32(rng.uniformInt(below: UInt64(tracked))), entity: UInt64(i)), at: .seconds(t), kernel: &k)
                i += 1
            }
            _ = try k.run(&d)
            assertConservation(d.world)
            // Drop the first 10% (cache filling).
            let outcomes = d.resultOfRequest.map { d.results[$0].outcome }
            return outcomes.dropFirst(outcomes.count / 10).map { $0 == .edgeFreshHit ? 1 : 0 }
        }
        let explicit = batchMeans(try run(.explicitStream(requestsPerSecond: bgRate, catalogueObjects: bgObjects,
                                                          zipfExponent: alpha, objectBytes: bytes)), batches: 40)
        let scalable = batchMeans(try run(.characteristicTime(seconds: tc)), batches: 40)
        let theory = 1 - exp(-trackedRate * tc)
        let bound = (explicit.halfWidth * explicit.halfWidth + scalable.halfWidth * scalable.halfWidth).squareRoot() + 0.01
        XCTAssertLessThanOrEqual(abs(explicit.mean - scalable.mean), bound,
                                 "seed \(seed): explicit \(explicit.mean) ± \(explicit.halfWidth), T_C mode \(scalable.mean) ± \(scalable.halfWidth), Che \(theory)")
        // The T_C mode is Che's model exactly: a tracked object hits iff requested within T_C.
        XCTAssertLessThanOrEqual(abs(scalable.mean - theory), scalable.halfWidth, "seed \(seed): T_C mode \(scalable.mean) vs \(theory)")
    }
}
