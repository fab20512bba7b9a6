import CGSL

/// A share with its exact (Clopper–Pearson) confidence interval.
public struct Proportion: Sendable, Equatable, Codable {
    public let successes: Int
    public let trials: Int
    public let estimate: Double
    public let lower: Double
    public let upper: Double

    /// `successes` of `trials` (0 ≤ successes ≤ trials, trials > 0) at `confidenceLevel`: the
    /// interval's ends are Beta quantiles (`gsl_cdf_beta_Pinv`), so it covers the true share with
    /// probability at least the level for every share.
    public init(successes: Int, trials: Int, confidenceLevel: Double = 0.95) {
        GSLRuntime.ensureInitialised()
        precondition(trials > 0 && successes >= 0 && successes <= trials, "Proportion needs 0 <= successes <= trials, trials > 0")
        let alpha = 1 - confidenceLevel
        let s = Double(successes), n = Double(trials)
        self.successes = successes
        self.trials = trials
        estimate = s / n
        lower = successes == 0 ? 0 : gsl_cdf_beta_Pinv(alpha / 2, s, n - s + 1)
        upper = successes == trials ? 1 : gsl_cdf_beta_Pinv(1 - alpha / 2, s + 1, n - s)
    }
}
