import CGSL
import Foundation
import XCTest
@testable import Stochastic

/// Goodness of fit of every sampler against GSL's own CDFs and textbook moments.
/// Bounds: see `StatBounds` (KS at alpha = 0.001, chi-square at alpha = 0.001, moments at 4.5 SE).
final class DistributionSamplingTests: XCTestCase {
    /// 10^5 draws per distribution: KS resolves D down to 1.9495 / sqrt(10^5) = 0.0062. Sampling,
    /// sorting and CDF evaluation take ~0.1-0.3 s per distribution in a debug build.
    let n = 100_000

    /// KS against `referenceCDF`, sample mean and variance against `referenceRawMoments`, and the
    /// library's closed-form `mean`/`variance` against the same reference.
    private func assertFits(_ d: Distribution, seed: UInt64, file: StaticString = #filePath, line: UInt = #line) throws {
        var xs = try draw(d, n: n, seed: seed)
        let label = "\(d) seed=\(seed) n=\(n)"

        guard let cdf = referenceCDF(d) else { return XCTFail("no reference CDF for \(label)", file: file, line: line) }
        var sorted = xs
        let dStat = ksStatistic(&sorted, cdf: cdf)
        let critical = StatBounds.ksCritical(n: n)
        XCTAssertLessThan(dStat, critical, "KS D=\(dStat) >= \(critical) for \(label)", file: file, line: line)

        guard let raw = referenceRawMoments(d) else { return XCTFail("no reference moments for \(label)", file: file, line: line) }
        let truth = centralMoments(raw)
        let mean = xs.reduce(0, +) / Double(n)
        for i in xs.indices { xs[i] = (xs[i] - truth.mean) * (xs[i] - truth.mean) }
        // (X - mu)^2 has mean sigma^2 and variance mu4 - sigma^4: same CLT bound, known mu.
        let variance = xs.reduce(0, +) / Double(n)
        let meanSE = (truth.variance / Double(n)).squareRoot()
        let varianceSE = ((truth.mu4 - truth.variance * truth.variance) / Double(n)).squareRoot()
        XCTAssertEqual(mean, truth.mean, accuracy: StatBounds.standardErrors * meanSE,
                       "sample mean vs true mean (SE \(meanSE)) for \(label)", file: file, line: line)
        XCTAssertEqual(variance, truth.variance, accuracy: StatBounds.standardErrors * varianceSE,
                       "sample variance vs true variance (SE \(varianceSE)) for \(label)", file: file, line: line)

        // Closed forms in the library agree with the independent reference (numerical precision only).
        let libraryMean = try XCTUnwrap(d.mean, "mean of \(d)", file: file, line: line)
        let libraryVariance = try XCTUnwrap(d.variance, "variance of \(d)", file: file, line: line)
        XCTAssertEqual(libraryMean, truth.mean, accuracy: 1e-7 * max(1, abs(truth.mean)), "closed-form mean of \(d)", file: file, line: line)
        XCTAssertEqual(libraryVariance, truth.variance, accuracy: 1e-7 * max(1, truth.variance), "closed-form variance of \(d)", file: file, line: line)
    }

    func testUniform() throws { try assertFits(.uniform(lower: -1, upper: 2.25), seed: 101) }
    func testExponential() throws { try assertFits(.exponential(mean: 0.2), seed: 102) }
    func testNormal() throws { try assertFits(.normal(mean: 1, sd: 0.5, lower: nil, upper: nil), seed: 103) }
    func testNormalTruncatedBothSides() throws { try assertFits(.normal(mean: 1, sd: 0.5, lower: 0.2, upper: 1.7), seed: 104) }
    func testNormalTruncatedBelowAtZero() throws { try assertFits(.normal(mean: 0.1, sd: 1, lower: 0, upper: nil), seed: 105) }
    /// [mean + 4 sd, inf): mass 3.2e-5, sampled through the upper-tail inversion.
    func testNormalTruncatedFarUpperTail() throws { try assertFits(.normal(mean: 2, sd: 0.5, lower: 4, upper: nil), seed: 106) }
    /// (-inf, mean - 4 sd] and a narrow far-tail window [mean + 6 sd, mean + 6.5 sd].
    func testNormalTruncatedFarTails() throws {
        try assertFits(.normal(mean: 0, sd: 1, lower: nil, upper: -4), seed: 107)
        try assertFits(.normal(mean: 0, sd: 1, lower: 6, upper: 6.5), seed: 108)
    }
    func testLognormal() throws { try assertFits(.lognormal(mu: -2.6, sigma: 0.59), seed: 109) }
    func testGamma() throws {
        try assertFits(.gamma(shape: 2.5, scale: 0.1), seed: 110)
        try assertFits(.gamma(shape: 0.5, scale: 3), seed: 111)  // GSL's shape < 1 branch
    }
    func testWeibull() throws {
        try assertFits(.weibull(shape: 1.5, scale: 3), seed: 112)
        try assertFits(.weibull(shape: 0.7, scale: 0.2), seed: 113)
    }
    /// alpha = 5 so that the fourth moment (needed for the variance bound) is finite.
    func testPareto() throws { try assertFits(.pareto(alpha: 5, scale: 2), seed: 114) }
    func testEmpirical() throws {
        try assertFits(.empirical(points: [.init(p: 0, value: 1), .init(p: 0.5, value: 2),
                                           .init(p: 0.9, value: 4), .init(p: 1, value: 10)]), seed: 115)
    }
    func testMixture() throws {
        try assertFits(.mixture(components: [
            .init(weight: 7, distribution: .lognormal(mu: 0, sigma: 0.25)),
            .init(weight: 3, distribution: .shift(offset: 0.5, distribution: .exponential(mean: 0.1))),
        ]), seed: 116)
    }
    func testShift() throws { try assertFits(.shift(offset: -0.25, distribution: .gamma(shape: 3, scale: 2)), seed: 117) }

    /// Truncated samples never leave [lower, upper], even in far tails.
    func testTruncatedNormalStaysInBounds() throws {
        let cases: [(Double?, Double?)] = [(6, 6.5), (nil, -8), (-0.001, 0.001), (30, nil)]
        for (i, (lower, upper)) in cases.enumerated() {
            let seed = UInt64(200 + i)
            let xs = try draw(.normal(mean: 0, sd: 1, lower: lower, upper: upper), n: 20_000, seed: seed)
            let outside = xs.filter { x in x < (lower ?? -.infinity) || x > (upper ?? .infinity) || !x.isFinite }
            XCTAssertEqual(outside.count, 0, "seed=\(seed) bounds=\(String(describing: lower))...\(String(describing: upper)) outside: \(outside.prefix(5))")
        }
    }

    /// The truncated-normal inverse is increasing in u (so common random numbers stay aligned) and
    /// inverts the reference CDF to within 1e-9 in probability, including far-tail windows where a
    /// naive P-based inversion would have only a few significant digits.
    func testTruncatedNormalInversionIsMonotoneAndAccurate() throws {
        let cases: [(Double?, Double?)] = [(6, 6.5), (nil, -6), (-1, 2), (3, nil), (-0.5, nil)]
        for (lower, upper) in cases {
            let d = Distribution.normal(mean: 0.5, sd: 2, lower: lower.map { 0.5 + 2 * $0 }, upper: upper.map { 0.5 + 2 * $0 })
            let truncated = TruncatedNormal(mean: 0.5, sd: 2, lower: lower.map { 0.5 + 2 * $0 }, upper: upper.map { 0.5 + 2 * $0 })
            let cdf = try XCTUnwrap(referenceCDF(d))
            var previous = -Double.infinity
            var decreases = 0
            var worst = (u: 0.0, error: 0.0)
            for i in 1..<1_000 {
                let u = Double(i) / 1_000
                let x = truncated.quantile(u)
                if x < previous { decreases += 1 }
                if abs(cdf(x) - u) > worst.error { worst = (u, abs(cdf(x) - u)) }
                previous = x
            }
            XCTAssertEqual(decreases, 0, "\(d): quantile decreases \(decreases) times")
            XCTAssertLessThan(worst.error, 1e-9, "\(d): |F(quantile(u)) - u| = \(worst.error) at u=\(worst.u)")
        }
    }

    /// Chi-square goodness of fit of a categorical table with unnormalised weights; a zero-weight
    /// entry never appears.
    func testCategoricalChiSquare() throws {
        let values = [1.0, 2, 5, 10, 99]
        let weights = [5.0, 3, 1.5, 0.5, 0]
        let seed: UInt64 = 301
        let xs = try draw(.categorical(values: values, weights: weights), n: n, seed: seed)
        var counts = [Int](repeating: 0, count: values.count)
        for x in xs {
            guard let i = values.firstIndex(of: x) else { return XCTFail("seed=\(seed): value \(x) not in table") }
            counts[i] += 1
        }
        XCTAssertEqual(counts[4], 0, "seed=\(seed): zero-weight value drawn")
        let k = 4
        let stat = chiSquareStatistic(counts: Array(counts.prefix(k)), probabilities: weights.prefix(k).map { $0 / 10 })
        let critical = gsl_cdf_chisq_Qinv(StatBounds.chiSquareAlpha, Double(k - 1))
        XCTAssertLessThan(stat, critical, "seed=\(seed) counts=\(counts) chi2=\(stat) >= \(critical)")
    }

    /// Discrete sanity check of mixture component selection: a mixture of constants is categorical.
    func testMixtureSelectionChiSquare() throws {
        let seed: UInt64 = 302
        let weights = [0.1, 0.2, 0.3, 0.4]
        let d = Distribution.mixture(components: weights.enumerated().map {
            .init(weight: $0.element, distribution: .constant(value: Double($0.offset)))
        })
        let xs = try draw(d, n: n, seed: seed)
        var counts = [Int](repeating: 0, count: weights.count)
        for x in xs { counts[Int(x)] += 1 }
        let stat = chiSquareStatistic(counts: counts, probabilities: weights)
        let critical = gsl_cdf_chisq_Qinv(StatBounds.chiSquareAlpha, Double(weights.count - 1))
        XCTAssertLessThan(stat, critical, "seed=\(seed) counts=\(counts) chi2=\(stat) >= \(critical)")
    }

    /// The median/p90 form reproduces the requested quantiles. The number of draws below the true
    /// q-quantile is Binomial(n, q), so the true quantile lies between the order statistics of
    /// rank n q -/+ 4.5 sqrt(n q (1 - q)).
    func testLognormalMedianP90Quantiles() throws {
        let median = 0.07, p90 = 0.15
        let d = try Distribution.lognormal(median: median, p90: p90)
        let seed: UInt64 = 303
        let xs = try draw(d, n: n, seed: seed).sorted()
        for (q, requested) in [(0.5, median), (0.9, p90)] {
            let center = Double(n) * q
            let halfWidth = StatBounds.standardErrors * (Double(n) * q * (1 - q)).squareRoot()
            let low = xs[Int((center - halfWidth).rounded(.down))]
            let high = xs[Int((center + halfWidth).rounded(.up))]
            XCTAssertLessThanOrEqual(low, requested, "seed=\(seed) q=\(q): order statistic \(low) above requested \(requested)")
            XCTAssertGreaterThanOrEqual(high, requested, "seed=\(seed) q=\(q): order statistic \(high) below requested \(requested)")
        }
    }

    /// A constant consumes no draws and always returns its value.
    func testConstantConsumesNoDraws() throws {
        let sampler = try Sampler(.constant(value: 4.25))
        let rng = RandomStream(seed: 304)
        for _ in 0..<10 { XCTAssertEqual(sampler.sample(rng), 4.25) }
        XCTAssertEqual(rng.uniform(), RandomStream(seed: 304).uniform(), "seed=304: constant consumed a draw")
    }

    /// Inversion of the empirical table at its knots and mid-segment (exact arithmetic).
    func testEmpiricalInverseAtKnots() {
        let ps = [0.0, 0.5, 0.9, 1]
        let values = [1.0, 2, 4, 10]
        XCTAssertEqual(Sampler.empiricalQuantile(0, ps: ps, values: values), 1)
        XCTAssertEqual(Sampler.empiricalQuantile(0.25, ps: ps, values: values), 1.5)
        XCTAssertEqual(Sampler.empiricalQuantile(0.5, ps: ps, values: values), 2)
        XCTAssertEqual(Sampler.empiricalQuantile(0.7, ps: ps, values: values), 3, accuracy: 1e-12)
        XCTAssertEqual(Sampler.empiricalQuantile(0.95, ps: ps, values: values), 7, accuracy: 1e-12)
    }

    /// Mean and variance are nil exactly where they are infinite.
    func testMomentsUndefinedForHeavyPareto() {
        XCTAssertNil(Distribution.pareto(alpha: 1, scale: 1).mean)
        XCTAssertEqual(try XCTUnwrap(Distribution.pareto(alpha: 1.5, scale: 1).mean), 3, accuracy: 1e-12)
        XCTAssertNil(Distribution.pareto(alpha: 2, scale: 1).variance)
        XCTAssertNil(Distribution.mixture(components: [.init(weight: 1, distribution: .pareto(alpha: 0.5, scale: 1))]).mean)
    }
}

final class SamplerClampTests: XCTestCase {
    /// Pareto(alpha = 0.01) exceeds Double.greatestFiniteMagnitude when u < 10^(-3.08): about 16
    /// draws in 20 000 (none at all with probability ~6e-8). Clamped draws stay in range.
    func testClampedSamplingBoundsHeavyTails() throws {
        let seed: UInt64 = 501
        let sampler = try Sampler(.pareto(alpha: 0.01, scale: 1))
        let raw = RandomStream(seed: seed), clamped = RandomStream(seed: seed)
        var infinite = 0
        for _ in 0..<20_000 {
            let x = sampler.sample(raw)
            let y = sampler.sample(clamped, clampedTo: 1...3_600)
            if x == .infinity { infinite += 1 }
            XCTAssertEqual(y, min(x, 3_600), "seed=\(seed)")
        }
        XCTAssertGreaterThan(infinite, 0, "seed=\(seed): expected some +inf draws without clamping")
    }
}

final class SamplerSharingTests: XCTestCase {
    /// A sampler holds no mutable state: sampling one shared sampler from several threads, each
    /// with its own stream, gives exactly the draws of sequential sampling.
    func testSharedSamplerAcrossThreadsMatchesSequential() throws {
        let sampler = try Sampler(.mixture(components: [
            .init(weight: 1, distribution: .categorical(values: [1, 2, 3], weights: [1, 1, 2])),
            .init(weight: 2, distribution: .empirical(points: [.init(p: 0, value: 0), .init(p: 1, value: 1)])),
            .init(weight: 1, distribution: .normal(mean: 0, sd: 1, lower: 0, upper: nil)),
        ]))
        let threads = 4, count = 20_000
        let sequential = (0..<threads).map { t in
            let rng = RandomStream(seed: UInt64(600 + t))
            return (0..<count).map { _ in sampler.sample(rng) }
        }
        final class Results: @unchecked Sendable {
            let lock = NSLock()
            var byThread: [Int: [Double]] = [:]
        }
        let results = Results()
        DispatchQueue.concurrentPerform(iterations: threads) { t in
            let rng = RandomStream(seed: UInt64(600 + t))
            let draws = (0..<count).map { _ in sampler.sample(rng) }
            results.lock.lock()
            results.byThread[t] = draws
            results.lock.unlock()
        }
        for t in 0..<threads {
            XCTAssertEqual(results.byThread[t], sequential[t], "seed=\(600 + t)")
        }
    }
}
