import Foundation
import XCTest
@testable import PrestageCLI

/// Objectives on completion and on the worst minute: a slow send that reaches few of its audience
/// by the horizon fails an objective on the time to reach 99 %, which a whole-run figure passes.
final class CompletionObjectivesTests: XCTestCase {
    static let scenario = """
    { "name": "slow-send", "question": "Does the send reach its audience in time?",
      "run": { "replications": 2, "seed": 3 }, "population": { "devices": 300, "iosShare": 1 }, "horizonSeconds": 900,
      "slo": [ { "metric": "delivery.secondsTo99Percent", "op": "<=", "threshold": 120 } ],
      "campaigns": [ { "name": "c", "sendStartSeconds": 10, "sendRatePerMinute": 60, "providerQuotaPerMinute": 6000000,
                       "assets": [ { "name": "hero", "bytes": 40000 } ] } ] }
    """

    private func metric(_ name: String, in dir: String) throws -> [Double] {
        let data = try Data(contentsOf: URL(fileURLWithPath: dir + "/summary.json"))
        let summary = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        let metrics = try XCTUnwrap(summary["metrics"] as? [[String: Any]])
        let m = try XCTUnwrap(metrics.first { $0["name"] as? String == name }, name)
        return try XCTUnwrap(m["values"] as? [Double], name)
    }

    func testTheTimeToReachTheAudienceFollowsTheSendRateAndGatesASlowSend() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let file = try t.file("slow-send.json", Self.scenario)
        // 60 pushes/min is one a second: 99 % of 300 is 297 pushes, the last sent 296 s after the first.
        let slow = t.root.appendingPathComponent("slow").path
        XCTAssertEqual(t.run(["run", file, "--out", slow, "--fail-on-slo"]), .gateNotPassed, t.err.text)
        for v in try metric("delivery.secondsTo99Percent", in: slow) {
            XCTAssertGreaterThanOrEqual(v, 296)
            XCTAssertLessThan(v, 296 + 30, "delivery latency is seconds, not minutes")
        }
        XCTAssertTrue(t.out.text.contains("delivery.secondsTo99Percent <= 120 at 95 %"), t.out.text)
        // 6 000 pushes/min sends all 300 in 3 s: the objective passes.
        let fast = t.root.appendingPathComponent("fast").path
        XCTAssertEqual(t.run(["run", file, "--set", "campaigns[0].sendRatePerMinute=6000", "--out", fast, "--fail-on-slo"]), .ok, t.out.text + t.err.text)
        for v in try metric("delivery.secondsTo99Percent", in: fast) { XCTAssertLessThan(v, 60) }
        // The worst minute needs 20 painted taps: at 4 000 devices every replication has one, and a
        // minute's p95 is never below the whole run's median.
        let wide = t.root.appendingPathComponent("wide").path
        XCTAssertEqual(t.run(["run", file, "--devices", "4000", "--set", "campaigns[0].sendRatePerMinute=60000", "--out", wide]), .ok, t.err.text)
        let worst = try metric("tapToPaint.worstMinuteP95Seconds", in: wide), median = try metric("tapToPaint.p50Seconds", in: wide)
        XCTAssertEqual(worst.count, 2)
        for (w, m) in zip(worst, median) { XCTAssertGreaterThanOrEqual(w, m) }
        // A horizon too short to reach 99 % reads the time to the horizon: an allowance at or past
        // it is refused, since that send would pass without reaching its audience.
        XCTAssertEqual(t.run(["validate", file, "--set", "horizonSeconds=120"]), .badInput)
        XCTAssertTrue(t.err.text.contains("slo[0].threshold: expected less than the 110 s from the first send to the horizon"), t.err.text)
    }
}
