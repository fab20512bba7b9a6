import XCTest
@testable import LogFit

/// The distribution-free interval for a quantile from order statistics.
final class QuantileIntervalTests: XCTestCase {
    /// P(l ≤ B < u) for B ~ Binomial(n, p): the interval's exact coverage for a continuous law.
    func coverage(n: Int, p: Double, _ r: (lower: Int, upper: Int)) -> Double {
        var lnF = [0.0]
        for k in 1...n { lnF.append(lnF[k - 1] + log(Double(k))) }
        return (r.lower..<r.upper).reduce(0) { $0 + exp(lnF[n] - lnF[$1] - lnF[n - $1] + Double($1) * log(p) + Double(n - $1) * log1p(-p)) }
    }

    func testRanksMatchTheTableAndCoverAtLeastTheLevel() throws {
        // The textbook case: the median of 20 values lies in [X(6), X(15)] with probability 95.86 %.
        let median = try XCTUnwrap(OrderStatisticInterval.ranks(n: 20, p: 0.5, level: 0.95))
        XCTAssertEqual(median.lower, 6)
        XCTAssertEqual(median.upper, 15)
        XCTAssertEqual(coverage(n: 20, p: 0.5, median), 0.9586, accuracy: 1e-4)
        // Five values cannot bracket the median at 95 % (the widest interval covers 1 − 2/32 = 93.75 %).
        XCTAssertNil(OrderStatisticInterval.ranks(n: 5, p: 0.5, level: 0.95))
        XCTAssertNil(OrderStatisticInterval.ranks(n: 40, p: 0.99, level: 0.95), "no rank above the 40th")
        for (n, p) in [(30, 0.5), (100, 0.9), (478, 0.95), (1000, 0.5), (5000, 0.99)] {
            let r = try XCTUnwrap(OrderStatisticInterval.ranks(n: n, p: p, level: 0.95), "\(n) \(p)")
            XCTAssertGreaterThanOrEqual(coverage(n: n, p: p, r), 0.95, "\(n) \(p)")
            // Tight: moving either end inward drops the coverage below the level (on its side, α/2).
            XCTAssertLessThan(coverage(n: n, p: p, (r.lower + 1, n + 1)), 0.975 + 1e-9, "\(n) \(p)")
            XCTAssertLessThan(coverage(n: n, p: p, (1, r.upper - 1)), 0.975 + 1e-9, "\(n) \(p)")
        }
    }

    /// Drawn samples: the interval holds the true quantile of an exponential law as often as its exact coverage says.
    func testCoverageOnDrawnSamples() throws {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func uniform() -> Double {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return (Double((z ^ (z >> 31)) >> 11) + 0.5) / 9_007_199_254_740_992
        }
        let n = 60, p = 0.9, trials = 4000
        let truth = -log(1 - p)
        let r = try XCTUnwrap(OrderStatisticInterval.ranks(n: n, p: p, level: 0.95))
        var covered = 0
        for _ in 0..<trials {
            let x = (0..<n).map { _ in -log(uniform()) }.sorted()
            if x[r.lower - 1] <= truth && truth < x[r.upper - 1] { covered += 1 }
        }
        let exact = coverage(n: n, p: p, r), se = (exact * (1 - exact) / Double(trials)).squareRoot()
        XCTAssertEqual(Double(covered) / Double(trials), exact, accuracy: 4 * se)
    }
}
