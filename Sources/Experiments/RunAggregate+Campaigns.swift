import Foundation
import PushModel
import ScenarioFormat

/// One campaign's metrics across replications: the `campaign:NAME/METRIC` summaries of a run with
/// the prefix taken off (METRIC as in the pooled `metrics`), sorted by metric name. Each summary's
/// interval is computed and clamped to the metric's range as the pooled one's (`MetricSummary`).
package struct CampaignMetrics: Codable, Sendable, Equatable {
    /// The campaign's name.
    package var name: String
    /// Its metrics, names as in the pooled table.
    package var metrics: [MetricSummary]

    /// The metric named `name` (a pooled name, e.g. "tapToPaint.p95Seconds").
    package func metric(_ name: String) -> MetricSummary? { metrics.first { $0.name == name } }
}

extension RunAggregate {
    /// The pooled metrics: every summary but the `campaign:NAME/METRIC` ones.
    package var pooledMetrics: [MetricSummary] { metrics.filter { !$0.name.hasPrefix(MetricTable.campaignPrefix) } }

    /// The per-campaign summaries, one entry per campaign of `names` in that (the scenario's)
    /// order; nil with fewer than two campaigns (no per-campaign rows are produced then).
    package func campaignMetrics(names: [String]) -> [CampaignMetrics]? {
        guard names.count >= 2 else { return nil }
        let prefixed = metrics.filter { $0.name.hasPrefix(MetricTable.campaignPrefix) }
        return names.map { name in
            let head = MetricTable.campaignMetricName(name, "")
            let own = prefixed.compactMap { m -> MetricSummary? in
                guard m.name.hasPrefix(head) else { return nil }
                var plain = m
                plain.name = String(m.name.dropFirst(head.count))
                return plain
            }
            return CampaignMetrics(name: name, metrics: own)
        }
    }
}

extension RunSummary {
    /// Every metric `compare` matches by name: the pooled ones and each campaign's as
    /// `campaign:NAME/METRIC` (campaigns in the file's order).
    package var comparableMetrics: [MetricSummary] {
        metrics + (campaigns ?? []).flatMap { c in
            c.metrics.map { m in
                var full = m
                full.name = MetricTable.campaignMetricName(c.name, m.name)
                return full
            }
        }
    }
}

extension ResultFiles {
    /// campaigns.csv: one row per campaign (scenario order) and per-campaign metric (sorted): the
    /// mean over replications and its interval (empty where there is none). Nil with fewer than
    /// two campaigns (the file is not written).
    package static func campaignsCSV(scenario: ScenarioFile, aggregate: RunAggregate) -> Data? {
        guard let campaigns = aggregate.campaignMetrics(names: scenario.world.campaigns.map(\.name)) else { return nil }
        var out = "campaign,metric,unit,mean,ciLower,ciUpper,replications\n"
        for c in campaigns {
            for m in c.metrics {
                let ci = m.confidenceInterval
                out += csvField(c.name) + "," + m.name + "," + m.unit + "," + (m.mean.map(csvNumber) ?? "") + ","
                    + (ci.map { csvNumber($0.lower) } ?? "") + "," + (ci.map { csvNumber($0.upper) } ?? "") + ","
                    + String(m.values.count { $0 != nil }) + "\n"
            }
        }
        return Data(out.utf8)
    }

    /// A CSV field, quoted when it holds a comma or a quote.
    static func csvField(_ s: String) -> String {
        s.contains(",") || s.contains("\"") ? "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : s
    }
}
