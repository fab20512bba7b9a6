import CGSL
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A finite mixture of lognormals fitted by EM, optionally with a "never" share (a cure model):
/// an event (a tap) happens with probability `eventProbability`, and then after a delay drawn from
/// the mixture. Values still waiting when the log ends are right-censored; under the cure model a
/// censored value is either a never-event or a late one, weighted by the likelihood of each.
///
/// EM on y = ln x, where each component is normal. The E-step gives every value a responsibility
/// per component; a censored value (y > c) contributes the truncated normal's moments
/// E[Y | Y > c] = μ + σλ and E[Y² | Y > c] = μ² + 2μσλ + σ²(1 + αλ), with α = (c − μ)/σ and λ the
/// inverse Mills ratio (`gsl_sf_hazard`), so the M-step stays closed form and every step raises the
/// censored likelihood.
///
/// Intervals come from a nonparametric bootstrap (values resampled with replacement from a fixed
/// seed, EM restarted from the fit, components matched by order of μ; percentile intervals).
@usableFromInline package struct LognormalMixtureFit: Sendable {
    /// One lognormal component; `weight` is its share among events (the weights sum to 1).
    @usableFromInline package struct Component: Sendable, Equatable, Codable {
        @usableFromInline package let weight: Double
        @usableFromInline package let mu: Double
        @usableFromInline package let sigma: Double
        /// e^μ.
        @usableFromInline package var median: Double { exp(mu) }
    }

    /// Components in increasing order of μ (for three: burst, body, tail).
    @usableFromInline package let components: [Component]
    /// P(the event happens at all); 1 without the cure share.
    @usableFromInline package let eventProbability: Double
    @usableFromInline package let modelsNeverShare: Bool
    @usableFromInline package let logLikelihood: Double
    @usableFromInline package let aic: Double
    @usableFromInline package let bic: Double
    /// KS distance of the Kaplan–Meier curve from eventProbability · F_mixture.
    @usableFromInline package let goodness: GoodnessOfFit
    /// Bootstrap percentile intervals: `eventProbability` (with the cure share), then per component
    /// `components[i].weight`, `.median`, `.sigma`. Empty when no bootstrap was run.
    @usableFromInline package let intervals: [FittedParameter]
    @usableFromInline package let observedCount: Int
    @usableFromInline package let censoredCount: Int

    /// The delay distribution (given that the event happens) in scenario form.
    @usableFromInline package var distribution: Distribution {
        if components.count == 1 { return .lognormal(mu: components[0].mu, sigma: components[0].sigma) }
        return .mixture(components: components.map {
            Distribution.MixtureComponent(weight: $0.weight, distribution: .lognormal(mu: $0.mu, sigma: $0.sigma))
        })
    }

    /// P(delay ≤ x | the event happens).
    @usableFromInline package func cdf(_ x: Double) -> Double {
        guard x > 0 else { return 0 }
        return components.reduce(0) { $0 + $1.weight * gsl_cdf_lognormal_P(x, $1.mu, $1.sigma) }
    }

    /// The u-quantile of the delay given the event, by bisection on ln x.
    @usableFromInline package func quantile(_ u: Double) -> Double {
        var low = components.map { $0.mu - 12 * $0.sigma }.min() ?? -50
        var high = components.map { $0.mu + 12 * $0.sigma }.max() ?? 50
        for _ in 0..<200 {
            let mid = (low + high) / 2
            if cdf(exp(mid)) < u { low = mid } else { high = mid }
            if high - low < 1e-12 { break }
        }
        return exp((low + high) / 2)
    }
}

/// Fitting `LognormalMixtureFit`s.
@usableFromInline package enum LognormalMixtureEM {
    static let iterationsMax = 3000
    static let relativeTolerance = 1e-9
    static let sigmaMin = 1e-3

    /// The EM state: absolute weights (components plus the never share sum to 1).
    struct State {
        var weights: [Double]
        var never: Double
        var mu: [Double]
        var sigma: [Double]
    }

    /// Fits 1…`componentsMax` components and keeps the lowest BIC, then bootstraps its intervals.
    /// - Parameters:
    ///   - neverShare: model a share of values that never happen (censored values may be never-events).
    ///   - bootstrapReplicates: 0 for none.
    ///   - seed: the bootstrap's resampling stream.
    @usableFromInline package static func fit(_ sample: CensoredSample, componentsMax: Int = 3, neverShare: Bool,
                           confidenceLevel: Double = 0.95, bootstrapReplicates: Int = 30,
                           seed: UInt64 = 1) throws(FitError) -> LognormalMixtureFit {
        GSLRuntime.ensureInitialised()
        let y = sample.observed.map { log($0) }
        let yc = sample.censored.map { log($0) }
        let jacobian = y.reduce(0, +)
        var best: (state: State, ll: Double, bic: Double)?
        for k in 1...max(1, componentsMax) where k <= max(1, y.count / 10) {
            let (state, ll) = run(y, yc, from: start(y, yc, components: k, neverShare: neverShare), neverShare: neverShare)
            let ll1 = ll - jacobian
            guard ll1.isFinite else { continue }
            let bic = Double(parameterCount(k, neverShare)) * log(Double(sample.count)) - 2 * ll1
            if best == nil || bic < best!.bic { best = (state, ll1, bic) }
        }
        guard let best else { throw .noConvergence("lognormal mixture: no finite likelihood") }
        var intervals: [FittedParameter] = []
        if bootstrapReplicates > 0 {
            intervals = bootstrap(y, yc, fitted: best.state, neverShare: neverShare, replicates: bootstrapReplicates,
                                  level: confidenceLevel, seed: seed)
        }
        return make(best.state, ll: best.ll, neverShare: neverShare, sample: sample, intervals: intervals)
    }

    static func parameterCount(_ k: Int, _ neverShare: Bool) -> Int { 3 * k - 1 + (neverShare ? 1 : 0) }

    static func make(_ s: State, ll: Double, neverShare: Bool, sample: CensoredSample,
                     intervals: [FittedParameter]) -> LognormalMixtureFit {
        let event = 1 - s.never
        let order = s.mu.indices.sorted { s.mu[$0] < s.mu[$1] }
        let components = order.map {
            LognormalMixtureFit.Component(weight: s.weights[$0] / event, mu: s.mu[$0], sigma: s.sigma[$0])
        }
        let k = Double(parameterCount(components.count, neverShare)), n = Double(sample.count)
        let partial = LognormalMixtureFit(components: components, eventProbability: event, modelsNeverShare: neverShare,
                                          logLikelihood: ll, aic: 2 * k - 2 * ll, bic: k * log(n) - 2 * ll,
                                          goodness: GoodnessOfFit(ksStatistic: 0, ksPValue: nil), intervals: intervals,
                                          observedCount: sample.observed.count, censoredCount: sample.censored.count)
        let goodness = GoodnessOfFitTest.kolmogorovSmirnov(sample) { event * partial.cdf($0) }
        return LognormalMixtureFit(components: components, eventProbability: event, modelsNeverShare: neverShare,
                                   logLikelihood: ll, aic: partial.aic, bic: partial.bic, goodness: goodness,
                                   intervals: intervals, observedCount: sample.observed.count, censoredCount: sample.censored.count)
    }

    /// Components centred on quantiles (k + ½)/K of the observed ln values, equal weights.
    static func start(_ y: [Double], _ yc: [Double], components k: Int, neverShare: Bool) -> State {
        let sorted = y.sorted()
        let n = Double(sorted.count)
        let mean = sorted.reduce(0, +) / n
        let sd = (sorted.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / max(1, n - 1)).squareRoot()
        let never = neverShare ? 0.5 * Double(yc.count) / Double(y.count + yc.count) : 0
        let mu = (0..<k).map { sorted[min(sorted.count - 1, Int((Double($0) + 0.5) / Double(k) * n))] }
        return State(weights: [Double](repeating: (1 - never) / Double(k), count: k), never: never, mu: mu,
                     sigma: [Double](repeating: max(sd / Double(k), 0.1), count: k))
    }

    /// EM from `state` until the log-likelihood (on ln values) stops rising.
    static func run(_ y: [Double], _ yc: [Double], from state: State, neverShare: Bool,
                    iterationsMax: Int = LognormalMixtureEM.iterationsMax) -> (State, Double) {
        var s = state
        var previous = -Double.infinity
        var ll = -Double.infinity
        let k = s.mu.count
        let halfLog2Pi = 0.5 * log(2 * Double.pi)
        var a = [Double](repeating: 0, count: k)
        for iteration in 0..<iterationsMax {
            var s0 = [Double](repeating: 0, count: k), s1 = s0, s2 = s0
            var neverTotal = 0.0
            ll = 0
            let logWeight = (0..<k).map { s.weights[$0] > 0 ? log(s.weights[$0]) - log(s.sigma[$0]) - halfLog2Pi : -Double.infinity }
            for v in y {
                var top = -Double.infinity
                for j in 0..<k {
                    let z = (v - s.mu[j]) / s.sigma[j]
                    a[j] = logWeight[j] - 0.5 * z * z
                    top = max(top, a[j])
                }
                var total = 0.0
                for j in 0..<k { a[j] = exp(a[j] - top); total += a[j] }
                ll += top + log(total)
                for j in 0..<k {
                    let r = a[j] / total
                    s0[j] += r; s1[j] += r * v; s2[j] += r * v * v
                }
            }
            for c in yc {
                var total = s.never
                for j in 0..<k {
                    a[j] = s.weights[j] * gsl_cdf_ugaussian_Q((c - s.mu[j]) / s.sigma[j])
                    total += a[j]
                }
                guard total > 0 else { ll = -Double.infinity; break }
                ll += log(total)
                neverTotal += s.never / total
                for j in 0..<k {
                    let r = a[j] / total
                    guard r > 0 else { continue }
                    let alpha = (c - s.mu[j]) / s.sigma[j]
                    let lambda = gsl_sf_hazard(alpha)
                    let m = s.mu[j], sd = s.sigma[j]
                    s0[j] += r
                    s1[j] += r * (m + sd * lambda)
                    s2[j] += r * (m * m + 2 * m * sd * lambda + sd * sd * (1 + alpha * lambda))
                }
            }
            guard ll.isFinite else { return (s, -Double.infinity) }
            if iteration > 5, ll - previous < relativeTolerance * max(1, abs(ll)) { break }
            previous = ll
            let n = Double(y.count + yc.count)
            for j in 0..<k where s0[j] > 1e-9 * n {
                s.weights[j] = s0[j] / n
                s.mu[j] = s1[j] / s0[j]
                s.sigma[j] = max((max(0, s2[j] / s0[j] - s.mu[j] * s.mu[j])).squareRoot(), sigmaMin)
            }
            if neverShare { s.never = neverTotal / n }
            let sum = s.weights.reduce(s.never, +)
            for j in 0..<k { s.weights[j] /= sum }
            s.never /= sum
        }
        return (s, ll)
    }

    /// Percentile intervals over `replicates` resamples.
    static func bootstrap(_ y: [Double], _ yc: [Double], fitted: State, neverShare: Bool, replicates: Int,
                          level: Double, seed: UInt64) -> [FittedParameter] {
        let rng = RandomStream(seed: seed)
        let n = y.count + yc.count
        let k = fitted.mu.count
        var draws: [[Double]] = []
        for _ in 0..<replicates {
            var by: [Double] = [], byc: [Double] = []
            by.reserveCapacity(y.count)
            for _ in 0..<n {
                let i = Int(rng.uniformInt(below: UInt64(n)))
                if i < y.count { by.append(y[i]) } else { byc.append(yc[i - y.count]) }
            }
            guard by.count > 10 * k else { continue }
            let (s, ll) = run(by, byc, from: fitted, neverShare: neverShare, iterationsMax: 500)
            guard ll.isFinite else { continue }
            draws.append(flatten(s, neverShare: neverShare))
        }
        let fit = flatten(fitted, neverShare: neverShare)
        var names: [String] = neverShare ? ["eventProbability"] : []
        for i in 0..<k { names += ["components[\(i)].weight", "components[\(i)].median", "components[\(i)].sigma"] }
        return names.indices.map { p in
            let column = draws.map { $0[p] }.sorted()
            guard !column.isEmpty else { return FittedParameter(name: names[p], estimate: fit[p], lower: .nan, upper: .nan) }
            func at(_ q: Double) -> Double { column[min(column.count - 1, max(0, Int((q * Double(column.count - 1)).rounded())))] }
            return FittedParameter(name: names[p], estimate: fit[p], lower: at((1 - level) / 2), upper: at((1 + level) / 2))
        }
    }

    /// [eventProbability?] + per component (by μ): weight among events, median, sigma.
    static func flatten(_ s: State, neverShare: Bool) -> [Double] {
        let event = 1 - s.never
        var out: [Double] = neverShare ? [event] : []
        for j in s.mu.indices.sorted(by: { s.mu[$0] < s.mu[$1] }) {
            out += [s.weights[j] / event, exp(s.mu[j]), s.sigma[j]]
        }
        return out
    }
}
