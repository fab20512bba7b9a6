import CGSL
import XCTest
@testable import Stochastic

/// Acceptance bounds used by the statistical tests, all at a fixed false-alarm rate per check:
///
/// - Kolmogorov–Smirnov: reject when D_n >= c(alpha) / sqrt(n), with the asymptotic Kolmogorov
///   critical value c(0.001) = 1.9495 (sqrt(-ln(alpha/2)/2) = 1.9495 for alpha = 0.001). At
///   n = 10^5 the asymptotic value is accurate to well under 1%.
/// - Chi-square: reject when the statistic exceeds the alpha = 0.001 upper quantile of chi^2 with
///   k - 1 degrees of freedom, `gsl_cdf_chisq_Qinv(0.001, k - 1)`.
/// - Moments: reject when the sample mean is more than 4.5 standard errors from the true mean, the
///   standard error being sqrt(true variance / n) (CLT; two-sided tail 6.8e-6). Same for the
///   sample variance, whose standard error is sqrt((mu4 - sigma^4) / n) with mu4 the true fourth
///   central moment.
enum StatBounds {
    static let ksAlpha001 = 1.9495
    static let standardErrors = 4.5
    static let chiSquareAlpha = 0.001

    static func ksCritical(n: Int) -> Double { ksAlpha001 / Double(n).squareRoot() }
}

/// Kolmogorov–Smirnov statistic sup |F_n - F| of samples against a continuous CDF.
/// Sorts `samples` in place.
func ksStatistic(_ samples: inout [Double], cdf: (Double) -> Double) -> Double {
    samples.sort()
    let n = Double(samples.count)
    var d = 0.0
    for (i, x) in samples.enumerated() {
        let f = cdf(x)
        d = max(d, f - Double(i) / n, Double(i + 1) / n - f)
    }
    return d
}

/// Pearson chi-square statistic of observed counts against expected probabilities.
func chiSquareStatistic(counts: [Int], probabilities: [Double]) -> Double {
    let n = Double(counts.reduce(0, +))
    var stat = 0.0
    for (c, p) in zip(counts, probabilities) {
        let expected = n * p
        stat += (Double(c) - expected) * (Double(c) - expected) / expected
    }
    return stat
}

func draw(_ d: Distribution, n: Int, seed: UInt64, file: StaticString = #filePath, line: UInt = #line) throws -> [Double] {
    let sampler = try Sampler(d)
    let rng = RandomStream(seed: seed)
    var xs = [Double](repeating: 0, count: n)
    for i in 0..<n { xs[i] = sampler.sample(rng) }
    return xs
}

// MARK: - Reference CDFs and moments, written independently of the library (GSL cdf functions and
// textbook formulas), to judge the samplers against.

/// The CDF of `d` from GSL's `gsl_cdf_*_P` (or the piecewise forms for empirical, mixture, shift).
/// Nil for distributions with atoms (constant, categorical), where KS does not apply.
func referenceCDF(_ d: Distribution) -> ((Double) -> Double)? {
    switch d {
    case .constant, .categorical:
        return nil
    case .uniform(let a, let b):
        return { gsl_cdf_flat_P($0, a, b) }
    case .exponential(let mean):
        return { gsl_cdf_exponential_P($0, mean) }
    case .normal(let mean, let sd, nil, nil):
        return { gsl_cdf_gaussian_P($0 - mean, sd) }
    case .normal(let mean, let sd, let lower, let upper):
        // Renormalised gaussian CDF on [lower, upper]; upper-tail form when the interval is above the mean.
        let lo = lower ?? -Double.infinity, hi = upper ?? Double.infinity
        if lo > mean {
            let qa = gsl_cdf_gaussian_Q(lo - mean, sd), qb = hi.isFinite ? gsl_cdf_gaussian_Q(hi - mean, sd) : 0
            return { x in x <= lo ? 0 : x >= hi ? 1 : (qa - gsl_cdf_gaussian_Q(x - mean, sd)) / (qa - qb) }
        }
        let pa = lo.isFinite ? gsl_cdf_gaussian_P(lo - mean, sd) : 0, pb = hi.isFinite ? gsl_cdf_gaussian_P(hi - mean, sd) : 1
        return { x in x <= lo ? 0 : x >= hi ? 1 : (gsl_cdf_gaussian_P(x - mean, sd) - pa) / (pb - pa) }
    case .lognormal(let mu, let sigma):
        return { gsl_cdf_lognormal_P($0, mu, sigma) }
    case .gamma(let shape, let scale):
        return { gsl_cdf_gamma_P($0, shape, scale) }
    case .weibull(let shape, let scale):
        return { gsl_cdf_weibull_P($0, scale, shape) }
    case .pareto(let alpha, let scale):
        return { gsl_cdf_pareto_P($0, alpha, scale) }
    case .empirical(let points):
        // Piecewise-linear CDF through (value, p).
        return { x in
            if x < points[0].value { return 0 }
            for i in 1..<points.count where x < points[i].value {
                let a = points[i - 1], b = points[i]
                return a.p + (x - a.value) / (b.value - a.value) * (b.p - a.p)
            }
            return 1
        }
    case .mixture(let components):
        let total = components.reduce(0) { $0 + $1.weight }
        let parts = components.compactMap { c in referenceCDF(c.distribution).map { (c.weight / total, $0) } }
        guard parts.count == components.count else { return nil }
        return { x in parts.reduce(0) { $0 + $1.0 * $1.1(x) } }
    case .shift(let offset, let inner):
        guard let f = referenceCDF(inner) else { return nil }
        return { f($0 - offset) }
    }
}

/// Raw moments E[X^1] ... E[X^4] from textbook formulas; nil where one is infinite.
func referenceRawMoments(_ d: Distribution) -> [Double]? {
    let orders = [1.0, 2, 3, 4]
    switch d {
    case .constant(let c):
        return orders.map { pow(c, $0) }
    case .uniform(let a, let b):
        return orders.map { (pow(b, $0 + 1) - pow(a, $0 + 1)) / (($0 + 1) * (b - a)) }
    case .exponential(let m):
        return orders.map { gsl_sf_gamma($0 + 1) * pow(m, $0) }
    case .normal(let mu, let s, nil, nil):
        return [mu, mu * mu + s * s, pow(mu, 3) + 3 * mu * s * s, pow(mu, 4) + 6 * mu * mu * s * s + 3 * pow(s, 4)]
    case .normal(let mu, let s, let lower, let upper):
        // Composite Simpson integration of x^k times the truncated density, 20 000 panels.
        let lo = lower ?? mu - 40 * s, hi = upper ?? mu + 40 * s
        let panels = 20_000
        let h = (hi - lo) / Double(panels)
        var sums = [0.0, 0, 0, 0, 0]
        for i in 0...panels {
            let x = lo + Double(i) * h
            let w = (i == 0 || i == panels) ? 1.0 : (i % 2 == 1 ? 4.0 : 2.0)
            let density = gsl_ran_gaussian_pdf(x - mu, s)
            for k in 0...4 { sums[k] += w * density * pow(x, Double(k)) }
        }
        return (1...4).map { sums[$0] / sums[0] }
    case .lognormal(let mu, let sigma):
        return orders.map { exp($0 * mu + $0 * $0 * sigma * sigma / 2) }
    case .gamma(let k, let theta):
        return orders.map { pow(theta, $0) * gsl_sf_gamma(k + $0) / gsl_sf_gamma(k) }
    case .weibull(let k, let lambda):
        return orders.map { pow(lambda, $0) * gsl_sf_gamma(1 + $0 / k) }
    case .pareto(let alpha, let s):
        guard alpha > 4 else { return nil }
        return orders.map { alpha * pow(s, $0) / (alpha - $0) }
    case .categorical(let values, let weights):
        let total = weights.reduce(0, +)
        return orders.map { n in zip(values, weights).reduce(0) { $0 + $1.1 * pow($1.0, n) } / total }
    case .empirical(let points):
        return orders.map { n in
            (1..<points.count).reduce(0.0) { sum, i in
                let a = points[i - 1].value, b = points[i].value, dp = points[i].p - points[i - 1].p
                let segment = a == b ? pow(a, n) : (pow(b, n + 1) - pow(a, n + 1)) / ((n + 1) * (b - a))
                return sum + dp * segment
            }
        }
    case .mixture(let components):
        let total = components.reduce(0) { $0 + $1.weight }
        var raw = [0.0, 0, 0, 0]
        for c in components {
            guard let m = referenceRawMoments(c.distribution) else { return nil }
            for k in 0..<4 { raw[k] += c.weight / total * m[k] }
        }
        return raw
    case .shift(let c, let inner):
        guard let m = referenceRawMoments(inner) else { return nil }
        // E[(X + c)^n] by the binomial theorem.
        return [
            m[0] + c,
            m[1] + 2 * c * m[0] + c * c,
            m[2] + 3 * c * m[1] + 3 * c * c * m[0] + pow(c, 3),
            m[3] + 4 * c * m[2] + 6 * c * c * m[1] + 4 * pow(c, 3) * m[0] + pow(c, 4),
        ]
    }
}

/// (mean, variance, fourth central moment) from raw moments.
func centralMoments(_ raw: [Double]) -> (mean: Double, variance: Double, mu4: Double) {
    let m1 = raw[0], m2 = raw[1], m3 = raw[2], m4 = raw[3]
    let variance = m2 - m1 * m1
    let mu4 = m4 - 4 * m1 * m3 + 6 * m1 * m1 * m2 - 3 * pow(m1, 4)
    return (m1, variance, mu4)
}
