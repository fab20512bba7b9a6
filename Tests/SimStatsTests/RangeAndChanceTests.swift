import XCTest
@testable import SimStats
import Stochastic

/// Intervals that stay inside their metric's range, with their coverage measured on known laws,
/// and the exact Clopper–Pearson bounds that chance constraints are judged with.
final class RangeAndChanceTests: XCTestCase {
    // MARK: Clopper–Pearson

    /// P(X ≥ k) and P(X ≤ k) for X ~ Binomial(n, p), summed exactly.
    private func tail(atLeast k: Int, _ n: Int, _ p: Double) -> Double {
        (k...n).reduce(0) { $0 + pmf($1, n, p) }
    }
    private func tail(atMost k: Int, _ n: Int, _ p: Double) -> Double {
        (0...k).reduce(0) { $0 + pmf($1, n, p) }
    }
    private func pmf(_ k: Int, _ n: Int, _ p: Double) -> Double {
        var logC = 0.0
        for i in 0..<k { logC += log(Double(n - i)) - log(Double(i + 1)) }
        return exp(logC + Double(k) * log(p) + Double(n - k) * log1p(-p))
    }

    func testTheBoundsSolveTheBinomialTailEquationsTheyAreDefinedBy() throws {
        // The lower bound L of k of n at level c is where P(X ≥ k | L) = 1 − c; the upper bound U
        // is where P(X ≤ k | U) = 1 − c (Clopper & Pearson 1934): checked for every k at three sizes.
        for n in [3, 12, 40] {
            for k in 0...n {
                for c in [0.9, 0.95] {
                    let b = try ClopperPearson(successes: k, trials: n, level: c)
                    if k > 0 { XCTAssertEqual(tail(atLeast: k, n, b.lower), 1 - c, accuracy: 1e-7, "k \(k) n \(n)") } else { XCTAssertEqual(b.lower, 0) }
                    if k < n { XCTAssertEqual(tail(atMost: k, n, b.upper), 1 - c, accuracy: 1e-7, "k \(k) n \(n)") } else { XCTAssertEqual(b.upper, 1) }
                    XCTAssertLessThanOrEqual(b.lower, b.share)
                    XCTAssertGreaterThanOrEqual(b.upper, b.share)
                }
            }
        }
    }

    func testThreeCleanDaysShowOnlyThirtySevenPercent() throws {
        let three = try ClopperPearson(successes: 3, trials: 3, level: 0.95)
        XCTAssertEqual(three.lower, pow(0.05, 1.0 / 3), accuracy: 1e-12)
        XCTAssertEqual(three.lower, 0.368, accuracy: 0.001)
        XCTAssertEqual(ClopperPearson.cleanTrialsNeeded(toShowAtLeast: 0.95, level: 0.95), 59)
        XCTAssertEqual(ClopperPearson.cleanTrialsNeeded(toShowAtLeast: 0.9, level: 0.9), 22)
        // docs/experiments.md's table of what each choice costs.
        let table: [(Double, [Int])] = [(0.8, [11, 14, 21]), (0.9, [22, 29, 44]), (0.95, [45, 59, 90]), (0.99, [230, 299, 459])]
        for (q, counts) in table {
            XCTAssertEqual([0.9, 0.95, 0.99].map { ClopperPearson.cleanTrialsNeeded(toShowAtLeast: q, level: $0) }, counts, "q \(q)")
        }
        XCTAssertGreaterThanOrEqual(try ClopperPearson(successes: 22, trials: 22, level: 0.9).lower, 0.9)
        XCTAssertLessThan(try ClopperPearson(successes: 21, trials: 21, level: 0.9).lower, 0.9)
    }

    func testEachBoundCoversEveryProportionAtLeastAtItsLevel() throws {
        // Exact coverage: Σ over k of P(k | n, p) for the k whose bound is on the right side of p.
        for n in [3, 10, 30] {
            for p in [0.5, 0.8, 0.9, 0.95, 0.99] {
                var lowerCovers = 0.0, upperCovers = 0.0
                for k in 0...n {
                    let b = try ClopperPearson(successes: k, trials: n, level: 0.9)
                    if b.lower <= p { lowerCovers += pmf(k, n, p) }
                    if b.upper >= p { upperCovers += pmf(k, n, p) }
                }
                XCTAssertGreaterThanOrEqual(lowerCovers, 0.9 - 1e-12, "n \(n) p \(p)")
                XCTAssertGreaterThanOrEqual(upperCovers, 0.9 - 1e-12, "n \(n) p \(p)")
            }
        }
    }

    func testBadCountsAreRefused() {
        XCTAssertThrowsError(try ClopperPearson(successes: 4, trials: 3, level: 0.9))
        XCTAssertThrowsError(try ClopperPearson(successes: 0, trials: 0, level: 0.9))
        XCTAssertThrowsError(try ClopperPearson(successes: 1, trials: 3, level: 1))
    }

    // MARK: Intervals inside the metric's range

    func testAClippedIntervalStaysInTheRangeKeepsItsHalfWidthAndRoundTrips() throws {
        let rare = try ConfidenceInterval.studentT(sample: [0, 0, 16], level: 0.95)
        XCTAssertLessThan(rare.lower, 0, "the t interval of a zero-inflated count leaves the range")
        let clipped = rare.clipped(to: 0...Double.infinity)
        XCTAssertEqual(clipped.lower, 0)
        XCTAssertEqual(clipped.upper, rare.upper)
        XCTAssertEqual(clipped.halfWidth, rare.halfWidth)
        // A table shows a clipped interval by its ends, never as "± h" (which would reach below 0).
        XCTAssertTrue(clipped.isClipped)
        XCTAssertEqual(clipped.text { String(Int($0.rounded())) }, "[0, 28]")
        XCTAssertEqual(rare.text { String(Int($0.rounded())) }, "± 23")
        XCTAssertFalse(rare.clipped(to: -100...100).isClipped)
        let share = try ConfidenceInterval.studentT(sample: [1, 1, 0.9], level: 0.95).clipped(to: 0...1)
        XCTAssertEqual(share.upper, 1)
        let data = try JSONEncoder().encode(clipped)
        XCTAssertEqual(try JSONDecoder().decode(ConfidenceInterval.self, from: data), clipped)
        // An end beyond the unclipped interval, or past the mean, is refused.
        let bad = String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\"lower\":0", with: "\"lower\":6")
        XCTAssertThrowsError(try JSONDecoder().decode(ConfidenceInterval.self, from: Data(bad.utf8)))
    }

    /// The coverage of the nominal 95 % interval, clipped to the range, measured on replication
    /// sets drawn from laws with known means. Clipping cannot change coverage (the true mean lies
    /// in the range), so this measures the Student t interval itself. The bound: with T = 4 000
    /// sets the measured share has standard error √(0.95 · 0.05 / T) ≈ 0.0034, and the test allows
    /// 3 of them (0.0103) below 0.95, a false alarm once in about 740 laws. Laws where the t
    /// interval is known to under-cover (heavy skew at few replications) are measured and stated,
    /// not asserted: `knownUnderCoverage` below.
    func testCoverageOfTheNominalNinetyFivePercentOnKnownLaws() throws {
        let trials = 4_000
        let allowance = 3 * (0.95 * 0.05 / Double(trials)).squareRoot()
        let rng = RandomStream(seed: 20_261_202)
        struct Law { let name: String; let mean: Double; let range: ClosedRange<Double>; let draw: (RandomStream) -> Double }
        let normal = try Sampler(.normal(mean: 10, sd: 3, lower: nil, upper: nil))
        let gamma = try Sampler(.gamma(shape: 4, scale: 25))
        // A replication's share near an edge is a mean over many pushes (binomial over 2 000).
        let laws: [Law] = [
            Law(name: "normal", mean: 10, range: -Double.infinity...Double.infinity) { normal.sample($0) },
            Law(name: "share near 1 (p 0.995 over 2 000 pushes)", mean: 0.995, range: 0...1) { Double($0.binomial(0.995, trials: 2000)) / 2000 },
            Law(name: "share near 0 (p 0.002 over 2 000 pushes)", mean: 0.002, range: 0...1) { Double($0.binomial(0.002, trials: 2000)) / 2000 },
            // Zero on 30 % of days, else a gamma burst of mean 100: mean 70.
            Law(name: "zero-inflated count (30 % zero, gamma 4 × 25)", mean: 70, range: 0...Double.infinity) { $0.bernoulli(0.3) ? 0 : gamma.sample($0) },
        ]
        // The t interval's known weakness: a skewed, zero-inflated metric over few replications.
        let knownUnderCoverage = ["zero-inflated count (30 % zero, gamma 4 × 25), n 10": 0.93]
        var report: [String] = []
        for n in [10, 30] {
            for law in laws {
                var covered = 0, outside = 0
                for _ in 0..<trials {
                    let sample = (0..<n).map { _ in law.draw(rng) }
                    guard let ci = try? ConfidenceInterval.studentT(sample: sample, level: 0.95).clipped(to: law.range) else {
                        covered += sample.allSatisfy({ $0 == sample[0] }) && sample[0] == law.mean ? 1 : 0
                        continue
                    }
                    if ci.lower < law.range.lowerBound || ci.upper > law.range.upperBound { outside += 1 }
                    if ci.contains(law.mean) { covered += 1 }
                }
                let coverage = Double(covered) / Double(trials)
                report.append("\(law.name), n \(n): \(coverage)")
                XCTAssertEqual(outside, 0, "\(law.name): every interval inside the range")
                if let stated = knownUnderCoverage[law.name + ", n \(n)"] {
                    // docs/metrics.md states this figure; the test keeps the statement true.
                    XCTAssertEqual(coverage, stated, accuracy: allowance, "\(law.name) at n \(n): the documented under-coverage")
                    XCTAssertLessThan(coverage, 0.95 - allowance, "\(law.name) at n \(n) now covers: update docs/metrics.md")
                    continue
                }
                XCTAssertGreaterThanOrEqual(coverage, 0.95 - allowance, "\(law.name) at n \(n) (seed 20261202)")
                XCTAssertLessThanOrEqual(coverage, 0.95 + allowance, "\(law.name) at n \(n): not wastefully wide")
            }
        }
        print("coverage of the nominal 95 %: " + report.joined(separator: "; "))
    }
}

/// The worst minute of a windowed histogram, which `tapToPaint.worstMinuteP95Seconds` reads.
final class WorstSpanTests: XCTestCase {
    func testTheWorstSpanIsTheSlowestMinuteWithEnoughValues() throws {
        var h = try WindowedLatencyHistogram(horizonSeconds: 600, preferredWindowSeconds: 10)
        // 0.2 s everywhere, 40 values per 10 s; one minute (300–360 s) at 2 s; 5 values of 9 s at
        // 500 s, 2 % of their minute (480–540 s), too few to move its p95.
        for second in stride(from: 0, to: 600, by: 1) {
            for _ in 0..<4 { h.record(second >= 300 && second < 360 ? 2_000_000 : 200_000, atMicroseconds: Int64(second) * 1_000_000) }
        }
        for _ in 0..<5 { h.record(9_000_000, atMicroseconds: 500_000_000) }
        let worst = try XCTUnwrap(h.worstSpan(quantile: 0.95, spanWindows: 6, countMin: 20))
        XCTAssertEqual(worst.startSeconds, 300)
        XCTAssertEqual(worst.seconds, 60)
        XCTAssertEqual(worst.count, 240)
        XCTAssertEqual(worst.quantileMicroseconds, 2_000_000, accuracy: 2_000_000 * WindowedLatencyHistogram.maximumRelativeError)
        // Ten slow seconds are 1.7 % of the run: its p95 stays at 0.2 s, the worst minute shows 2 s.
        var brief = try WindowedLatencyHistogram(horizonSeconds: 600, preferredWindowSeconds: 10)
        for second in 0..<600 {
            for _ in 0..<4 { brief.record(second >= 300 && second < 310 ? 2_000_000 : 200_000, atMicroseconds: Int64(second) * 1_000_000) }
        }
        var whole = try LatencyHistogram(maxValueMicroseconds: 600_000_000)
        for second in 0..<600 { for _ in 0..<4 { whole.record(second >= 300 && second < 310 ? 2_000_000 : 200_000) } }
        XCTAssertLessThan(try XCTUnwrap(whole.quantile(0.95).microseconds), 300_000)
        let briefWorst = try XCTUnwrap(brief.worstSpan(quantile: 0.95, spanWindows: 6, countMin: 20))
        XCTAssertEqual(briefWorst.quantileMicroseconds, 2_000_000, accuracy: 2_000_000 * WindowedLatencyHistogram.maximumRelativeError)
        XCTAssertNil(h.worstSpan(quantile: 0.95, spanWindows: 6, countMin: 10_000), "no span has that many values")
    }
}
