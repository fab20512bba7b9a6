import XCTest
@testable import ReportKit

/// No chart is drawn empty: a series whose data is one point (or whose points are separated by gaps)
/// still shows a mark for each point, in its own colour, inside the plot.
final class SinglePointSeriesTests: XCTestCase {
    /// Pre-stage misses of two regions, all in the first 60-second bin after the send (a cold send).
    private static var coldSend: TimeSeriesChart {
        TimeSeriesChart(title: "Pre-stage misses by region", summary: "s", valueAxis: ValueAxis(label: "Misses", unit: "per 60 s"),
                        series: [TimeSeries(name: "region 1", points: [TimePoint(seconds: 300, value: 420)]),
                                 TimeSeries(name: "region 2", points: [TimePoint(seconds: 300, value: 97)])],
                        bands: [TimeBand(fromSeconds: 300, toSeconds: 320, label: "send")])
    }

    func testASingleBinSeriesIsDrawnAsAVisibleMark() throws {
        for layout in [ChartLayout.wide, .narrow] {
            let svg = try XMLTree.parse(SVGChartRenderer(layout: layout).render(.timeSeries(Self.coldSend), idPrefix: "t"))
            let dots = svg.elements(name: "circle", class: "series-point")
            XCTAssertEqual(dots.count, 2, "one mark per one-point series")
            XCTAssertEqual(Set(dots.compactMap { $0.attributes["fill"] }), [ChartColor.automatic(0).hex, ChartColor.automatic(1).hex])
            let plot = try XCTUnwrap(svg.elements(name: "rect", class: "plot").first)
            let top = Double(plot.attributes["y"] ?? "") ?? .nan, height = Double(plot.attributes["height"] ?? "") ?? .nan
            for dot in dots {
                let r = Double(dot.attributes["r"] ?? "") ?? 0
                let cy = Double(dot.attributes["cy"] ?? "") ?? .nan
                XCTAssertGreaterThanOrEqual(r, 3, "large enough to see")
                XCTAssertTrue(cy >= top - 0.01 && cy <= top + height + 0.01, "inside the plot")
            }
            XCTAssertEqual(svg.count(name: "text", class: "no-data"), 0)
        }
    }

    func testAnIsolatedPointBetweenGapsIsDrawnAndLongRunsAreNotDotted() throws {
        let points = [TimePoint(seconds: 0, value: 1), TimePoint(seconds: 10, value: 2), TimePoint(seconds: 20, value: .nan),
                      TimePoint(seconds: 30, value: 5), TimePoint(seconds: 40, value: .nan)]
        let chart = TimeSeriesChart(title: "t", summary: "s", valueAxis: ValueAxis(label: "v", unit: ""),
                                    series: [TimeSeries(name: "a", points: points)])
        let svg = try XMLTree.parse(SVGChartRenderer().render(.timeSeries(chart), idPrefix: "t"))
        XCTAssertEqual(svg.count(name: "circle", class: "series-point"), 1, "only the point at 30 s stands alone")
    }
}
