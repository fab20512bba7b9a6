import PushModel
import ReportKit
import ScenarioFormat

extension ReportBuilder {
    /// The report's Campaigns tables, each a caption and its metric columns (every per-campaign
    /// metric is in summary.json and campaigns.csv). Four narrow tables rather than one of twelve
    /// columns: with their intervals, more than four did not fit a 1 400-px page.
    static let campaignTables: [(caption: String, metrics: [MetricID])] = [
        ("Delivery per campaign", [.pushesTargeted, .outcomesCompletedShare, .outcomesNotDeliveredShare, .deliverySecondsTo99Percent]),
        ("Taps per campaign", [.tapsCount, .tapsInstantShare, .tapsAbandonedShare]),
        ("Tap to paint per campaign", [.tapToPaintP95, .tapToPaintShareUnder500ms]),
        ("Edge and bytes per campaign", [.edgePrestageHitRatio, .bytesBackground, .bytesNeverOpened]),
    ]

    /// "Campaigns": one row per campaign (the scenario's order), the mean of each column's metric
    /// and its interval; nil with fewer than two campaigns.
    static func campaignsSection(scenario: ScenarioFile, aggregate: RunAggregate) -> ReportSection? {
        guard let campaigns = aggregate.campaignMetrics(names: scenario.world.campaigns.map(\.name)) else { return nil }
        let level = Int((scenario.run.confidenceLevel * 100).rounded())
        func table(_ caption: String, _ metrics: [MetricID]) -> ReportBlock {
            let rows: [[TableCell]] = campaigns.map { c in
                [.text(c.name)] + metrics.map { id -> TableCell in
                    guard let m = c.metric(id.rawValue), let mean = m.mean else { return .empty }
                    let scale = HumanScale.choose(for: measuredUnit(name: m.name, unit: m.unit), magnitude: mean)
                    let ci = m.confidenceInterval.map { " (" + scale.number($0.lower) + " – " + scale.number($0.upper) + ")" } ?? ""
                    return .text(scale.text(mean) + ci)
                }
            }
            let columns = [Table.Column("Campaign")] + metrics.map { Table.Column(MetricTable.spec(named: $0.rawValue)?.title ?? $0.rawValue, alignment: .trailing) }
            return .table(Table(caption: caption + " (campaign:NAME/METRIC)", columns: columns, rows: rows))
        }
        return ReportSection(title: "Campaigns", blocks: [
            .paragraph("Each campaign's figures, means over \(aggregate.replications) replication(s) with \(level) % intervals: every pooled metric restricted to the campaign's own pushes, "
                       + "the taps on its notifications and the requests of its pre-stages (counts over campaigns add up to the pooled counts). "
                       + "Time to 99 % counts from the campaign's own first send. Every per-campaign metric is in summary.json (campaigns) and campaigns.csv; "
                       + "objectives, plan and compare name them campaign:NAME/METRIC."),
        ] + campaignTables.map { table($0.caption, $0.metrics) })
    }
}
