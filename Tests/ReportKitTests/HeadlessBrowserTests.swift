import Foundation
import ReportKitTesting
import XCTest
@testable import ReportKit

/// Loads the rendered sample report in a real headless Chromium and checks what a reader gets: the page
/// loads without console errors or blocked resources, the DOM holds every chart and heading, and at a
/// desktop (1400 px) and a phone (390 px) width the page never scrolls sideways, text is at least 11 px,
/// every chart has its data inside its plotting area and no chart text is empty or reads NaN/Infinity.
/// Screenshots at both widths are kept in `.build/test-artifacts/report/` (or REPORTKIT_ARTIFACTS_DIR)
/// for review. Skipped only when Chromium is absent outside CI (with CI set a missing browser is a failure).
final class HeadlessBrowserTests: XCTestCase {

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
