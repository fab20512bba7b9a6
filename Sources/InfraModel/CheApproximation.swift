import Foundation

/// Che's approximation of an LRU cache under the independent reference model (Che, Tung & Wang
/// 2002; Fricker, Robert & Roberts 2012): the cache behaves as if every object were evicted
/// exactly `T_C` after its last request, where the *characteristic time* `T_C` solves
///
///     Σ_i (1 − exp(−λ_i T_C)) = C        (C = capacity in objects of equal size)
///
/// and object `i` (Poisson rate `λ_i`) then hits with probability `1 − exp(−λ_i T_C)`.
package enum CheApproximation {
    /// Zipf popularities `p_i ∝ 1/i^α`, i = 1...count, normalised to sum to 1.
    /// - Complexity: O(count).
    package static func zipfPopularities(count: Int, exponent: Double) -> [Double] {
        precondition(count >= 1)
        var p = [Double](repeating: 0, count: count)
        var total = 0.0
        for i in 0..<count {
            p[i] = 1.0 / pow(Double(i + 1), exponent)
            total += p[i]
        }
        for i in 0..<count { p[i] /= total }
        return p
    }

    /// The characteristic time for request rates `rates` (per unit time; any unit) and a cache of
    /// `capacityObjects` equal-size objects, in the same time unit. Returns `.infinity` when the
    /// cache holds every object with a positive rate.
    ///
    /// Newton's method from T = 0: the left side is increasing and concave in T, so the iterates
    /// rise monotonically to the root (each tangent lies above the curve).
    /// - Complexity: O(count × iterations), iterations ≤ 200 (typically < 30).
    package static func characteristicTime(rates: [Double], capacityObjects: Double) -> Double {
        let positive = rates.reduce(0) { $0 + ($1 > 0 ? 1 : 0) }
        if capacityObjects >= Double(positive) { return .infinity }
        if capacityObjects <= 0 { return 0 }
        var t = 0.0
        for _ in 0..<200 {
            var f = -capacityObjects
            var df = 0.0
            for r in rates where r > 0 {
                let e = exp(-r * t)
                f += 1 - e
                df += r * e
            }
            let step = -f / df
            t += step
            if abs(step) <= 1e-14 * max(t, 1e-300) { break }
        }
        return t
    }

    /// Request-weighted hit ratio `Σ λ_i (1 − e^{−λ_i T}) / Σ λ_i`.
    package static func hitRatio(rates: [Double], characteristicTime t: Double) -> Double {
        var hits = 0.0, total = 0.0
        for r in rates {
            total += r
            hits += t.isInfinite ? r : r * (1 - exp(-r * t))
        }
        return total > 0 ? hits / total : 0
    }

    /// `T_C` in seconds for a background stream of `requestsPerSecond` over a Zipf(`exponent`)
    /// catalogue of `catalogueObjects` equal-size objects, in a cache of `capacityObjects`.
    package static func characteristicTimeSeconds(requestsPerSecond: Double, catalogueObjects: Int,
                                                 zipfExponent: Double, capacityObjects: Double) -> Double {
        let p = zipfPopularities(count: catalogueObjects, exponent: zipfExponent)
        return characteristicTime(rates: p, capacityObjects: capacityObjects) / requestsPerSecond
    }
}
