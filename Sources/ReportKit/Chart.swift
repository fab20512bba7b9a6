/// A chart in a report. Rendered as hand-written inline SVG by `SVGChartRenderer`; both renderers
/// also show the chart's numbers as a table (`dataTable`), so nothing is only visible as a picture.
package enum Chart: Sendable, Equatable {
    /// Cumulative distribution lines, e.g. tap-to-paint per platform and network class.
    case cdf(CDFChart)
    /// Lines or areas over virtual seconds, e.g. edge hit ratio, origin requests/s.
    case timeSeries(TimeSeriesChart)
    /// Horizontal 100 % stacked bars of counts, e.g. preload outcome per push.
    case breakdown(BreakdownChart)
    /// Vertical bars grouped by category, one bar per series, e.g. bytes by kind and scenario variant.
    case groupedBars(GroupedBarChart)
    /// Lines over a numeric axis with confidence bands, e.g. a metric against a sweep's grid axis.
    case line(LineChart)

    /// The chart's title.
    package var title: String {
        switch self {
        case .cdf(let chart): return chart.title
        case .timeSeries(let chart): return chart.title
        case .breakdown(let chart): return chart.title
        case .groupedBars(let chart): return chart.title
        case .line(let chart): return chart.title
        }
    }

    /// One sentence saying what the chart shows; used as the SVG's `<desc>` and shown under the title.
    package var summary: String {
        switch self {
        case .cdf(let chart): return chart.summary
        case .timeSeries(let chart): return chart.summary
        case .breakdown(let chart): return chart.summary
        case .groupedBars(let chart): return chart.summary
        case .line(let chart): return chart.summary
        }
    }

    /// The chart's numbers as a table (quantiles for a CDF, peaks for a time series, counts and shares for a
    /// breakdown, values for grouped bars).
    /// - Complexity: O(total number of points).
    package var dataTable: Table {
        switch self {
        case .cdf(let chart): return chart.dataTable
        case .timeSeries(let chart): return chart.dataTable
        case .breakdown(let chart): return chart.dataTable
        case .groupedBars(let chart): return chart.dataTable
        case .line(let chart): return chart.dataTable
        }
    }
}

/// The fixed chart palette: the Okabe–Ito colours, a dark and a light grey and an indigo. Every pair is
/// at least 10 apart in CIEDE2000 in normal vision and under simulated protanopia and deuteranopia
/// (Machado et al. 2009), so a chart that uses each colour once keeps its series apart
/// (`ColourVisionTests`). Series without an explicit colour take `automaticCycle` in order.
package enum ChartColor: Int, Sendable, Equatable, CaseIterable {
    case blue, orange, green, vermillion, purple, sky, grey, yellow, lightGrey, indigo

    /// The colour as `#RRGGBB`.
    package var hex: String {
        switch self {
        case .blue: return "#0072B2"
        case .orange: return "#E69F00"
        case .green: return "#009E73"
        case .vermillion: return "#D55E00"
        case .purple: return "#CC79A7"
        case .sky: return "#56B4E9"
        case .grey: return "#686868"
        case .yellow: return "#F0E442"
        case .lightGrey: return "#BBBBBB"
        case .indigo: return "#332288"
        }
    }

    /// Whether text drawn on this colour should be dark (light fill) rather than white.
    package var wantsDarkText: Bool {
        switch self {
        case .orange, .sky, .yellow, .purple, .lightGrey: return true
        case .blue, .green, .vermillion, .grey, .indigo: return false
        }
    }

    /// The colours series get when none is given, in order (light grey and indigo are left for charts
    /// that need ten distinct colours, like the outcome breakdown).
    package static let automaticCycle: [ChartColor] = [.blue, .orange, .green, .vermillion, .purple, .sky, .grey, .yellow]

    /// The palette colour for the series at `index` (cycles after the last colour of `automaticCycle`).
    package static func automatic(_ index: Int) -> ChartColor {
        automaticCycle[((index % automaticCycle.count) + automaticCycle.count) % automaticCycle.count]
    }
}

/// How values map to positions along an axis.
package enum AxisScale: Sendable, Equatable {
    case linear
    /// Base-10 logarithmic; values ≤ 0 cannot be placed and are clipped to the axis start.
    case logarithmic
}

/// A value axis: what is measured, its unit and its scale.
package struct ValueAxis: Sendable, Equatable {
    /// e.g. "Tap-to-paint".
    package var label: String
    /// e.g. "ms". May be empty.
    package var unit: String
    /// How values map to positions (linear or base-10 logarithmic).
    package var scale: AxisScale

    /// Creates the value from its properties (see their documentation).
    package init(label: String, unit: String, scale: AxisScale = .linear) {
        self.label = label
        self.unit = unit
        self.scale = scale
    }

    /// "Tap-to-paint (ms)", or just the label when there is no unit.
    package var title: String { unit.isEmpty ? label : label + " (" + unit + ")" }
}

/// A labelled vertical line at a position on the horizontal axis, e.g. "500 ms" or "send start".
package struct ChartMarker: Sendable, Equatable {
    /// Position in the horizontal axis' unit (ms on a CDF, virtual seconds on a time series, the x
    /// axis' unit on a line chart).
    package var at: Double
    /// The text drawn next to the line.
    package var label: String

    /// Creates the value from its properties (see their documentation).
    package init(at: Double, label: String) {
        self.at = at
        self.label = label
    }
}

// MARK: - CDF

/// Cumulative distribution lines sharing one value axis.
package struct CDFChart: Sendable, Equatable {
    /// The chart's title (shown above it, and the SVG `<title>`).
    package var title: String
    /// One sentence saying what the chart shows (the SVG `<desc>`).
    package var summary: String
    /// The horizontal axis (the measured value); the vertical axis is the cumulative share, 0–100 %.
    package var valueAxis: ValueAxis
    /// The curves, drawn and listed in this order.
    package var series: [CDFSeries]
    /// Vertical reference lines, e.g. the 500 ms instant-paint target. The data table reports the share of
    /// each series at or below each marker.
    package var markers: [ChartMarker]

    /// Creates the value from its properties (see their documentation).
    package init(title: String, summary: String, valueAxis: ValueAxis, series: [CDFSeries], markers: [ChartMarker] = []) {
        self.title = title
        self.summary = summary
        self.valueAxis = valueAxis
        self.series = series
        self.markers = markers
    }

    /// Quantiles shown in the data table.
    package static let tableQuantiles: [Double] = [0.5, 0.9, 0.95, 0.99]

    var dataTable: Table {
        let decimals = valueAxis.scale == .logarithmic ? 0 : 1
        var columns = [Table.Column("Series")]
        columns += Self.tableQuantiles.map { Table.Column("p" + TextFormat.fixed($0 * 100, decimals: 0) + valueAxis.unitInParentheses, alignment: .trailing) }
        columns += markers.map { Table.Column("≤ " + TextFormat.fixed($0.at, decimals: decimals) + valueAxis.unitSuffix, alignment: .trailing) }
        let rows: [[TableCell]] = series.map { line in
            var row: [TableCell] = [.text(line.name)]
            row += Self.tableQuantiles.map { quantile in
                line.value(atFraction: quantile).map { TableCell.number($0, decimals: decimals) } ?? .text("—")
            }
            row += markers.map { marker in .percent(line.fraction(atValue: marker.at), decimals: 1) }
            return row
        }
        return Table(caption: title, columns: columns, rows: rows)
    }
}

extension ValueAxis {
    /// " ms" for use after a number; empty when there is no unit.
    var unitSuffix: String { unit.isEmpty ? "" : " " + unit }
    /// " (ms)" for use after a column heading; empty when there is no unit.
    var unitInParentheses: String { unit.isEmpty ? "" : " (" + unit + ")" }
}

/// One cumulative distribution: points (value, share ≤ value), drawn as straight segments between points.
package struct CDFSeries: Sendable, Equatable {
    /// Shown in the legend and the data table.
    package var name: String
    /// nil: the palette colour for the series' position.
    package var color: ChartColor?
    /// Points in increasing `value` order with non-decreasing `fraction` in [0, 1]. Points with a
    /// non-finite coordinate are skipped when drawing.
    package var points: [CDFPoint]
    /// nil: see `LineDash.automatic`.
    package var dash: LineDash?

    /// Creates the value from its properties (see their documentation).
    package init(name: String, color: ChartColor? = nil, points: [CDFPoint], dash: LineDash? = nil) {
        self.name = name
        self.color = color
        self.points = points
        self.dash = dash
    }

    /// Largest number of points `empirical` keeps.
    package static let empiricalPointsMax = 2_000

    /// The empirical CDF of `samples` (non-finite samples ignored): one point per distinct value with the
    /// share of samples ≤ it, starting with (minimum, 0). With more distinct values than `pointsMax`
    /// (clamped to 2...`empiricalPointsMax`), keeps that many evenly spaced among them, first and last included.
    /// - Complexity: O(n log n) for n samples.
    package static func empirical(name: String, color: ChartColor? = nil, samples: [Double], pointsMax: Int = 400) -> CDFSeries {
        let sorted = samples.filter { $0.isFinite }.sorted()
        guard let first = sorted.first else { return CDFSeries(name: name, color: color, points: []) }
        let total = Double(sorted.count)
        var steps: [CDFPoint] = []
        for (index, value) in sorted.enumerated() where index + 1 == sorted.count || sorted[index + 1] != value {
            steps.append(CDFPoint(value: value, fraction: Double(index + 1) / total))
        }
        let limit = min(max(pointsMax, 2), empiricalPointsMax)
        if steps.count > limit {
            let last = steps.count - 1
            steps = (0..<limit).map { steps[($0 * last) / (limit - 1)] }
        }
        return CDFSeries(name: name, color: color, points: [CDFPoint(value: first, fraction: 0)] + steps)
    }

    /// The value at which the curve reaches `fraction`, interpolating linearly between points; nil when
    /// the curve never reaches it.
    /// - Complexity: O(points).
    package func value(atFraction fraction: Double) -> Double? {
        var previous: CDFPoint?
        for point in points where point.value.isFinite && point.fraction.isFinite {
            if point.fraction >= fraction {
                guard let before = previous, point.fraction > before.fraction, before.fraction < fraction else { return point.value }
                let t = (fraction - before.fraction) / (point.fraction - before.fraction)
                return before.value + t * (point.value - before.value)
            }
            previous = point
        }
        return nil
    }

    /// The curve's share at `value` (0 before the first point, the last point's share after it),
    /// interpolating linearly between points.
    /// - Complexity: O(points).
    package func fraction(atValue value: Double) -> Double {
        var previous: CDFPoint?
        for point in points where point.value.isFinite && point.fraction.isFinite {
            if point.value > value {
                guard let before = previous else { return 0 }
                let t = (value - before.value) / (point.value - before.value)
                return before.fraction + t * (point.fraction - before.fraction)
            }
            previous = point
        }
        return previous?.fraction ?? 0
    }
}

/// A point of a cumulative distribution: `fraction` of observations are ≤ `value`.
package struct CDFPoint: Sendable, Equatable {
    /// The measured value at which `fraction` of observations are at or below.
    package var value: Double
    /// In [0, 1].
    package var fraction: Double

    /// Creates the value from its properties (see their documentation).
    package init(value: Double, fraction: Double) {
        self.value = value
        self.fraction = fraction
    }
}

// MARK: - Breakdown

/// Horizontal bars, each split into categories proportional to their counts (100 % stacked), with the
/// percentages on the segments and the counts in the data table.
package struct BreakdownChart: Sendable, Equatable {
    /// The chart's title (shown above it, and the SVG `<title>`).
    package var title: String
    /// One sentence saying what the chart shows (the SVG `<desc>`).
    package var summary: String
    /// What is counted, e.g. "pushes"; used in the total column.
    package var countNoun: String
    /// The categories in stacking order, e.g. completed, partial, timed out / killed, …
    package var categories: [BreakdownCategory]
    /// One bar per population, e.g. iOS, Android, all.
    package var bars: [BreakdownBar]

    /// Creates the value from its properties (see their documentation).
    package init(title: String, summary: String, countNoun: String, categories: [BreakdownCategory], bars: [BreakdownBar]) {
        self.title = title
        self.summary = summary
        self.countNoun = countNoun
        self.categories = categories
        self.bars = bars
    }

    /// Rows are categories (plus a total row), columns are bars: "count (share)".
    var dataTable: Table {
        let columns = [Table.Column("Outcome")] + bars.map { Table.Column($0.label, alignment: .trailing) }
        var rows: [[TableCell]] = categories.indices.map { index in
            [.text(categories[index].name)] + bars.map { bar in
                let count = bar.count(at: index)
                let total = bar.total(categories: categories.count)
                return .countAndShare(count, share: total > 0 ? Double(count) / Double(total) : .nan)
            }
        }
        rows.append([.text("Total " + countNoun)] + bars.map { .count($0.total(categories: categories.count)) })
        return Table(caption: title, columns: columns, rows: rows)
    }
}

/// A category of a breakdown.
package struct BreakdownCategory: Sendable, Equatable {
    /// Shown in the legend and the data table.
    package var name: String
    /// nil: the palette colour for the category's position. Give outcomes meaningful colours, e.g.
    /// completed green, timed out vermillion, skipped grey.
    package var color: ChartColor?

    /// Creates the value from its properties (see their documentation).
    package init(_ name: String, color: ChartColor? = nil) {
        self.name = name
        self.color = color
    }
}

/// One bar of a breakdown: a count per category, in the chart's category order. Missing counts are 0,
/// counts beyond the categories and negative counts are ignored.
package struct BreakdownBar: Sendable, Equatable {
    /// The bar's label, shown left of it.
    package var label: String
    /// A count per category, in the chart's category order.
    package var counts: [Int]

    /// Creates the value from its properties (see their documentation).
    package init(label: String, counts: [Int]) {
        self.label = label
        self.counts = counts
    }

    /// The count for category `index`, or 0 when absent or negative.
    func count(at index: Int) -> Int { index < counts.count ? max(counts[index], 0) : 0 }

    /// Sum of the counts of the first `categories` categories (saturating, so it cannot trap).
    func total(categories: Int) -> Int {
        var sum = 0
        for index in 0..<categories {
            let (next, overflow) = sum.addingReportingOverflow(count(at: index))
            sum = overflow ? Int.max : next
        }
        return sum
    }
}

// MARK: - Grouped bars

/// Vertical bars: one group per category (e.g. CDN egress, cellular, never-opened pushes), one bar per
/// series within each group (e.g. scenario variants).
package struct GroupedBarChart: Sendable, Equatable {
    /// The chart's title (shown above it, and the SVG `<title>`).
    package var title: String
    /// One sentence saying what the chart shows (the SVG `<desc>`).
    package var summary: String
    /// What the bars measure, e.g. "Bytes".
    package var valueLabel: String
    /// How values are printed and which unit the axis uses.
    package var valueFormat: ValueFormat
    /// Group labels, left to right.
    package var groups: [String]
    /// One bar per group each; `values[i]` belongs to `groups[i]` (missing or non-finite values draw no bar).
    package var series: [BarSeries]

    /// Creates the value from its properties (see their documentation).
    package init(title: String, summary: String, valueLabel: String, valueFormat: ValueFormat, groups: [String], series: [BarSeries]) {
        self.title = title
        self.summary = summary
        self.valueLabel = valueLabel
        self.valueFormat = valueFormat
        self.groups = groups
        self.series = series
    }

    /// The finite values that have a group (those drawn as bars).
    var drawnValues: [Double] { series.flatMap { $0.values.prefix(groups.count) }.filter { $0.isFinite } }

    /// The display unit for the largest drawn value (shared by the axis, the bar labels and the data table).
    var displayScale: DisplayScale { valueFormat.scale(forMagnitude: drawnValues.map { abs($0) }.max() ?? 0) }

    var dataTable: Table {
        let scale = displayScale
        let unit = scale.unit.isEmpty ? "" : " (" + scale.unit + ")"
        let columns = [Table.Column("Group")] + series.map { Table.Column($0.name + unit, alignment: .trailing) }
        let rows: [[TableCell]] = groups.indices.map { group in
            [.text(groups[group])] + series.map { line in
                guard group < line.values.count, line.values[group].isFinite else { return .text("—") }
                return .number(line.values[group] / scale.divisor, decimals: scale.decimals(for: line.values[group] / scale.divisor))
            }
        }
        return Table(caption: title, columns: columns, rows: rows)
    }
}

/// One series of a grouped bar chart.
package struct BarSeries: Sendable, Equatable {
    /// Shown in the legend and the data table.
    package var name: String
    /// nil: the palette colour for the series' position.
    package var color: ChartColor?
    /// One value per group, in the chart's group order.
    package var values: [Double]

    /// Creates the value from its properties (see their documentation).
    package init(name: String, color: ChartColor? = nil, values: [Double]) {
        self.name = name
        self.color = color
        self.values = values
    }
}

/// How bar values are printed.
package enum ValueFormat: Sendable, Equatable {
    /// Plain numbers in `unit` with `decimals` digits after the point.
    case number(unit: String, decimals: Int)
    /// Byte counts, shown in the decimal (SI) unit that suits the largest value: B, kB, MB, GB, TB, PB.
    case bytes

    /// The display unit and divisor for values up to `magnitude`.
    func scale(forMagnitude magnitude: Double) -> DisplayScale {
        switch self {
        case .number(let unit, let decimals):
            return DisplayScale(unit: unit, divisor: 1, fixedDecimals: decimals)
        case .bytes:
            let (unit, divisor) = HumanScale.byteUnit(forMagnitude: magnitude)
            return DisplayScale(unit: unit, divisor: divisor, fixedDecimals: nil)
        }
    }
}

/// A display unit: values are divided by `divisor` and printed with `fixedDecimals` places, or, when nil,
/// with three significant digits at most (2 places below 10, 1 below 100, else 0; zero as "0").
struct DisplayScale {
    let unit: String
    let divisor: Double
    let fixedDecimals: Int?

    func decimals(for scaled: Double) -> Int {
        if let fixedDecimals { return fixedDecimals }
        let magnitude = abs(scaled)
        if magnitude == 0 { return 0 }
        return magnitude < 10 ? 2 : (magnitude < 100 ? 1 : 0)
    }
}
