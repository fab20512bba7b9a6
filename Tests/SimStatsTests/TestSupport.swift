import Foundation
import Stochastic

/// Seeded standard-normal draws: GSL uniforms (taus2) through GSL's inverse normal CDF.
func normalDraws(seed: UInt64, count: Int) -> [Double] {
    let rng = RandomStream(seed: seed)
    return (0..<count).map { _ in Quantiles.standardNormal(p: rng.uniformPositive()) }
}

/// Seeded lognormal(mu, sigma) draws rounded to whole microseconds.
func lognormalMicroseconds(seed: UInt64, count: Int, mu: Double, sigma: Double) -> [Int64] {
    normalDraws(seed: seed, count: count).map { Int64(exp(mu + sigma * $0).rounded()) }
}
