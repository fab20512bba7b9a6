import Foundation
import PushModel
import ScenarioFormat
import SimStats
import Stochastic

/// How many replications a metric needs for a target precision, estimated from a run's spread.
struct PrecisionPlan: Codable, Sendable, Equatable {
    /// The half-width aimed at relative to the mean (`run.relativeHalfWidthTarget`, e.g. 0.05).
    var relativeTarget: Double
    /// `relativeTarget × |mean|`, in the metric's unit.
    var targetHalfWidth: Double
    /// The smallest n ≥ 2 with t_{n−1, 1−α/2} · S / √n ≤ `targetHalfWidth`, S being the standard
    /// deviation over this run's replications (Law, §9.4.1; SimStats' `ReplicationPlanner`). Nil
    /// when more than `ScenarioLimits.replicationsMax` would be needed, or the mean is 0 while the
    /// values vary (no relative target exists). An estimate: S itself changes with more replications.
    var replicationsNeeded: Int?

    /// The plan for replication values `sample` (every replication finite, at least 2).
    /// Nil for fewer than 2 values.
    /// - Complexity: O(sample.count) plus O(n* − n₀) t quantiles, n₀ = ⌊(z·S/target)²⌋ being a
    ///   lower bound of the answer n* (t quantiles exceed the normal one), so a handful in practice.
    static func plan(sample: [Double], level: Double, relativeTarget: Double) -> PrecisionPlan? {
        guard let moments = try? RunningMoments(validating: sample), let s = moments.standardDeviation else { return nil }
        let target = relativeTarget * abs(moments.mean)
        var plan = PrecisionPlan(relativeTarget: relativeTarget, targetHalfWidth: target, replicationsNeeded: nil)
        if s == 0 {
            plan.replicationsNeeded = 2  // no spread: any count meets any target
            return plan
        }
        guard target > 0, target.isFinite else { return plan }
        let z = Quantiles.standardNormal(p: 1 - (1 - level) / 2)
        let lowerBound = (z * s / target) * (z * s / target)
        guard lowerBound <= Double(ScenarioLimits.replicationsMax) else { return plan }
        plan.replicationsNeeded = try? ReplicationPlanner.replicationsNeeded(
            standardDeviation: s, targetHalfWidth: target, level: level,
            minimumReplications: max(2, Int(lowerBound)), maximumReplications: ScenarioLimits.replicationsMax)
        return plan
    }
}

/// One headline metric over the replications of a run.
package struct MetricSummary: Codable, Sendable, Equatable {
    /// e.g. "tapToPaint.p50Seconds".
    package var name: String
    /// e.g. "s", "ratio", "req/s".
    package var unit: String
    /// "lower", "higher" or "none": which direction is better.
    var better: String
    /// The value of each replication, by replication index; nil where the replication produced no
    /// finite value (e.g. a percentile of an empty histogram).
    var values: [Double?]
    /// Mean of the finite values; nil if there are none.
    package var mean: Double?
    /// The t-based interval over the replications, clipped to the metric's range (`MetricUnit.bounds`);
    /// nil with fewer than 2 finite values, or when
    /// some replication had no finite value (the mean of the rest would be biased).
    package var confidenceInterval: ConfidenceInterval?
    /// Replications needed for a half-width of `relativeHalfWidthTarget × |mean|`; nil exactly
    /// when `confidenceInterval` is nil.
    var precision: PrecisionPlan?
    /// With uncertain inputs drawn once per `perDraw` replications (≥ 2): the spread split into the
    /// inputs' part and the simulation's (`VarianceSplit`); absent otherwise.
    package var varianceSplit: VarianceSplit?

    /// Summarises `values` (one per replication) at `level`, planning replications for a
    /// half-width of `relativeHalfWidthTarget` × |mean|. With `perDraw` ≥ 2 (uncertain inputs,
    /// replications sharing each draw in consecutive runs), the interval and the plan are over
    /// the draw means, the independent units of that design, and `varianceSplit` is set.
    /// - Complexity: O(values.count) (see `PrecisionPlan.plan`).
    package init(name: String, unit: String, better: String, values: [Double], level: Double,
                relativeHalfWidthTarget: Double = RunSettings.relativeHalfWidthTargetDefault, perDraw: Int = 1) {
        self.name = name
        self.unit = unit
        self.better = better
        self.values = values.map { $0.isFinite ? $0 : nil }
        let finite = values.filter(\.isFinite)
        mean = finite.isEmpty ? nil : finite.reduce(0, +) / Double(finite.count)
        let units = VarianceSplit.drawMeans(finite, perDraw: perDraw)
        if finite.count == values.count, units.count >= 2 {
            // Clipped to the metric's range: a count's interval never goes below 0, a share's stays in [0, 1].
            let range = MetricTable.spec(named: name)?.unit.bounds ?? -Double.infinity...Double.infinity
            confidenceInterval = (try? ConfidenceInterval.studentT(sample: units, level: level))?.clipped(to: range)
        } else {
            confidenceInterval = nil
        }
        precision = confidenceInterval == nil ? nil : PrecisionPlan.plan(sample: units, level: level, relativeTarget: relativeHalfWidthTarget)
        varianceSplit = finite.count == values.count ? VarianceSplit(values: finite, perDraw: perDraw) : nil
    }

    /// The per-replication values when every replication has one.
    var finiteValues: [Double]? {
        let kept = values.compactMap { $0 }
        return kept.count == values.count ? kept : nil
    }
}

/// The comparable part of `summary.json`: what `prestage compare` reads. Wall time and other
/// machine-dependent figures live in `run-info.json`, so two runs of the same scenario and seed
/// write byte-identical `summary.json` files.
package struct RunSummary: Codable, Sendable, Equatable {
    /// Identifies the file format; bumped on incompatible changes.
    package static let formatName = "prestage-summary/1"

    /// `formatName`.
    package var format: String
    /// "prestage 0.1.0".
    var toolVersion: String
    /// The scenario's `name`.
    var scenarioName: String
    /// The scenario's one-line question.
    var question: String
    /// "sha256:" + hex SHA-256 of the canonical resolved scenario JSON (sorted keys).
    var scenarioHash: String
    /// The master seed; replication r draws from streams derived from (seed, r).
    var seed: UInt64
    /// Number of replications.
    var replications: Int
    /// Confidence level of every interval, e.g. 0.95.
    var confidenceLevel: Double
    /// Headline metrics, sorted by name.
    package var metrics: [MetricSummary]
    /// Events processed, per replication.
    var eventsProcessed: [UInt64]
    /// Virtual time reached, per replication, seconds.
    var virtualEndSeconds: [Double]
    /// Each campaign's metrics, campaigns in the scenario's order; absent with one campaign.
    package var campaigns: [CampaignMetrics]? = nil

    /// A summary; see the properties.
    init(toolVersion: String, scenarioName: String, question: String, scenarioHash: String, seed: UInt64,
         replications: Int, confidenceLevel: Double, metrics: [MetricSummary], eventsProcessed: [UInt64],
         virtualEndSeconds: [Double]) {
        self.format = Self.formatName
        self.toolVersion = toolVersion
        self.scenarioName = scenarioName
        self.question = question
        self.scenarioHash = scenarioHash
        self.seed = seed
        self.replications = replications
        self.confidenceLevel = confidenceLevel
        self.metrics = metrics
        self.eventsProcessed = eventsProcessed
        self.virtualEndSeconds = virtualEndSeconds
    }

    /// The metric named `name`.
    func metric(_ name: String) -> MetricSummary? {
        if let (c, m) = MetricTable.campaignMetricParts(name) {
            return campaigns?.first { $0.name == c }?.metric(m).map { found in
                var full = found
                full.name = name
                return full
            }
        }
        return metrics.first { $0.name == name }
    }
}

/// Encodes as a `RunSummary` with extra top-level members (the resolved scenario, outcome counts).
struct SummaryDocument<Extra: Encodable>: Encodable {
    let summary: RunSummary
    let extra: Extra

    func encode(to encoder: any Encoder) throws {
        try summary.encode(to: encoder)
        try extra.encode(to: encoder)
    }
}
