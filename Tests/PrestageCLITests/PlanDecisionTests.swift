import Foundation
import ReportKitTesting
import XCTest
@testable import Experiments
@testable import PrestageCLI
import ReportKit
@testable import ScenarioFormat

/// The plan report leads with the decision in the knob's words and units, says what it holds for,
/// and lays out at desktop and phone width.
final class PlanDecisionTests: XCTestCase {
    func testPlanReportLeadsWithTheDecisionSentence() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let file = try t.file("plan-tiny.json", PlanCommandTests.scenario)
        let out = t.root.appendingPathComponent("plan").path
        XCTAssertEqual(t.run(["plan", file, "--vary", "campaigns[0].sendRatePerMinute=3000..300000", "--tolerance", "50%",
                              "--replications-max", "2", "--set", "campaigns[0].warm.mode=allPops", "--set", "campaigns[0].warm.aheadSeconds=5",
                              "--for", "campaigns[0].warm.aheadSeconds=0,5", "--out", out]), .ok, t.err.text)
        let document = try JSONDecoder().decode(PlanDocument.self, from: Data(contentsOf: URL(fileURLWithPath: out + "/plan.json")))
        let lines = document.decisionLines
        XCTAssertFalse(lines.isEmpty)
        XCTAssertTrue(lines[0].hasPrefix("Warming at the send"), lines[0])
        for line in lines {
            XCTAssertTrue(line.contains(": send rate at most ") || line.contains(": every send rate up to ") || line.contains(": no send rate in "), line)
            XCTAssertFalse(line.contains("campaigns[0]"), "the knob by its title, not its path: \(line)")
            XCTAssertTrue(line.hasSuffix("."), line)
        }
        if let boundary = document.frontier.first(where: { $0.answer.status == .boundary }), let last = boundary.answer.lastPass {
            let text = document.decision(boundary)
            let minutes = PlanDocument.durationText(600 / last * 60)
            XCTAssertTrue(text.contains(" pushes/min (600 devices sent in " + minutes + ")"), text)
            XCTAssertTrue(text.contains("“Origin 503 rejections ≤ 0 on ≥ 50.0 % of replications”"), "the binding objective by its card's title: \(text)")
        }
        XCTAssertTrue(document.decisionContext.hasPrefix("At 600 devices (--set campaigns[0].warm.mode=allPops --set campaigns[0].warm.aheadSeconds=5); each verdict with 50.0 % confidence over "),
                      document.decisionContext)
        XCTAssertTrue(document.decisionContext.hasSuffix("send rate is campaigns[0].sendRatePerMinute, warm-up lead is campaigns[0].warm.aheadSeconds."),
                      document.decisionContext)
        // plan.md and plan.html: the decision is the Answer section's first paragraph.
        let markdown = try String(contentsOfFile: out + "/plan.md", encoding: .utf8)
        let answer = try XCTUnwrap(markdown.range(of: "## Answer"))
        XCTAssertTrue(markdown[answer.upperBound...].drop { $0 == "\n" }.hasPrefix(TextFormat.escapeMarkdown(lines[0])),
                      String(markdown[answer.upperBound...].prefix(300)))
        let html = try String(contentsOfFile: out + "/plan.html", encoding: .utf8)
        let heading = try XCTUnwrap(html.range(of: ">Answer</h2>\n"))
        XCTAssertTrue(html[heading.upperBound...].hasPrefix("<p>" + TextFormat.escapeXML(lines[0]) + "</p>"), String(html[heading.upperBound...].prefix(300)))
        XCTAssertTrue(html.contains("Share of replications with Origin 503 rejections ≤ 0 against send rate (campaigns[0].sendRatePerMinute), warming at the send"), "chart titles in words")
        // The evaluations table in the same words and units: no raw "[0, 0]" intervals, none below 0.
        XCTAssertTrue(html.contains("<th scope=\"col\">Origin 503 rejections ≤ 0 on ≥ 50.0 % of replications</th>"), "objective columns titled as the cards")
        XCTAssertTrue(html.contains("2 of 2 within (P 70.7 % – 100.0 %) pass"), "a chance constraint read as replications within, with its bounds")
        let cells = document.report.sections.flatMap(\.blocks).flatMap { block -> [String] in
            if case .table(let table) = block { return table.rows.flatMap { $0.map(\.text) } }
            return []
        }
        XCTAssertFalse(cells.isEmpty)
        XCTAssertFalse(cells.contains { $0.contains("[") || $0.contains("(-") }, "no raw or impossible intervals: \(cells)")
        let charts = html.components(separatedBy: "<figure").count - 1
        XCTAssertGreaterThanOrEqual(charts, 2)
        try assertReportLayout(html: html, name: "plan-decision", expectedCharts: charts)
    }

    func testKnobValuesReadInTheirUnits() {
        XCTAssertEqual(PlanDocument.valueText(75_808, unit: .pushesPerMinute, tolerance: nil), "75,808 pushes/min")
        XCTAssertEqual(PlanDocument.valueText(5_680_000, unit: .pushesPerMinute, tolerance: nil), "5.68 M pushes/min")
        XCTAssertEqual(PlanDocument.valueText(120, unit: .seconds, tolerance: nil), "2 min")
        XCTAssertEqual(PlanDocument.valueText(0.25, unit: .fraction, tolerance: nil), "25.0 %")
        XCTAssertEqual(ScenarioFieldUnit.title(path: "campaigns[0].sendRatePerMinute"), "send rate")
        XCTAssertEqual(ScenarioFieldUnit.title(path: "campaigns[0].timing.jitterSeconds"), "jitter")
        XCTAssertEqual(ScenarioFieldUnit.title(path: "infra.edgeCache.capacityBytes"), "cache capacity")
    }
}
