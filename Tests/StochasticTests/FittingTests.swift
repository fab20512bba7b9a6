import Foundation
import XCTest
@testable import Stochastic

/// Samples drawn from known distributions (GSL samplers, fixed seeds) are fitted back.
///
/// Bounds: a parametric fit's 99.9 % interval (Wald, observed information) covers the true value
/// with asymptotic probability 0.999, so for a random seed a check fails with probability about
/// 0.001; the seeds are fixed, so each test is deterministic. KS distances are held to the
/// α = 0.001 Kolmogorov critical value 1.9495/√n, which is conservative when the parameters were
/// estimated from the same sample (the distance is then stochastically smaller).
final class FittingTests: XCTestCase {
    static let level = 0.999
    static let n = 4000

    func checkCovers(_ d: Distribution, family: ParametricFamily, truth: [Double], seed: UInt64,
                     file: StaticString = #filePath, line: UInt = #line) throws {
        let xs = try draw(d, n: Self.n, seed: seed)
        let fit = try MaximumLikelihood.fit(family, to: try CensoredSample(observed: xs), confidenceLevel: Self.level)
        for (p, t) in zip(fit.parameters, truth) {
            XCTAssertTrue(p.lower <= t && t <= p.upper, "\(family) \(p.name): \(t) not in [\(p.lower), \(p.upper)]", file: file, line: line)
            XCTAssertLessThan(p.lower, p.estimate, file: file, line: line)
        }
        XCTAssertLessThan(fit.goodness.ksStatistic, StatBounds.ksCritical(n: Self.n), file: file, line: line)
        XCTAssertNotNil(fit.goodness.ksPValue)
    }

    func testEachFamilyIsFittedBackWithinItsInterval() throws {
        try checkCovers(.exponential(mean: 2), family: .exponential, truth: [2], seed: 101)
        try checkCovers(.lognormal(mu: -1, sigma: 0.7), family: .lognormal, truth: [-1, 0.7], seed: 102)
        try checkCovers(.gamma(shape: 2.5, scale: 0.4), family: .gamma, truth: [2.5, 0.4], seed: 103)
        try checkCovers(.weibull(shape: 1.6, scale: 3), family: .weibull, truth: [1.6, 3], seed: 104)
        try checkCovers(.pareto(alpha: 2.5, scale: 0.5), family: .pareto, truth: [2.5, 0.5], seed: 105)
    }

    func testAICPicksTheGeneratingFamily() throws {
        let cases: [(Distribution, ParametricFamily)] = [
            (.lognormal(mu: 0, sigma: 1), .lognormal), (.gamma(shape: 3, scale: 1), .gamma),
            (.weibull(shape: 0.8, scale: 2), .weibull), (.pareto(alpha: 1.5, scale: 1), .pareto),
        ]
        for (i, (d, family)) in cases.enumerated() {
            let fits = try MaximumLikelihood.fitAll(try CensoredSample(observed: try draw(d, n: Self.n, seed: 200 + UInt64(i))))
            XCTAssertEqual(fits.first?.family, family, "\(d)")
            XCTAssertEqual(fits.map(\.aic), fits.map(\.aic).sorted())
        }
    }

    /// Right censoring at a fixed point: the censored MLE covers the truth; dropping the censored
    /// values (the dishonest fit) does not.
    func testCensoredValuesAreHandledHonestly() throws {
        let xs = try draw(.exponential(mean: 10), n: Self.n, seed: 301)
        let cut = 8.0
        let sample = try CensoredSample(observed: xs.filter { $0 <= cut }, censored: xs.filter { $0 > cut }.map { _ in cut })
        XCTAssertGreaterThan(sample.censored.count, Self.n / 3)
        let fit = try MaximumLikelihood.fit(.exponential, to: sample, confidenceLevel: Self.level)
        XCTAssertTrue(fit.parameters[0].lower <= 10 && 10 <= fit.parameters[0].upper, "\(fit.parameters)")
        let naive = try MaximumLikelihood.fit(.exponential, to: try CensoredSample(observed: sample.observed), confidenceLevel: Self.level)
        XCTAssertLessThan(naive.parameters[0].upper, 10)
        XCTAssertNil(fit.goodness.ksPValue)

        let ys = try draw(.lognormal(mu: 1, sigma: 0.8), n: Self.n, seed: 302)
        let limit = 4.0
        let lognormal = try MaximumLikelihood.fit(.lognormal, to: try CensoredSample(observed: ys.filter { $0 <= limit },
                                                                                     censored: ys.filter { $0 > limit }.map { _ in limit }),
                                                  confidenceLevel: Self.level)
        XCTAssertTrue(lognormal.parameters[0].lower <= 1 && 1 <= lognormal.parameters[0].upper, "\(lognormal.parameters)")
        XCTAssertTrue(lognormal.parameters[1].lower <= 0.8 && 0.8 <= lognormal.parameters[1].upper, "\(lognormal.parameters)")
    }

    /// Millisecond logs: values rounded to a 1 ms grid are fitted as grid cells and cover the truth;
    /// the KS distance compares cells (the exact-value comparison is inflated by the ties).
    func testValuesOnAGridAreFittedAsCells() throws {
        let xs = try draw(.lognormal(mu: log(0.004), sigma: 0.5), n: Self.n, seed: 303)
        let rounded = xs.map { ($0 * 1000).rounded() / 1000 }.filter { $0 > 0 }
        XCTAssertEqual(CensoredSample.materialResolution(of: rounded), 0.001)
        XCTAssertEqual(CensoredSample.materialResolution(of: xs), 0)
        let grouped = try CensoredSample(observed: rounded, resolution: 0.001)
        let fit = try MaximumLikelihood.fit(.lognormal, to: grouped, confidenceLevel: Self.level)
        XCTAssertTrue(fit.parameters[0].lower <= log(0.004) && log(0.004) <= fit.parameters[0].upper, "\(fit.parameters)")
        XCTAssertTrue(fit.parameters[1].lower <= 0.5 && 0.5 <= fit.parameters[1].upper, "\(fit.parameters)")
        XCTAssertLessThan(fit.goodness.ksStatistic, StatBounds.ksCritical(n: rounded.count))
        let exact = try MaximumLikelihood.fit(.lognormal, to: try CensoredSample(observed: rounded), confidenceLevel: Self.level)
        XCTAssertGreaterThan(exact.goodness.ksStatistic, 3 * fit.goodness.ksStatistic)
        for family in ParametricFamily.allCases { XCTAssertNoThrow(try MaximumLikelihood.fit(family, to: grouped)) }
    }

    func testKaplanMeierMatchesTheEmpiricalCDFWithoutCensoringAndStepsOverCensoredValues() throws {
        let plain = GoodnessOfFitTest.kaplanMeier(try CensoredSample(observed: [3, 1, 2, 2]))
        XCTAssertEqual(plain.map(\.time), [1, 2, 3])
        XCTAssertEqual(plain.map(\.survival), [0.75, 0.25, 0])
        // Events at 1 and 3, censored at 2: S(1) = 2/3, S(3) = 2/3 · 0.
        let censored = GoodnessOfFitTest.kaplanMeier(try CensoredSample(observed: [1, 3], censored: [2]))
        XCTAssertEqual(censored.count, 2)
        XCTAssertEqual(censored[0].survival, 2.0 / 3.0, accuracy: 1e-15)
        XCTAssertEqual(censored[1].survival, 0)
    }

    func testInvalidSamplesAreRejectedWithTheValue() {
        XCTAssertThrowsError(try CensoredSample(observed: [1, -2])) { e in
            XCTAssertTrue("\(e)".contains("observed[1] = -2.0"), "\(e)")
        }
        XCTAssertThrowsError(try CensoredSample(observed: [], censored: [1]))
        XCTAssertThrowsError(try MaximumLikelihood.fit(.lognormal, to: try CensoredSample(observed: [2, 2, 2, 2])))
    }

    func testClopperPearsonBracketsTheShare() {
        let p = Proportion(successes: 30, trials: 100, confidenceLevel: 0.95)
        XCTAssertEqual(p.estimate, 0.3)
        // Reference values (exact binomial tail sums, as R's binom.test(30, 100)).
        XCTAssertEqual(p.lower, 0.2124, accuracy: 1e-4)
        XCTAssertEqual(p.upper, 0.3998, accuracy: 1e-4)
        // Large counts (where gsl_cdf_beta_Pinv returns NaN); reference from exact binomial tail sums: [0.93970, 0.96532].
        let large = Proportion(successes: 2861, trials: 3000, confidenceLevel: 0.999)
        XCTAssertEqual(large.lower, 0.9398, accuracy: 2e-4)
        XCTAssertEqual(large.upper, 0.9653, accuracy: 2e-4)
        XCTAssertEqual(Proportion(successes: 0, trials: 10).lower, 0)
        XCTAssertEqual(Proportion(successes: 10, trials: 10).upper, 1)
    }

    /// A tap model: 35 % open, delays from a burst/body/tail mixture; every push watched for a
    /// window of 4–8 h (unopened and late taps censored there). Bound: each true value lies within
    /// 4.5 bootstrap standard errors of the estimate (SE = 95 % percentile half-width / 1.96; a
    /// normal deviate beyond 4.5 has probability 7e-6), medians compared on the log scale.
    func testMixtureWithNeverShareRecoversOpenProbabilityAndComponents() throws {
        let truth = Distribution.mixture(components: [
            .init(weight: 0.25, distribution: .lognormal(mu: log(20), sigma: 0.8)),
            .init(weight: 0.5, distribution: .lognormal(mu: log(1200), sigma: 1.0)),
            .init(weight: 0.25, distribution: .lognormal(mu: log(10800), sigma: 0.6)),
        ])
        let sampler = try Sampler(truth)
        let rng = RandomStream(seed: 401)
        var observed: [Double] = [], censored: [Double] = []
        for _ in 0..<3000 {
            let window = 14_400 + 14_400 * rng.uniform()
            if rng.uniform() < 0.35 {
                let d = sampler.sample(rng)
                if d <= window { observed.append(d) } else { censored.append(window) }
            } else {
                censored.append(window)
            }
        }
        let fit = try LognormalMixtureEM.fit(try CensoredSample(observed: observed, censored: censored), componentsMax: 3,
                                             neverShare: true, confidenceLevel: 0.95, bootstrapReplicates: 30, seed: 9)
        XCTAssertEqual(fit.components.count, 3)
        func within(_ name: String, _ t: Double, log useLog: Bool = false) {
            guard let p = fit.intervals.first(where: { $0.name == name }) else { return XCTFail("no interval \(name)") }
            let f: (Double) -> Double = useLog ? { Foundation.log($0) } : { $0 }
            let se = (f(p.upper) - f(p.lower)) / (2 * 1.96)
            XCTAssertLessThanOrEqual(abs(f(p.estimate) - f(t)), 4.5 * se, "\(name): \(p) vs \(t)")
        }
        within("eventProbability", 0.35)
        for (i, (w, m)) in [(0.25, 20.0), (0.5, 1200.0), (0.25, 10800.0)].enumerated() {
            within("components[\(i)].weight", w)
            within("components[\(i)].median", m, log: true)
        }
        XCTAssertEqual(fit.cdf(fit.quantile(0.7)), 0.7, accuracy: 1e-9)
        XCTAssertNoThrow(try Sampler(fit.distribution))
    }
}
