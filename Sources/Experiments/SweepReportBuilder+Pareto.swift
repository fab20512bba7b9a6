import Foundation
import PushModel
import ReportKit
import ScenarioFormat

/// The policy trade-off of a sweep over PreloadKit's decision kinds: the Pareto front of waste
/// (`policy.wastedBytesPer1000Deliveries`, lower is better) against instant taps
/// (`taps.instantShare`, higher is better), with tap-to-paint p95 in a second panel and an
/// optional energy metric (`paretoEnergyMetric`, when the results carry it) in a third. Shown
/// first in a sweep's report when every point carries both axes.
extension SweepReportBuilder {
    static let paretoWaste = MetricID.policyWastedBytesPer1000Deliveries.rawValue
    static let paretoInstant = MetricID.tapsInstantShare.rawValue
    static let paretoP95 = MetricID.tapToPaintP95.rawValue
    /// The radio-energy metric drawn as the third panel when a result carries it (joules per
    /// device from the simulator's radio model; absent from results without that model).
    static let paretoEnergyMetric = "energy.joulesPerDevice"
    /// The grid field naming each point's decision kind (one series per kind).
    static let paretoKindField = "preloadPolicy.decision.kind"

    /// Indices of the points no other point dominates (waste ≤, instant ≥, one strictly), in
    /// index order. Points with a missing value are on no front.
    /// - Complexity: O(n²).
    package static func paretoFront(waste: [Double?], instant: [Double?]) -> [Int] {
        waste.indices.filter { i in
            guard let xi = waste[i], let yi = instant[i] else { return false }
            return !waste.indices.contains { j in
                guard j != i, let xj = waste[j], let yj = instant[j] else { return false }
                return xj <= xi && yj >= yi && (xj < xi || yj > yi)
            }
        }
    }

    /// Whether `chart` (a per-axis sweep chart) runs along the decision-kind axis: a categorical
    /// axis the trade-off section shows instead, so the report leaves those charts out.
    static func isAlongKindAxis(_ chart: LineChart, manifest: SweepManifest) -> Bool {
        guard let index = manifest.axes.firstIndex(where: { $0.field == paretoKindField }) else { return false }
        let label = axis(paretoKindField, values: manifest.points.map { $0.values[index].plainText }).axis.label
        return chart.xAxis.label == label
    }

    /// The Pareto section, or nil when a point lacks waste or instant taps (not a policy sweep).
    static func paretoSection(manifest: SweepManifest, points: [PointSummary]) -> ReportSection? {
        func mean(_ p: PointSummary, _ name: String) -> Double? { p.metrics.first { $0.name == name }?.mean }
        let waste = points.map { mean($0, paretoWaste).map { $0 / 1e6 } }
        let instant = points.map { mean($0, paretoInstant) }
        guard !points.isEmpty, waste.allSatisfy({ $0 != nil }), instant.allSatisfy({ $0 != nil }) else { return nil }
        let p95 = points.map { mean($0, paretoP95).map { $0 * 1e3 } }
        let fields: [String] = manifest.axes.map { $0.field }
        let kindAxis = fields.firstIndex(of: paretoKindField)
        func kindOf(_ i: Int) -> String { kindAxis.map { manifest.points[i].values[$0].plainText } ?? "points" }
        let energy = points.map { mean($0, paretoEnergyMetric) }
        let hasEnergy = energy.contains { $0 != nil }
        // Points with the same kind and the same figures (a parameter another kind does not read)
        // are one trade-off point: drawn and listed once, with every grid point it stands for.
        var representative: [Int] = []
        var members: [Int: [Int]] = [:]
        for i in points.indices {
            if let r = representative.first(where: { r in kindOf(r) == kindOf(i) && waste[r] == waste[i] && instant[r] == instant[i] && p95[r] == p95[i] }) {
                members[r, default: [r]].append(i)
            } else {
                representative.append(i)
            }
        }
        let front = Set(paretoFront(waste: representative.map { waste[$0] }, instant: representative.map { instant[$0] }).map { representative[$0] })
        func kind(_ i: Int) -> String { kindOf(i) }
        func label(_ i: Int) -> String {
            var parts: [String] = []
            for a in fields.indices where a != kindAxis {
                let name: String = fields[a].split(separator: ".").last.map { String($0) } ?? fields[a]
                parts.append(name + " " + manifest.points[i].values[a].plainText)
            }
            return parts.joined(separator: ", ")
        }
        var kinds: [String] = []
        for i in points.indices where !kinds.contains(kind(i)) { kinds.append(kind(i)) }

        func panel(_ title: String, _ yAxis: ValueAxis, _ y: [Double?], decimals: Int, withFront: Bool) -> LineChart {
            func linePoints(_ members: [Int]) -> [LinePoint] {
                var out: [LinePoint] = []
                for i in members {
                    if let x = waste[i], let v = y[i] { out.append(LinePoint(x: x, y: v)) }
                }
                return out.sorted { a, b in a.x < b.x || (a.x == b.x && a.y < b.y) }
            }
            var series: [LineSeries] = []
            for (index, k) in kinds.enumerated() {
                let ofKind = representative.filter { kind($0) == k }
                series.append(LineSeries(name: k, color: .automatic(index), dash: .cycling(index), points: linePoints(ofKind)))
            }
            if withFront {
                series.append(LineSeries(name: "Pareto front", color: .automatic(kinds.count), dash: .cycling(kinds.count),
                                         points: linePoints(front.sorted())))
            }
            return LineChart(title: title, summary: "One point per grid point (mean over replications), one line per decision kind through its points in order of waste"
                                 + (withFront ? "; the Pareto front joins the points no other point beats on both waste and instant taps." : "."),
                             xAxis: ValueAxis(label: "Waste per 1 000 deliveries", unit: "MB"),
                             yAxis: yAxis, xDecimals: 2, yDecimals: decimals, series: series)
        }
        var blocks: [ReportBlock] = [
            .paragraph("Waste (metric \(paretoWaste), in MB) against instant taps (metric \(paretoInstant)): lower waste and more instant taps are better; a point on the Pareto front is one no other grid point beats on both."),
            .chart(.line(panel("Instant taps against waste", ValueAxis(label: "Instant taps", unit: "share"), instant,
                               decimals: 3, withFront: true))),
            .chart(.line(panel("Tap to paint p95 against waste", ValueAxis(label: "Tap to paint p95", unit: "ms"), p95, decimals: 0, withFront: false))),
        ]
        if hasEnergy {
            blocks.append(.chart(.line(panel("Energy against waste", ValueAxis(label: "Radio energy", unit: "J / device"), energy, decimals: 1, withFront: false))))
        }
        var columns = [Table.Column("Points", alignment: .trailing), Table.Column("Kind"), Table.Column("Parameters"),
                       Table.Column("Waste (MB / 1 000)", alignment: .trailing), Table.Column("Instant taps", alignment: .trailing),
                       Table.Column("p95 (ms)", alignment: .trailing)]
        if hasEnergy { columns.append(Table.Column("Energy (J / device)", alignment: .trailing)) }
        columns.append(Table.Column("Front"))
        var rows: [[TableCell]] = []
        for i in representative {
            let all = members[i] ?? [i]
            var row: [TableCell] = [.text(all.map { String($0) }.joined(separator: ", ")), .text(kind(i)),
                                    .text(all.count > 1 ? label(i) + " (and \(all.count - 1) more alike)" : label(i)), .number(waste[i] ?? 0, decimals: 2), .percent(instant[i] ?? 0, decimals: 1)]
            if let v = p95[i] { row.append(.number(v, decimals: 0)) } else { row.append(.text("—")) }
            if hasEnergy {
                if let e = energy[i] { row.append(.number(e, decimals: 1)) } else { row.append(.text("—")) }
            }
            row.append(.text(front.contains(i) ? "yes" : ""))
            rows.append(row)
        }
        blocks.append(.table(Table(caption: "Every grid point on the trade-off (points of one kind with the same figures in one row), front points marked",
                                   columns: columns, rows: rows)))
        return ReportSection(title: "Policy trade-off (Pareto front)", blocks: blocks)
    }
}
