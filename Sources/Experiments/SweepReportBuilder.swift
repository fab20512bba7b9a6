import Foundation
import PushModel
import ReportKit
import ScenarioFormat

/// A sweep's report.md and report.html: per chosen metric, the metric against each grid axis with
/// confidence bands (one line per value of another axis), then the grid-points table.
package enum SweepReportBuilder {
    /// The metrics shown when none are chosen (`--metrics`).
    package static let defaultMetrics = ([.tapToPaintP95, .edgePrestageHitRatio, .originPeakRequestsPerSecond] as [MetricID]).map(\.rawValue)

    /// The chosen metric names that a result can emit, or a message naming the first unknown one.
    package static func checkMetrics(_ names: [String]) -> Result<[String], CommandMessage> {
        for name in names where MetricTable.spec(named: name) == nil {
            let known = MetricID.allCases.map(\.rawValue)
            let near = known.filter { $0.lowercased().contains(name.lowercased()) || name.lowercased().contains($0.lowercased()) }
            return .failure(CommandMessage("--metrics: expected metric names from summary.json (e.g. \(defaultMetrics.joined(separator: ","))), found \"\(name)\""
                                           + (near.isEmpty ? "" : "; did you mean \(near.prefix(3).joined(separator: ", "))?")))
        }
        return names.isEmpty ? .failure(CommandMessage("--metrics: expected at least one metric name, found none")) : .success(names)
    }

    /// A grid axis for people: the field as written, a label and a unit ("…Seconds" fields read in s).
    static func axis(_ field: String, values: [String]) -> (axis: ReportKit.SweepAxis, numbers: [Double]) {
        // The last two path parts read best: "campaigns[0].warm.aheadSeconds" → "warm ahead" (s).
        let parts = field.split(separator: ".").map { String($0.prefix { $0 != "[" }) }
        let last = parts.last ?? field
        let isSeconds = last.hasSuffix("Seconds")
        let name = isSeconds ? String(last.dropLast("Seconds".count)) : last
        var label = (parts.count >= 2 ? parts[parts.count - 2] + " " : "") + name.enumerated().map { index, character in
            index > 0 && character.isUppercase ? " " + character.lowercased() : String(character) }.joined()
        let numeric = values.map { Double($0) }
        if numeric.allSatisfy({ $0 != nil }) {
            return (ReportKit.SweepAxis(path: field, label: label, unit: isSeconds ? "s" : ""), numeric.map { $0 ?? .nan })
        }
        // Text or boolean values: positions 0, 1, … in file order, named in the label.
        var distinct: [String] = []
        for value in values where !distinct.contains(value) { distinct.append(value) }
        label += " (" + distinct.enumerated().map { "\($0.offset) = \($0.element)" }.joined(separator: ", ") + ")"
        return (ReportKit.SweepAxis(path: field, label: label, unit: ""), values.map { Double(distinct.firstIndex(of: $0) ?? 0) })
    }

    /// The report for a sweep's manifest and per-point summaries (in point order).
    static func build(manifest: SweepManifest, points: [PointSummary], metrics: [String]) -> Report {
        let fields = manifest.axes.map(\.field)
        let columns = fields.indices.map { index in axis(fields[index], values: manifest.points.map { $0.values[index].plainText }) }
        let chosen = metrics.map { name -> SweepMetric in
            let spec = MetricTable.spec(named: name)
            let unit = points.lazy.compactMap { $0.metrics.first { $0.name == name }?.unit }.first ?? spec?.unit.rawValue ?? ""
            return SweepMetric(id: name, title: spec?.title ?? name, measured: ReportBuilder.measuredUnit(name: name, unit: unit),
                               alarm: spec?.alarm.map { Threshold(value: $0.value, alarmWhen: $0.when == .above ? .above : .below) })
        }
        let gridPoints = points.enumerated().map { index, point in
            SweepGridPoint(coordinates: columns.map { $0.numbers[index] }, estimates: metrics.map { name in
                let m = point.metrics.first { $0.name == name }
                return SweepEstimate(mean: m?.mean, halfWidth: m?.confidenceInterval?.halfWidth)
            })
        }
        let grid = SweepGrid(axes: columns.map(\.axis), metrics: chosen, points: gridPoints)
        let pareto = paretoSection(manifest: manifest, points: points)
        let charts = SweepFigures.charts(grid, level: manifest.confidenceLevel).filter { pareto == nil || !isAlongKindAxis($0, manifest: manifest) }
        var sections = chosen.map { metric in
            ReportSection(title: metric.title, blocks: [.paragraph("Metric " + metric.id + ".")]
                          + charts.filter { $0.yAxis.label == metric.title }.map { .chart(.line($0)) })
        }
        if let pareto { sections.insert(pareto, at: 0) }
        sections.append(ReportSection(title: "Grid points", blocks: [
            .paragraph("Every point ran the same \(manifest.replications) replication(s) with seed \(manifest.seed): points compare on common random numbers. Every metric of every point is in points.csv and summary.json."),
            .table(SweepFigures.pointsTable(grid)),
        ]))
        let facts = [RunFact("Grid points", TextFormat.count(manifest.points.count)),
                     RunFact("Grid", fields.joined(separator: " × ")),
                     RunFact("Work items", TextFormat.count(manifest.itemCount))]
        return Report(title: manifest.scenarioName + " sweep",
                      scenario: ScenarioSummary(name: manifest.scenarioName,
                                                question: "How do " + chosen.map(\.title).joined(separator: ", ") + " change across the grid?"),
                      provenance: RunProvenance(seed: manifest.seed, replications: manifest.replications, toolVersion: manifest.toolVersion,
                                                scenarioHash: manifest.sweepHash, sourceRevision: SourceRevision.current ?? "", facts: facts,
                                                overrides: nil),
                      headlines: [], sections: sections)
    }
}
