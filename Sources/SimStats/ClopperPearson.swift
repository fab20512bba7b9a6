import Foundation
import Stochastic

/// Exact (Clopper–Pearson) one-sided confidence bounds for a binomial proportion: `successes` of
/// `trials` independent trials (here: replications on which a metric met its threshold).
///
/// The lower bound at level c is the largest p with P(X ≥ k | n, p) ≤ 1 − c, which is the
/// (1 − c)-quantile of Beta(k, n − k + 1) (0 when k = 0); the upper bound is the c-quantile of
/// Beta(k + 1, n − k) (1 when k = n). Each bound alone covers the true proportion with
/// probability ≥ c for every p (exact, not asymptotic: Clopper & Pearson, Biometrika 1934), so a
/// decision "p ≥ q" read from the lower bound is wrong with probability ≤ 1 − c.
///
/// Worked case: k = n = 3 at c = 0.95 gives a lower bound of 0.05^(1/3) ≈ 0.368: three clean
/// replications show only that the chance of a clean one is at least 37 %.
package struct ClopperPearson: Sendable, Equatable {
    package let successes: Int
    package let trials: Int
    /// One-sided level of each bound, in (0, 1).
    package let level: Double

    /// Bounds for `successes` of `trials` (0 ≤ successes ≤ trials, trials ≥ 1) at `level`.
    /// - Throws: `.invalidParameter` for counts out of range, `.invalidConfidenceLevel`.
    package init(successes: Int, trials: Int, level: Double) throws(StatisticsError) {
        try validateLevel(level)
        guard trials >= 1 else { throw .invalidParameter(name: "trials", value: "\(trials)", expected: "an integer ≥ 1") }
        guard successes >= 0, successes <= trials else {
            throw .invalidParameter(name: "successes", value: "\(successes)", expected: "an integer in 0...\(trials)")
        }
        self.successes = successes
        self.trials = trials
        self.level = level
    }

    /// The observed share k/n.
    package var share: Double { Double(successes) / Double(trials) }

    /// The one-sided lower bound at `level`, in [0, 1].
    package var lower: Double {
        successes == 0 ? 0 : Quantiles.beta(p: 1 - level, a: Double(successes), b: Double(trials - successes + 1))
    }

    /// The one-sided upper bound at `level`, in [0, 1].
    package var upper: Double {
        successes == trials ? 1 : Quantiles.beta(p: level, a: Double(successes + 1), b: Double(trials - successes))
    }

    /// The fewest trials, all successes, that put the lower bound at or above `q` (0 < q < 1):
    /// n ≥ ln(1 − level) / ln q, since the lower bound of n of n is (1 − level)^(1/n).
    /// E.g. q = 0.95 at 95 %: 59; q = 0.9 at 90 %: 22.
    package static func cleanTrialsNeeded(toShowAtLeast q: Double, level: Double) -> Int {
        precondition(q > 0 && q < 1 && level > 0 && level < 1, "cleanTrialsNeeded needs q and level in (0, 1)")
        let n = Foundation.log(1 - level) / Foundation.log(q)
        // Guard the rounding of an exact integer ratio: the smallest n whose bound reaches q.
        var m = max(1, Int(n.rounded(.down)))
        while Self.power(1 - level, 1 / Double(m)) < q { m += 1 }
        while m > 1, Self.power(1 - level, 1 / Double(m - 1)) >= q { m -= 1 }
        return m
    }

    private static func power(_ x: Double, _ y: Double) -> Double { Foundation.exp(y * Foundation.log(x)) }
}
