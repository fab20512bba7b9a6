import Stochastic

/// A two-sided confidence interval `mean ± halfWidth` for an expected value.
///
/// Built from independent replications: the replication values are i.i.d., so
/// `x̄ ± t_{ν, 1−α/2} · S / √n` with ν = n − 1 covers the true mean with probability ≈ `level`
/// (exactly for normal data; asymptotically otherwise). The Welch interval in `PairedComparison`
/// uses a non-integer ν, hence `degreesOfFreedom` is a `Double`.
///
/// Codable form: `{"mean", "halfWidth", "lower", "upper", "level", "n", "degreesOfFreedom"}`;
/// decoding validates and recomputes `lower`/`upper`, keeping ends moved inward by `clipped(to:)`.
@usableFromInline package struct ConfidenceInterval: Sendable, Equatable, Codable {
    /// Point estimate (sample mean).
    @usableFromInline package let mean: Double
    /// Half-width of the interval (≥ 0).
    @usableFromInline package let halfWidth: Double
    /// Confidence level 1 − α, in (0, 1).
    @usableFromInline package let level: Double
    /// Number of observations the interval is based on.
    @usableFromInline package let n: Int
    /// Degrees of freedom of the t quantile used.
    @usableFromInline package let degreesOfFreedom: Double

    /// `mean − halfWidth`, raised to the floor of the metric's range when clipped (`clipped(to:)`).
    @usableFromInline package private(set) var lower: Double
    /// `mean + halfWidth`, lowered to the ceiling of the metric's range when clipped.
    @usableFromInline package private(set) var upper: Double

    /// The interval with its ends moved inside `range`, the values the estimated mean can take (a
    /// count's mean is never negative, a share's lies in [0, 1]). The true mean lies in `range`, so
    /// the clipped interval covers it exactly when the unclipped one does: the coverage is
    /// unchanged, and no end shows a value the metric cannot have. `halfWidth` keeps the t
    /// half-width (the precision of the mean).
    @usableFromInline package func clipped(to range: ClosedRange<Double>) -> ConfidenceInterval {
        var c = self
        c.lower = min(max(lower, range.lowerBound), range.upperBound)
        c.upper = max(min(upper, range.upperBound), range.lowerBound)
        return c
    }

    /// Whether an end was moved inside the metric's range by `clipped(to:)`.
    @usableFromInline package var isClipped: Bool { lower != mean - halfWidth || upper != mean + halfWidth }

    /// The interval as a table shows it beside the mean: "± 0.12", or "[0, 4.39]" when clipped
    /// (a "± h" would claim values the metric cannot take); `number` formats each figure.
    @usableFromInline package func text(_ number: (Double) -> String) -> String {
        isClipped ? "[\(number(lower)), \(number(upper))]" : "± " + number(halfWidth)
    }

    /// Whether `x` lies in the closed interval.
    @usableFromInline package func contains(_ x: Double) -> Bool { x >= lower && x <= upper }

    /// An interval from its parts (programmer API: the parts must be valid).
    @usableFromInline package init(mean: Double, halfWidth: Double, level: Double, n: Int, degreesOfFreedom: Double) {
        precondition(halfWidth >= 0 && level > 0 && level < 1 && n >= 0 && degreesOfFreedom > 0,
                     "invalid ConfidenceInterval parts")
        self.mean = mean
        self.halfWidth = halfWidth
        self.level = level
        self.n = n
        self.degreesOfFreedom = degreesOfFreedom
        lower = mean - halfWidth
        upper = mean + halfWidth
    }

    /// The t-based interval for the mean of independent replication values.
    /// - Throws: `.tooFewValues` for n < 2, `.nonFiniteValue`, `.invalidConfidenceLevel`.
    /// - Complexity: O(n).
    @usableFromInline package static func studentT(sample: [Double], level: Double) throws(StatisticsError) -> ConfidenceInterval {
        try studentT(moments: RunningMoments(validating: sample), level: level)
    }

    /// The t-based interval from accumulated moments (n ≥ 2).
    /// - Complexity: O(1) (one GSL quantile evaluation).
    @usableFromInline package static func studentT(moments: RunningMoments, level: Double) throws(StatisticsError) -> ConfidenceInterval {
        try validateLevel(level)
        guard let s = moments.standardDeviation else { throw .tooFewValues(needed: 2, found: moments.count) }
        let dof = Double(moments.count - 1)
        let t = tQuantile(level: level, degreesOfFreedom: dof)
        return ConfidenceInterval(mean: moments.mean, halfWidth: t * s / Double(moments.count).squareRoot(),
                                  level: level, n: moments.count, degreesOfFreedom: dof)
    }

    /// t_{ν, 1−α/2} for a two-sided interval at `level` = 1 − α.
    static func tQuantile(level: Double, degreesOfFreedom: Double) -> Double {
        Quantiles.studentT(p: 1 - (1 - level) / 2, degreesOfFreedom: degreesOfFreedom)
    }

    private enum CodingKeys: String, CodingKey {
        case mean, halfWidth, lower, upper, level, n, degreesOfFreedom
    }

    @usableFromInline package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let mean = try c.decode(Double.self, forKey: .mean)
        let halfWidth = try c.decode(Double.self, forKey: .halfWidth)
        let level = try c.decode(Double.self, forKey: .level)
        let n = try c.decode(Int.self, forKey: .n)
        let dof = try c.decode(Double.self, forKey: .degreesOfFreedom)
        let lower = try c.decodeIfPresent(Double.self, forKey: .lower)
        let upper = try c.decodeIfPresent(Double.self, forKey: .upper)
        guard mean.isFinite else {
            throw DecodingError.dataCorruptedError(forKey: .mean, in: c, debugDescription: "expected a finite number, found \(mean)")
        }
        guard halfWidth >= 0, halfWidth.isFinite else {
            throw DecodingError.dataCorruptedError(forKey: .halfWidth, in: c, debugDescription: "expected a number ≥ 0, found \(halfWidth)")
        }
        guard level > 0, level < 1 else {
            throw DecodingError.dataCorruptedError(forKey: .level, in: c, debugDescription: "expected a number in (0, 1), found \(level)")
        }
        guard n >= 0 else {
            throw DecodingError.dataCorruptedError(forKey: .n, in: c, debugDescription: "expected an integer ≥ 0, found \(n)")
        }
        guard dof > 0, dof.isFinite else {
            throw DecodingError.dataCorruptedError(forKey: .degreesOfFreedom, in: c, debugDescription: "expected a number > 0, found \(dof)")
        }
        self.init(mean: mean, halfWidth: halfWidth, level: level, n: n, degreesOfFreedom: dof)
        // A clipped interval keeps its ends: each lies between the unclipped end and the mean.
        let slack = 1e-9 * max(1, abs(mean) + halfWidth)
        if let lower {
            guard lower.isFinite, lower >= self.lower - slack, lower <= mean + slack else {
                throw DecodingError.dataCorruptedError(forKey: .lower, in: c, debugDescription: "expected a number in [mean − halfWidth, mean], found \(lower)")
            }
            self.lower = Swift.max(self.lower, lower)
        }
        if let upper {
            guard upper.isFinite, upper <= self.upper + slack, upper >= mean - slack else {
                throw DecodingError.dataCorruptedError(forKey: .upper, in: c, debugDescription: "expected a number in [mean, mean + halfWidth], found \(upper)")
            }
            self.upper = Swift.min(self.upper, upper)
        }
    }

    @usableFromInline package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(mean, forKey: .mean)
        try c.encode(halfWidth, forKey: .halfWidth)
        try c.encode(lower, forKey: .lower)
        try c.encode(upper, forKey: .upper)
        try c.encode(level, forKey: .level)
        try c.encode(n, forKey: .n)
        try c.encode(degreesOfFreedom, forKey: .degreesOfFreedom)
    }
}

/// How many independent replications a target precision needs.
@usableFromInline package enum ReplicationPlanner {
    /// Largest replication count the planner will search up to.
    @usableFromInline package static let replicationsLimit = 1_000_000

    /// The smallest n ≥ `minimumReplications` with t_{n−1, 1−α/2} · S / √n ≤ `targetHalfWidth`,
    /// where S is the pilot standard deviation (Law, *Simulation Modeling and Analysis*, §9.4.1,
    /// "number of replications for an absolute error β"). Nil if no n ≤ `maximumReplications` suffices.
    ///
    /// Law's estimate assumes S does not change as replications are added; rerun it with the
    /// updated S after the extra replications (the sequential procedure).
    /// - Throws: `.invalidParameter` for a negative/non-finite S, a non-positive target or a maximum
    ///   outside 2...`replicationsLimit`; `.invalidConfidenceLevel`.
    /// - Complexity: O(n*) GSL quantile evaluations, n* the answer (≤ `maximumReplications`).
    @usableFromInline package static func replicationsNeeded(
        standardDeviation s: Double, targetHalfWidth: Double, level: Double,
        minimumReplications: Int = 2, maximumReplications: Int
    ) throws(StatisticsError) -> Int? {
        try validateLevel(level)
        guard s >= 0, s.isFinite else {
            throw .invalidParameter(name: "standardDeviation", value: "\(s)", expected: "a finite number ≥ 0")
        }
        guard targetHalfWidth > 0, targetHalfWidth.isFinite else {
            throw .invalidParameter(name: "targetHalfWidth", value: "\(targetHalfWidth)", expected: "a finite number > 0")
        }
        guard maximumReplications >= 2, maximumReplications <= replicationsLimit else {
            throw .invalidParameter(name: "maximumReplications", value: "\(maximumReplications)",
                                    expected: "an integer in 2...\(replicationsLimit)")
        }
        var n = max(2, minimumReplications)
        while n <= maximumReplications {
            let t = ConfidenceInterval.tQuantile(level: level, degreesOfFreedom: Double(n - 1))
            if t * s / Double(n).squareRoot() <= targetHalfWidth { return n }
            n += 1
        }
        return nil
    }

    /// `replicationsNeeded` with S and the starting n taken from pilot replications.
    /// - Throws: `.tooFewValues` if the pilot has fewer than 2 replications, plus the above.
    @usableFromInline package static func replicationsNeeded(
        pilot: RunningMoments, targetHalfWidth: Double, level: Double, maximumReplications: Int
    ) throws(StatisticsError) -> Int? {
        guard let s = pilot.standardDeviation else { throw .tooFewValues(needed: 2, found: pilot.count) }
        return try replicationsNeeded(standardDeviation: s, targetHalfWidth: targetHalfWidth, level: level,
                                      minimumReplications: pilot.count, maximumReplications: maximumReplications)
    }
}
