/// Positive durations or sizes for a fit: values seen exactly, and right-censored values (the true
/// value is known only to exceed the recorded one: a push not yet opened when the log ends, a
/// request cut by a timeout).
public struct CensoredSample: Sendable, Equatable {
    /// Values observed exactly, each finite and > 0.
    public let observed: [Double]
    /// Right-censoring points, each finite and > 0: the value lies above it.
    public let censored: [Double]

    /// A sample; every value must be finite and > 0 (callers filter log rows first).
    /// - Throws: `FitError.invalidSample` naming the first bad value, or when nothing was observed.
    public init(observed: [Double], censored: [Double] = []) throws(FitError) {
        for (i, v) in observed.enumerated() where !(v.isFinite && v > 0) {
            throw FitError.invalidSample("observed[\(i)] = \(v): expected a finite value > 0")
        }
        for (i, v) in censored.enumerated() where !(v.isFinite && v > 0) {
            throw FitError.invalidSample("censored[\(i)] = \(v): expected a finite value > 0")
        }
        guard !observed.isEmpty else {
            throw FitError.invalidSample("no observed values (\(censored.count) censored): nothing to fit")
        }
        self.observed = observed
        self.censored = censored
    }

    /// Observed plus censored values.
    public var count: Int { observed.count + censored.count }
}

/// Why a fit could not be made.
public enum FitError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The sample cannot be fitted (reason says which value and what was expected).
    case invalidSample(String)
    /// The optimiser found no finite likelihood (e.g. all values equal for a two-parameter family).
    case noConvergence(String)
    /// A GSL call failed.
    case gsl(GSLError)

    public var description: String {
        switch self {
        case let .invalidSample(reason): return "invalid sample: \(reason)"
        case let .noConvergence(reason): return "no convergence: \(reason)"
        case let .gsl(error): return error.description
        }
    }
}
