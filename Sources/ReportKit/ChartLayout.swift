/// The geometry a chart is drawn for: the view-box width, the plot height, the margins and how many
/// ticks fit. A report page carries every chart twice, `wide` for desktops and `narrow` for phones, and
/// shows one of them by width (CSS only), so text stays legible without a sideways scroll.
package struct ChartLayout: Sendable, Equatable {
    /// View-box width, in SVG user units.
    package var width: Double
    /// Height of the plotting area of line and bar charts, in user units.
    package var plotHeight: Double
    /// Room left of the plot for tick labels and the rotated axis title.
    package var marginLeft: Double
    /// Room right of the plot.
    package var marginRight: Double
    /// Most intervals on a horizontal value axis.
    package var xIntervalsMax: Int
    /// Height of the whole-run overview strip under a focused time series (plot part).
    package var overviewHeight: Double

    /// Creates the value from its properties (see their documentation).
    package init(width: Double, plotHeight: Double, marginLeft: Double, marginRight: Double, xIntervalsMax: Int, overviewHeight: Double) {
        self.width = width
        self.plotHeight = plotHeight
        self.marginLeft = marginLeft
        self.marginRight = marginRight
        self.xIntervalsMax = xIntervalsMax
        self.overviewHeight = overviewHeight
    }

    /// For a column about 760 CSS px wide (drawn 1:1 on a desktop).
    package static let wide = ChartLayout(width: 760, plotHeight: 260, marginLeft: 76, marginRight: 28, xIntervalsMax: 8, overviewHeight: 44)
    /// For a phone column about 340 CSS px wide: drawn close to 1:1 there, so 11-unit text is ~11 px.
    package static let narrow = ChartLayout(width: 340, plotHeight: 210, marginLeft: 62, marginRight: 24, xIntervalsMax: 4, overviewHeight: 36)
}
