import XCTest
@testable import ReportKit

/// Time series focused on the action (with a whole-run overview), alarm and target lines, explicit
/// dashes, line charts with confidence bands, and the narrow layout.
final class FocusAndReferenceTests: XCTestCase {
    /// A burst at 600…615 s in a 0…1800 s run, one point per second.
    private static var burst: TimeSeriesChart {
        let points = (0...1800).map { t -> TimePoint in TimePoint(seconds: Double(t), value: (600...615).contains(t) ? 4000 : 1) }
        return TimeSeriesChart(title: "Pushes", summary: "s", valueAxis: ValueAxis(label: "Rate", unit: "/s"),
                               series: [TimeSeries(name: "pushes", points: points)],
                               bands: [TimeBand(fromSeconds: 600, toSeconds: 615, label: "send")],
                               markers: [ChartMarker(at: 0, label: "warm"), ChartMarker(at: 600, label: "send start")],
                               referenceLines: [ReferenceLine(value: 5000, label: "quota", kind: .alarm)],
                               focus: TimeRange(fromSeconds: 590, toSeconds: 625))
    }

    func testFocusedTimeSeriesDrawsOnlyTheFocusAndAnOverviewOfTheWholeRun() throws {
        let svg = try XMLTree.parse(SVGChartRenderer().render(.timeSeries(Self.burst), idPrefix: "t"))
        let d = svg.elements(name: "path", class: "series")[0].attributes["d"] ?? ""
        XCTAssertEqual(SVGChartTests.commandCount(d), 36, "590…625 s: 36 points in focus")
        let plot = try XCTUnwrap(svg.elements(name: "rect", class: "plot").first)
        let left = Double(plot.attributes["x"] ?? "") ?? .nan, width = Double(plot.attributes["width"] ?? "") ?? .nan
        let xs = SVGChartTests.coordinates(d).map { $0.x }
        XCTAssertEqual(xs.first ?? .nan, left, accuracy: 0.11, "the focus starts at the plot's left edge")
        XCTAssertEqual(xs.last ?? .nan, left + width, accuracy: 0.11, "…and ends at its right edge")
        // The send band fills 10/35 of the plot: no longer a one-pixel needle.
        let band = try XCTUnwrap(svg.elements(name: "rect", class: "band").first)
        XCTAssertEqual(Double(band.attributes["width"] ?? "") ?? .nan, width * 15 / 35, accuracy: 0.2)
        XCTAssertEqual(svg.count(name: "line", class: "marker"), 1, "the warm marker at 0 s is outside the focus")
        XCTAssertEqual(svg.count(name: "line", class: "overview-marker"), 2, "the overview shows both markers")
        XCTAssertEqual(svg.count(name: "path", class: "overview-series"), 1)
        XCTAssertEqual(svg.count(name: "rect", class: "overview-focus"), 1)
        XCTAssertEqual(svg.count(name: "line", class: "reference"), 1)
    }

    func testReferenceLineWidensTheAxisAndSitsAtItsValue() throws {
        let chart = TimeSeriesChart(title: "Hit ratio", summary: "s", valueAxis: ValueAxis(label: "Hit ratio", unit: ""),
                                    series: [TimeSeries(name: "hit", points: [TimePoint(seconds: 0, value: 0.5), TimePoint(seconds: 10, value: 0.6)])],
                                    referenceLines: [ReferenceLine(value: 0.9, label: "alarm 0.90", kind: .alarm)])
        let svg = try XMLTree.parse(SVGChartRenderer().render(.timeSeries(chart), idPrefix: "t"))
        let line = try XCTUnwrap(svg.elements(name: "line", class: "reference").first)
        let plot = try XCTUnwrap(svg.elements(name: "rect", class: "plot").first)
        let top = Double(plot.attributes["y"] ?? "") ?? .nan, height = Double(plot.attributes["height"] ?? "") ?? .nan
        // Axis 0…1 (the 0.9 line is included): 0.9 sits a tenth below the top.
        XCTAssertEqual(Double(line.attributes["y1"] ?? "") ?? .nan, top + height * 0.1, accuracy: 0.11)
        XCTAssertEqual(line.attributes["stroke"], ChartColor.vermillion.hex)
    }

    func testExplicitDashesFollowTheSeriesNotItsPosition() throws {
        let points = [CDFPoint(value: 10, fraction: 0), CDFPoint(value: 100, fraction: 1)]
        let chart = CDFChart(title: "c", summary: "s", valueAxis: ValueAxis(label: "x", unit: "ms", scale: .logarithmic),
                             series: [CDFSeries(name: "iOS 4G", color: .blue, points: points, dash: .dashed),
                                      CDFSeries(name: "iOS wifi", color: .blue, points: points, dash: .solid)])
        let svg = try XMLTree.parse(SVGChartRenderer().render(.cdf(chart), idPrefix: "t"))
        let paths = svg.elements(name: "path", class: "series")
        XCTAssertEqual(paths.map { $0.attributes["stroke-dasharray"] }, [LineDash.dashed.pattern, nil])
    }

    func testLineChartDrawsPointsAndConfidenceBands() throws {
        let chart = SampleReport.warmAheadSweep
        let svg = try XMLTree.parse(SVGChartRenderer().render(.line(chart), idPrefix: "t"))
        XCTAssertEqual(svg.count(name: "path", class: "series"), 2)
        XCTAssertEqual(svg.count(name: "path", class: "ci-band"), 2)
        XCTAssertEqual(svg.count(name: "circle", class: "point"), 10)
        XCTAssertEqual(svg.count(name: "line", class: "reference"), 1)
        XCTAssertEqual(chart.dataTable.rows.count, 10, "one row per series and point")
    }

    func testNarrowLayoutDrawsEveryChartInItsOwnViewBox() throws {
        for chart in SampleReport.report().sections.flatMap({ $0.blocks }).compactMap({ block -> Chart? in
            if case .chart(let chart) = block { return chart } else { return nil }
        }) {
            let svg = try XMLTree.parse(SVGChartRenderer(layout: .narrow).render(chart, idPrefix: "n"))
            XCTAssertEqual(svg.elements(name: "svg", class: nil).first?.attributes["viewBox"]?.split(separator: " ").dropFirst(2).first, "340", chart.title)
        }
    }
}
