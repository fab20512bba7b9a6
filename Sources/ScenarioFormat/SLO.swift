import Foundation
import InfraModel
import PushModel

// The `slo` section of a scenario file: service-level objectives on result metrics, checked by
// `prestage run` against each metric's confidence interval and used by `prestage plan` as the
// constraints of the capacity question (k6's thresholds are the model: a metric, a comparison, a
// threshold).

/// One service-level objective: `metric op threshold`, decided at `confidence`.
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

    /// An objective from its parts.
    package init(metric: String, op: Comparison, threshold: Double, confidence: Double = ServiceLevelObjective.confidenceDefault) {
        self.metric = metric
        self.op = op
        self.threshold = threshold
        self.confidence = confidence
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case metric, op, threshold, confidence }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        metric = try c.decode(String.self, forKey: .metric)
        op = try c.decode(Comparison.self, forKey: .op)
        threshold = try c.decode(Double.self, forKey: .threshold)
        confidence = try c.decodeIfPresent(Double.self, forKey: .confidence) ?? Self.confidenceDefault
        var problems: [ConfigIssue] = []
        if let issue = Self.metricIssue(metric) { problems.append(issue) }
        if !threshold.isFinite { problems.append(ConfigIssue(key: "threshold", expected: "a finite number", found: "\(threshold)")) }
        let levels = ScenarioLimits.confidenceLevels
        if !levels.contains(confidence) {
            problems.append(ConfigIssue(key: "confidence", expected: "a number in [\(levels.lowerBound), \(levels.upperBound)]", found: "\(confidence)"))
        }
        if !problems.isEmpty { throw ConfigIssues(problems) }
    }

    /// Every metric name an objective may name: MetricTable's fixed names and the per-network
    /// tap-to-paint quantiles of InfraModel's network classes.
    package static var knownMetrics: [String] {
        MetricID.allCases.map(\.rawValue) + NetworkClass.allCases.flatMap { c in
            MetricTable.NetworkQuantile.allCases.map { MetricTable.tapToPaint(network: c.description, quantile: $0).name }
        }
    }

    /// The problem with `name` as a metric, with the closest known name suggested; nil if known.
    static func metricIssue(_ name: String) -> ConfigIssue? {
        guard !knownMetrics.contains(name) else { return nil }
        let hint = Spelling.closest(to: name, among: knownMetrics).map { " (did you mean \"\($0)\"?)" } ?? ""
        return ConfigIssue(key: "metric", expected: "a metric of the result table, e.g. origin.rejected503\(hint)", found: "\"\(name)\"")
    }

    /// The objectives among `objectives` whose metric `world` cannot produce: a per-network
    /// tap-to-paint quantile of a network class no device of the population uses.
    static func unproducible(_ objectives: [ServiceLevelObjective], in world: PushWorldConfig) -> [ConfigIssue] {
        var used = Set<Int>()
        let mixes = [world.population.networkMix] + world.population.regionNetworkMix.map(\.mix)
        for mix in mixes { for (i, w) in mix.weights.enumerated() where w > 0 { used.insert(i) } }
        var issues: [ConfigIssue] = []
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

    /// "origin.rejected503 <= 0 at 95 %".
    package var text: String {
        "\(metric) \(op.rawValue) \(formatNumber(threshold)) at \(formatNumber(confidence * 100)) %"
    }

    private func formatNumber(_ x: Double) -> String {
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
