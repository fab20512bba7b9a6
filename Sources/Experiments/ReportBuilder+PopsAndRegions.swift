import Foundation
import ReportKit
import ScenarioFormat

extension ReportBuilder {
    /// PoPs listed in the report's worst-PoP table, and regions drawn in its miss chart.
    static let worstPopsShown = 5
    static let missRegionsShown = 5

    /// The "PoPs and regions" section: the PoPs with the lowest pre-stage hit ratio, and the
    /// regions with the most pre-stage misses over time against the send window.
    static func popsAndRegionsSection(scenario: ScenarioFile, tables: PopAndRegionTables) -> ReportSection {
        let level = Int((scenario.run.confidenceLevel * 100).rounded())
        let columns = [Table.Column("PoP"), Table.Column("Regions"), Table.Column("Requests", alignment: .trailing),
                       Table.Column("Misses", alignment: .trailing), Table.Column("Hit ratio", alignment: .trailing),
                       Table.Column("\(level) % CI", alignment: .trailing), Table.Column("Upstream fetches", alignment: .trailing)]
        let rows: [[TableCell]] = tables.worstPops(worstPopsShown).map { p in
            let ci = p.hitRatioInterval.map { "\(TextFormat.percent(fraction: max(0, $0.lower), decimals: 1)) – \(TextFormat.percent(fraction: min(1, $0.upper), decimals: 1))" }
            return [.text(tables.names.pop(p.pop)), .text(p.regions.map(tables.names.region).joined(separator: ", ")), .number(p.requests, decimals: 0),
                    .number(p.misses, decimals: 0), p.hitRatio.map { .percent($0, decimals: 1) } ?? .empty, ci.map { .text($0) } ?? .empty,
                    .number(p.upstreamFetches, decimals: 0)]
        }
        let table = Table(caption: "PoPs with the lowest pre-stage hit ratio (means per replication; every PoP is in pops.csv)",
                          columns: columns, rows: rows)
        var totals: [Int: Double] = [:]
        for row in tables.regionMisses { totals[row.region, default: 0] += row.misses }
        let shown = totals.keys.sorted { (totals[$0] ?? 0, $1) > (totals[$1] ?? 0, $0) }.prefix(missRegionsShown)
        // Bins without misses are left out of the table; drawn as zeros up to the last bin any shown region
        // missed in, so a line does not bridge quiet bins (a region that missed only in the first bin is one
        // point, drawn as a dot).
        let lastBin = tables.regionMisses.filter { shown.contains($0.region) }.map(\.binStartSeconds).max() ?? 0
        let series = shown.sorted().map { region in
            let misses = Dictionary(tables.regionMisses.filter { $0.region == region }.map { ($0.binStartSeconds, $0.misses) }, uniquingKeysWith: +)
            return TimeSeries(name: tables.names.region(region), points: stride(from: 0, through: lastBin, by: max(1, tables.missBinSeconds)).map {
                TimePoint(seconds: tables.firstSendSeconds + Double($0), value: misses[$0] ?? 0)
            })
        }
        let chart = TimeSeriesChart(
            title: "Pre-stage misses by region", summary: "Pre-stage edge misses of the \(shown.count) regions with the most, per \(tables.missBinSeconds)-second bin from the first send, mean per replication (region-misses.csv has every region).",
            valueAxis: ValueAxis(label: "Misses", unit: "per \(tables.missBinSeconds) s"), valueDecimals: 1, series: series,
            bands: timelineBands(scenario),
            // The bins' whole span (a short send would otherwise set the axis to a few milliseconds).
            focus: TimeRange(fromSeconds: tables.firstSendSeconds, toSeconds: tables.firstSendSeconds + Double(lastBin + max(1, tables.missBinSeconds))),
            showsOverview: false)
        var blocks: [ReportBlock] = [.table(table)]
        if !series.isEmpty { blocks.append(.chart(.timeSeries(chart))) }
        if let bandwidth = bandwidthRegionTable(scenario: scenario, tables: tables) { blocks.append(bandwidth) }
        return ReportSection(title: "PoPs and regions", blocks: blocks)
    }
}
