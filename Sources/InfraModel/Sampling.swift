import SimKernel
import Stochastic

/// Longest duration a sampled variate may take (1e6 s ≈ 11.6 days, judgement): distributions
/// come from user input, and a heavy tail must never overflow the clock. Every duration
/// distribution of the infrastructure config is clamped here, and scenario files may not
/// configure one beyond it.
package let sampledSecondsMax = 1e6

/// A sampled duration in seconds as ticks, clamped to [0, `sampledSecondsMax`]; NaN gives 0.
@inline(__always)
func sampledTicks(_ seconds: Double) -> Int64 {
    guard seconds > 0 else { return 0 }
    return integerRoundedHalfAwayFromZero(min(seconds, sampledSecondsMax) * 1e6)
}

/// A sampler for the configured distribution `d` at field `path`.
/// - Throws: ``InfraConfigError`` naming `path` when `d` cannot be sampled.
func makeSampler(_ d: Distribution, _ path: String) throws -> Sampler {
    do { return try Sampler(d) } catch {
        throw InfraConfigError(path: path, value: "\(d)", expected: "a samplable distribution (\(error))")
    }
}
