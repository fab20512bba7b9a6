import Foundation
import InfraModel
import PushModel

// The `slo` section of a scenario file: service-level objectives on result metrics, checked by
// `prestage run` against each metric's confidence interval and used by `prestage plan` as the
// constraints of the capacity question (k6's thresholds are the model: a metric, a comparison, a
// threshold).

/// One service-level objective, of one of two kinds:
/// - a **mean** objective: the metric's mean over replications satisfies `metric op threshold`,
///   decided from the metric's confidence interval at `confidence`;
/// - a **chance constraint** (`probability` q set): the share of replications (days) on which the
///   replication's value satisfies `metric op threshold` is at least q, decided from an exact
///   Clopper–Pearson bound at `confidence`. This is the form for rare events such as "no origin
///   503": three clean replications bound the chance of a clean day only above 37 %.
package struct ServiceLevelObjective: Codable, Sendable, Equatable {
    /// How the metric must compare with the threshold.
    package enum Comparison: String, Codable, Sendable, CaseIterable {
        /// The metric's mean must be at most the threshold.
        case atMost = "<="
        /// The metric's mean must be at least the threshold.
        case atLeast = ">="
    }

    /// A metric name of `MetricTable` (e.g. `origin.rejected503`, `tapToPaint.lte.p90Seconds`).
    package var metric: String
    /// The comparison.
    package var op: Comparison
    /// The threshold, in the metric's unit.
    package var threshold: Double
    /// Confidence level of the interval the verdict is read from, in [0.5, 0.999]. Default 0.95.
    package var confidence: Double = ServiceLevelObjective.confidenceDefault
    /// 0.95.
    package static let confidenceDefault = 0.95
    /// For a chance constraint: the share of replications that must meet the threshold, in
    /// `probabilities`; nil for a mean objective.
    package var probability: Double? = nil
    /// The shares a chance constraint may ask for: (0, 1) exclusive, at most 0.999 (a
    /// probability of 1 could never be shown by finitely many replications).
    package static let probabilities = 0.5...0.999

    /// An objective from its parts.
    package init(metric: String, op: Comparison, threshold: Double, confidence: Double = ServiceLevelObjective.confidenceDefault,
                 probability: Double? = nil) {
        self.metric = metric
        self.op = op
        self.threshold = threshold
        self.confidence = confidence
        self.probability = probability
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case metric, op, threshold, confidence, probability }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        metric = try c.decode(String.self, forKey: .metric)
        op = try c.decode(Comparison.self, forKey: .op)
        threshold = try c.decode(Double.self, forKey: .threshold)
        confidence = try c.decodeIfPresent(Double.self, forKey: .confidence) ?? Self.confidenceDefault
        probability = try c.decodeIfPresent(Double.self, forKey: .probability)
        var problems: [ConfigIssue] = []
        if let issue = Self.metricIssue(metric) { problems.append(issue) }
        if !threshold.isFinite { problems.append(ConfigIssue(key: "threshold", expected: "a finite number", found: "\(threshold)")) }
        let levels = ScenarioLimits.confidenceLevels
        if !levels.contains(confidence) {
            problems.append(ConfigIssue(key: "confidence", expected: "a number in [\(levels.lowerBound), \(levels.upperBound)]", found: "\(confidence)"))
        }
        if let q = probability, !Self.probabilities.contains(q) {
            problems.append(ConfigIssue(key: "probability", expected: "a share of replications in [\(Self.probabilities.lowerBound), \(Self.probabilities.upperBound)]", found: "\(q)"))
        }
        if problems.isEmpty, let issue = rangeIssue { problems.append(issue) }
        if !problems.isEmpty { throw ConfigIssues(problems) }
    }

    /// The problem with the threshold's place in the metric's range, if any:
    /// - beyond the range or at its far edge (`share <= 1`, `count >= 0`): the objective can never
    ///   fail, or never pass (`count <= -1`);
    /// - for a mean objective, on the range's near edge (`count <= 0`, `share >= 1`): the mean
    ///   meets it only if every replication does, so no interval over replications can show it
    ///   with any confidence; the chance-constraint form states that question honestly.
    var rangeIssue: ConfigIssue? {
        guard let range = MetricTable.spec(named: metric)?.unit.bounds else { return nil }
        let t = formatNumber(threshold)
        let (near, far) = op == .atMost ? (range.lowerBound, range.upperBound) : (range.upperBound, range.lowerBound)
        let beyondNear = op == .atMost ? threshold < near : threshold > near
        let atOrBeyondFar = op == .atMost ? threshold >= far : threshold <= far
        let rangeText = range.upperBound.isFinite ? "[\(formatNumber(range.lowerBound)), \(formatNumber(range.upperBound))]" : "≥ \(formatNumber(range.lowerBound))"
        if beyondNear || atOrBeyondFar {
            return ConfigIssue(key: "threshold",
                               expected: "a threshold inside \(metric)'s range \(rangeText), where \(op.rawValue) can both pass and fail",
                               found: t)
        }
        if probability == nil, threshold == near {
            let chance = "{\"metric\": \"\(metric)\", \"op\": \"\(op.rawValue)\", \"threshold\": \(t), \"probability\": 0.95}"
            return ConfigIssue(key: "threshold",
                               expected: "a mean objective's threshold off the edge of \(metric)'s range \(rangeText) (its mean is \(op.rawValue) \(t) only when every replication is, which no interval can show); "
                                   + "ask for the share of replications instead, a chance constraint: \(chance)",
                               found: t)
        }
        return nil
    }

    /// Every metric name an objective may name: MetricTable's fixed names and the per-network
    /// tap-to-paint quantiles of InfraModel's network classes.
    package static var knownMetrics: [String] {
        MetricID.allCases.map(\.rawValue) + NetworkClass.allCases.flatMap { c in
            MetricTable.NetworkQuantile.allCases.map { MetricTable.tapToPaint(network: c.description, quantile: $0).name }
        } + NetworkClass.allCases.map { MetricTable.energy(network: $0.description).name } // energy
            + userDataNetworkMetrics
    }

    /// The problem with `name` as a metric, with the closest known name suggested; nil if known.
    static func metricIssue(_ name: String) -> ConfigIssue? {
        if let issue = campaignMetricIssue(name) { return issue }
        guard !knownMetrics.contains(name), MetricTable.spec(named: name) == nil else { return nil }
        let hint = Spelling.closest(to: name, among: knownMetrics).map { " (did you mean \"\($0)\"?)" } ?? ""
        return ConfigIssue(key: "metric", expected: "a metric of the result table, e.g. origin.rejected503\(hint)", found: "\"\(name)\"")
    }

    /// The problem with `name` as a metric of `world`'s results (a study's `--metric`): unknown,
    /// or one this world cannot produce, checked as an objective's metric is (`campaign:NAME/METRIC`
    /// and `cost.campaign.NAME.PART` against its campaigns, energy and analytics metrics against
    /// what is on); nil when `world` produces it.
    package static func metricIssue(_ name: String, in world: PushWorldConfig) -> (expected: String, found: String)? {
        // A lower bound of −∞ is no threshold: only the metric's name is checked.
        guard let issue = metricIssue(name) ?? unproducible([ServiceLevelObjective(metric: name, op: .atLeast, threshold: -.infinity)], in: world).first
        else { return nil }
        return (issue.expected, issue.found ?? "\"\(name)\"")
    }

    /// The objectives among `objectives` whose metric `world` cannot produce: a per-network
    /// tap-to-paint quantile of a network class no device of the population uses.
    static func unproducible(_ objectives: [ServiceLevelObjective], in world: PushWorldConfig) -> [ConfigIssue] {
        var used = Set<Int>()
        let mixes = [world.population.networkMix] + world.population.regionNetworkMix.map(\.mix)
        for mix in mixes { for (i, w) in mix.weights.enumerated() where w > 0 { used.insert(i) } }
        var issues: [ConfigIssue] = bandwidthIssues(objectives, in: world)
        // A campaign that never reaches 99 % reads the time to the horizon's end, so an allowance at
        // or past it would pass a send that never reached its audience.
        let firstSend = world.campaigns.map(\.sendStartSeconds).min() ?? 0
        let timeLeft = world.horizonSeconds - firstSend
        for (i, o) in objectives.enumerated() where o.metric == MetricID.deliverySecondsTo99Percent.rawValue && o.op == .atMost && o.threshold >= timeLeft {
            issues.append(ConfigIssue(at: [.key("slo"), .index(i), .key("threshold")],
                                      expected: "less than the \(Self.formatNumber(timeLeft)) s from the first send to the horizon (a send that never reaches 99 % reads that time, and would pass)",
                                      found: Self.formatNumber(o.threshold)))
        }
        // energy: the energy.* metrics exist only with the radio energy model on.
        for (i, o) in objectives.enumerated() where !world.energy.enabled && o.metric.hasPrefix("energy.") {
            issues.append(ConfigIssue(at: [.key("slo"), .index(i), .key("metric")],
                                      expected: "a metric this scenario can produce (energy.* metrics need \"energy\": {\"enabled\": true})",
                                      found: "\"\(o.metric)\""))
        }
        // analytics: the endpoint's queue metrics exist only with an `analytics` section, the
        // receipt counts only with receipts on.
        let queueMetrics: Set<String> = [.analyticsServed, .analyticsRejected, .analyticsRejectedShare, .analyticsDelayedShare,
                                         .analyticsWaitP95Seconds, .analyticsQueueLengthMax, .analyticsQueuedAtHorizon].reduce(into: []) { $0.insert(($1 as MetricID).rawValue) }
        for (i, o) in objectives.enumerated() where (o.metric.hasPrefix("analytics.") || o.metric.hasPrefix("receipts.")) {
            let needed = !world.preloadPolicy.receiptsEnabled ? "preloadPolicy.receiptsEnabled = true"
                : queueMetrics.contains(o.metric) && world.analytics == nil ? "an \"analytics\" section (the endpoint's capacity)" : nil
            if let needed {
                issues.append(ConfigIssue(at: [.key("slo"), .index(i), .key("metric")],
                                          expected: "a metric this scenario can produce (\(o.metric) needs \(needed))", found: "\"\(o.metric)\""))
            }
        }
        issues += costIssues(objectives, in: world)
        issues += campaignIssues(objectives, in: world)
        for (i, o) in objectives.enumerated() {
            for c in NetworkClass.allCases where !used.contains(Int(c.rawValue)) {
                for q in MetricTable.NetworkQuantile.allCases where o.metric == MetricTable.tapToPaint(network: c.description, quantile: q).name {
                    issues.append(ConfigIssue(at: [.key("slo"), .index(i), .key("metric")],
                                              expected: "a metric this scenario can produce (no device uses the network class \"\(c.description)\": its weight is 0 in every network mix)",
                                              found: "\"\(o.metric)\""))
                }
            }
        }
        return issues
    }

    /// "tapToPaint.p95Seconds <= 1.2 at 95 %"; a chance constraint "origin.rejected503 <= 0 in ≥ 90 % of replications at 90 %".
    package var text: String {
        let share = probability.map { " in ≥ \(percent($0)) % of replications" } ?? ""
        return "\(metric) \(op.rawValue) \(formatNumber(threshold))\(share) at \(percent(confidence)) %"
    }

    private func formatNumber(_ x: Double) -> String { Self.formatNumber(x) }

    /// 0.9 → "90" (0.9 · 100 is 90.00000000000001 in binary floating point).
    private func percent(_ share: Double) -> String { Self.formatNumber((share * 100 * 1e9).rounded() / 1e9) }

    static func formatNumber(_ x: Double) -> String {
        x == x.rounded() && abs(x) < 1e15 ? String(Int64(x)) : String(x)
    }
}

/// Validated `slo` entries.
struct ServiceLevelObjectives: Decodable {
    /// Most objectives in one scenario.
    static let countMax = 32
    let objectives: [ServiceLevelObjective]

    init(from decoder: any Decoder) throws {
        let list = try decoder.singleValueContainer().decode([ServiceLevelObjective].self)
        guard list.count <= Self.countMax else {
            throw ConfigIssue(expected: "at most \(Self.countMax) objectives", found: "\(list.count)")
        }
        objectives = list
    }
}
