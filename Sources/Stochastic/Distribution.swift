import CGSL

/// A probability distribution over `Double`, as written in scenario files.
///
/// JSON form: an object with a `kind` and that kind's parameters, e.g.
/// `{"kind": "lognormal", "median": 0.07, "p90": 0.15}`. Kinds and keys:
///
/// | kind          | keys                                                                      |
/// |---------------|---------------------------------------------------------------------------|
/// | `constant`    | `value`                                                                   |
/// | `uniform`     | `lower`, `upper` (lower < upper)                                          |
/// | `exponential` | `mean` (> 0)                                                              |
/// | `normal`      | `mean`, `sd` (> 0), optional `lower` and/or `upper` (truncation)          |
/// | `lognormal`   | `mu`, `sigma` (> 0) — or `median` (> 0) and `p90` (> median)              |
/// | `gamma`       | `shape` (> 0), `scale` (> 0)                                              |
/// | `weibull`     | `shape` (> 0), `scale` (> 0)                                              |
/// | `pareto`      | `alpha` (> 0), `scale` (> 0): support [scale, inf)                        |
/// | `categorical` | `values`, `weights` (same length, weights >= 0, not all zero)             |
/// | `empirical`   | `points`: `[{"p": 0, "value": ...}, ..., {"p": 1, "value": ...}]`         |
/// | `mixture`     | `components`: `[{"weight": w, "distribution": {...}}, ...]`               |
/// | `shift`       | `offset`, `distribution`                                                  |
///
/// Decoding validates every parameter (see `validate(path:)`) and rejects unknown kinds and keys
/// with a `DistributionError` naming the coding path. Encoding writes the canonical form (a
/// lognormal given by median/p90 is written as `mu`/`sigma`), which decodes to an equal value.
///
/// Compile a distribution into a `Sampler` to draw from it.
@usableFromInline package indirect enum Distribution: Sendable, Equatable {
    /// Always `value`.
    case constant(value: Double)
    /// Uniform on [lower, upper).
    case uniform(lower: Double, upper: Double)
    /// Exponential with the given mean (rate 1/mean).
    case exponential(mean: Double)
    /// Normal N(mean, sd^2); truncated to [lower, upper] when either bound is given.
    case normal(mean: Double, sd: Double, lower: Double?, upper: Double?)
    /// Lognormal: ln X ~ N(mu, sigma^2). Median e^mu.
    case lognormal(mu: Double, sigma: Double)
    /// Gamma with density x^(shape-1) e^(-x/scale) / (Γ(shape) scale^shape).
    case gamma(shape: Double, scale: Double)
    /// Weibull with CDF 1 - exp(-(x/scale)^shape).
    case weibull(shape: Double, scale: Double)
    /// Pareto (type I) with CDF 1 - (scale/x)^alpha for x >= scale.
    case pareto(alpha: Double, scale: Double)
    /// `values[i]` with probability `weights[i] / sum(weights)`.
    case categorical(values: [Double], weights: [Double])
    /// Piecewise-linear inverse CDF through the points (p, value): p from 0 to 1 strictly
    /// increasing, values non-decreasing. Between two points the distribution is uniform.
    case empirical(points: [QuantilePoint])
    /// Component `i` drawn with probability `weight_i / sum(weights)`, then sampled.
    case mixture(components: [MixtureComponent])
    /// `distribution` plus `offset`.
    case shift(offset: Double, distribution: Distribution)

    /// One point of an empirical inverse CDF: `P(X <= value) = p`.
    @usableFromInline package struct QuantilePoint: Sendable, Equatable {
        /// Cumulative probability in [0, 1].
        @usableFromInline package var p: Double
        /// The quantile at `p`.
        @usableFromInline package var value: Double
        /// The point (p, value); validated with the distribution.
        @usableFromInline package init(p: Double, value: Double) {
            self.p = p
            self.value = value
        }
    }

    /// One weighted component of a mixture.
    @usableFromInline package struct MixtureComponent: Sendable, Equatable {
        /// Relative weight (>= 0); the weights of a mixture need not sum to 1.
        @usableFromInline package var weight: Double
        /// The component drawn from when this component is selected.
        @usableFromInline package var distribution: Distribution
        /// A component; validated with the mixture.
        @usableFromInline package init(weight: Double, distribution: Distribution) {
            self.weight = weight
            self.distribution = distribution
        }
    }

    /// Limits on the size of a distribution (scenario files are user input).
    @usableFromInline package enum Limits {
        /// Maximum entries of a categorical table and points of an empirical distribution.
        @usableFromInline package static let tableEntriesMax = 100_000
        /// Maximum components of one mixture.
        @usableFromInline package static let mixtureComponentsMax = 1_000
        /// Maximum nesting of mixtures and shifts (a leaf distribution has depth 1).
        @usableFromInline package static let nestingDepthMax = 16
    }

    /// z_0.9, the 0.9 quantile of the standard normal (`gsl_cdf_ugaussian_Pinv(0.9)`).
    @usableFromInline package static var standardNormalP90: Double {
        GSLRuntime.ensureInitialised()
        return gsl_cdf_ugaussian_Pinv(0.9)
    }

    /// The lognormal with the given median and 90th percentile:
    /// mu = ln(median), sigma = ln(p90 / median) / z_0.9.
    /// - Throws: `DistributionError` at `path` + `.median`/`.p90` unless 0 < median < p90, both finite.
    @usableFromInline package static func lognormal(median: Double, p90: Double, path: String = "") throws(DistributionError) -> Distribution {
        try lognormal(median: median, p90: p90, at: DistributionPath(path))
    }

    /// `lognormal(median:p90:path:)` with errors below `path`.
    static func lognormal(median: Double, p90: Double, at path: DistributionPath) throws(DistributionError) -> Distribution {
        guard median.isFinite, median > 0 else {
            throw DistributionError(at: DistributionError.join(path, "median"),
                                    reason: "must be finite and > 0, got \(median)")
        }
        guard p90.isFinite, p90 > median else {
            throw DistributionError(at: DistributionError.join(path, "p90"),
                                    reason: "must be finite and > median (\(median)), got \(p90)")
        }
        return .lognormal(mu: log(median), sigma: log(p90 / median) / standardNormalP90)
    }
}

// MARK: - Moments

extension Distribution {
    /// The mean of a valid distribution, in closed form. Nil when it is infinite or undefined (Pareto with alpha <= 1), or when
    /// GSL cannot represent it (a Weibull whose Γ(1 + 1/shape) overflows).
    /// - Complexity: O(size of the distribution's tables and components).
    @usableFromInline package var mean: Double? {
        GSLRuntime.ensureInitialised()
        switch self {
        case .constant(let value):
            return value
        case .uniform(let lower, let upper):
            return lower + (upper - lower) / 2
        case .exponential(let mean):
            return mean
        case .normal(let mean, let sd, let lower, let upper):
            guard lower != nil || upper != nil else { return mean }
            return TruncatedNormal(mean: mean, sd: sd, lower: lower, upper: upper).mean
        case .lognormal(let mu, let sigma):
            return exp(mu + sigma * sigma / 2)
        case .gamma(let shape, let scale):
            return shape * scale
        case .weibull(let shape, let scale):
            guard let g1 = try? Self.gammaFunction(1 + 1 / shape) else { return nil }
            return scale * g1
        case .pareto(let alpha, let scale):
            return alpha > 1 ? alpha * scale / (alpha - 1) : nil
        case .categorical(let values, let weights):
            let total = weights.reduce(0, +)
            var sum = 0.0
            for (v, w) in zip(values, weights) { sum += v * w }
            return sum / total
        case .empirical(let points):
            // Each segment is uniform on [v_i, v_i+1] with probability p_i+1 - p_i.
            var sum = 0.0
            for i in points.indices.dropLast() {
                sum += (points[i + 1].p - points[i].p) * (points[i].value + points[i + 1].value) / 2
            }
            return sum
        case .mixture(let components):
            let total = components.reduce(0) { $0 + $1.weight }
            var sum = 0.0
            for c in components where c.weight > 0 {
                guard let m = c.distribution.mean else { return nil }
                sum += c.weight * m
            }
            return sum / total
        case .shift(let offset, let distribution):
            return distribution.mean.map { $0 + offset }
        }
    }

    /// The variance of a valid distribution, in closed form. Nil when it is infinite or undefined (Pareto with alpha <= 2),
    /// or when GSL cannot represent it.
    /// - Complexity: O(size of the distribution's tables and components).
    @usableFromInline package var variance: Double? {
        GSLRuntime.ensureInitialised()
        switch self {
        case .constant:
            return 0
        case .uniform(let lower, let upper):
            return (upper - lower) * (upper - lower) / 12
        case .exponential(let mean):
            return mean * mean
        case .normal(let mean, let sd, let lower, let upper):
            guard lower != nil || upper != nil else { return sd * sd }
            return TruncatedNormal(mean: mean, sd: sd, lower: lower, upper: upper).variance
        case .lognormal(let mu, let sigma):
            let s2 = sigma * sigma
            return expm1(s2) * exp(2 * mu + s2)
        case .gamma(let shape, let scale):
            return shape * scale * scale
        case .weibull(let shape, let scale):
            guard let g1 = try? Self.gammaFunction(1 + 1 / shape),
                  let g2 = try? Self.gammaFunction(1 + 2 / shape) else { return nil }
            return scale * scale * (g2 - g1 * g1)
        case .pareto(let alpha, let scale):
            guard alpha > 2 else { return nil }
            return scale * scale * alpha / ((alpha - 1) * (alpha - 1) * (alpha - 2))
        case .categorical(let values, let weights):
            guard let m = mean else { return nil }
            let total = weights.reduce(0, +)
            var sum = 0.0
            for (v, w) in zip(values, weights) { sum += w * (v - m) * (v - m) }
            return sum / total
        case .empirical(let points):
            // E[X^2] of a uniform on [a, b] is (a^2 + ab + b^2) / 3.
            guard let m = mean else { return nil }
            var second = 0.0
            for i in points.indices.dropLast() {
                let a = points[i].value, b = points[i + 1].value
                second += (points[i + 1].p - points[i].p) * (a * a + a * b + b * b) / 3
            }
            return max(0, second - m * m)
        case .mixture(let components):
            // Law of total variance: E[Var] + Var[E].
            guard let m = mean else { return nil }
            let total = components.reduce(0) { $0 + $1.weight }
            var sum = 0.0
            for c in components where c.weight > 0 {
                guard let mi = c.distribution.mean, let vi = c.distribution.variance else { return nil }
                sum += c.weight * (vi + (mi - m) * (mi - m))
            }
            return sum / total
        case .shift(_, let distribution):
            return distribution.variance
        }
    }

    /// Γ(x) through `gsl_sf_gamma_e`, with its status as a `GSLError` (overflow for x > ~171.6).
    static func gammaFunction(_ x: Double) throws(GSLError) -> Double {
        GSLRuntime.ensureInitialised()
        var result = gsl_sf_result(val: 0, err: 0)
        try GSLError.check(gsl_sf_gamma_e(x, &result))
        return result.val
    }

    /// Nesting depth: 1 for a leaf, 1 + the deepest component for mixtures and shifts.
    var nestingDepth: Int {
        switch self {
        case .mixture(let components):
            return 1 + components.reduce(0) { max($0, $1.distribution.nestingDepth) }
        case .shift(_, let distribution):
            return 1 + distribution.nestingDepth
        default:
            return 1
        }
    }
}

// MARK: - Truncated normal

/// A normal N(mean, sd^2) truncated to [lower, upper] (either side may be open), sampled by inversion.
///
/// Inversion works on the tail that keeps precision: when the interval lies in the upper half
/// (standardised a >= 0) it inverts the upper-tail probability Q with `gsl_cdf_ugaussian_Qinv`,
/// otherwise the lower-tail P with `gsl_cdf_ugaussian_Pinv`. So an interval far in either tail
/// (e.g. [mean + 8 sd, inf)) is still sampled exactly, with one uniform per draw.
@usableFromInline
struct TruncatedNormal: Sendable {
    let location: Double
    let sd: Double
    /// Standardised bounds, -inf / +inf when open.
    let a: Double
    let b: Double
    /// True when inverting the upper tail Q (a >= 0).
    let usesUpperTail: Bool
    /// P(a), P(b) — or Q(a), Q(b) when `usesUpperTail`.
    let tailAtA: Double
    let tailAtB: Double

    init(mean: Double, sd: Double, lower: Double?, upper: Double?) {
        GSLRuntime.ensureInitialised()
        self.location = mean
        self.sd = sd
        let a = lower.map { ($0 - mean) / sd } ?? -Double.infinity
        let b = upper.map { ($0 - mean) / sd } ?? Double.infinity
        self.a = a
        self.b = b
        usesUpperTail = a >= 0
        if usesUpperTail {
            tailAtA = gsl_cdf_ugaussian_Q(a)
            tailAtB = b.isFinite ? gsl_cdf_ugaussian_Q(b) : 0
        } else {
            tailAtA = a.isFinite ? gsl_cdf_ugaussian_P(a) : 0
            tailAtB = b.isFinite ? gsl_cdf_ugaussian_P(b) : 1
        }
    }

    /// The probability of [lower, upper] under the untruncated normal.
    var mass: Double { usesUpperTail ? tailAtA - tailAtB : tailAtB - tailAtA }

    /// The quantile at `u` in (0, 1); increasing in `u`.
    @inline(__always)
    @usableFromInline
    func quantile(_ u: Double) -> Double {
        let z: Double
        if usesUpperTail {
            z = gsl_cdf_ugaussian_Qinv(tailAtA - u * (tailAtA - tailAtB))
        } else {
            z = gsl_cdf_ugaussian_Pinv(tailAtA + u * (tailAtB - tailAtA))
        }
        return location + sd * min(max(z, a), b)
    }

    private static func phi(_ z: Double) -> Double { z.isFinite ? gsl_ran_ugaussian_pdf(z) : 0 }
    private static func zPhi(_ z: Double) -> Double { z.isFinite ? z * gsl_ran_ugaussian_pdf(z) : 0 }

    /// mean + sd (φ(a) - φ(b)) / Z.
    var mean: Double { location + sd * (Self.phi(a) - Self.phi(b)) / mass }

    /// sd^2 [1 + (a φ(a) - b φ(b)) / Z - ((φ(a) - φ(b)) / Z)^2].
    var variance: Double {
        let z = mass
        let d = (Self.phi(a) - Self.phi(b)) / z
        return sd * sd * max(0, 1 + (Self.zPhi(a) - Self.zPhi(b)) / z - d * d)
    }
}
