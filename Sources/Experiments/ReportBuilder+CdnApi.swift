import PushModel
import ReportKit
import ScenarioFormat

extension ReportBuilder {
    /// The rows of the CDN API table: a title and the metric (a time against the send is two
    /// metrics, its part after and its part before the send).
    static let cdnApiRows: [(title: String, metric: MetricID, before: MetricID?)] = [
        ("purge calls", .cdnApiPurgeCalls, nil), ("items purged (URLs or keys)", .cdnApiPurgeItems, nil),
        ("purge requests (retries included)", .cdnApiPurgeRequests, nil), ("longest purge, call to last cache (s)", .cdnApiPurgeCompleteSeconds, nil),
        ("latest purge done, against its send", .cdnApiPurgeAfterSendSeconds, .cdnApiPurgeBeforeSendSeconds),
        ("warm calls", .cdnApiWarmCalls, nil), ("URLs warmed (once per call)", .cdnApiWarmItems, nil),
        ("warm requests or lookups", .cdnApiWarmRequests, nil), ("longest warm, call to last request (s)", .cdnApiWarmCompleteSeconds, nil),
        ("latest warm done, against its send", .cdnApiWarmAfterSendSeconds, .cdnApiWarmBeforeSendSeconds),
        ("requests failed", .cdnApiFailures, nil), ("retries", .cdnApiRetries, nil), ("batches abandoned", .cdnApiBatchesAbandoned, nil),
    ]

    /// The "CDN API" section: the profile's limits, what `validate` says binds, and what the calls
    /// did (the `cdnApi.*` means over replications), pooled and per campaign. Nil without
    /// `infra.cdnApi`.
    static func cdnApiSection(scenario: ScenarioFile, aggregate: RunAggregate) -> ReportSection? {
        guard let api = scenario.world.infra.cdnApi else { return nil }
        let campaigns = aggregate.campaignMetrics(names: scenario.world.campaigns.map(\.name)) ?? []
        let pooled = aggregate.pooledMetrics
        func mean(_ id: MetricID, in metrics: [MetricSummary]) -> Double? { metrics.first { $0.name == id.rawValue }?.mean }
        func cell(_ row: (title: String, metric: MetricID, before: MetricID?), _ metrics: [MetricSummary]) -> TableCell {
            guard let after = mean(row.metric, in: metrics) else { return .text("—") }
            guard let beforeID = row.before else {
                return .text(TextNumber.format(after, significant: 4))
            }
            // Each replication has one part 0, so after − before is the mean of the signed time.
            let signed = after - (mean(beforeID, in: metrics) ?? 0)
            return .text(TextNumber.format(abs(signed), significant: 3) + " s " + (signed > 0 ? "after" : "before"))
        }
        let rows: [[TableCell]] = cdnApiRows.map { row in
            [.text(row.title), .code(row.metric.rawValue), cell(row, pooled)] + campaigns.map { cell(row, $0.metrics) }
        }
        let columns = [Table.Column("CDN API"), Table.Column("metric"), Table.Column("all campaigns", alignment: .trailing)]
            + campaigns.map { Table.Column($0.name, alignment: .trailing) }
        let warnings = scenario.world.cdnApiLimitWarnings()
        var blocks: [ReportBlock] = [
            .paragraph("Warm and purge go through the \(api.profile.rawValue) profile (infra.cdnApi): purge by \(api.purgeBy.rawValue), "
                       + "\(api.purgeLimitsText); warm by \(api.warmLimitsText); a request fails with probability "
                       + "\(TextNumber.format(api.failureProbability, significant: 3)), retried up to \(api.attemptsMax) attempts. "
                       + "Means over \(aggregate.replications) replication(s); a time against the send is from the send the call is for "
                       + "(a calendar wave's own start; a creative swap's purge and re-warm, the campaign's first send) to the call's last "
                       + "effect at a cache, the latest over the calls. Per campaign: its own calls (counts add up to all campaigns')."),
            .table(Table(caption: "CDN API calls (cdnApi.*)", columns: columns, rows: rows)),
        ]
        blocks.append(.paragraph(warnings.isEmpty
            ? "prestage validate finds no published limit of the profile that this plan's calls exceed or that binds."
            : "What prestage validate says binds, from the configuration alone (each call from full buckets): "
                + warnings.map { String($0.dropFirst("warning: ".count)) }.joined(separator: " ")))
        return ReportSection(title: "CDN API", blocks: blocks)
    }
}
