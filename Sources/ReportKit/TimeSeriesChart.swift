/// Time-series charts: lines over virtual seconds, with bands, markers, reference lines and a focus.
/// Lines or areas over virtual time, with shaded intervals (e.g. the send window) and vertical markers.
package struct TimeSeriesChart: Sendable, Equatable {
    /// The chart's title (shown above it, and the SVG `<title>`).
    package var title: String
    /// One sentence saying what the chart shows (the SVG `<desc>`).
    package var summary: String
    /// The vertical axis. On a linear axis with no negative values the axis starts at 0.
    package var valueAxis: ValueAxis
    /// Digits after the point for values in the data table.
    package var valueDecimals: Int
    /// The lines, drawn and listed in this order.
    package var series: [TimeSeries]
    /// Shaded intervals drawn behind the data, e.g. "send window".
    package var bands: [TimeBand]
    /// Vertical lines, e.g. "warm", "send start".
    package var markers: [ChartMarker]
    /// Horizontal lines at fixed values, e.g. an alarm level or a service-level objective.
    package var referenceLines: [ReferenceLine]
    /// The interval the main plot shows (e.g. the send window with a margin); nil: everything. Data,
    /// bands and markers outside it are cut at its edges.
    package var focus: TimeRange?
    /// With a `focus`: also draw a small overview of the whole time range below the main plot, with the
    /// focused interval shaded.
    package var showsOverview: Bool

    /// Creates the value from its properties (see their documentation).
    package init(title: String, summary: String, valueAxis: ValueAxis, valueDecimals: Int = 2, series: [TimeSeries],
                bands: [TimeBand] = [], markers: [ChartMarker] = [], referenceLines: [ReferenceLine] = [],
                focus: TimeRange? = nil, showsOverview: Bool = true) {
        self.title = title
        self.summary = summary
        self.valueAxis = valueAxis
        self.valueDecimals = valueDecimals
        self.series = series
        self.bands = bands
        self.markers = markers
        self.referenceLines = referenceLines
        self.focus = focus
        self.showsOverview = showsOverview
    }

    var dataTable: Table {
        let columns = [Table.Column("Series"), Table.Column("Peak" + valueAxis.unitInParentheses, alignment: .trailing),
                       Table.Column("Peak at (s)", alignment: .trailing), Table.Column("Mean" + valueAxis.unitInParentheses, alignment: .trailing)]
        let rows: [[TableCell]] = series.map { line in
            guard let peak = line.peak, let mean = line.timeWeightedMean else { return [.text(line.name), .text("—"), .text("—"), .text("—")] }
            return [.text(line.name), .number(peak.value, decimals: valueDecimals), .number(peak.seconds, decimals: 1),
                    .number(mean, decimals: valueDecimals)]
        }
        return Table(caption: title, columns: columns, rows: rows)
    }
}

/// One line over virtual time.
package struct TimeSeries: Sendable, Equatable {
    /// Drawn as a line, or as a line with the area down to the axis shaded.
    package enum Style: Sendable, Equatable { case line, area }

    /// Shown in the legend and the data table.
    package var name: String
    /// nil: the palette colour for the series' position.
    package var color: ChartColor?
    /// Line only, or line with the area down to the axis shaded.
    package var style: Style
    /// Points in increasing time order. A point with a non-finite coordinate breaks the line (a gap).
    package var points: [TimePoint]
    /// nil: solid for the first palette cycle, then dashed (see `LineDash.automatic`).
    package var dash: LineDash?

    /// Creates the value from its properties (see their documentation).
    package init(name: String, color: ChartColor? = nil, style: Style = .line, points: [TimePoint], dash: LineDash? = nil) {
        self.name = name
        self.color = color
        self.style = style
        self.points = points
        self.dash = dash
    }
}

extension TimeSeries {
    /// The first point with the largest finite value; nil when no point is finite.
    /// - Complexity: O(points).
    package var peak: TimePoint? {
        var best: TimePoint?
        for point in points where point.seconds.isFinite && point.value.isFinite {
            if best.map({ point.value > $0.value }) ?? true { best = point }
        }
        return best
    }

    /// The mean over time: the trapezoid integral over every pair of consecutive finite points (a gap
    /// contributes nothing) divided by the time covered; the plain mean of the finite values when they
    /// cover no time (a single point, or equal times); nil when no point is finite.
    /// - Complexity: O(points).
    package var timeWeightedMean: Double? {
        var area = 0.0, covered = 0.0, sum = 0.0, count = 0
        var previous: TimePoint?
        for point in points {
            guard point.seconds.isFinite && point.value.isFinite else { previous = nil; continue }
            sum += point.value
            count += 1
            if let before = previous, point.seconds > before.seconds {
                area += (before.value + point.value) / 2 * (point.seconds - before.seconds)
                covered += point.seconds - before.seconds
            }
            previous = point
        }
        guard count > 0 else { return nil }
        return covered > 0 ? area / covered : sum / Double(count)
    }
}

/// A value at a virtual time.
package struct TimePoint: Sendable, Equatable {
    /// Virtual seconds since the start of the run.
    package var seconds: Double
    /// The value, in the chart's value-axis unit.
    package var value: Double

    /// Creates the value from its properties (see their documentation).
    package init(seconds: Double, value: Double) {
        self.seconds = seconds
        self.value = value
    }
}

/// A shaded interval of virtual time.
package struct TimeBand: Sendable, Equatable {
    /// Start of the interval, in virtual seconds.
    package var fromSeconds: Double
    /// End of the interval, in virtual seconds.
    package var toSeconds: Double
    /// Shown inside the band, bottom left.
    package var label: String

    /// Creates the value from its properties (see their documentation).
    package init(fromSeconds: Double, toSeconds: Double, label: String) {
        self.fromSeconds = fromSeconds
        self.toSeconds = toSeconds
        self.label = label
    }
}


/// An interval of virtual time, e.g. the focus of a time-series chart.
package struct TimeRange: Sendable, Equatable {
    /// Start, in virtual seconds.
    package var fromSeconds: Double
    /// End, in virtual seconds (≥ `fromSeconds` for a non-empty range).
    package var toSeconds: Double

    /// Creates the value from its properties (see their documentation).
    package init(fromSeconds: Double, toSeconds: Double) {
        self.fromSeconds = fromSeconds
        self.toSeconds = toSeconds
    }

    /// Whether both ends are finite and the range is not empty.
    package var isUsable: Bool { fromSeconds.isFinite && toSeconds.isFinite && toSeconds > fromSeconds }

    /// Whether `seconds` lies in the closed range.
    package func contains(_ seconds: Double) -> Bool { seconds >= fromSeconds && seconds <= toSeconds }

    /// The range around the given intervals with `marginShare` of their span (at least `marginSecondsMin`)
    /// added on each side, kept within `bounds`; nil when no interval is finite.
    /// Example: a send window 600…615 s with 0.5 and 10 s gives 590…625 s.
    package static func around(_ intervals: [TimeRange], marginShare: Double, marginSecondsMin: Double, within bounds: TimeRange) -> TimeRange? {
        let finite = intervals.filter { $0.fromSeconds.isFinite && $0.toSeconds.isFinite }
        guard let low = finite.map({ min($0.fromSeconds, $0.toSeconds) }).min(),
              let high = finite.map({ max($0.fromSeconds, $0.toSeconds) }).max() else { return nil }
        let margin = max((high - low) * marginShare, marginSecondsMin)
        let range = TimeRange(fromSeconds: max(bounds.fromSeconds, low - margin), toSeconds: min(bounds.toSeconds, high + margin))
        return range.isUsable ? range : nil
    }
}
