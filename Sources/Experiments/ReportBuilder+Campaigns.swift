import PushModel
import ReportKit
import ScenarioFormat

extension ReportBuilder {
    /// The columns of the report's Campaigns table (every per-campaign metric is in summary.json
    /// and campaigns.csv).
    static let campaignTableMetrics: [MetricID] = [
        .pushesTargeted, .outcomesCompletedShare, .outcomesNotDeliveredShare, .deliverySecondsTo99Percent,
        .edgePrestageHitRatio, .tapsCount, .tapsInstantShare, .tapToPaintP95, .tapToPaintShareUnder500ms,
        .tapsAbandonedShare, .bytesBackground, .bytesNeverOpened,
    ]

    /// "Campaigns": one row per campaign (the scenario's order), the mean of each column's metric
    /// and its interval; nil with fewer than two campaigns.
    static func campaignsSection(scenario: ScenarioFile, aggregate: RunAggregate) -> ReportSection? {
        guard let campaigns = aggregate.campaignMetrics(names: scenario.world.campaigns.map(\.name)) else { return nil }
        let level = Int((scenario.run.confidenceLevel * 100).rounded())
        let rows: [[TableCell]] = campaigns.map { c in
            [.text(c.name)] + campaignTableMetrics.map { id -> TableCell in
                guard let m = c.metric(id.rawValue), let mean = m.mean else { return .empty }
                let scale = HumanScale.choose(for: measuredUnit(name: m.name, unit: m.unit), magnitude: mean)
                let ci = m.confidenceInterval.map { " (" + scale.number($0.lower) + " – " + scale.number($0.upper) + ")" } ?? ""
                return .text(scale.text(mean) + ci)
            }
        }
        let columns = [Table.Column("Campaign")] + campaignTableMetrics.map { Table.Column(MetricTable.spec(named: $0.rawValue)?.title ?? $0.rawValue, alignment: .trailing) }
        return ReportSection(title: "Campaigns", blocks: [
            .paragraph("Each campaign's figures, means over \(aggregate.replications) replication(s) with \(level) % intervals: every pooled metric restricted to the campaign's own pushes, "
                       + "the taps on its notifications and the requests of its pre-stages (counts over campaigns add up to the pooled counts). "
                       + "Time to 99 % counts from the campaign's own first send. Every per-campaign metric is in summary.json (campaigns) and campaigns.csv; "
                       + "objectives, plan and compare name them campaign:NAME/METRIC."),
            .table(Table(caption: "Per-campaign metrics (campaign:NAME/METRIC)", columns: columns, rows: rows)),
        ])
    }
}
