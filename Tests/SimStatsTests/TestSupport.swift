import Foundation
import Stochastic

/// Seeded standard-normal draws from GSL (`Sampler` over `.normal(0, 1)`, taus2 stream).
func normalDraws(seed: UInt64, count: Int) throws -> [Double] {
    let sampler = try Sampler(.normal(mean: 0, sd: 1, lower: nil, upper: nil))
    let rng = RandomStream(seed: seed)
    return (0..<count).map { _ in sampler.sample(rng) }
}

/// Seeded lognormal(mu, sigma) draws from GSL (exp of a ziggurat normal, via `Sampler`), rounded to whole
/// microseconds.
func lognormalMicroseconds(seed: UInt64, count: Int, mu: Double, sigma: Double) throws -> [Int64] {
    let sampler = try Sampler(.lognormal(mu: mu, sigma: sigma))
    let rng = RandomStream(seed: seed)
    return (0..<count).map { _ in Int64(sampler.sample(rng, clampedTo: 0...1e15).rounded()) }
}
