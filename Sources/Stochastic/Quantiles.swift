import CGSL

/// Inverse cumulative distribution functions (quantile functions) from GSL, for the statistics
/// layer (confidence intervals, replication planning) and for inverse-transform sampling in tests.
///
/// All functions are pure and thread-safe. Arguments outside the documented domain are programmer
/// errors (callers validate user-supplied levels first) and trip a precondition.
@usableFromInline package enum Quantiles {
    /// The `p`-quantile of the standard normal distribution, Φ⁻¹(p) (`gsl_cdf_ugaussian_Pinv`).
    /// - Parameter p: probability in the open interval (0, 1).
    /// - Complexity: O(1).
    @usableFromInline package static func standardNormal(p: Double) -> Double {
        precondition(p > 0 && p < 1, "standardNormal(p:) needs 0 < p < 1, got \(p)")
        return gsl_cdf_ugaussian_Pinv(p)
    }

    /// The `p`-quantile of Student's t distribution with `degreesOfFreedom` ν (`gsl_cdf_tdist_Pinv`).
    /// Non-integer ν is allowed (Welch–Satterthwaite degrees of freedom).
    /// - Parameters:
    ///   - p: probability in the open interval (0, 1).
    ///   - degreesOfFreedom: ν > 0 (finite).
    /// - Complexity: O(1) (a few Newton steps inside GSL).
    @usableFromInline package static func studentT(p: Double, degreesOfFreedom: Double) -> Double {
        precondition(p > 0 && p < 1, "studentT(p:) needs 0 < p < 1, got \(p)")
        precondition(degreesOfFreedom > 0 && degreesOfFreedom.isFinite,
                     "studentT needs finite degreesOfFreedom > 0, got \(degreesOfFreedom)")
        return gsl_cdf_tdist_Pinv(p, degreesOfFreedom)
    }

    /// The `p`-quantile of the chi-square distribution with `degreesOfFreedom` ν (`gsl_cdf_chisq_Pinv`).
    /// - Parameters:
    ///   - p: probability in the open interval (0, 1).
    ///   - degreesOfFreedom: ν > 0 (finite).
    /// - Complexity: O(1).
    @usableFromInline package static func chiSquare(p: Double, degreesOfFreedom: Double) -> Double {
        precondition(p > 0 && p < 1, "chiSquare(p:) needs 0 < p < 1, got \(p)")
        precondition(degreesOfFreedom > 0 && degreesOfFreedom.isFinite,
                     "chiSquare needs finite degreesOfFreedom > 0, got \(degreesOfFreedom)")
        return gsl_cdf_chisq_Pinv(p, degreesOfFreedom)
    }

    /// The `p`-quantile of the beta distribution with shapes `a` and `b` (`gsl_cdf_beta_Pinv`): the
    /// Clopper–Pearson bounds of a binomial proportion are beta quantiles.
    /// - Parameters:
    ///   - p: probability in the open interval (0, 1).
    ///   - a, b: shapes > 0 (finite).
    /// - Complexity: O(1) (a bisection and Newton steps inside GSL).
    @usableFromInline package static func beta(p: Double, a: Double, b: Double) -> Double {
        precondition(p > 0 && p < 1, "beta(p:) needs 0 < p < 1, got \(p)")
        precondition(a > 0 && a.isFinite && b > 0 && b.isFinite, "beta needs finite shapes > 0, got \(a), \(b)")
        // GSL's inversion does not converge for large shapes (thousands of trials); with its default
        // handler that aborts the process, so it must be off here too (the result is then NaN).
        GSLRuntime.ensureInitialised()
        return gsl_cdf_beta_Pinv(p, a, b)
    }
}
