import Foundation
import PushModel
import ReportKit
import ScenarioFormat
import SimStats

/// The report's bandwidth views: the edge's and the upstream tiers' egress in bit/s over time, each
/// with the scenario's objectives on that tier's bandwidth metrics drawn as commit lines, and the
/// regions with the busiest edge bandwidth.
extension ReportBuilder {
    /// Regions listed in the bandwidth table.
    static let bandwidthRegionsShown = 5

    /// The commit lines of the objectives on `tiers`' bandwidth metrics (the threshold is the commit),
    /// in bit/s.
    static func commitLines(_ scenario: ScenarioFile, tiers: [String]) -> [(value: Double, label: String)] {
        // The contract's commit (`costs.commit`), then every objective on a tier's bandwidth figure.
        let contract: [(value: Double, label: String)] = scenario.world.costs?.commit.flatMap { c in
            guard tiers.contains(c.tier.rawValue) else { return nil }
            let rule = c.billing == .percentile95 ? "billed p95 of 5 min" : "billed per GB"
            return [(c.rateGbps * 1e9, "\(c.tier.rawValue) contract commit " + HumanScale.format(c.rateGbps * 1e9, unit: .bitsPerSecond) + " (\(rule))")]
        } ?? []
        return contract + scenario.slo.compactMap { o in
            guard let id = MetricID(rawValue: o.metric), let parts = MetricTable.bandwidthParts(id), tiers.contains(parts.tier.name) else { return nil }
            let figure: String
            switch parts.figure {
            case .peak: figure = "peak"
            case .p95: figure = "p95"
            case .p99: figure = "p99"
            case .billed: figure = "billed p95 of 5 min"
            }
            return (o.threshold, "\(parts.tier.name) commit \(figure) \(o.op.rawValue) " + HumanScale.format(o.threshold, unit: .bitsPerSecond))
        }
    }

    /// One bandwidth chart: `columns` (bytes per second, summed over replications) in bit/s at the
    /// scale its peak (or a commit above it) reads best in.
    static func bandwidthChart(title: String, what: String, scenario: ScenarioFile, aggregate: RunAggregate,
                               lines: [(name: String, column: SeriesColumn, color: ChartColor, style: TimeSeries.Style)],
                               commits: [(value: Double, label: String)]) -> TimeSeriesChart {
        let s = aggregate.series
        let sendRanges = sendBands(scenario).map { TimeRange(fromSeconds: $0.fromSeconds, toSeconds: $0.toSeconds) }
        let bands = timelineBands(scenario)
        let view = focusAndBin(activity(lines.map { s.column($0.column) }).map { [$0] } ?? sendRanges, horizonSeconds: s.horizonSeconds)
        let binnedBits = lines.map { line in
            binned(s.column(line.column), replications: aggregate.replications, bin: view.bin).map { TimePoint(seconds: $0.seconds, value: $0.value * 8) }
        }
        let peak = binnedBits.flatMap { $0.map(\.value) }.max() ?? 0
        let scale = HumanScale.choose(for: .bitsPerSecond, magnitude: max(peak, commits.map(\.value).max() ?? 0))
        let series = zip(lines, binnedBits).map { line, points in
            TimeSeries(name: line.name, color: line.color, style: line.style,
                       points: points.map { TimePoint(seconds: $0.seconds, value: $0.value * scale.multiplier) }, dash: line.style == .area ? nil : .dashed)
        }
        let commitText = commits.isEmpty ? "" : " The green line is the scenario's commit (its objective's threshold), checked on the per-replication figure the objective names, not on these bin means."
        return TimeSeriesChart(
            title: title,
            summary: what + " per second, averaged over replications, in \(binText(view.bin)), as bit/s (bytes × 8; a response counts in the second of its first byte; the headline peak and billed figures are each replication's, averaged)."
                + commitText + (view.focus == nil ? "" : " The main plot shows the busy interval; the strip below it shows the whole run."),
            valueAxis: ValueAxis(label: "Bandwidth", unit: scale.unit), valueDecimals: 2,
            series: series, bands: bands, markers: [],
            referenceLines: commits.map { ReferenceLine(value: $0.value * scale.multiplier, label: $0.label, kind: .target) },
            focus: view.focus)
    }

    /// The edge chart and the upstream (shield and origin) chart.
    static func bandwidthCharts(scenario: ScenarioFile, aggregate: RunAggregate) -> [TimeSeriesChart] {
        let shieldBytes = aggregate.series.column(.shieldBytes).contains { $0 > 0 }
        var upstream: [(name: String, column: SeriesColumn, color: ChartColor, style: TimeSeries.Style)] = [("origin", .originBytes, .blue, .area)]
        if shieldBytes { upstream.append(("shield", .shieldBytes, .orange, .line)) }
        return [
            bandwidthChart(title: "CDN egress (edge → devices)", what: "Response bytes the PoPs sent to devices",
                           scenario: scenario, aggregate: aggregate, lines: [("edge", .edgeBytes, .blue, .area)],
                           commits: commitLines(scenario, tiers: ["edge"])),
            bandwidthChart(title: shieldBytes ? "Origin and shield egress" : "Origin egress",
                           what: shieldBytes ? "Response bytes the origin sent to the shields, and the shields to the PoPs," : "Response bytes the origin sent",
                           scenario: scenario, aggregate: aggregate, lines: upstream,
                           commits: commitLines(scenario, tiers: ["origin", "shield"])),
        ]
    }

    /// The regions with the highest edge bandwidth: bytes, the busiest bin's rate and the billing
    /// figure, means per replication with their t intervals (every region is in bandwidth-regions.csv).
    static func bandwidthRegionTable(scenario: ScenarioFile, tables: PopAndRegionTables) -> ReportBlock? {
        let b = tables.bandwidth
        guard !b.regions.isEmpty else { return nil }
        let level = Int((scenario.run.confidenceLevel * 100).rounded())
        let regionPops = scenario.world.infra.topology.effectiveRegions.map(\.popIndex)
        let shown = b.regions.sorted { ($0.peakBitsPerSecond, $1.index) > ($1.peakBitsPerSecond, $0.index) }.prefix(bandwidthRegionsShown)
        func range(_ ci: ConfidenceInterval?) -> TableCell {
            guard let ci else { return .empty }
            let scale = HumanScale.choose(for: .bitsPerSecond, magnitude: ci.upper)
            return .text(scale.number(max(0, ci.lower)) + " – " + scale.text(ci.upper))
        }
        let rows: [[TableCell]] = shown.map { r in
            [.text(tables.names.region(r.index)), .text(r.index < regionPops.count ? tables.names.pop(regionPops[r.index]) : ""),
             .quantity(r.bytes, .bytes), .quantity(r.peakBitsPerSecond, .bitsPerSecond), range(r.peakInterval),
             r.billedBitsPerSecond.map { .quantity($0, .bitsPerSecond) } ?? .empty, range(r.billedInterval)]
        }
        let columns = [Table.Column("Region"), Table.Column("PoP"), Table.Column("Edge bytes", alignment: .trailing),
                       Table.Column("Peak (\(b.stepSeconds) s bins)", alignment: .trailing), Table.Column("\(level) % CI", alignment: .trailing),
                       Table.Column("Billed (p95 of 5 min)", alignment: .trailing), Table.Column("\(level) % CI", alignment: .trailing)]
        return .table(Table(caption: "Regions with the highest edge bandwidth (bytes devices of the region received; means per replication; every region and bin is in bandwidth-regions.csv, every PoP in bandwidth-pops.csv)",
                            columns: columns, rows: rows))
    }
}
