import Foundation
import XCTest
@testable import Experiments
@testable import PrestageCLI
@testable import ScenarioFormat

/// The replications needed for a relative half-width target (summary.json `precision`).
final class SweepPrecisionTests: XCTestCase {
    func testPlanMatchesHandComputedStudentTCounts() {
        // [9, 10, 11]: mean 10, S = 1; target 5 % of 10 = 0.5. From t tables: n = 17 gives
        // t_{0.975,16}/√17 = 2.1199/4.1231 = 0.5142 > 0.5; n = 18 gives 2.1098/4.2426 = 0.4973 ≤ 0.5.
        let plan = PrecisionPlan.plan(sample: [9, 10, 11], level: 0.95, relativeTarget: 0.05)
        XCTAssertEqual(plan?.replicationsNeeded, 18)
        XCTAssertEqual(plan?.targetHalfWidth ?? .nan, 0.5, accuracy: 1e-12)
        // At 90 %: n = 12 gives t_{0.95,11}/√12 = 1.7959/3.4641 = 0.5184; n = 13 gives 1.7823/3.6056 = 0.4943.
        XCTAssertEqual(PrecisionPlan.plan(sample: [9, 10, 11], level: 0.90, relativeTarget: 0.05)?.replicationsNeeded, 13)
        // No spread: any count will do.
        XCTAssertEqual(PrecisionPlan.plan(sample: [4, 4, 4], level: 0.95, relativeTarget: 0.05)?.replicationsNeeded, 2)
        XCTAssertEqual(PrecisionPlan.plan(sample: [0, 0], level: 0.95, relativeTarget: 0.05)?.replicationsNeeded, 2)
        // Target 0.01: about (1.96 / 0.01)² ≈ 38 000 > 10 000 replications: none.
        let tight = PrecisionPlan.plan(sample: [9, 10, 11], level: 0.95, relativeTarget: 0.001)
        XCTAssertNotNil(tight)
        XCTAssertNil(tight?.replicationsNeeded)
        // Mean 0 with spread: no relative target exists.
        XCTAssertNil(PrecisionPlan.plan(sample: [-1, 1], level: 0.95, relativeTarget: 0.05)?.replicationsNeeded)
        XCTAssertNil(PrecisionPlan.plan(sample: [1], level: 0.95, relativeTarget: 0.05))
    }

    /// On a real run: every metric with a CI has a plan, and the plan agrees with the run's own
    /// interval (t·S/√n falls with n, so the run meets the target exactly when it has at least
    /// the planned replications).
    func testSummaryAndReportCarryReplicationsNeededPerMetric() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let out = t.root.appendingPathComponent("run")
        XCTAssertEqual(t.run(["run", "default", "--devices", "300", "--replications", "4", "--set", "run.relativeHalfWidthTarget=0.1",
                              "--out", out.path]), .ok, t.err.text)
        let summary = try JSONDecoder().decode(RunSummary.self, from: Data(contentsOf: out.appendingPathComponent("summary.json")))
        var met = 0, unmet = 0
        for m in summary.metrics {
            guard let ci = m.confidenceInterval, let mean = m.mean else {
                XCTAssertNil(m.precision, m.name)
                continue
            }
            let plan = try XCTUnwrap(m.precision, m.name)
            XCTAssertEqual(plan.relativeTarget, 0.1)
            XCTAssertEqual(plan.targetHalfWidth, 0.1 * abs(mean), accuracy: 1e-12 * max(1, abs(mean)), m.name)
            guard let needed = plan.replicationsNeeded, ci.halfWidth > 0 else { continue }
            if needed <= 4 {
                XCTAssertLessThanOrEqual(ci.halfWidth, plan.targetHalfWidth * (1 + 1e-12), "\(m.name): needs \(needed), seed 1")
                met += 1
            } else {
                XCTAssertGreaterThan(ci.halfWidth, plan.targetHalfWidth, "\(m.name): needs \(needed), seed 1")
                unmet += 1
            }
        }
        XCTAssertGreaterThan(met + unmet, 10)
        let report = try String(contentsOf: out.appendingPathComponent("report.md"), encoding: .utf8)
        XCTAssertTrue(report.contains("Replications for ± 10 %"), "report.md names the target")
    }
}
