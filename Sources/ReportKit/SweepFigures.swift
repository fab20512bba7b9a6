/// Report pieces for a parameter sweep: for each chosen metric, the metric against each grid axis with
/// confidence bands (one line per value of another axis), and the table of grid points. The sweep's own
/// code maps its results into `SweepGrid`; this file knows nothing of the simulator.

/// A sweep's grid and its estimates, as plain data.
package struct SweepGrid: Sendable, Equatable {
    /// The swept parameters, in the sweep file's order.
    package var axes: [SweepAxis]
    /// The metrics reported, in display order.
    package var metrics: [SweepMetric]
    /// Every grid point, in the sweep's point order.
    package var points: [SweepGridPoint]

    /// Creates the value from its properties (see their documentation).
    package init(axes: [SweepAxis], metrics: [SweepMetric], points: [SweepGridPoint]) {
        self.axes = axes
        self.metrics = metrics
        self.points = points
    }
}

/// One swept parameter.
package struct SweepAxis: Sendable, Equatable {
    /// What it sets, e.g. "world.campaigns[0].warm.aheadSeconds" (shown in small print and tables).
    package var path: String
    /// A human label, e.g. "Warm ahead".
    package var label: String
    /// The values' unit as people read it, e.g. "s"; may be empty.
    package var unit: String

    /// Creates the value from its properties (see their documentation).
    package init(path: String, label: String, unit: String) {
        self.path = path
        self.label = label
        self.unit = unit
    }
}

/// A metric shown for a sweep.
package struct SweepMetric: Sendable, Equatable {
    /// The metric id, e.g. "tapToPaint.p95Seconds".
    package var id: String
    /// The human title, e.g. "Tap to paint, p95".
    package var title: String
    /// The unit the estimates are in.
    package var measured: MeasuredUnit
    /// An alarm level in the measured unit, drawn as a line; nil when there is none.
    package var alarm: Threshold?

    /// Creates the value from its properties (see their documentation).
    package init(id: String, title: String, measured: MeasuredUnit, alarm: Threshold? = nil) {
        self.id = id
        self.title = title
        self.measured = measured
        self.alarm = alarm
    }
}

/// One grid point: its coordinate on each axis and an estimate per metric.
package struct SweepGridPoint: Sendable, Equatable {
    /// One value per axis, in the grid's axis order.
    package var coordinates: [Double]
    /// One estimate per metric, in the grid's metric order (missing: no estimate).
    package var estimates: [SweepEstimate]

    /// Creates the value from its properties (see their documentation).
    package init(coordinates: [Double], estimates: [SweepEstimate]) {
        self.coordinates = coordinates
        self.estimates = estimates
    }

    func estimate(_ metric: Int) -> SweepEstimate? { metric < estimates.count ? estimates[metric] : nil }
}

/// A point estimate with its confidence interval, in the metric's measured unit.
package struct SweepEstimate: Sendable, Equatable {
    /// The mean over replications; nil when no replication produced a value.
    package var mean: Double?
    /// Half-width of the interval; nil with fewer than two replications.
    package var halfWidth: Double?

    /// Creates the value from its properties (see their documentation).
    package init(mean: Double?, halfWidth: Double?) {
        self.mean = mean
        self.halfWidth = halfWidth
    }
}

/// Builds the sweep report's charts and tables.
package enum SweepFigures {
    /// Most lines per chart; further values of the line axis are left out (the points table has them all).
    package static let linesMax = 8

    /// One chart per metric and axis with more than one value. The other axes: the first other axis with
    /// more than one value gives one line per value; any further axes are held at their first value (said
    /// in the chart's summary).
    /// - Complexity: O(metrics · axes · points).
    package static func charts(_ grid: SweepGrid, level: Double) -> [LineChart] {
        let values = grid.axes.indices.map { axis in distinctSorted(grid.points.map { $0.coordinates[safe: axis] ?? .nan }) }
        let varying = grid.axes.indices.filter { values[$0].count > 1 }
        var charts: [LineChart] = []
        for (metricIndex, metric) in grid.metrics.enumerated() {
            let magnitude = grid.points.compactMap { $0.estimate(metricIndex)?.mean }.map { abs($0) }.max() ?? 0
            let scale = HumanScale.choose(for: metric.measured, magnitude: magnitude)
            for xAxis in varying {
                let lineAxis = varying.first { $0 != xAxis }
                let held = varying.filter { $0 != xAxis && $0 != lineAxis }
                let lineValues: [Double?] = lineAxis.map { axis in Array(values[axis].prefix(linesMax)).map { Optional($0) } } ?? [nil]
                var series: [LineSeries] = []
                for (lineIndex, lineValue) in lineValues.enumerated() {
                    let members = grid.points.filter { point in
                        (lineAxis.map { point.coordinates[safe: $0] == lineValue } ?? true)
                            && held.allSatisfy { point.coordinates[safe: $0] == values[$0].first }
                    }.sorted { ($0.coordinates[safe: xAxis] ?? 0) < ($1.coordinates[safe: xAxis] ?? 0) }
                    let points: [LinePoint] = members.compactMap { point in
                        guard let x = point.coordinates[safe: xAxis], let estimate = point.estimate(metricIndex), let mean = estimate.mean else { return nil }
                        let half = estimate.halfWidth
                        return LinePoint(x: x, y: mean * scale.multiplier, lower: half.map { (mean - $0) * scale.multiplier },
                                         upper: half.map { (mean + $0) * scale.multiplier })
                    }
                    let name = lineAxis.map { grid.axes[$0].label + " " + number(lineValue ?? .nan) + suffix(grid.axes[$0].unit) } ?? metric.title
                    series.append(LineSeries(name: name, color: .automatic(lineIndex), dash: .cycling(lineIndex), points: points))
                }
                let heldText = held.map { grid.axes[$0].label + " = " + number(values[$0].first ?? .nan) + suffix(grid.axes[$0].unit) }
                let cutText = lineAxis.map { values[$0].count > linesMax ? " Lines for the first \(linesMax) values of " + grid.axes[$0].label + "." : "" } ?? ""
                let summary = "Mean over replications with " + HeadlineMetric.levelText(level) + " confidence bands"
                    + (lineAxis.map { ", one line per " + grid.axes[$0].label } ?? "") + "."
                    + (heldText.isEmpty ? "" : " Held at " + heldText.joined(separator: ", ") + ".") + cutText
                let references = metric.alarm.map { alarm in
                    [ReferenceLine(value: alarm.value * scale.multiplier, label: "alarm " + scale.text(alarm.value), kind: .alarm)]
                } ?? []
                charts.append(LineChart(title: metric.title + " by " + grid.axes[xAxis].label, summary: summary,
                                        xAxis: ValueAxis(label: grid.axes[xAxis].label, unit: grid.axes[xAxis].unit),
                                        yAxis: ValueAxis(label: metric.title, unit: scale.unit),
                                        xDecimals: decimals(values[xAxis]), yDecimals: scale.decimals, series: series,
                                        referenceLines: references))
            }
        }
        return charts
    }

    /// The grid points: one row per point, one column per axis, then "mean ± half-width" per metric in
    /// human units.
    package static func pointsTable(_ grid: SweepGrid) -> Table {
        let columns = [Table.Column("Point", alignment: .trailing)] + grid.axes.map { Table.Column($0.label + suffixInParentheses($0.unit), alignment: .trailing) }
            + grid.metrics.map { Table.Column($0.title, alignment: .trailing) }
        let rows: [[TableCell]] = grid.points.enumerated().map { index, point in
            [.count(index)] + grid.axes.indices.map { .text(number(point.coordinates[safe: $0] ?? .nan)) }
                + grid.metrics.indices.map { metric -> TableCell in
                    guard let estimate = point.estimate(metric), let mean = estimate.mean else { return .text("—") }
                    let scale = HumanScale.choose(for: grid.metrics[metric].measured, magnitude: mean)
                    return .text(scale.text(mean) + (estimate.halfWidth.map { " ± " + scale.number($0) } ?? ""))
                }
        }
        return Table(caption: "Grid points (mean ± half-width of the confidence interval)", columns: columns, rows: rows)
    }

    private static func distinctSorted(_ values: [Double]) -> [Double] {
        var out: [Double] = []
        for value in values.filter({ $0.isFinite }).sorted() where out.last != value { out.append(value) }
        return out
    }

    /// Places needed to print every value of an axis exactly (at most 3).
    private static func decimals(_ values: [Double]) -> Int {
        for places in 0...3 {
            var scale = 1.0
            for _ in 0..<places { scale *= 10 }
            if values.allSatisfy({ ($0 * scale).rounded() == $0 * scale }) { return places }
        }
        return 3
    }

    private static func number(_ value: Double) -> String { TextFormat.fixed(value, decimals: decimals([value]), grouping: true) }
    private static func suffix(_ unit: String) -> String { unit.isEmpty ? "" : " " + unit }
    private static func suffixInParentheses(_ unit: String) -> String { unit.isEmpty ? "" : " (" + unit + ")" }
}

extension Array {
    /// The element at `index`, or nil outside the array.
    subscript(safe index: Int) -> Element? { index >= 0 && index < count ? self[index] : nil }
}
