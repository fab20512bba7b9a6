/// A line chart over a numeric horizontal axis (e.g. a sweep's grid axis), each point optionally with a
/// confidence interval drawn as a shaded band around the line.
package struct LineChart: Sendable, Equatable {
    /// The chart's title (shown above it, and the SVG `<title>`).
    package var title: String
    /// One sentence saying what the chart shows (the SVG `<desc>`).
    package var summary: String
    /// The horizontal axis, e.g. "Warm ahead (s)".
    package var xAxis: ValueAxis
    /// The vertical axis, e.g. "Tap-to-paint p95 (ms)". On a linear axis with no negative values it starts at 0.
    package var yAxis: ValueAxis
    /// Digits after the point for x values in the data table.
    package var xDecimals: Int
    /// Digits after the point for y values in the data table.
    package var yDecimals: Int
    /// The lines, drawn and listed in this order.
    package var series: [LineSeries]
    /// Horizontal lines at fixed values, e.g. an alarm level.
    package var referenceLines: [ReferenceLine]
    /// Vertical lines at positions on the x axis (in its unit), e.g. "last pass".
    package var markers: [ChartMarker]

    /// Creates the value from its properties (see their documentation).
    package init(title: String, summary: String, xAxis: ValueAxis, yAxis: ValueAxis, xDecimals: Int = 0, yDecimals: Int = 2,
                series: [LineSeries], referenceLines: [ReferenceLine] = [], markers: [ChartMarker] = []) {
        self.title = title
        self.summary = summary
        self.xAxis = xAxis
        self.yAxis = yAxis
        self.xDecimals = xDecimals
        self.yDecimals = yDecimals
        self.series = series
        self.referenceLines = referenceLines
        self.markers = markers
    }

    /// One row per series and point: x, y and the interval.
    var dataTable: Table {
        let columns = [Table.Column("Series"), Table.Column(xAxis.title, alignment: .trailing), Table.Column(yAxis.title, alignment: .trailing),
                       Table.Column("CI low", alignment: .trailing), Table.Column("CI high", alignment: .trailing)]
        var rows: [[TableCell]] = []
        for line in series {
            for point in line.points {
                rows.append([.text(line.name), .number(point.x, decimals: xDecimals), .number(point.y, decimals: yDecimals),
                             point.lower.map { .number($0, decimals: yDecimals) } ?? .text("—"),
                             point.upper.map { .number($0, decimals: yDecimals) } ?? .text("—")])
            }
        }
        return Table(caption: title, columns: columns, rows: rows)
    }
}

/// One line of a `LineChart`.
package struct LineSeries: Sendable, Equatable {
    /// Shown in the legend and the data table.
    package var name: String
    /// nil: the palette colour for the series' position.
    package var color: ChartColor?
    /// nil: see `LineDash.automatic`.
    package var dash: LineDash?
    /// Points in increasing x order; a point with a non-finite x or y is not drawn and breaks the line.
    package var points: [LinePoint]

    /// Creates the value from its properties (see their documentation).
    package init(name: String, color: ChartColor? = nil, dash: LineDash? = nil, points: [LinePoint]) {
        self.name = name
        self.color = color
        self.dash = dash
        self.points = points
    }
}

/// A point of a line chart with an optional interval (e.g. a 95 % confidence interval of the mean).
package struct LinePoint: Sendable, Equatable {
    /// Horizontal position, in the x axis' unit.
    package var x: Double
    /// Vertical position (the estimate), in the y axis' unit.
    package var y: Double
    /// Lower end of the interval; nil when there is none.
    package var lower: Double?
    /// Upper end of the interval; nil when there is none.
    package var upper: Double?

    /// Creates the value from its properties (see their documentation).
    package init(x: Double, y: Double, lower: Double? = nil, upper: Double? = nil) {
        self.x = x
        self.y = y
        self.lower = lower
        self.upper = upper
    }
}
