import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import XCTest
@testable import ReportKit

/// Each chart kind's SVG is parsed as XML (a parse error fails the test) and its data marks are counted
/// and measured against the input data.
final class SVGChartTests: XCTestCase {
    func testCDFChartIsWellFormedWithOnePathPerNonEmptySeries() throws {
        let chart = CDFChart(title: "Tap-to-paint", summary: "s", valueAxis: ValueAxis(label: "Tap-to-paint", unit: "ms", scale: .logarithmic),
                             series: [CDFSeries.empirical(name: "iOS", samples: [120, 80, 300, 450, 900]),
                                      CDFSeries(name: "empty", points: []),
                                      SampleReport.logNormalCDF(name: "Android", medianMs: 200, sigma: 1)],
                             markers: [ChartMarker(at: 500, label: "500 ms")])
        let svg = try XMLTree.parse(SVGChartRenderer().render(.cdf(chart), idPrefix: "t"))
        XCTAssertEqual(svg.count(name: "path", class: "series"), 2, "the empty series draws no line")
        XCTAssertEqual(svg.count(name: "line", class: "marker"), 1)
        XCTAssertEqual(svg.count(name: "line", class: "swatch"), 3, "every series is in the legend")
        // Each path has exactly one vertex per point: "M" once, "L" for the rest.
        let paths = svg.elements(name: "path", class: "series")
        XCTAssertEqual(paths.map { Self.commandCount($0.attributes["d"] ?? "") }, [chart.series[0].points.count, chart.series[2].points.count])
        assertAccessible(svg, title: "Tap-to-paint")
    }

    func testCDFLogAxisPlacesTheMarkerAtItsLogPosition() throws {
        // Axis 100…1000 (exact 1-2-5 bounds): 316.2 ms (10^2.5) must sit halfway across the plot.
        let chart = CDFChart(title: "c", summary: "s", valueAxis: ValueAxis(label: "x", unit: "ms", scale: .logarithmic),
                             series: [CDFSeries(name: "a", points: [CDFPoint(value: 100, fraction: 0), CDFPoint(value: 1000, fraction: 1)])],
                             markers: [ChartMarker(at: pow(10, 2.5), label: "mid")])
        let svg = try XMLTree.parse(SVGChartRenderer().render(.cdf(chart), idPrefix: "t"))
        let d = svg.elements(name: "path", class: "series")[0].attributes["d"] ?? ""
        let xs = Self.coordinates(d).map { $0.x }
        let marker = Double(svg.elements(name: "line", class: "marker")[0].attributes["x1"] ?? "") ?? .nan
        XCTAssertEqual(marker, (xs[0] + xs[1]) / 2, accuracy: 0.11, "coordinates are printed to 0.1")
    }

    func testTimeSeriesChartCountsAreasLinesBandsMarkersAndGaps() throws {
        let gap = [TimePoint(seconds: 0, value: 1), TimePoint(seconds: 10, value: 2), TimePoint(seconds: 20, value: .nan),
                   TimePoint(seconds: 30, value: 3), TimePoint(seconds: 40, value: 2)]
        let chart = TimeSeriesChart(title: "Edge hit ratio", summary: "s", valueAxis: ValueAxis(label: "Hit ratio", unit: "%"),
                                    series: [TimeSeries(name: "hit", style: .area, points: gap),
                                             TimeSeries(name: "origin", points: [TimePoint(seconds: 0, value: 4), TimePoint(seconds: 40, value: 0)])],
                                    bands: [TimeBand(fromSeconds: 10, toSeconds: 30, label: "Send window")],
                                    markers: [ChartMarker(at: 5, label: "Warm"), ChartMarker(at: 10, label: "Send start")])
        let svg = try XMLTree.parse(SVGChartRenderer().render(.timeSeries(chart), idPrefix: "t"))
        XCTAssertEqual(svg.count(name: "path", class: "series"), 2)
        XCTAssertEqual(svg.count(name: "path", class: "area"), 1)
        XCTAssertEqual(svg.count(name: "rect", class: "band"), 1)
        XCTAssertEqual(svg.count(name: "line", class: "marker"), 2)
        let line = svg.elements(name: "path", class: "series")[0].attributes["d"] ?? ""
        XCTAssertEqual(line.filter { $0 == "M" }.count, 2, "the NaN point splits the line into two runs: \(line)")
        XCTAssertEqual(Self.commandCount(line), 4, "four finite points")
        // The band spans 10…30 s of a 0…40 s axis: half the plot width, starting a quarter in.
        let band = svg.elements(name: "rect", class: "band")[0]
        let firstLine = Self.coordinates(svg.elements(name: "path", class: "series")[1].attributes["d"] ?? "")
        let plotWidth = firstLine[1].x - firstLine[0].x
        XCTAssertEqual(Double(band.attributes["width"] ?? "") ?? .nan, plotWidth / 2, accuracy: 0.2)
        XCTAssertEqual((Double(band.attributes["x"] ?? "") ?? .nan) - firstLine[0].x, plotWidth / 4, accuracy: 0.2)
        assertAccessible(svg, title: "Edge hit ratio")
    }

    func testBreakdownSegmentsAreProportionalToCounts() throws {
        let chart = BreakdownChart(title: "Outcomes", summary: "s", countNoun: "pushes",
                                   categories: [BreakdownCategory("completed"), BreakdownCategory("partial"), BreakdownCategory("killed")],
                                   bars: [BreakdownBar(label: "iOS", counts: [600, 300, 100]),
                                          BreakdownBar(label: "Android", counts: [50, 0, 150]),
                                          BreakdownBar(label: "Empty", counts: [])])
        let svg = try XMLTree.parse(SVGChartRenderer().render(.breakdown(chart), idPrefix: "t"))
        let segments = svg.elements(name: "rect", class: "segment")
        XCTAssertEqual(segments.count, 5, "one segment per non-zero count")
        XCTAssertEqual(svg.count(name: "rect", class: "empty-bar"), 1)
        XCTAssertEqual(svg.count(name: "rect", class: "swatch"), 3)
        let widths = segments.map { Double($0.attributes["width"] ?? "") ?? .nan }
        let full = widths[0] + widths[1] + widths[2]
        for (width, share) in zip(widths, [0.6, 0.3, 0.1, 0.25, 0.75]) {
            XCTAssertEqual(width / full, share, accuracy: 0.002, "segment width share (coordinates printed to 0.1 of ~580)")
        }
        XCTAssertEqual(segments[0].text, "iOS · completed: 600 (60.0%)")
    }

    func testGroupedBarHeightsAreProportionalToValues() throws {
        let chart = GroupedBarChart(title: "Bytes", summary: "s", valueLabel: "Bytes", valueFormat: .bytes,
                                    groups: ["CDN egress", "Cellular", "Never opened"],
                                    series: [BarSeries(name: "warm", values: [400e9, 200e9, 100e9]),
                                             BarSeries(name: "cold", values: [300e9, .nan])])
        let svg = try XMLTree.parse(SVGChartRenderer().render(.groupedBars(chart), idPrefix: "t"))
        let bars = svg.elements(name: "rect", class: "bar")
        XCTAssertEqual(bars.count, 4, "NaN and missing values draw no bar")
        let heights = bars.map { Double($0.attributes["height"] ?? "") ?? .nan }
        // Document order: group by group, series within: 400, 300, 200, 100 GB.
        for (height, value) in zip(heights, [400.0, 300, 200, 100]) {
            XCTAssertEqual(height / heights[0], value / 400, accuracy: 0.002)
        }
        XCTAssertTrue(bars[0].text.hasSuffix("400 GB"), bars[0].text)
        XCTAssertTrue(svg.allText.contains("Bytes (GB)"), "the axis title names the chosen unit")
    }

    func testEveryChartKindEscapesUserText() throws {
        let hostile = "<script>alert('x')</script> & \"q\""
        let charts: [Chart] = [
            .cdf(CDFChart(title: hostile, summary: hostile, valueAxis: ValueAxis(label: hostile, unit: "<ms>"),
                          series: [CDFSeries.empirical(name: hostile, samples: [1, 2])], markers: [ChartMarker(at: 1, label: hostile)])),
            .timeSeries(TimeSeriesChart(title: hostile, summary: hostile, valueAxis: ValueAxis(label: hostile, unit: "&"),
                                        series: [TimeSeries(name: hostile, points: [TimePoint(seconds: 0, value: 1)])],
                                        bands: [TimeBand(fromSeconds: 0, toSeconds: 1, label: hostile)])),
            .breakdown(BreakdownChart(title: hostile, summary: hostile, countNoun: hostile, categories: [BreakdownCategory(hostile)],
                                      bars: [BreakdownBar(label: hostile, counts: [1])])),
            .groupedBars(GroupedBarChart(title: hostile, summary: hostile, valueLabel: hostile, valueFormat: .number(unit: "<u>", decimals: 1),
                                         groups: [hostile], series: [BarSeries(name: hostile, values: [1])])),
        ]
        for chart in charts {
            let text = SVGChartRenderer().render(chart, idPrefix: "x\"><script>")
            XCTAssertFalse(text.contains("<script"), text)
            let svg = try XMLTree.parse(text)
            XCTAssertEqual(svg.root?.name, "svg")
            XCTAssertEqual(svg.elements(name: "title", class: nil).first?.text, hostile, "the parsed title is the original text")
            XCTAssertNil(svg.elements(name: "script", class: nil).first)
        }
    }

    func testLongSeriesAreThinnedButKeepTheirSpike() throws {
        // 100,000 points, flat at 1 except one spike of 50 at t = 77,777 s.
        let points = (0..<100_000).map { TimePoint(seconds: Double($0), value: $0 == 77_777 ? 50 : 1) }
        let chart = TimeSeriesChart(title: "long", summary: "s", valueAxis: ValueAxis(label: "v", unit: ""),
                                    series: [TimeSeries(name: "a", points: points)])
        let svg = try XMLTree.parse(SVGChartRenderer().render(.timeSeries(chart), idPrefix: "t"))
        let vertices = Self.coordinates(svg.elements(name: "path", class: "series")[0].attributes["d"] ?? "")
        XCTAssertLessThanOrEqual(vertices.count, SVGChartRenderer.verticesPerLineMax)
        XCTAssertGreaterThan(vertices.count, 100, "still a line, not a sketch")
        // The spike is the axis maximum (50 → tick 50) so it must touch the plot top, the lowest y of any vertex.
        let top = vertices.map { $0.y }.min() ?? .nan
        let flat = vertices.map { $0.y }.max() ?? .nan
        XCTAssertLessThan(top, flat - 100, "the spike survives thinning")
        XCTAssertEqual(vertices.map { $0.x }, vertices.map { $0.x }.sorted(), "time order kept")
    }

    func testSVGIsByteIdenticalAcrossRenders() {
        for chart in SampleReport.report().sections.flatMap({ $0.blocks }).compactMap({ block -> Chart? in
            if case .chart(let chart) = block { return chart } else { return nil }
        }) {
            XCTAssertEqual(SVGChartRenderer().render(chart, idPrefix: "a"), SVGChartRenderer().render(chart, idPrefix: "a"))
        }
    }

    // MARK: Helpers

    private func assertAccessible(_ svg: XMLTree, title: String, file: StaticString = #filePath, line: UInt = #line) {
        guard let root = svg.root else { return XCTFail("no root", file: file, line: line) }
        XCTAssertEqual(root.attributes["role"], "img", file: file, line: line)
        XCTAssertEqual(root.attributes["xmlns"], "http://www.w3.org/2000/svg", file: file, line: line)
        let ids = Set(svg.all.compactMap { $0.attributes["id"] })
        let labelledBy = (root.attributes["aria-labelledby"] ?? "").split(separator: " ").map(String.init)
        XCTAssertEqual(labelledBy.count, 2, file: file, line: line)
        XCTAssertTrue(labelledBy.allSatisfy { ids.contains($0) }, "aria-labelledby \(labelledBy) must name existing ids", file: file, line: line)
        XCTAssertEqual(svg.elements(name: "title", class: nil).first?.text, title, file: file, line: line)
    }

    /// Number of path commands (M and L) in a `d` attribute.
    static func commandCount(_ d: String) -> Int { d.filter { $0 == "M" || $0 == "L" }.count }

    /// The (x, y) pairs of a path made only of M/L commands.
    static func coordinates(_ d: String) -> [(x: Double, y: Double)] {
        let numbers = d.split { $0 == " " || $0 == "M" || $0 == "L" || $0 == "Z" }.compactMap { Double($0) }
        return stride(from: 0, to: numbers.count - 1, by: 2).map { (numbers[$0], numbers[$0 + 1]) }
    }
}

/// A parsed XML document as a flat list of elements in document order (enough for counting and attributes).
final class XMLTree: NSObject, XMLParserDelegate {
    struct Element {
        let name: String
        let attributes: [String: String]
        /// Concatenated character data of the element's direct `<title>` child, or of the element itself
        /// for text-bearing elements.
        var text: String
    }

    private(set) var all: [Element] = []
    private var stack: [Int] = []
    private var failure: Error?

    var root: Element? { all.first }
    var allText: String { all.map { $0.text }.joined(separator: "\n") }

    static func parse(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws -> XMLTree {
        let tree = XMLTree()
        let parser = XMLParser(data: Data(text.utf8))
        parser.delegate = tree
        let ok = parser.parse()
        if !ok || tree.failure != nil {
            let message = "not well-formed XML: \(String(describing: parser.parserError ?? tree.failure)) at line \(parser.lineNumber)"
            XCTFail(message, file: file, line: line)
            throw XMLTreeError.malformed(message)
        }
        return tree
    }

    enum XMLTreeError: Error { case malformed(String) }

    func elements(name: String, class className: String?) -> [Element] {
        all.filter { element in
            element.name == name && (className == nil || (element.attributes["class"] ?? "").split(separator: " ").contains { $0 == className! })
        }
    }

    func count(name: String, class className: String?) -> Int { elements(name: name, class: className).count }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        all.append(Element(name: elementName, attributes: attributes, text: ""))
        stack.append(all.count - 1)
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        let index = stack.removeLast()
        // A <title> child's text also labels its parent (a bar's or segment's tooltip).
        if elementName == "title", let parent = stack.last, all[parent].name != "svg" {
            all[parent].text += all[index].text
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if let index = stack.last { all[index].text += string }
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
        failure = parseError
    }
}
