import Foundation
import ReportKitTesting
import XCTest
@testable import PrestageCLI

/// A report of several campaigns fits the page in Chromium at desktop and phone width: its
/// Campaigns section (one row per campaign, twelve metrics with their intervals) included.
final class CampaignReportLayoutTests: XCTestCase {
    func testACampaignsReportIsLaidOutInChromium() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let out = t.root.appendingPathComponent("mix").path
        XCTAssertEqual(t.run(["run", "payload-forms", "--devices", "600", "--replications", "2", "--out", out]), .ok, t.err.text)
        let html = try String(contentsOfFile: out + "/report.html", encoding: .utf8)
        XCTAssertTrue(html.contains(">Campaigns<"), "the section is there to judge")
        try assertReportLayout(html: html, name: "run-campaigns", expectedCharts: html.components(separatedBy: "<figure").count - 1)
    }
}
