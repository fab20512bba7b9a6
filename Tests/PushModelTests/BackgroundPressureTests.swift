import Foundation
import InfraModel
import SimStats
import XCTest
@testable import PushModel

/// Per-PoP LRU shared with the site's other traffic: the pre-stage objects are evicted when idle
/// for the characteristic time, and the edge hit ratio falls by what Che's approximation says.
final class BackgroundPressureTests: XCTestCase {
    /// One critical image, iOS only (every push reaches its extension at once: no OS holds),
    /// nobody opens (no foreground requests touch the objects), fast reliable networks, no
    /// placeholder, no warming. 64 PoPs and a steady 8 pushes/s for 500 s: each PoP sees about
    /// 0.125 requests/s, the thinning of a regular stream into 64 parts, close to Poisson.
    func pressureWorld(characteristicSeconds: Double?) -> PushWorldConfig {
        var c = oneAssetWorld(devices: 4_000)
        c.infra.topology = TopologyConfig(popCount: 64, shieldCount: 2)
        c.population.iosShare = 1
        c.campaigns[0].sendRatePerMinute = 480
        for i in c.users.segments.indices {
            c.users.segments[i].iosOpenProbability = 0
            c.users.segments[i].androidOpenProbability = 0
        }
        if let t = characteristicSeconds { c.infra.edgeCache.background = .characteristicTime(seconds: t) }
        return c
    }

    /// Che's expected edge misses of a PoP whose n requests arrive as a Poisson stream of rate
    /// λ = n / D over [0, D], with nothing cached at 0, when an object idle for T is evicted: a
    /// request at t misses iff no request came in [max(0, t − T), t), so
    ///     E[misses] = ∫₀ᴰ λ e^{−λ min(t, T)} dt = (1 − e^{−λT}) + λ (D − T) e^{−λT}   (T ≤ D),
    /// and without eviction (T = ∞) only the first request misses: 1 − e^{−λD}.
    static func cheMisses(requests n: Double, spanSeconds d: Double, characteristicSeconds t: Double?) -> Double {
        let lambda = n / d
        guard let t, t < d else { return 1 - exp(-lambda * d) }
        return (1 - exp(-lambda * t)) + lambda * (d - t) * exp(-lambda * t)
    }

    /// The hit ratio Che predicts for a run: its own per-PoP request counts over the span of
    /// seconds with pre-stage requests.
    static func cheHitRatio(_ r: ReplicationResult, characteristicSeconds t: Double?) -> Double {
        let series = r.series.prestageEdgeRequests
        var first = -1, last = -1
        for s in 0..<series.horizonSeconds where series[s] > 0 {
            if first < 0 { first = s }
            last = s
        }
        let span = Double(last - first + 1)
        var misses = 0.0, requests = 0.0
        for p in r.pops where p.prestageRequests > 0 {
            misses += cheMisses(requests: Double(p.prestageRequests), spanSeconds: span, characteristicSeconds: t)
            requests += Double(p.prestageRequests)
        }
        return 1 - misses / requests
    }

    /// T = 8 s, so λT ≈ 1: Che predicts a hit ratio near 1 − (1 − e^{−1}) ≈ 0.63 with pressure
    /// and ≈ 0.98 without (only each PoP's first request misses). Per replication r (common
    /// random numbers: the same devices and deliveries with and without pressure), the measured
    /// drop d_r = h_none − h_pressure is compared with Che's drop from the runs' own per-PoP
    /// counts. Tolerance: the 99.9 % t half-width of the residuals over the replications, plus
    /// Che's allowance of 0.01 for arrivals that are a thinned regular send rather than exactly
    /// Poisson, and for the fill's round trip before an object is cached (as in the InfraModel
    /// characteristic-time test). The drop itself must be above 0 by its own 99.9 % interval.
    func testEdgeHitRatioFallsByChesPrediction() throws {
        let seed: UInt64 = 41
        let t = 8.0
        var drops: [Double] = [], residuals: [Double] = []
        for replication in 0..<5 {
            let none = try simulate(pressureWorld(characteristicSeconds: nil), seed: seed, replication: replication)
            let pressed = try simulate(pressureWorld(characteristicSeconds: t), seed: seed, replication: replication)
            XCTAssertEqual(none.prestage.requests, pressed.prestage.requests, "the same requests reach the edge (seed \(seed))")
            let drop = none.value("edge.prestageHitRatio") - pressed.value("edge.prestageHitRatio")
            let predicted = Self.cheHitRatio(none, characteristicSeconds: nil) - Self.cheHitRatio(pressed, characteristicSeconds: t)
            drops.append(drop)
            residuals.append(drop - predicted)
        }
        let dropCI = try ConfidenceInterval.studentT(sample: drops, level: 0.999)
        let residualCI = try ConfidenceInterval.studentT(sample: residuals, level: 0.999)
        XCTAssertGreaterThan(dropCI.lower, 0, "seed \(seed): drops \(drops)")
        XCTAssertLessThanOrEqual(abs(residualCI.mean), residualCI.halfWidth + 0.01,
                                 "seed \(seed): drops \(drops), measured − Che \(residuals)")
    }
}
