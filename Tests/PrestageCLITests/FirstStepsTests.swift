import Foundation
import XCTest
@testable import PrestageCLI

/// What a new user meets first: bare `prestage` prints the usage, and `help` lists commands in the
/// order they are used (find a scenario, run it, check, compare, plan), the tools last.
final class FirstStepsTests: XCTestCase {
    func testBarePrestagePrintsTheUsageAndExitsTwo() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        XCTAssertEqual(t.run([]), .badInput)
        XCTAssertTrue(t.err.text.hasPrefix("usage: prestage COMMAND [options]\n"), t.err.text)
        XCTAssertTrue(t.err.text.contains("\n  run "), t.err.text)
        XCTAssertTrue(t.err.text.hasSuffix("prestage: expected a command (see --help)\n"), t.err.text)
    }

    func testHelpListsCommandsInTheOrderTheyAreUsed() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        XCTAssertEqual(t.run(["help"]), .ok)
        let names = t.out.text.split(separator: "\n").filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") }
            .compactMap { $0.split(separator: " ").first.map(String.init) }.filter { !$0.hasPrefix("-") && !($0.first?.isNumber ?? true) }
        XCTAssertEqual(Array(names.prefix(5)), ["list", "run", "validate", "compare", "plan"], t.out.text)
        XCTAssertLessThan(try XCTUnwrap(names.firstIndex(of: "plan")), try XCTUnwrap(names.firstIndex(of: "sweep")))
        XCTAssertEqual(Array(names.suffix(3)), ["completion", "man", "help"], t.out.text)
    }

    /// After a run: a status per headline metric (the objective's verdict, else its alarm level),
    /// the verdict line, and one next step as the last line.
    func testRunEndsWithAStatusColumnTheVerdictAndANextStep() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let file = try t.file("plan-tiny.json", PlanCommandTests.scenario)
        XCTAssertEqual(t.run(["run", file, "--set", "campaigns[0].sendRatePerMinute=300000", "--out", t.root.appendingPathComponent("fast").path]), .ok, t.err.text)
        let lines = t.out.text.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines[1].contains(" status "), lines[1])
        let rejections = try XCTUnwrap(lines.first { $0.hasSuffix("origin.rejected503") })
        XCTAssertTrue(rejections.contains(" FAIL (slo) "), rejections)
        XCTAssertTrue(lines.contains { $0.hasPrefix("verdict: FAIL (0 of 1 objectives pass; origin.rejected503 <= 0 in ≥ 50 % of replications at 50 % is fail)") }, t.out.text)
        XCTAssertEqual(lines.last, "next: find the value that passes with prestage plan plan-tiny --vary PATH=LO..HI (prestage help plan)")
        let before = t.out.text.count
        XCTAssertEqual(t.run(["run", "default", "--devices", "300", "--replications", "2", "--out", t.root.appendingPathComponent("d").path]), .ok, t.err.text)
        let second = String(t.out.text.dropFirst(before)).split(separator: "\n").map(String.init)
        XCTAssertEqual(second[1], "  (run at 300 devices; the scenario's question is asked of 20,000)", "the question names another size")
        XCTAssertFalse(lines.contains { $0.contains("(run at ") }, "the same size as the scenario's: no note")
        XCTAssertTrue(second.contains { $0.hasPrefix("verdict: no objectives (add an \"slo\" section to gate on them); ") }, second.joined(separator: "\n"))
        let hitRatio = try XCTUnwrap(second.first { $0.hasSuffix("edge.prestageHitRatio") })
        XCTAssertTrue(hitRatio.contains(" ok ") || hitRatio.contains(" CI crosses ") || hitRatio.contains(" ALARM "), hitRatio)
        XCTAssertEqual(second.last, "next: open the report (above) in a browser")
    }

    /// A plan at another size than its scenario's question states it in a warning on the terminal
    /// and first in plan.md, and lists the override; at the scenario's own size there is none.
    func testAPlanAtAnotherSizeSaysSoFirst() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let file = try t.file("plan-tiny.json", PlanCommandTests.scenario)
        let out = t.root.appendingPathComponent("p").path
        XCTAssertEqual(t.run(["plan", file, "--vary", "campaigns[0].sendRatePerMinute=3000..300000", "--tolerance", "50%", "--devices", "400", "--out", out]), .ok, t.err.text)
        let warning = "Warning: this plan ran at 400 devices, but the scenario's question is asked of 600."
        XCTAssertTrue(t.out.text.contains("\n  " + warning), t.out.text)
        let md = try String(contentsOfFile: out + "/plan.md", encoding: .utf8)
        XCTAssertTrue(md.contains("**Overrides:** `--devices 400`"), md)
        XCTAssertTrue(md.contains("devices 400"), md)
        let answer = try XCTUnwrap(md.range(of: "## Answer"))
        XCTAssertTrue(md[answer.upperBound...].drop { $0 == "\n" }.hasPrefix(warning), String(md[answer.upperBound...].prefix(200)))
        let before = t.out.text.count
        XCTAssertEqual(t.run(["plan", file, "--vary", "campaigns[0].sendRatePerMinute=3000..300000", "--tolerance", "50%", "--out", t.root.appendingPathComponent("q").path]), .ok, t.err.text)
        XCTAssertFalse(String(t.out.text.dropFirst(before)).contains("Warning: this plan ran at"))
        XCTAssertTrue(try String(contentsOfFile: t.root.appendingPathComponent("q/plan.md").path, encoding: .utf8).contains("**Overrides:** none (scenario file as written)"))
    }

    /// The run report leads with the verdict: the objectives before the headline cards, the verdict
    /// its first sentence, the failed objective's card flagged (Markdown and HTML).
    func testTheRunReportLeadsWithTheVerdict() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let file = try t.file("plan-tiny.json", PlanCommandTests.scenario)
        let out = t.root.appendingPathComponent("fast").path
        XCTAssertEqual(t.run(["run", file, "--set", "campaigns[0].sendRatePerMinute=300000", "--out", out]), .ok, t.err.text)
        let md = try String(contentsOfFile: out + "/report.md", encoding: .utf8)
        let objectives = try XCTUnwrap(md.range(of: "## Service-level objectives")), cards = try XCTUnwrap(md.range(of: "## Headline metrics"))
        XCTAssertLessThan(objectives.lowerBound, cards.lowerBound, "the objectives come first")
        XCTAssertTrue(md[objectives.upperBound...].drop { $0 == "\n" }.hasPrefix("Verdict: FAIL — 0 of 1 objectives pass; origin.rejected503 \\<= 0 in ≥ 50 % of replications at 50 % is fail (mean "),
                      String(md[objectives.upperBound...].prefix(160)))
        // The objectives table names the metric as its card does, in the card's units.
        let objectiveRow = try XCTUnwrap(md[objectives.upperBound..<cards.lowerBound].split(separator: "\n").first { $0.hasPrefix("| Origin 503 rejections ≤ 0 ") })
        XCTAssertTrue(objectiveRow.contains("| `origin.rejected503` |") && objectiveRow.contains("| fail "), String(objectiveRow))
        XCTAssertTrue(objectiveRow.contains("of replications") && objectiveRow.contains("(0 of 2 within)"), String(objectiveRow))
        let row = try XCTUnwrap(md[cards.upperBound...].split(separator: "\n").first { $0.hasPrefix("| Origin 503 rejections") })
        XCTAssertTrue(row.contains("FAIL (objective origin.rejected503 \\<= 0 in ≥ 50 % of replications at 50 %)"), String(row))
        let html = try String(contentsOfFile: out + "/report.html", encoding: .utf8)
        XCTAssertLessThan(try XCTUnwrap(html.range(of: ">Service-level objectives</h2>")).lowerBound, try XCTUnwrap(html.range(of: "id=\"headlines\"")).lowerBound)
        XCTAssertTrue(html.contains("<span class=\"badge breached\">FAIL</span>objective origin.rejected503 &lt;= 0 in ≥ 50 % of replications at 50 %"), "the failed objective's card is flagged")
        // Without objectives the cards come first, as before.
        let plain = t.root.appendingPathComponent("plain").path
        XCTAssertEqual(t.run(["run", "default", "--devices", "300", "--replications", "2", "--out", plain]), .ok, t.err.text)
        let plainMD = try String(contentsOfFile: plain + "/report.md", encoding: .utf8)
        XCTAssertFalse(plainMD.contains("## Service-level objectives"))
        XCTAssertTrue(plainMD.contains("## Headline metrics"))
    }
}
