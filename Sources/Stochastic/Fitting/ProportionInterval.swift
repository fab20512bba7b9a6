import CGSL

/// A share with its exact (Clopper–Pearson) confidence interval.
@usableFromInline package struct Proportion: Sendable, Equatable, Codable {
    @usableFromInline package let successes: Int
    @usableFromInline package let trials: Int
    @usableFromInline package let estimate: Double
    @usableFromInline package let lower: Double
    @usableFromInline package let upper: Double

    /// `successes` of `trials` (0 ≤ successes ≤ trials, trials > 0) at `confidenceLevel`: the ends
    /// solve P(X ≥ s | p_lower) = α/2 and P(X ≤ s | p_upper) = α/2 for X ~ Binomial(trials, p)
    /// (`gsl_cdf_binomial_Q`/`_P`, by bisection: `gsl_cdf_beta_Pinv` returns NaN for large counts),
    /// so it covers the true share with probability at least the level for every share.
    @usableFromInline package init(successes: Int, trials: Int, confidenceLevel: Double = 0.95) {
        GSLRuntime.ensureInitialised()
        precondition(trials > 0 && successes >= 0 && successes <= trials, "Proportion needs 0 <= successes <= trials, trials > 0")
        let alpha = 1 - confidenceLevel
        let s = Double(successes), n = Double(trials)
        self.successes = successes
        self.trials = trials
        estimate = s / n
        let t = UInt32(clamping: trials), k = UInt32(clamping: successes)
        // P(X >= s | p) rises with p; P(X <= s | p) falls with p.
        lower = successes == 0 ? 0 : Self.solve(alpha / 2, rising: true) { gsl_cdf_binomial_Q(k - 1, $0, t) }
        upper = successes == trials ? 1 : Self.solve(alpha / 2, rising: false) { gsl_cdf_binomial_P(k, $0, t) }
    }

    /// The p in [0, 1] with f(p) = target for a monotone f, by bisection to 1e-12.
    static func solve(_ target: Double, rising: Bool, _ f: (Double) -> Double) -> Double {
        var low = 0.0, high = 1.0
        for _ in 0..<200 where high - low > 1e-12 {
            let mid = (low + high) / 2
            if (f(mid) < target) == rising { low = mid } else { high = mid }
        }
        return (low + high) / 2
    }
}
