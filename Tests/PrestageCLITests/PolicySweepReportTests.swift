import Foundation
import ReportKitTesting
import XCTest
@testable import Experiments
@testable import PrestageCLI

/// A sweep over PreloadKit's decision kinds draws the policy trade-off first: instant taps and
/// tap-to-paint p95 against waste, the Pareto front marked, laid out in Chromium like every chart.
final class PolicySweepReportTests: XCTestCase {
    func testParetoFrontKeepsOnlyUndominatedPoints() {
        // (waste, instant): (0, 0) and (5, 0.9) and (2, 0.6) are undominated; (3, 0.5) is beaten by
        // (2, 0.6); (6, 0.9) by (5, 0.9); a point with a missing value is on no front; a tie is kept.
        let waste: [Double?] = [0, 5, 2, 3, 6, nil, 2]
        let instant: [Double?] = [0, 0.9, 0.6, 0.5, 0.9, 1, 0.6]
        XCTAssertEqual(SweepReportBuilder.paretoFront(waste: waste, instant: instant), [0, 1, 2, 6])
    }

    static let scenario = """
    { "name": "policy-small", "question": "Which decision kind wastes least for its instant taps?",
      "run": { "seed": 3, "replications": 2 }, "population": { "devices": 300 },
      "users": { "openHint": {} },
      "preloadPolicy": { "decision": { "kind": "criticalOnly", "thresholdOpenProbability": 0.4, "dailyDataBytes": 200000 } },
      "campaigns": [ { "name": "sale", "sendStartSeconds": 600, "warm": { "mode": "allPops", "aheadSeconds": 300 } } ],
      "horizonSeconds": 3600 }
    """
    static let sweep = """
    { "scenario": "policy-small.json", "replications": 2, "seed": 3,
      "grid": { "preloadPolicy.decision.kind": ["criticalOnly", "never", "threshold", "budgeted"] } }
    """

    /// The decision kind's metrics are objectives like any other ("the cheapest policy with instant
    /// taps >= 80 %" is a plan over them); an unknown one is refused.
    func testPolicyMetricsAreObjectives() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let slo = #""slo": [ { "metric": "taps.instantShare", "op": ">=", "threshold": 0.5 }, "#
            + #"{ "metric": "policy.wastedBytesPer1000Deliveries", "op": "<=", "threshold": 60000000 }, "#
            + #"{ "metric": "policy.skipShare", "op": "<=", "threshold": 0.5 } ], "horizonSeconds": 3600 }"#
        let withSLO = Self.scenario.replacingOccurrences(of: #""horizonSeconds": 3600 }"#, with: slo)
        XCTAssertNotEqual(withSLO, Self.scenario)
        XCTAssertEqual(t.run(["validate", try t.file("policy-slo.json", withSLO)]), .ok, t.err.text)
        let unknown = withSLO.replacingOccurrences(of: "policy.skipShare", with: "policy.skipShares")
        XCTAssertEqual(t.run(["validate", try t.file("policy-bad.json", unknown)]), .badInput)
    }

    func testPolicySweepReportDrawsTheParetoFront() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        _ = try t.file("policy-small.json", Self.scenario)
        let sweep = try t.file("policy-sweep.json", Self.sweep)
        let out = t.root.appendingPathComponent("p")
        XCTAssertEqual(t.run(["sweep", sweep, "--out", out.path, "--metrics", "policy.wastedBytesPer1000Deliveries"]), .ok, t.err.text)
        let html = try String(contentsOf: out.appendingPathComponent("report.html"), encoding: .utf8)
        let markdown = try String(contentsOf: out.appendingPathComponent("report.md"), encoding: .utf8)
        XCTAssertTrue(html.contains("Policy trade-off (Pareto front)"))
        XCTAssertTrue(html.contains("Instant taps against waste") && html.contains("Tap to paint p95 against waste"))
        XCTAssertTrue(html.contains("Pareto front"))
        // The trade-off section comes first; four kinds, one series each, plus the front.
        XCTAssertLessThan(try XCTUnwrap(markdown.range(of: "Policy trade-off")).lowerBound, try XCTUnwrap(markdown.range(of: "Grid points")).lowerBound)
        for kind in ["criticalOnly", "never", "threshold", "budgeted"] { XCTAssertTrue(markdown.contains("| " + kind), kind) }
        // `never` wastes nothing and so is on the front; at least one other point is too.
        let rows = markdown.split(separator: "\n").filter { $0.contains("| never") || $0.contains("| criticalOnly") }
        XCTAssertTrue(rows.contains { $0.contains("never") && $0.contains("yes") }, "\(rows)")
        XCTAssertGreaterThanOrEqual(markdown.components(separatedBy: "| yes").count - 1, 2, markdown)
        // The two trade-off panels; the per-axis charts along the categorical kind axis are left out.
        try assertReportLayout(html: html, name: "sweep-policy", expectedCharts: 2)
    }
}
