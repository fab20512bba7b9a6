import CGSL
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A `Distribution` compiled for fast sampling: parameters checked once, constants precomputed,
/// categorical and mixture weights preprocessed into GSL Walker alias tables (`gsl_ran_discrete_t`,
/// freed in `deinit`).
///
/// Every variate comes from GSL: `gsl_ran_*` samplers (the lognormal as exp of GSL's ziggurat
/// normal), or `gsl_rng_uniform` through an inverse CDF (truncated normal, empirical). Sampling allocates nothing and reads the sampler only, so one
/// sampler may be shared by threads as long as each uses its own `RandomStream`.
///
/// Draws consumed per sample: constant 0; categorical and mixture selection one each (Walker);
/// truncated normal and empirical exactly one uniform; the others as GSL's algorithm needs
/// (e.g. `gsl_ran_gamma` rejection for gamma).
@usableFromInline package final class Sampler: @unchecked Sendable {
    /// The distribution this sampler draws from.
    @usableFromInline package let distribution: Distribution

    @usableFromInline
    let kernel: Kernel
    /// The alias table for categorical values or mixture components, owned by this sampler.
    private let table: UnsafeMutablePointer<gsl_ran_discrete_t>?

    /// Precomputed sampling form of each distribution.
    @usableFromInline
    enum Kernel {
        case constant(Double)
        case uniform(lower: Double, upper: Double)
        case exponential(mean: Double)
        case normal(mean: Double, sd: Double)
        case truncatedNormal(TruncatedNormal)
        case lognormal(mu: Double, sigma: Double)
        case gamma(shape: Double, scale: Double)
        case weibull(shape: Double, scale: Double)
        case pareto(alpha: Double, scale: Double)
        case categorical(table: UnsafeMutablePointer<gsl_ran_discrete_t>, values: [Double])
        case empirical(ps: [Double], values: [Double])
        case mixture(table: UnsafeMutablePointer<gsl_ran_discrete_t>, components: [Sampler])
        case shift(offset: Double, inner: Sampler)
    }

    /// Validates `distribution` and compiles it.
    /// - Throws: `DistributionError` if a parameter is invalid (paths relative to the distribution);
    ///   `GSLError.noMemory` if GSL cannot allocate an alias table.
    /// - Complexity: O(total table entries).
    @usableFromInline package init(_ distribution: Distribution) throws {
        GSLRuntime.ensureInitialised()
        try distribution.validate(path: "")
        (kernel, table) = try Self.compile(distribution)
        self.distribution = distribution
    }

    /// Compiles an already validated distribution (the components of a mixture or shift).
    private init(validated distribution: Distribution) throws(GSLError) {
        (kernel, table) = try Self.compile(distribution)
        self.distribution = distribution
    }

    deinit {
        if let table { gsl_ran_discrete_free(table) }
    }

    private static func compile(_ d: Distribution) throws(GSLError) -> (Kernel, UnsafeMutablePointer<gsl_ran_discrete_t>?) {
        switch d {
        case .constant(let value):
            return (.constant(value), nil)
        case .uniform(let lower, let upper):
            return (.uniform(lower: lower, upper: upper), nil)
        case .exponential(let mean):
            return (.exponential(mean: mean), nil)
        case .normal(let mean, let sd, nil, nil):
            return (.normal(mean: mean, sd: sd), nil)
        case .normal(let mean, let sd, let lower, let upper):
            return (.truncatedNormal(TruncatedNormal(mean: mean, sd: sd, lower: lower, upper: upper)), nil)
        case .lognormal(let mu, let sigma):
            return (.lognormal(mu: mu, sigma: sigma), nil)
        case .gamma(let shape, let scale):
            return (.gamma(shape: shape, scale: scale), nil)
        case .weibull(let shape, let scale):
            return (.weibull(shape: shape, scale: scale), nil)
        case .pareto(let alpha, let scale):
            return (.pareto(alpha: alpha, scale: scale), nil)
        case .categorical(let values, let weights):
            let table = try aliasTable(weights)
            return (.categorical(table: table, values: values), table)
        case .empirical(let points):
            return (.empirical(ps: points.map(\.p), values: points.map(\.value)), nil)
        case .mixture(let components):
            let table = try aliasTable(components.map(\.weight))
            var samplers: [Sampler] = []
            samplers.reserveCapacity(components.count)
            do {
                for component in components {
                    samplers.append(try Sampler(validated: component.distribution))
                }
            } catch {
                gsl_ran_discrete_free(table)
                throw error
            }
            return (.mixture(table: table, components: samplers), table)
        case .shift(let offset, let inner):
            return (.shift(offset: offset, inner: try Sampler(validated: inner)), nil)
        }
    }

    /// `gsl_ran_discrete_preproc` over validated weights (non-empty, >= 0, finite, not all zero).
    /// With GSL's error handler off it returns NULL instead of a status; on validated input the only
    /// remaining cause is a failed malloc (`GSL_ENOMEM`).
    private static func aliasTable(_ weights: [Double]) throws(GSLError) -> UnsafeMutablePointer<gsl_ran_discrete_t> {
        let table = weights.withUnsafeBufferPointer { gsl_ran_discrete_preproc($0.count, $0.baseAddress) }
        guard let table else { throw GSLError.noMemory }
        return table
    }

    /// One variate. Allocates nothing. Inlinable so that callers' hot loops dispatch on the
    /// compiled form without a cross-module call.
    /// - Complexity: O(1), except empirical O(log points) and nested mixtures/shifts O(depth).
    @inlinable
    package func sample(_ rng: RandomStream) -> Double {
        let r = rng.rng
        switch kernel {
        case .constant(let value):
            return value
        case .uniform(let lower, let upper):
            return gsl_ran_flat(r, lower, upper)
        case .exponential(let mean):
            return gsl_ran_exponential(r, mean)
        case .normal(let mean, let sd):
            return mean + gsl_ran_gaussian_ziggurat(r, sd)
        case .truncatedNormal(let t):
            return t.quantile(gsl_rng_uniform_pos(r))
        case .lognormal(let mu, let sigma):
            // exp of a GSL ziggurat normal: the same law as `gsl_ran_lognormal` (exp(mu + sigma z)),
            // whose normal comes from the polar method instead (about 2.5 uniforms, a log and a
            // square root per variate, ~240 instructions against ~75 here).
            return exp(mu + gsl_ran_gaussian_ziggurat(r, sigma))
        case .gamma(let shape, let scale):
            return gsl_ran_gamma(r, shape, scale)
        case .weibull(let shape, let scale):
            return gsl_ran_weibull(r, scale, shape)
        case .pareto(let alpha, let scale):
            return gsl_ran_pareto(r, alpha, scale)
        case .categorical(let table, let values):
            return values[gsl_ran_discrete(r, table)]
        case .empirical(let ps, let values):
            return Self.empiricalQuantile(gsl_rng_uniform(r), ps: ps, values: values)
        case .mixture(let table, let components):
            return components[gsl_ran_discrete(r, table)].sample(rng)
        case .shift(let offset, let inner):
            return offset + inner.sample(rng)
        }
    }

    /// One variate limited to `range`; a NaN draw maps to the lower bound.
    ///
    /// Heavy tails reach the edge of `Double`: a Pareto with alpha = 0.01 returns +inf for about one
    /// draw in 1200, as does a Weibull with shape 0.005 or a lognormal with a large sigma. Use this
    /// wherever a draw becomes a duration, a size or an integer, with the model's physical limit.
    @usableFromInline package func sample(_ rng: RandomStream, clampedTo range: ClosedRange<Double>) -> Double {
        let x = sample(rng)
        return x >= range.lowerBound ? min(x, range.upperBound) : range.lowerBound
    }

    /// The piecewise-linear inverse CDF at `u` in [0, 1): binary search for the segment
    /// ps[i] <= u < ps[i+1], then linear interpolation between values[i] and values[i+1].
    @usableFromInline
    static func empiricalQuantile(_ u: Double, ps: [Double], values: [Double]) -> Double {
        var low = 0
        var high = ps.count - 1  // invariant: ps[low] <= u < ps[high] (ps[0] = 0, ps[last] = 1)
        while high - low > 1 {
            let mid = (low + high) / 2
            if ps[mid] <= u { low = mid } else { high = mid }
        }
        let fraction = (u - ps[low]) / (ps[high] - ps[low])
        return values[low] + fraction * (values[high] - values[low])
    }

    /// The distribution's mean (see `Distribution.mean`).
    @usableFromInline package var mean: Double? { distribution.mean }
}
