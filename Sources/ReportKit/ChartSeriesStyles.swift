/// The colour and mark each series of a chart is drawn with (defaults resolved as the renderer
/// resolves them), for checking that a chart's series can be told apart.
package struct SeriesStyle: Sendable, Equatable {
    /// The series' name, as in the legend.
    package var name: String
    package var color: ChartColor
    /// "box" for filled marks (bars, segments, areas), else the line's dash pattern ("solid" without one).
    package var mark: String
}

extension Chart {
    /// Every series (or breakdown category) in legend order with its resolved colour and mark.
    package var seriesStyles: [SeriesStyle] {
        func line(_ dash: LineDash?, _ index: Int) -> String { (dash ?? .automatic(index)).pattern ?? "solid" }
        switch self {
        case .cdf(let chart):
            return chart.series.enumerated().map { SeriesStyle(name: $1.name, color: $1.color ?? .automatic($0), mark: line($1.dash, $0)) }
        case .timeSeries(let chart):
            return chart.series.enumerated().map {
                SeriesStyle(name: $1.name, color: $1.color ?? .automatic($0), mark: $1.style == .area ? "box" : line($1.dash, $0))
            }
        case .breakdown(let chart):
            return chart.categories.enumerated().map { SeriesStyle(name: $1.name, color: $1.color ?? .automatic($0), mark: "box") }
        case .groupedBars(let chart):
            return chart.series.enumerated().map { SeriesStyle(name: $1.name, color: $1.color ?? .automatic($0), mark: "box") }
        case .line(let chart):
            return chart.series.enumerated().map { SeriesStyle(name: $1.name, color: $1.color ?? .automatic($0), mark: line($1.dash, $0)) }
        }
    }
}
