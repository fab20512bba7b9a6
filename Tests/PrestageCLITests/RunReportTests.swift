import Foundation
import ReportKitTesting
import XCTest
@testable import Experiments
@testable import PrestageCLI

/// The report of a real (small) run, read as a user reads it: human titles with the id in small
/// print, units for people, the header with what actually ran, the alarm level on the hit-ratio chart,
/// charts focused on the action; and in headless Chromium at desktop and phone width.
final class RunReportTests: XCTestCase {
    func testDefaultRunReportReadsLikeAReport() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let out = t.root.appendingPathComponent("r")
        XCTAssertEqual(t.run(["run", "default", "--devices", "150", "--replications", "3", "--set", "run.seed=3", "--out", out.path]), .ok, t.err.text)
        let html = try String(contentsOf: out.appendingPathComponent("report.html"), encoding: .utf8)
        let markdown = try String(contentsOf: out.appendingPathComponent("report.md"), encoding: .utf8)
        // The title says what ran when --devices changed the population.
        XCTAssertTrue(html.contains("<h1>default — run with 150 devices (--devices)</h1>"), String(html.prefix(3000)))
        XCTAssertTrue(html.contains("<dt>Devices</dt><dd>150</dd>"))
        XCTAssertTrue(html.contains("<code>--devices 150</code> <code>--replications 3</code> <code>--set run.seed=3</code>"))
        if let revision = SourceRevision.current {
            XCTAssertTrue(html.contains("<dt>Source revision</dt><dd><code>" + revision + "</code></dd>"))
        }
        // Headline cards: the metric table's titles, ids in small print, no raw units.
        XCTAssertTrue(html.contains("<h3>Tap to paint, median</h3>\n<p class=\"metric-id\"><code>tapToPaint.<wbr>p50Seconds</code></p>"))
        XCTAssertTrue(html.contains("<h3>Origin peak requests per second</h3>"))
        XCTAssertFalse(html.contains(" 1/s"), "rates read as /s or req/s")
        XCTAssertFalse(html.contains("e+"), "no exponent notation")
        // The hit-ratio chart draws its alarm level; time charts are focused with a whole-run overview.
        XCTAssertTrue(html.contains("class=\"reference\""))
        XCTAssertTrue(html.contains("alarm below 90.0 %"))
        XCTAssertTrue(html.contains("class=\"overview-focus\""))
        XCTAssertTrue(markdown.contains("**Overrides:** `--devices 150` `--replications 3` `--set run.seed=3`"))
        XCTAssertTrue(markdown.contains("| Tap to paint, median "), "human titles in report.md")
        let charts = html.components(separatedBy: "<figure").count - 1
        XCTAssertGreaterThanOrEqual(charts, 6)
        try assertReportLayout(html: html, name: "run-default", expectedCharts: charts)
    }
}
