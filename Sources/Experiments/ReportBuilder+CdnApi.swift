import PushModel
import ReportKit
import ScenarioFormat

extension ReportBuilder {
    /// One column of a CDN API table: a title and the metric (a time against the send is two
    /// metrics, its part after and its part before the send).
    typealias CdnApiColumn = (title: String, metric: MetricID, before: MetricID?)

    /// The CDN API tables, each a caption and its columns (three narrow tables rather than one
    /// too wide for the page).
    static let cdnApiTables: [(caption: String, columns: [CdnApiColumn])] = [
        ("CDN API purges", [("purge calls", .cdnApiPurgeCalls, nil), ("items purged", .cdnApiPurgeItems, nil), ("purge requests", .cdnApiPurgeRequests, nil),
                            ("longest purge (s)", .cdnApiPurgeCompleteSeconds, nil),
                            ("latest purge done", .cdnApiPurgeAfterSendSeconds, .cdnApiPurgeBeforeSendSeconds)]),
        ("CDN API warms", [("warm calls", .cdnApiWarmCalls, nil), ("URLs warmed", .cdnApiWarmItems, nil), ("warm requests", .cdnApiWarmRequests, nil),
                           ("longest warm (s)", .cdnApiWarmCompleteSeconds, nil),
                           ("latest warm done", .cdnApiWarmAfterSendSeconds, .cdnApiWarmBeforeSendSeconds)]),
        ("CDN API failures", [("requests failed", .cdnApiFailures, nil), ("retries", .cdnApiRetries, nil), ("batches abandoned", .cdnApiBatchesAbandoned, nil)]),
    ]

    /// The "CDN API" section: the profile's limits, what `validate` says binds, and what the calls
    /// did (the `cdnApi.*` means over replications), pooled and per campaign. Nil without
    /// `infra.cdnApi`.
    static func cdnApiSection(scenario: ScenarioFile, aggregate: RunAggregate) -> ReportSection? {
        guard let api = scenario.world.infra.cdnApi else { return nil }
        let campaigns = aggregate.campaignMetrics(names: scenario.world.campaigns.map(\.name)) ?? []
        let pooled = aggregate.pooledMetrics
        func mean(_ id: MetricID, in metrics: [MetricSummary]) -> Double? { metrics.first { $0.name == id.rawValue }?.mean }
        func cell(_ row: CdnApiColumn, _ metrics: [MetricSummary]) -> TableCell {
            guard let after = mean(row.metric, in: metrics) else { return .text("—") }
            guard let beforeID = row.before else {
                return .text(TextNumber.format(after, significant: 4))
            }
            // Each replication has one part 0, so after − before is the mean of the signed time.
            let signed = after - (mean(beforeID, in: metrics) ?? 0)
            return .text(TextNumber.format(abs(signed), significant: 3) + " s " + (signed > 0 ? "after" : "before"))
        }
        let tables: [ReportBlock] = cdnApiTables.map { t in
            let rows: [[TableCell]] = [[.text("all campaigns")] + t.columns.map { cell($0, pooled) }]
                + campaigns.map { c in [.text(c.name)] + t.columns.map { cell($0, c.metrics) } }
            let caption = t.caption + " (" + t.columns.map { $0.metric.rawValue + ($0.before.map { " − " + $0.rawValue } ?? "") }.joined(separator: ", ") + ")"
            return .table(Table(caption: caption, columns: [Table.Column("campaign")] + t.columns.map { Table.Column($0.title, alignment: .trailing) }, rows: rows))
        }
        let warnings = scenario.world.cdnApiLimitWarnings()
        var blocks: [ReportBlock] = [
            .paragraph("Warm and purge go through the \(api.profile.rawValue) profile (infra.cdnApi): purge by \(api.purgeBy == .url ? "URL" : "key"), "
                       + "\(api.purgeLimitsText); warm: \(api.warmLimitsText); a request fails with probability "
                       + "\(TextNumber.format(api.failureProbability, significant: 3)), retried up to \(api.attemptsMax) attempts. "
                       + "Means over \(aggregate.replications) replication(s); a time against the send is from the send the call is for "
                       + "(a calendar wave's own start, for its warm call and its creative swap's purge and re-warm; else the campaign's first send) to the call's last "
                       + "effect at a cache, the latest over the calls. Per campaign: its own calls (counts add up to all campaigns')."),
        ] + tables
        blocks.append(.paragraph(warnings.isEmpty
            ? "prestage validate finds no published limit of the profile that this plan's calls exceed or that binds."
            : "What prestage validate says binds, from the configuration alone (each call from full buckets): "
                + warnings.map { String($0.dropFirst("warning: ".count)) }.joined(separator: " ")))
        return ReportSection(title: "CDN API", blocks: blocks)
    }
}
