import Foundation
import FoundationXML
import XCTest
@testable import Experiments
@testable import PrestageCLI

/// `--junit FILE` on run, compare and plan: well-formed JUnit XML whose failed cases are exactly
/// what makes the command's gate exit 3.
final class JUnitVerdictTests: XCTestCase {
    func parsed(_ path: String) throws -> JUnitCounter {
        let parser = XMLParser(data: try Data(contentsOf: URL(fileURLWithPath: path)))
        let counter = JUnitCounter()
        parser.delegate = counter
        XCTAssertTrue(parser.parse(), "\(path) is not well-formed: \(parser.parserError.map { "\($0)" } ?? "?")")
        return counter
    }

    func testRunWritesOneCasePerObjectiveFailedWhenTheGateFails() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let file = try t.file("plan-tiny.json", PlanCommandTests.scenario)
        let junit = t.root.appendingPathComponent("run.xml").path
        // At 300 000 pushes/min the 4-worker origin rejects: the objective fails, exit 3.
        XCTAssertEqual(t.run(["run", file, "--set", "campaigns[0].sendRatePerMinute=300000", "--fail-on-slo", "--junit", junit,
                              "--out", t.root.appendingPathComponent("fast").path]), .gateNotPassed, t.err.text)
        let fast = try parsed(junit)
        XCTAssertEqual(fast.testcases, ["origin.rejected503 <= 0 in ≥ 50 % of replications at 50 %"])
        XCTAssertEqual(fast.failuresIn, ["origin.rejected503 <= 0 in ≥ 50 % of replications at 50 %"])
        XCTAssertEqual(fast.rootFailures, "1")
        // At 3 000 pushes/min it passes: no failed case, exit 0.
        XCTAssertEqual(t.run(["run", file, "--set", "campaigns[0].sendRatePerMinute=3000", "--fail-on-slo", "--junit", junit,
                              "--out", t.root.appendingPathComponent("slow").path]), .ok, t.err.text)
        XCTAssertEqual(try parsed(junit).failuresIn, [])
        // Nothing to report, or nowhere to write it: refused before running.
        XCTAssertEqual(t.run(["run", "default", "--junit", junit]), .badInput)
        XCTAssertTrue(t.err.text.contains("--junit: default has no objectives"), t.err.text)
        XCTAssertEqual(t.run(["run", file, "--junit", t.root.appendingPathComponent("missing/x.xml").path]), .badInput)
        XCTAssertTrue(t.err.text.contains("does not exist; expected a file in an existing directory"), t.err.text)
    }

    func testCompareFailsExactlyTheRegressionsAndPlanFailsAnAnswerWithNothingPassing() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let file = try t.file("plan-tiny.json", PlanCommandTests.scenario)
        let a = t.root.appendingPathComponent("a").path, b = t.root.appendingPathComponent("b").path
        XCTAssertEqual(t.run(["run", file, "--out", a]), .ok, t.err.text)
        XCTAssertEqual(t.run(["run", file, "--set", "campaigns[0].sendRatePerMinute=300000", "--out", b]), .ok, t.err.text)
        let junit = t.root.appendingPathComponent("compare.xml").path
        let before = t.out.text.count
        let code = t.run(["compare", a, b, "--fail-on-regression", "--junit", junit, "--format", "csv"])
        let csv = String(t.out.text.dropFirst(before)).split(separator: "\n").dropFirst()
        let regressions = csv.filter { $0.contains(",regression,") }.map { String($0.prefix { $0 != "," }) }
        XCTAssertFalse(regressions.isEmpty, "no regression between 3 000 and 300 000 pushes/min")
        XCTAssertEqual(code, .gateNotPassed)
        let compared = try parsed(junit)
        XCTAssertEqual(compared.testcases.count, csv.count)
        XCTAssertEqual(compared.failuresIn.sorted(), regressions.sorted())
        // A plan whose range holds no passing value: its one answer is a failed case.
        let plan = t.root.appendingPathComponent("plan.xml").path
        XCTAssertEqual(t.run(["plan", file, "--vary", "campaigns[0].sendRatePerMinute=200000..300000", "--tolerance", "25%",
                              "--junit", plan, "--fail-on-slo", "--out", t.root.appendingPathComponent("p").path]), .gateNotPassed, t.err.text)
        let planned = try parsed(plan)
        XCTAssertEqual(planned.testcases, ["campaigns[0].sendRatePerMinute"])
        XCTAssertEqual(planned.failuresIn, ["campaigns[0].sendRatePerMinute"])
    }
}
