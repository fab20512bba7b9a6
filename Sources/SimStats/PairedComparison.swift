/// Which direction of a metric is better (latency: lower; cache hit ratio: higher).
@usableFromInline package enum BetterDirection: String, Sendable, Codable {
    /// Smaller values are better (latency, bytes, cost).
    case lower
    /// Larger values are better (hit ratio, share painted in time).
    case higher
}

/// The outcome of comparing a variant with a baseline at a confidence level.
@usableFromInline package enum ComparisonVerdict: String, Sendable, Codable {
    /// The paired interval for (variant − baseline) excludes 0 on the better side.
    case significantImprovement
    /// The paired interval excludes 0 on the worse side.
    case significantRegression
    /// The paired interval contains 0.
    case noSignificantDifference
}

/// A variant-versus-baseline comparison over replications run on common random numbers.
///
/// Replication i of both variants uses the same seed, so their outputs are positively correlated
/// and the differences dᵢ = Bᵢ − Aᵢ have Var(d) = Var(A) + Var(B) − 2 Cov(A, B): the paired
/// interval `d̄ ± t_{n−1} S_d / √n` is narrower than the unpaired Welch interval by about
/// √Var(d) / √(Var(A) + Var(B)). The Welch interval is reported alongside for contrast.
@usableFromInline package struct PairedComparison: Sendable, Equatable, Encodable {
    /// Paired-difference interval for E[B − A].
    @usableFromInline package let pairedDifference: ConfidenceInterval
    /// Welch (unpaired, unequal variances) interval for E[B] − E[A], ignoring the pairing.
    @usableFromInline package let welchDifference: ConfidenceInterval
    /// Which direction is better for this metric.
    @usableFromInline package let better: BetterDirection
    /// Verdict from the paired interval.
    @usableFromInline package let verdict: ComparisonVerdict

    /// Compares `variant` (B) with `baseline` (A); element i of both comes from replication i.
    /// - Throws: `.mismatchedPairCount`, `.tooFewValues` (n < 2), `.nonFiniteValue`, `.invalidConfidenceLevel`.
    /// - Complexity: O(n).
    @usableFromInline package init(baseline: [Double], variant: [Double], better: BetterDirection, level: Double) throws(StatisticsError) {
        guard baseline.count == variant.count else {
            throw .mismatchedPairCount(baseline: baseline.count, variant: variant.count)
        }
        let a = try RunningMoments(validating: baseline)
        let b = try RunningMoments(validating: variant)
        var d = RunningMoments()
        for i in baseline.indices { d.add(variant[i] - baseline[i]) }
        let paired = try ConfidenceInterval.studentT(moments: d, level: level)
        self.pairedDifference = paired
        self.welchDifference = try Self.welch(baseline: a, variant: b, level: level)
        self.better = better
        if paired.lower > 0 {
            verdict = better == .higher ? .significantImprovement : .significantRegression
        } else if paired.upper < 0 {
            verdict = better == .lower ? .significantImprovement : .significantRegression
        } else {
            verdict = .noSignificantDifference
        }
    }

    /// Welch's interval for E[B] − E[A] from two independent samples:
    /// (x̄_B − x̄_A) ± t_ν √(S²_A/n_A + S²_B/n_B), ν by Welch–Satterthwaite. When both sample
    /// variances are 0 the half-width is 0 and ν = n_A + n_B − 2.
    /// - Throws: `.tooFewValues` if either sample has fewer than 2 values; `.invalidConfidenceLevel`.
    /// - Complexity: O(1).
    @usableFromInline package static func welch(baseline a: RunningMoments, variant b: RunningMoments, level: Double) throws(StatisticsError) -> ConfidenceInterval {
        try validateLevel(level)
        guard let varA = a.variance else { throw .tooFewValues(needed: 2, found: a.count) }
        guard let varB = b.variance else { throw .tooFewValues(needed: 2, found: b.count) }
        let nA = Double(a.count), nB = Double(b.count)
        let seA = varA / nA, seB = varB / nB
        let se2 = seA + seB
        let mean = b.mean - a.mean
        guard se2 > 0 else {
            return ConfidenceInterval(mean: mean, halfWidth: 0, level: level, n: a.count + b.count,
                                      degreesOfFreedom: nA + nB - 2)
        }
        let dof = se2 * se2 / (seA * seA / (nA - 1) + seB * seB / (nB - 1))
        let t = ConfidenceInterval.tQuantile(level: level, degreesOfFreedom: dof)
        return ConfidenceInterval(mean: mean, halfWidth: t * se2.squareRoot(), level: level,
                                  n: a.count + b.count, degreesOfFreedom: dof)
    }
}
