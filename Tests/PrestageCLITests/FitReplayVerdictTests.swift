import Foundation
import XCTest
@testable import Experiments
@testable import PrestageCLI

/// `prestage fit --replay`: every figure gets its logged and simulated intervals, a verdict and
/// the scenario inputs it depends on; `--fail-on-disagreement` turns a disagreement into exit 3.
final class FitReplayVerdictTests: XCTestCase {
    static let samples = TestEnvironment.packageRoot.appendingPathComponent("Tests/LogFitTests/Samples")

    func replay(_ extra: [String]) throws -> (ExitCode, String, String) {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let code = t.run(["fit", Self.samples.appendingPathComponent("cloudfront.log").path, "--format", "cloudfront",
                          "--push", Self.samples.appendingPathComponent("pushes.csv").path,
                          "--out", t.root.appendingPathComponent("overlay.json").path,
                          "--replay", "default", "--replay-devices", "1000"] + extra)
        return (code, t.out.text, t.err.text)
    }

    /// The row of `figure` in the replay table, split on runs of two or more spaces.
    func row(_ figure: String, in text: String) -> [String]? {
        guard let line = text.split(separator: "\n").first(where: { $0.trimmingCharacters(in: .whitespaces).hasPrefix(figure + "  ") }) else { return nil }
        return line.trimmingCharacters(in: .whitespaces).components(separatedBy: "  ").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    func testSampleReplayGivesAVerdictPerFigureAndFailsOnDisagreementWhenAsked() throws {
        let (code, out, err) = try replay([])
        XCTAssertEqual(code, .ok, err)
        XCTAssertTrue(out.contains("5 replications"), out)
        XCTAssertNotNil(row("figure", in: out).map { XCTAssertEqual($0, ["figure", "logged [95 % interval]", "simulated [95 % interval]", "verdict", "depends on"]) }, out)
        // The log's hit ratio from the send on (313 hits of 329) against the warmed scenario's 1 in every replication.
        let hit = try XCTUnwrap(row("edge hit ratio from the send", in: out), out)
        XCTAssertEqual(hit[1], "0.9514 [0.9222, 0.972]", out)
        XCTAssertEqual(hit[2], "1 [1, 1]", out)
        XCTAssertEqual(hit[3], "disagree", out)
        XCTAssertTrue(hit[4].contains("campaigns[].warm.mode") && hit[4].contains("infra.edgeCache.background"), out)
        // The edge's own time-taken is not the device's download: shown, not compared.
        let p95 = try XCTUnwrap(row("download p95 s", in: out), out)
        XCTAssertEqual(p95[3], "not comparable", out)
        XCTAssertTrue(p95[1].hasPrefix("0.176 ["), out)
        // One 503 of 17 upstream requests from the send on cannot come from an origin that never rejects.
        let origin = try XCTUnwrap(row("origin 503 share from the send", in: out), out)
        XCTAssertEqual(origin[2], "0 [0, 0]", out)
        XCTAssertEqual(origin[3], "disagree", out)
        XCTAssertTrue(origin[4].contains("infra.origin.workers") && origin[4].contains("infra.origin.queueMax"), out)
        // Opens within the simulated 3000 s after the send (174 of 771 delivered), not over the log's six hours.
        let opened = try XCTUnwrap(row("opened / delivered within 3000 s of the send", in: out), out)
        XCTAssertEqual(opened[1], "0.2257 [0.1966, 0.2569]", out)
        XCTAssertEqual(opened[3], "agree", out)
        XCTAssertTrue(opened[4].contains("users.segments[].iosOpenProbability"), out)
        // 29 of 800 pushes never delivered; the simulated alert pushes all arrive.
        let sent = try XCTUnwrap(row("delivered / sent within 3000 s of the send", in: out), out)
        XCTAssertEqual(sent[1], "0.9637 [0.9484, 0.9756]", out)
        XCTAssertEqual(sent[2], "1 [1, 1]", out)
        XCTAssertEqual(sent[3], "disagree", out)
        XCTAssertTrue(out.hasSuffix("\nreplay: 1 of 6 figures agree; disagree: edge hit ratio from the send, origin 503 share from the send, "
                                    + "delivered / sent within 3000 s of the send; not comparable: download p50 s, download p95 s\n"), out)

        let (failing, again, _) = try replay(["--fail-on-disagreement"])
        XCTAssertEqual(failing, .gateNotPassed)
        let help = try TestEnvironment()
        defer { help.cleanUp() }
        XCTAssertEqual(help.run(["help", "fit"]), .ok)
        XCTAssertTrue(help.out.text.contains("  3    a replay figure disagrees with the log (--fail-on-disagreement)"), help.out.text)
        XCTAssertEqual(again, out, "the flag changes the exit status only")
    }

    /// The rule, both ways, on constructed intervals.
    func testAgreementRuleOnConstructedIntervals() {
        // 0.95 ± 0.01 against 0.96 [0.94, 0.975]: difference 0.01; allowance √(0.01² + 0.02²) = 0.0224 (the logged side facing down).
        let sim = ReplayEstimate(estimate: 0.95, lower: 0.94, upper: 0.96)
        let log = ReplayEstimate(estimate: 0.96, lower: 0.94, upper: 0.975)
        XCTAssertEqual(ReplayAgreement.allowance(simulated: sim, logged: log), (0.0001 + 0.0004).squareRoot(), accuracy: 1e-12)
        XCTAssertEqual(ReplayAgreement.verdict(simulated: sim, logged: log), .agree)
        // The same logged figure against 0.99 ± 0.005: difference 0.03 > √(0.005² + 0.015²) = 0.0158 (facing up now).
        let high = ReplayEstimate(estimate: 0.99, lower: 0.985, upper: 0.995)
        XCTAssertEqual(ReplayAgreement.allowance(simulated: high, logged: log), (0.000025 + 0.000225).squareRoot(), accuracy: 1e-12)
        XCTAssertEqual(ReplayAgreement.verdict(simulated: high, logged: log), .disagree)
        // The combined allowance is narrower than the overlap of the intervals: these overlap, yet disagree.
        let a = ReplayEstimate(estimate: 0, lower: -1, upper: 1), b = ReplayEstimate(estimate: 1.8, lower: 0.8, upper: 2.8)
        XCTAssertEqual(ReplayAgreement.verdict(simulated: a, logged: b), .disagree, "1.8 > √2")
        XCTAssertEqual(ReplayAgreement.verdict(simulated: a, logged: ReplayEstimate(estimate: 1.4, lower: 0.4, upper: 2.4)), .agree, "1.4 ≤ √2")
        // A lopsided logged share near 0 (2 of 71: 0.0282 [0.0034, 0.0981]) against a simulated 0 in every
        // replication: the symmetric half-width 0.047 would pass it, the side facing 0 (0.0248) does not.
        let share = ReplayEstimate(estimate: 2.0 / 71, lower: 0.0034, upper: 0.0981)
        XCTAssertEqual(ReplayAgreement.verdict(simulated: ReplayEstimate(estimate: 0, lower: 0, upper: 0), logged: share), .disagree)
        // Nothing to compare.
        XCTAssertEqual(ReplayAgreement.verdict(simulated: nil, logged: log), .notComparable)
        XCTAssertEqual(ReplayAgreement.verdict(simulated: sim, logged: nil), .notComparable)
    }

    func testReplayOptionsAreCheckedBeforeAnythingRuns() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let log = Self.samples.appendingPathComponent("cloudfront.log").path
        XCTAssertEqual(t.run(["fit", log, "--format", "cloudfront", "--fail-on-disagreement"]), .badInput)
        XCTAssertTrue(t.err.text.contains("--fail-on-disagreement needs --replay"), t.err.text)
        XCTAssertEqual(t.run(["fit", log, "--format", "cloudfront", "--replay-replications", "5"]), .badInput)
        XCTAssertTrue(t.err.text.contains("--replay-replications needs --replay"), t.err.text)
        XCTAssertEqual(t.run(["fit", log, "--format", "cloudfront", "--replay-devices", "500"]), .badInput)
        XCTAssertTrue(t.err.text.contains("--replay-devices needs --replay"), t.err.text)
        XCTAssertEqual(t.run(["fit", log, "--format", "cloudfront", "--replay", "default", "--replay-replications", "1"]), .badInput)
        XCTAssertTrue(t.err.text.contains("--replay-replications"), t.err.text)
        XCTAssertTrue(t.out.text.isEmpty, t.out.text)
    }
}
