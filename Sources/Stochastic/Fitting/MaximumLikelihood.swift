import CGSL
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One fitted parameter with its confidence interval.
@usableFromInline package struct FittedParameter: Sendable, Equatable, Codable {
    /// The `Distribution` JSON key (`mu`, `shape`, ...).
    @usableFromInline package let name: String
    @usableFromInline package let estimate: Double
    @usableFromInline package let lower: Double
    @usableFromInline package let upper: Double
}

/// A maximum-likelihood fit of one family to a (possibly censored) sample.
@usableFromInline package struct ParametricFit: Sendable {
    @usableFromInline package let family: ParametricFamily
    /// Natural parameters with Wald intervals from the observed information (see `MaximumLikelihood`).
    @usableFromInline package let parameters: [FittedParameter]
    @usableFromInline package let logLikelihood: Double
    /// 2k − 2 ln L.
    @usableFromInline package let aic: Double
    /// k ln n − 2 ln L (n counts observed and censored values).
    @usableFromInline package let bic: Double
    @usableFromInline package let goodness: GoodnessOfFit
    @usableFromInline package let observedCount: Int
    @usableFromInline package let censoredCount: Int

    /// The fitted distribution in scenario form.
    @usableFromInline package var distribution: Distribution { family.distribution(parameters.map(\.estimate)) }
    /// F(x) of the fit.
    @usableFromInline package func cdf(_ x: Double) -> Double { family.cdf(x, parameters.map(\.estimate)) }
    /// F⁻¹(u) of the fit, u in (0, 1).
    @usableFromInline package func quantile(_ u: Double) -> Double { family.quantile(u, parameters.map(\.estimate)) }
}

/// Maximum-likelihood estimation with right censoring: the likelihood is Π f(xᵢ) · Π S(cⱼ).
///
/// Grouped values (`CensoredSample.resolution` > 0) enter as the probability of their grid cell,
/// and every family but Pareto is then minimised numerically (Pareto keeps its closed form, which
/// ignores the grid). Otherwise exponential and Pareto have closed forms (mean = (Σx + Σc) / n_observed; α = n_observed /
/// Σ ln(max(v, scale) / scale) with scale the smallest observed value). The two-parameter families
/// are minimised with GSL's Nelder–Mead simplex (`gsl_multimin_fminimizer_nmsimplex2`) on θ (log of
/// each positive parameter), restarted once from its optimum.
///
/// Confidence intervals: the observed information I(θ̂) (the Hessian of −ln L at θ̂, by central
/// differences) is inverted; θ̂ᵢ ± z·√(I⁻¹)ᵢᵢ with z = Φ⁻¹((1 + level) / 2), mapped back through exp
/// for positive parameters (so intervals stay positive and are asymmetric). Pareto's scale (the
/// sample minimum, biased upwards) gets the exact interval [m · (1 − level)^(1/(n α̂)), m].
@usableFromInline package enum MaximumLikelihood {
    /// Nelder–Mead stops when the simplex is this small (θ is on a log scale: a relative size).
    static let simplexSizeTolerance = 1e-10
    static let iterationsMax = 2000
    /// Relative step of the finite-difference Hessian.
    static let hessianStep = 1e-3

    /// Fits `family` to `sample`.
    /// - Throws: `FitError.noConvergence` when no finite likelihood is found or the information
    ///   matrix is not positive definite (e.g. a two-parameter family on identical values).
    @usableFromInline package static func fit(_ family: ParametricFamily, to sample: CensoredSample,
                           confidenceLevel: Double = 0.95) throws(FitError) -> ParametricFit {
        GSLRuntime.ensureInitialised()
        let summary = SampleSummary(sample.observed)
        let negative: ([Double]) -> Double = { theta in
            let value = -family.logLikelihood(family.parameters(theta, summary), sample, summary)
            return value.isFinite ? value : Double.greatestFiniteMagnitude
        }
        let theta: [Double]
        switch family {
        case .exponential where sample.resolution > 0:
            let total = sample.observed.reduce(0, +) + sample.censored.reduce(0, +)
            let first = try minimise(negative, start: [log(total / Double(sample.observed.count))], step: 0.5)
            theta = try minimise(negative, start: first, step: 0.05)
        case .exponential:
            let total = sample.observed.reduce(0, +) + sample.censored.reduce(0, +)
            theta = [log(total / Double(sample.observed.count))]
        case .pareto:
            let m = summary.minimum
            var excess = 0.0
            for v in sample.observed { excess += log(v / m) }
            for c in sample.censored where c > m { excess += log(c / m) }
            guard excess > 0 else { throw .noConvergence("pareto: every value equals the minimum \(m)") }
            theta = [log(Double(sample.observed.count) / excess)]
        default:
            let first = try minimise(negative, start: family.start(summary), step: 0.5)
            theta = try minimise(negative, start: first, step: 0.05)
        }
        let best = negative(theta)
        guard best < Double.greatestFiniteMagnitude else {
            throw .noConvergence("\(family.rawValue): no parameters give a finite likelihood")
        }
        let covariance = try invert(hessian(negative, at: theta), family: family)
        let z = Quantiles.standardNormal(p: 0.5 + confidenceLevel / 2)
        let natural = family.parameters(theta, summary)
        var parameters: [FittedParameter] = []
        for i in theta.indices {
            let half = z * covariance[i][i].squareRoot()
            parameters.append(FittedParameter(name: family.parameterNames[i], estimate: natural[i],
                                              lower: family.natural(theta[i] - half, index: i),
                                              upper: family.natural(theta[i] + half, index: i)))
        }
        if family == .pareto {
            let m = summary.minimum, n = Double(sample.count)
            parameters.append(FittedParameter(name: "scale", estimate: m,
                                              lower: m * pow(1 - confidenceLevel, 1 / (n * natural[0])), upper: m))
        }
        let k = Double(family.estimatedCount), n = Double(sample.count)
        let goodness = GoodnessOfFitTest.kolmogorovSmirnov(sample) { family.cdf($0, natural) }
        return ParametricFit(family: family, parameters: parameters, logLikelihood: -best, aic: 2 * k + 2 * best,
                             bic: k * log(n) + 2 * best, goodness: goodness,
                             observedCount: sample.observed.count, censoredCount: sample.censored.count)
    }

    /// Every family that fits, best (lowest AIC) first; families that fail are left out.
    /// - Throws: the last family's error when none fits.
    @usableFromInline package static func fitAll(_ sample: CensoredSample, families: [ParametricFamily] = ParametricFamily.allCases,
                              confidenceLevel: Double = 0.95) throws(FitError) -> [ParametricFit] {
        var fits: [ParametricFit] = []
        var lastError = FitError.noConvergence("no family given")
        for family in families {
            do { fits.append(try fit(family, to: sample, confidenceLevel: confidenceLevel)) } catch { lastError = error }
        }
        guard !fits.isEmpty else { throw lastError }
        // Ties (equal AIC) keep the order of `families`: stable sort.
        return fits.enumerated().sorted { ($0.element.aic, $0.offset) < ($1.element.aic, $1.offset) }.map(\.element)
    }

    /// Nelder–Mead minimum of `f` from `start`, initial simplex steps `step`.
    static func minimise(_ f: @escaping ([Double]) -> Double, start: [Double], step: Double) throws(FitError) -> [Double] {
        let n = start.count
        let box = Objective(f)
        guard let x = gsl_vector_alloc(n), let steps = gsl_vector_alloc(n),
              let s = gsl_multimin_fminimizer_alloc(prestage_multimin_nmsimplex2(), n) else { throw .gsl(.noMemory) }
        defer {
            gsl_multimin_fminimizer_free(s)
            gsl_vector_free(steps)
            gsl_vector_free(x)
        }
        for i in 0..<n {
            gsl_vector_set(x, i, start[i])
            gsl_vector_set(steps, i, step)
        }
        var function = gsl_multimin_function(f: { v, params in
            guard let v, let params else { return Double.greatestFiniteMagnitude }
            let objective = Unmanaged<Objective>.fromOpaque(params).takeUnretainedValue()
            return objective.f((0..<v.pointee.size).map { gsl_vector_get(v, $0) })
        }, n: n, params: Unmanaged.passUnretained(box).toOpaque())
        let status: Int32 = withExtendedLifetime(box) {
            let set = gsl_multimin_fminimizer_set(s, &function, x, steps)
            guard set == GSL_SUCCESS else { return set }
            for _ in 0..<iterationsMax {
                if gsl_multimin_fminimizer_iterate(s) != GSL_SUCCESS { break }
                if gsl_multimin_test_size(gsl_multimin_fminimizer_size(s), simplexSizeTolerance) == GSL_SUCCESS { break }
            }
            return Int32(GSL_SUCCESS)
        }
        if let error = GSLError(status: status) { throw .gsl(error) }
        guard let best = gsl_multimin_fminimizer_x(s) else { throw .noConvergence("the simplex has no minimum") }
        return (0..<n).map { gsl_vector_get(best, $0) }
    }

    /// The Hessian of `f` at `x` by central differences.
    static func hessian(_ f: ([Double]) -> Double, at x: [Double]) -> [[Double]] {
        let n = x.count
        let h = x.map { hessianStep * max(1, abs($0)) }
        func at(_ di: Int, _ si: Double, _ dj: Int, _ sj: Double) -> Double {
            var y = x
            y[di] += si * h[di]
            y[dj] += sj * h[dj]
            return f(y)
        }
        let center = f(x)
        var out = [[Double]](repeating: [Double](repeating: 0, count: n), count: n)
        for i in 0..<n {
            var up = x, down = x
            up[i] += h[i]
            down[i] -= h[i]
            out[i][i] = (f(up) - 2 * center + f(down)) / (h[i] * h[i])
            for j in 0..<i {
                let v = (at(i, 1, j, 1) - at(i, 1, j, -1) - at(i, -1, j, 1) + at(i, -1, j, -1)) / (4 * h[i] * h[j])
                out[i][j] = v
                out[j][i] = v
            }
        }
        return out
    }

    /// The inverse of a positive definite 1×1 or 2×2 matrix.
    static func invert(_ m: [[Double]], family: ParametricFamily) throws(FitError) -> [[Double]] {
        if m.count == 1 {
            guard m[0][0] > 0, m[0][0].isFinite else {
                throw .noConvergence("\(family.rawValue): the observed information is not positive (\(m[0][0]))")
            }
            return [[1 / m[0][0]]]
        }
        let det = m[0][0] * m[1][1] - m[0][1] * m[1][0]
        guard m[0][0] > 0, det > 0, det.isFinite else {
            throw .noConvergence("\(family.rawValue): the observed information is not positive definite")
        }
        return [[m[1][1] / det, -m[0][1] / det], [-m[1][0] / det, m[0][0] / det]]
    }
}

/// The objective handed to GSL through its `void *params`.
private final class Objective {
    let f: ([Double]) -> Double
    init(_ f: @escaping ([Double]) -> Double) { self.f = f }
}
