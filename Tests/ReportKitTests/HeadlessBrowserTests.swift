import Foundation
import XCTest
@testable import ReportKit

/// Loads the rendered sample report in a real headless Chromium and checks what a reader gets: the page
/// loads without console errors or blocked resources, the DOM holds every chart and heading, and at a
/// desktop (1400 px) and a phone (390 px) width the page never scrolls sideways, text is at least 11 px,
/// every chart has its data inside its plotting area and no chart text is empty or reads NaN/Infinity.
/// Screenshots at both widths are kept in `.build/test-artifacts/report/` (or REPORTKIT_ARTIFACTS_DIR)
/// for review. Skipped only when Chromium is absent outside CI (with CI set a missing browser is a failure).
final class HeadlessBrowserTests: XCTestCase {
    /// Smallest acceptable rendered text, CSS px.
    static let textPxMin = 11.0
    /// Height of the review screenshots, CSS px (the top of the report: header, headlines, first charts).
    static let screenshotHeight = 3000

    func testSampleReportRendersInHeadlessChromium() throws {
        let chromium = try ChromiumHarness.executable()
        let directory = try ChromiumHarness.scratchDirectory("reportkit-browser")
        defer { try? FileManager.default.removeItem(at: directory) }

        let report = SampleReport.report(title: "Sample <b>report</b> & checks")
        let htmlFile = directory.appendingPathComponent("report.html")
        try Data(HTMLRenderer().render(report).utf8).write(to: htmlFile)

        let dom = try ChromiumHarness.run(chromium, arguments: ["--dump-dom", htmlFile.absoluteString], in: directory, name: "dump-dom")
        XCTAssertFalse(dom.timedOut, "chromium --dump-dom timed out")
        XCTAssertEqual(dom.exitCode, 0, "chromium --dump-dom exit status; stderr tail:\n\(dom.stderr.suffix(2000))")
        XCTAssertEqual(ChromiumHarness.loadProblems(dom.stderr), [], "page load problems")
        XCTAssertEqual(dom.stdout.components(separatedBy: "<svg").count - 1, 2 * SampleReport.chartCount, "inline <svg> charts (wide and narrow) in the DOM")
        XCTAssertTrue(dom.stdout.contains("<h1>Sample &lt;b&gt;report&lt;/b&gt; &amp; checks</h1>"), "escaped title as the h1")
        XCTAssertFalse(dom.stdout.contains("<b>report</b>"), "the title's markup must not become elements")
        for heading in ["Headline metrics"] + report.sections.map({ $0.title }) {
            XCTAssertTrue(dom.stdout.contains(">" + heading + "</h2>"), "h2 \(heading)")
        }
        XCTAssertFalse(dom.stdout.contains("<script"), "no script elements")
    }

    func testSampleReportLayoutAtDesktopAndPhoneWidth() throws {
        try assertReportLayout(of: SampleReport.report(), name: "sample", expectedCharts: SampleReport.chartCount)
    }
}

extension XCTestCase {
    /// Renders `report`, measures an instrumented copy at 1400 and 390 px and keeps a screenshot of the
    /// real (script-free) page at each width.
    func assertReportLayout(of report: Report, name: String, expectedCharts: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        let chromium = try ChromiumHarness.executable()
        let directory = try ChromiumHarness.scratchDirectory("reportkit-layout")
        defer { try? FileManager.default.removeItem(at: directory) }
        let html = HTMLRenderer().render(report)
        let page = directory.appendingPathComponent(name + "-report.html")
        try Data(html.utf8).write(to: page)
        var kept = [page]
        for width in [1400, 390] {
            let label = name + "-" + String(width)
            let probe = directory.appendingPathComponent(label + "-probe.html")
            let framedPage = directory.appendingPathComponent(label + "-framed.html")
            try Data(LayoutProbe.framed(LayoutProbe.instrumented(html), width: width, height: 900).utf8).write(to: probe)
            try Data(LayoutProbe.framed(html, width: width, height: HeadlessBrowserTests.screenshotHeight).utf8).write(to: framedPage)
            let dom = try ChromiumHarness.run(chromium, arguments: ["--window-size=\(width),900", "--dump-dom", probe.absoluteString],
                                              in: directory, name: label + "-dom")
            XCTAssertEqual(dom.exitCode, 0, "\(label): chromium exit status; stderr tail:\n\(dom.stderr.suffix(2000))", file: file, line: line)
            XCTAssertEqual(ChromiumHarness.loadProblems(dom.stderr), [], "\(label): page load problems", file: file, line: line)
            guard let measured = LayoutProbe.measurements(inDump: dom.stdout) else {
                XCTFail("\(label): no layout measurements in the DOM (did the probe script run?)", file: file, line: line)
                continue
            }
            let innerWidth = measured["innerWidth"] as? Double ?? -1
            let scrollWidth = measured["scrollWidth"] as? Double ?? .infinity
            XCTAssertEqual(innerWidth, Double(width), "\(label): the viewport is the requested width", file: file, line: line)
            XCTAssertLessThanOrEqual(scrollWidth, innerWidth, "\(label): the page scrolls sideways", file: file, line: line)
            XCTAssertEqual(measured["visibleCharts"] as? Double, Double(expectedCharts), "\(label): one visible drawing per chart", file: file, line: line)
            let minFont = measured["minFontPx"] as? Double ?? 0
            XCTAssertGreaterThanOrEqual(minFont, HeadlessBrowserTests.textPxMin - 0.05,
                                        "\(label): smallest text \(minFont) px: \"\(measured["minFontText"] ?? "")\"", file: file, line: line)
            XCTAssertEqual(measured["problems"] as? [String] ?? ["(unreadable)"], [], "\(label): layout problems", file: file, line: line)

            let png = directory.appendingPathComponent(label + ".png")
            let shot = try ChromiumHarness.run(chromium, arguments: ["--screenshot=" + png.path, "--window-size=\(width),\(HeadlessBrowserTests.screenshotHeight)",
                                                                     framedPage.absoluteString],
                                               in: directory, name: label + "-shot")
            XCTAssertEqual(shot.exitCode, 0, "\(label): screenshot exit status", file: file, line: line)
            let bytes = [UInt8]((try? Data(contentsOf: png)) ?? Data())
            let size = ChromiumHarness.pngSize(bytes)
            XCTAssertEqual(size?.width, width, "\(label): screenshot width", file: file, line: line)
            // A blank page compresses to a few kB; text and charts make it far larger.
            XCTAssertGreaterThan(bytes.count, 20_000, "\(label): screenshot size in bytes", file: file, line: line)
            if size != nil { kept.append(png) }
        }
        try ChromiumHarness.keep(kept)
    }
}
