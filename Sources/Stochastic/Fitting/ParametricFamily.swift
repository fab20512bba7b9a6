import CGSL
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one- and two-parameter families fitted by maximum likelihood, on (0, inf) (Pareto on
/// [scale, inf)). Each is parameterised for the optimiser by an unconstrained vector θ: the log of
/// every positive parameter, the lognormal's `mu` as is.
@usableFromInline package enum ParametricFamily: String, Sendable, CaseIterable, Codable {
    case exponential, lognormal, gamma, weibull, pareto

    /// Names of the natural parameters, in `Distribution`'s JSON keys.
    @usableFromInline package var parameterNames: [String] {
        switch self {
        case .exponential: return ["mean"]
        case .lognormal: return ["mu", "sigma"]
        case .gamma, .weibull: return ["shape", "scale"]
        case .pareto: return ["alpha", "scale"]
        }
    }

    /// Entries of θ the optimiser moves (Pareto's scale is the sample minimum, its MLE, not moved).
    var freeCount: Int {
        switch self {
        case .exponential, .pareto: return 1
        case .lognormal, .gamma, .weibull: return 2
        }
    }

    /// Parameters counted by AIC/BIC (Pareto's scale is estimated too).
    var estimatedCount: Int { parameterNames.count }

    /// Natural parameter `i` from θ_i: identity for the lognormal's mu, exp otherwise.
    func natural(_ theta: Double, index: Int) -> Double {
        self == .lognormal && index == 0 ? theta : exp(theta)
    }

    /// Starting θ from the observed values' moments (a method-of-moments guess).
    func start(_ s: SampleSummary) -> [Double] {
        switch self {
        case .exponential:
            return [log(s.mean)]
        case .lognormal:
            return [s.meanLog, log(max(s.sdLog, 1e-3))]
        case .gamma:
            let shape = max(s.mean * s.mean / max(s.variance, 1e-300), 1e-3)
            return [log(shape), log(s.mean / shape)]
        case .weibull:
            // ln X of a Weibull has sd π / (shape √6).
            let shape = max(Double.pi / (max(s.sdLog, 1e-3) * 6.0.squareRoot()), 1e-2)
            return [log(shape), s.meanLog + 0.5772156649 / shape]
        case .pareto:
            let excess = s.meanLog - log(s.minimum)
            return [log(1 / max(excess, 1e-6))]
        }
    }

    /// Natural parameters (all of them, Pareto's scale included) from a free θ.
    func parameters(_ theta: [Double], _ s: SampleSummary) -> [Double] {
        switch self {
        case .pareto: return [exp(theta[0]), s.minimum]
        default: return theta.indices.map { natural(theta[$0], index: $0) }
        }
    }

    /// The fitted distribution in scenario form.
    @usableFromInline package func distribution(_ p: [Double]) -> Distribution {
        switch self {
        case .exponential: return .exponential(mean: p[0])
        case .lognormal: return .lognormal(mu: p[0], sigma: p[1])
        case .gamma: return .gamma(shape: p[0], scale: p[1])
        case .weibull: return .weibull(shape: p[0], scale: p[1])
        case .pareto: return .pareto(alpha: p[0], scale: p[1])
        }
    }

    /// log f(x) for natural parameters `p` (x > 0).
    func logDensity(_ x: Double, _ p: [Double]) -> Double {
        switch self {
        case .exponential:
            return -log(p[0]) - x / p[0]
        case .lognormal:
            let z = (log(x) - p[0]) / p[1]
            return -log(x) - log(p[1]) - 0.5 * log(2 * Double.pi) - 0.5 * z * z
        case .gamma:
            return (p[0] - 1) * log(x) - x / p[1] - gsl_sf_lngamma(p[0]) - p[0] * log(p[1])
        case .weibull:
            let lr = log(x / p[1])
            return log(p[0] / p[1]) + (p[0] - 1) * lr - exp(p[0] * lr)
        case .pareto:
            return x < p[1] ? -Double.infinity : log(p[0]) + p[0] * log(p[1]) - (p[0] + 1) * log(x)
        }
    }

    /// log S(x) = log P(X > x).
    func logSurvival(_ x: Double, _ p: [Double]) -> Double {
        switch self {
        case .exponential:
            return -x / p[0]
        case .lognormal:
            // log Q(z) = log(erfc(z / √2) / 2), accurate in the far tail.
            return gsl_sf_log_erfc((log(x) - p[0]) / (p[1] * 2.0.squareRoot())) - log(2.0)
        case .gamma:
            return log(max(gsl_cdf_gamma_Q(x, p[0], p[1]), Double.leastNormalMagnitude))
        case .weibull:
            return -exp(p[0] * log(x / p[1]))
        case .pareto:
            return x <= p[1] ? 0 : p[0] * (log(p[1]) - log(x))
        }
    }

    /// F(x) through `gsl_cdf_*_P`.
    @usableFromInline package func cdf(_ x: Double, _ p: [Double]) -> Double {
        GSLRuntime.ensureInitialised()
        guard x > 0 else { return 0 }
        switch self {
        case .exponential: return gsl_cdf_exponential_P(x, p[0])
        case .lognormal: return gsl_cdf_lognormal_P(x, p[0], p[1])
        case .gamma: return gsl_cdf_gamma_P(x, p[0], p[1])
        case .weibull: return gsl_cdf_weibull_P(x, p[1], p[0])
        case .pareto: return gsl_cdf_pareto_P(x, p[0], p[1])
        }
    }

    /// F⁻¹(u) through `gsl_cdf_*_Pinv`, u in (0, 1).
    @usableFromInline package func quantile(_ u: Double, _ p: [Double]) -> Double {
        GSLRuntime.ensureInitialised()
        switch self {
        case .exponential: return gsl_cdf_exponential_Pinv(u, p[0])
        case .lognormal: return gsl_cdf_lognormal_Pinv(u, p[0], p[1])
        case .gamma: return gsl_cdf_gamma_Pinv(u, p[0], p[1])
        case .weibull: return gsl_cdf_weibull_Pinv(u, p[1], p[0])
        case .pareto: return gsl_cdf_pareto_Pinv(u, p[0], p[1])
        }
    }

    /// The censored log-likelihood Σ log f(observed) + Σ log S(censored); the observed part from
    /// `summary`'s sums where the family allows (all but Weibull), so an evaluation costs O(censored).
    /// With a resolution, each observed value contributes log(F(x + r/2) − F(x − r/2)) instead.
    func logLikelihood(_ p: [Double], _ sample: CensoredSample, _ summary: SampleSummary) -> Double {
        let n = Double(sample.observed.count)
        var sum: Double
        let half = sample.resolution / 2
        if half > 0 {
            // Grouped values: the probability of each value's grid cell.
            sum = 0
            for cell in sample.cells {
                sum += cell.count * log(max(cdf(cell.value + half, p) - cdf(max(cell.value - half, 0), p), Double.leastNormalMagnitude))
            }
            for c in sample.censored { sum += logSurvival(c, p) }
            return sum
        }
        switch self {
        case .exponential:
            sum = -n * log(p[0]) - summary.sum / p[0]
        case .lognormal:
            let squares = summary.sumSquaredLogDeviations + n * (summary.meanLog - p[0]) * (summary.meanLog - p[0])
            sum = -summary.sumLog - n * (log(p[1]) + 0.5 * log(2 * Double.pi)) - squares / (2 * p[1] * p[1])
        case .gamma:
            sum = (p[0] - 1) * summary.sumLog - summary.sum / p[1] - n * (gsl_sf_lngamma(p[0]) + p[0] * log(p[1]))
        case .pareto:
            // Every observed value is >= the scale (the sample minimum).
            sum = n * (log(p[0]) + p[0] * log(p[1])) - (p[0] + 1) * summary.sumLog
        case .weibull:
            sum = 0
            for x in sample.observed { sum += logDensity(x, p) }
        }
        for c in sample.censored { sum += logSurvival(c, p) }
        return sum
    }
}

/// Moments of a sample's observed values, for starting points.
struct SampleSummary {
    let sum: Double
    let sumLog: Double
    /// Σ (ln x − mean ln x)².
    let sumSquaredLogDeviations: Double
    let mean: Double
    let variance: Double
    let meanLog: Double
    let sdLog: Double
    let minimum: Double

    init(_ values: [Double]) {
        let n = Double(values.count)
        var sum = 0.0, sumLog = 0.0, low = Double.infinity
        for v in values { sum += v; sumLog += log(v); low = min(low, v) }
        self.sum = sum
        self.sumLog = sumLog
        mean = sum / n
        meanLog = sumLog / n
        var ss = 0.0, ssLog = 0.0
        for v in values {
            ss += (v - mean) * (v - mean)
            ssLog += (log(v) - meanLog) * (log(v) - meanLog)
        }
        sumSquaredLogDeviations = ssLog
        variance = values.count > 1 ? ss / (n - 1) : 0
        sdLog = values.count > 1 ? (ssLog / (n - 1)).squareRoot() : 0
        minimum = low
    }
}
