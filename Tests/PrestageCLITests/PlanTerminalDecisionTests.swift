import Foundation
import XCTest
@testable import Experiments
@testable import PrestageCLI

/// `plan` on the terminal: after its table (the answer per `--for` value and the replications) the
/// same decision the plan report leads with (the size warning first when the plan ran at another
/// size than the question's), where the plan is, and one next step as the last line.
final class PlanTerminalDecisionTests: XCTestCase {
    func testPlanStdoutEndsWithTheDecisionAndOneNextStep() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let file = try t.file("plan-tiny.json", PlanCommandTests.scenario)
        let out = t.root.appendingPathComponent("p").path
        XCTAssertEqual(t.run(["plan", file, "--vary", "campaigns[0].sendRatePerMinute=3000..300000", "--tolerance", "50%", "--devices", "400",
                              "--replications-max", "2", "--out", out]), .ok, t.err.text)
        let document = try JSONDecoder().decode(PlanDocument.self, from: Data(contentsOf: URL(fileURLWithPath: out + "/plan.json")))
        let lines = t.out.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).dropLast()  // the text ends with a newline
        let table = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("  replications: ") }, t.out.text)
        XCTAssertTrue(lines[1].hasPrefix("  campaigns[0].sendRatePerMinute"), "the answer lines first: \(t.out.text)")
        // Then the decision block, word for word the report's.
        var expected = ["decision:", "  Warning: this plan ran at 400 devices, but the scenario's question is asked of 600. "
                        + "Send rates, origin load and queues scale with the audience, so the answer holds for 400 devices, not for the question's size."]
        expected += document.decisionLines.map { "  " + $0 }
        expected += ["  " + document.decisionContext, "plan: " + out + "/plan.html"]
        XCTAssertEqual(Array(lines[(table + 1)...].dropLast()), expected, t.out.text)
        XCTAssertFalse(document.decisionLines.isEmpty)
        XCTAssertTrue(document.decisionContext.hasPrefix("At 400 devices (--devices 400); "), document.decisionContext)
        XCTAssertEqual(lines.filter { $0.hasPrefix("next: ") }.count, 1, t.out.text)
        XCTAssertEqual(lines.last, PlanCommand.nextStep(document), t.out.text)
        XCTAssertEqual(lines.filter { $0.contains("Warning: this plan ran at") }.count, 1, "the warning once, before the decision")
    }

    func testTheNextStepFollowsTheAnswer() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let file = try t.file("plan-tiny.json", PlanCommandTests.scenario)
        // A range whose every value passes: the boundary lies beyond it.
        let out = t.root.appendingPathComponent("all").path
        XCTAssertEqual(t.run(["plan", file, "--vary", "campaigns[0].sendRatePerMinute=60..120", "--tolerance", "50%", "--replications-max", "2",
                              "--out", out]), .ok, t.err.text)
        let document = try JSONDecoder().decode(PlanDocument.self, from: Data(contentsOf: URL(fileURLWithPath: out + "/plan.json")))
        XCTAssertEqual(document.frontier.first?.answer.status, .allPass, t.out.text)
        XCTAssertTrue(t.out.text.hasSuffix("next: every value tried passes (for some answer): the boundary lies beyond the range; widen --vary to find it\n"), t.out.text)
        XCTAssertFalse(t.out.text.contains("Warning: this plan ran at"), "at the scenario's own size, no warning")
    }
}
