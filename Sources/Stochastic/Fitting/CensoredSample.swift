/// Positive durations or sizes for a fit: values seen exactly, and right-censored values (the true
/// value is known only to exceed the recorded one: a push not yet opened when the log ends, a
/// request cut by a timeout).
@usableFromInline package struct CensoredSample: Sendable, Equatable {
    /// Values observed exactly, each finite and > 0.
    @usableFromInline package let observed: [Double]
    /// Right-censoring points, each finite and > 0: the value lies above it.
    @usableFromInline package let censored: [Double]
    /// The grid the observed values were recorded on (a log's millisecond resolution), 0 for exact
    /// values: an observed x then stands for [x − r/2, x + r/2], and enters the likelihood as
    /// F(x + r/2) − F(x − r/2) instead of the density.
    @usableFromInline package let resolution: Double

    /// A sample; every value must be finite and > 0 (callers filter log rows first).
    /// - Throws: `FitError.invalidSample` naming the first bad value, or when nothing was observed.
    @usableFromInline package init(observed: [Double], censored: [Double] = [], resolution: Double = 0) throws(FitError) {
        guard resolution >= 0, resolution.isFinite else {
            throw FitError.invalidSample("resolution \(resolution): expected a finite value >= 0")
        }
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
        self.resolution = resolution
        // On a grid, values repeat: the likelihood runs over distinct cells, weighted by count.
        var cells: [(value: Double, count: Double)] = []
        if resolution > 0 {
            for v in observed.sorted() {
                if let last = cells.last, last.value == v { cells[cells.count - 1].count += 1 } else { cells.append((v, 1)) }
            }
        }
        self.cells = cells
    }

    /// With a resolution: the distinct observed values and how often each occurs (empty otherwise).
    let cells: [(value: Double, count: Double)]

    @usableFromInline package static func == (a: CensoredSample, b: CensoredSample) -> Bool {
        a.observed == b.observed && a.censored == b.censored && a.resolution == b.resolution
    }

    /// The grid step of `values` among 1 ms, 10 ms, 100 ms and 1 s when it is material (at least 1 %
    /// of their median), else 0: every value must be a whole multiple of the step (to 10⁻⁶ of it).
    @usableFromInline package static func materialResolution(of values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let median = values.sorted()[values.count / 2]
        for step in [1.0, 0.1, 0.01, 0.001] where step >= 0.01 * median {
            if values.allSatisfy({ abs($0 / step - ($0 / step).rounded()) < 1e-6 }) { return step }
        }
        return 0
    }

    /// Observed plus censored values.
    @usableFromInline package var count: Int { observed.count + censored.count }
}

/// Why a fit could not be made.
@usableFromInline package enum FitError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The sample cannot be fitted (reason says which value and what was expected).
    case invalidSample(String)
    /// The optimiser found no finite likelihood (e.g. all values equal for a two-parameter family).
    case noConvergence(String)
    /// A GSL call failed.
    case gsl(GSLError)

    @usableFromInline package var description: String {
        switch self {
        case let .invalidSample(reason): return "invalid sample: \(reason)"
        case let .noConvergence(reason): return "no convergence: \(reason)"
        case let .gsl(error): return error.description
        }
    }
}
