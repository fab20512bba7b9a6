import Foundation
import XCTest
@testable import Experiments
@testable import PrestageCLI
@testable import ScenarioFormat

/// `plan --pilot-scale K` end to end: scaled pilots narrow the range, full-size runs decide.
final class PlanPilotTests: XCTestCase {
    /// A cold CDN whose cache key holds the signed token (every pre-stage fetch reaches the origin),
    /// 6 000 devices and a 20-worker origin (1 000 requests/s at 20 ms): the 503 onset lies near
    /// 66 000 pushes/min, inside the range. A pilot at 1/5 runs 1 200 devices against 4 workers.
    static let scenario = """
    { "name": "plan-pilot", "question": "Highest send rate with no origin 503?",
      "run": { "replications": 2, "seed": 5 }, "population": { "devices": 6000 },
      "slo": [ { "metric": "origin.rejected503", "op": "<=", "threshold": 0, "probability": 0.5, "confidence": 0.5 } ],
      "campaigns": [ { "name": "c", "sendStartSeconds": 10, "sendRatePerMinute": 6000, "providerQuotaPerMinute": 60000000,
                       "warm": { "mode": "none" }, "assets": [ { "name": "hero", "bytes": 40000 } ] } ],
      "infra": { "cacheKeyIncludesSignedToken": true, "origin": { "workers": 20, "queueMax": 80 } },
      "horizonSeconds": 300 }
    """
    static let plan = ["--vary", "campaigns[0].sendRatePerMinute=3000..300000", "--tolerance", "10%", "--replications-max", "4", "--jobs", "2"]

    /// The same plan without and with `--pilot-scale 5`, run once for the tests below.
    struct Pair {
        let full: PlanDocument, piloted: PlanDocument
        /// Replication files per directory: full-size ones, and the pilot's.
        let fullFiles: (full: Int, pilot: Int), pilotedFiles: (full: Int, pilot: Int)
        let fullJSON: String, pilotedOut: String
    }

    nonisolated(unsafe) static var pair: Result<Pair, Error>?

    static func runPair() throws -> Pair {
        if let pair { return try pair.get() }
        let result = Result { () throws -> Pair in
            let t = try TestEnvironment()
            let file = try t.file("plan-pilot.json", scenario)
            let fullOut = t.root.appendingPathComponent("full").path, pilotOut = t.root.appendingPathComponent("piloted").path
            guard t.run(["plan", file] + plan + ["--out", fullOut]) == .ok else { throw CommandFailure(text: t.err.text) }
            guard t.run(["plan", file] + plan + ["--pilot-scale", "5", "--out", pilotOut]) == .ok else { throw CommandFailure(text: t.err.text) }
            func document(_ dir: String) throws -> PlanDocument {
                try JSONDecoder().decode(PlanDocument.self, from: Data(contentsOf: URL(fileURLWithPath: dir + "/plan.json")))
            }
            // Each stored replication says what made it: a pilot's assignments end with "--pilot-scale K".
            func files(_ dir: String) throws -> (full: Int, pilot: Int) {
                let names = try FileManager.default.contentsOfDirectory(atPath: dir + "/evaluations").filter { $0.hasSuffix(".json") }
                var full = 0, pilot = 0
                for name in names {
                    let stored = try JSONDecoder().decode(PlanReplicationFile.self, from: Data(contentsOf: URL(fileURLWithPath: dir + "/evaluations/" + name)))
                    if stored.assignments.contains(where: { $0.hasPrefix("--pilot-scale") }) { pilot += 1 } else { full += 1 }
                }
                return (full, pilot)
            }
            return Pair(full: try document(fullOut), piloted: try document(pilotOut), fullFiles: try files(fullOut), pilotedFiles: try files(pilotOut),
                        fullJSON: try String(contentsOfFile: fullOut + "/plan.json", encoding: .utf8), pilotedOut: t.out.text)
        }
        pair = result
        return try result.get()
    }

    struct CommandFailure: Error { let text: String }

    /// The piloted answer agrees with the full-size-only one within the tolerance, and every value
    /// in it was decided by full-size replications (the pilot's own verdicts are kept apart).
    func testPilotedAnswerAgreesWithTheFullSizeOnlyAnswerWithinTheTolerance() throws {
        let p = try Self.runPair()
        let full = try XCTUnwrap(p.full.frontier.first), piloted = try XCTUnwrap(p.piloted.frontier.first)
        XCTAssertEqual(full.answer.status, .boundary)
        XCTAssertEqual(piloted.answer.status, .boundary, p.pilotedOut)
        let a = try XCTUnwrap(full.answer.lastPass), b = try XCTUnwrap(piloted.answer.lastPass)
        // Both brackets hold the boundary and are each within 10 % of their passing value, so their
        // passing values are within 10 % of the larger one.
        XCTAssertLessThanOrEqual(abs(a - b), 0.10 * max(a, b), "full-size only \(a), piloted \(b)")
        // Full-size runs decide: the last pass passed at full size, the first not passing did not.
        XCTAssertEqual(piloted.evaluations.first { $0.value == b }?.verdict, .pass)
        let q = try XCTUnwrap(piloted.answer.firstNotPassing)
        XCTAssertNotEqual(piloted.evaluations.first { $0.value == q }?.verdict, .pass)
        XCTAssertLessThanOrEqual(q - b, 0.10 * b + 1e-9)
        // The pilot ran and its bracket was the first full-size bracket tried.
        let pilot = try XCTUnwrap(piloted.pilot)
        XCTAssertEqual(pilot.scale, 5)
        XCTAssertEqual(pilot.answer.status, .boundary)
        XCTAssertEqual(Array(piloted.evaluations.prefix(2).map(\.value)), [pilot.passEdge, pilot.notPassingEdge].compactMap { $0 })
        XCTAssertEqual(p.piloted.pilotScale, 5)
        XCTAssertEqual(p.piloted.pilotMargin, PlanSearch.pilotMarginDefault)
        XCTAssertTrue(p.pilotedOut.contains("pilot replications (1/5, 1,200 devices)"), p.pilotedOut)
        // Without --pilot-scale the plan says nothing of pilots (its files are as before).
        XCTAssertNil(full.pilot)
        XCTAssertFalse(p.fullJSON.contains("\"pilot\"") || p.fullJSON.contains("\"pilotScale\"") || p.fullJSON.contains("\"pilotMargin\""), p.fullJSON)
    }

    /// The piloted plan runs fewer full-size replications than the full-size-only plan: counted in
    /// plan.json and, independently, in the stored replication files.
    func testPilotedPlanRunsFewerFullSizeReplications() throws {
        let p = try Self.runPair()
        let full = try XCTUnwrap(p.full.frontier.first), piloted = try XCTUnwrap(p.piloted.frontier.first)
        XCTAssertEqual(p.fullFiles.full, full.replicationsUsed)
        XCTAssertEqual(p.fullFiles.pilot, 0)
        XCTAssertEqual(p.pilotedFiles.full, piloted.replicationsUsed)
        XCTAssertEqual(p.pilotedFiles.pilot, piloted.pilot?.replications)
        XCTAssertLessThan(piloted.replicationsUsed, full.replicationsUsed,
                          "full-size replications: piloted \(piloted.replicationsUsed), full-size only \(full.replicationsUsed)")
    }

    /// A bad K (or margin) exits 2 naming the option, the value and what was expected, before anything runs.
    func testBadPilotScaleExitsTwoNamingTheValueAndTheExpectation() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let file = try t.file("plan-pilot.json", Self.scenario)
        let step = t.root.appendingPathComponent("step.json").path
        let cases: [([String], String)] = [
            (["--pilot-scale", "1"], "--pilot-scale: expected an integer ≥ 2 (the pilot runs 1/K of the devices), found 1"),
            (["--pilot-scale", "0"], "--pilot-scale: expected an integer ≥ 2 (the pilot runs 1/K of the devices), found 0"),
            // 6 000 devices / 7 = 857, below the 1 000 a pilot needs.
            (["--pilot-scale", "7"], "--pilot-scale: expected at most 6 for 6000 devices (a pilot needs at least 1000 devices; 1/7 is 857), found 7"),
            (["--pilot-scale", "5", "--devices", "4000"], "--pilot-scale: expected at most 4 for 4000 devices"),
            (["--pilot-scale", "5", "--pilot-margin", "0%"], "--pilot-margin: expected a share > 0 and ≤ 1000 % (e.g. 25% or 0.25), found \"0%\""),
            (["--pilot-margin", "20%"], "--pilot-margin: 20% is given without --pilot-scale K"),
            (["--pilot-scale", "5", "--emit-sweep", step], "--pilot-scale: runs its pilots on this machine; it cannot be combined with --emit-sweep"),
        ]
        for (extra, message) in cases {
            let before = t.err.text.count
            let out = t.root.appendingPathComponent("x").path
            XCTAssertEqual(t.run(["plan", file, "--out", out] + Self.plan + extra), .badInput, "\(extra)")
            XCTAssertTrue(String(t.err.text.dropFirst(before)).contains(message), "\(extra): \(t.err.text.dropFirst(before))")
            XCTAssertFalse(FileManager.default.fileExists(atPath: out + ".partial/evaluations") && ((try? FileManager.default.contentsOfDirectory(atPath: out + ".partial/evaluations"))?.isEmpty == false),
                           "\(extra): nothing runs")
        }
        let before = t.err.text.count
        XCTAssertEqual(t.run(["plan", file] + Self.plan + ["--pilot-scale", "2.5"]), .badInput)
        XCTAssertTrue(String(t.err.text.dropFirst(before)).contains("--pilot-scale: expected an integer ≥ 2 (the pilot runs 1/K of the devices), found \"2.5\""), t.err.text)
    }
}
