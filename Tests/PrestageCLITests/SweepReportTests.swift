import Foundation
import ReportKitTesting
import XCTest
@testable import Experiments
@testable import PrestageCLI

/// A sweep writes report.md and report.html: each chosen metric against each grid axis with
/// confidence bands and a line per value of the other axis, then the points table; `--metrics`
/// chooses the metrics (report and stdout) and an unknown name is refused.
final class SweepReportTests: XCTestCase {
    func testSweepReportShowsChosenMetricsAgainstEachAxis() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let sweep = try t.file("warm.json", SweepTests.smallSweep)
        let out = t.root.appendingPathComponent("s")
        XCTAssertEqual(t.run(["sweep", sweep, "--out", out.path, "--metrics", "tapToPaint.p50Seconds,bytes.cdnEgress"]), .ok, t.err.text)
        // stdout: the chosen metrics, in human units.
        XCTAssertTrue(t.out.text.contains("tapToPaint.p50Seconds") && t.out.text.contains("bytes.cdnEgress"), t.out.text)
        XCTAssertFalse(t.out.text.contains("edge.prestageHitRatio"), "only the chosen metrics are printed")
        XCTAssertTrue(t.out.text.contains(" ms ± ") || t.out.text.contains(" s ± "), t.out.text)
        let html = try String(contentsOf: out.appendingPathComponent("report.html"), encoding: .utf8)
        let markdown = try String(contentsOf: out.appendingPathComponent("report.md"), encoding: .utf8)
        // Two metrics × two varying axes: four line charts, each with a line per value of the other axis.
        XCTAssertEqual(html.components(separatedBy: "<figure").count - 1, 4)
        XCTAssertTrue(html.contains("Tap to paint, median by warm ahead"))
        XCTAssertTrue(html.contains("CDN egress by campaigns send rate per minute"))
        XCTAssertTrue(html.contains("class=\"ci-band\""), "confidence bands are drawn")
        XCTAssertTrue(html.contains("campaigns send rate per minute 60,000"), "one line per value of the other axis")
        XCTAssertTrue(markdown.contains("**Grid points (mean ± half-width of the confidence interval)**"))
        try assertReportLayout(html: html, name: "sweep-small", expectedCharts: 4)

        XCTAssertEqual(t.run(["sweep", sweep, "--out", t.root.appendingPathComponent("x").path, "--metrics", "tapToPaint.p95"]), .badInput)
        XCTAssertTrue(t.err.text.contains("--metrics: expected metric names from summary.json"), t.err.text)
        XCTAssertTrue(t.err.text.contains("found \"tapToPaint.p95\"; did you mean tapToPaint.p95Seconds"), t.err.text)
    }
}
