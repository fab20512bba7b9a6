import Foundation
import XCTest
@testable import Experiments
@testable import PrestageCLI
@testable import ScenarioFormat
import SimStats

/// Uncertain inputs: one world per draw from its own stream, the same draws at every knob value,
/// the spread split into the inputs' part and the simulation's, and every refusal named.
final class UncertainInputsTests: XCTestCase {
    static func scenario(uncertain: String, replications: Int = 4, slo: String = "[]") -> String {
        """
        { "name": "unsure", "question": "How much of the spread do the inputs cause?",
          "run": { "replications": \(replications), "seed": 11 }, "population": { "devices": 200, "iosShare": 1 }, "horizonSeconds": 600,
          "slo": \(slo), "uncertain": \(uncertain),
          "campaigns": [ { "name": "c", "sendStartSeconds": 10, "sendRatePerMinute": 60000, "providerQuotaPerMinute": 6000000,
                           "assets": [ { "name": "hero", "bytes": 40000 } ] } ] }
        """
    }

    static let workers = """
        { "path": "infra.origin.workers", "distribution": { "kind": "uniform", "lower": 4, "upper": 64 }, "source": "judgement" }
        """

    func decode(_ text: String, set: [String] = []) throws -> ScenarioFile {
        try ScenarioLoader.decode(Data(text.utf8), label: "unsure.json", set: set)
    }

    func testEachDrawIsOneWorldSharedByItsReplicationsAndByEveryKnobValue() throws {
        let s = try decode(Self.scenario(uncertain: "{ \"inputs\": [\(Self.workers)], \"replicationsPerDraw\": 2 }"))
        let workers = try (0..<8).map { try s.world(replication: $0).infra.origin.workers }
        for w in workers { XCTAssertTrue((4...64).contains(w), "\(workers)") }
        for d in 0..<4 { XCTAssertEqual(workers[2 * d], workers[2 * d + 1], "replications of draw \(d) share it: \(workers)") }
        XCTAssertGreaterThan(Set(workers).count, 1, "draws differ: \(workers)")
        // Another send rate (a plan's next value) sees the same draws: common random numbers.
        let faster = try decode(Self.scenario(uncertain: "{ \"inputs\": [\(Self.workers)], \"replicationsPerDraw\": 2 }"),
                                set: ["campaigns[0].sendRatePerMinute=120000"])
        XCTAssertEqual(try (0..<8).map { try faster.world(replication: $0).infra.origin.workers }, workers)
        // A second input does not move the first one's draws (one stream per path).
        let two = try decode(Self.scenario(uncertain: """
            { "inputs": [\(Self.workers), { "path": "campaigns[0].assets[0].bytes", "distribution": { "kind": "uniform", "lower": 1000, "upper": 90000 }, "source": "judgement" }],
              "replicationsPerDraw": 2 }
            """))
        XCTAssertEqual(try (0..<8).map { try two.world(replication: $0).infra.origin.workers }, workers)
        // Without uncertain inputs every replication simulates the model world as written, and
        // the scenario's hash is the one it had before the section existed (nothing is encoded).
        let plain = try decode(Self.scenario(uncertain: "{}"))
        XCTAssertEqual(try plain.world(replication: 3), plain.modelWorld)
        XCTAssertFalse(String(decoding: try plain.canonicalJSON(), as: UTF8.self).contains("uncertain"))
    }

    func testRefusalsNameThePathTheValueAndTheExpectation() throws {
        func problem(_ uncertain: String, replications: Int = 4, slo: String = "[]") -> String {
            do { _ = try decode(Self.scenario(uncertain: uncertain, replications: replications, slo: slo)); return "" } catch { return "\(error)" }
        }
        XCTAssertTrue(problem("{ \"inputs\": [ { \"path\": \"infra.origin.workers\", \"distribution\": { \"kind\": \"exponential\", \"mean\": 8 }, \"source\": \"judgement\" } ] }")
            .contains("uncertain.inputs[0].distribution: expected a bounded distribution"))
        XCTAssertTrue(problem("{ \"inputs\": [ { \"path\": \"infra.origin.workers\", \"distribution\": { \"kind\": \"uniform\", \"lower\": 0, \"upper\": 8 }, \"source\": \"judgement\" } ] }")
            .contains("uncertain.inputs[0].distribution: uncertain: infra.origin.workers at its support's lower end 0"))
        XCTAssertTrue(problem("{ \"inputs\": [ { \"path\": \"campaigns[0].name\", \"distribution\": { \"kind\": \"uniform\", \"lower\": 1, \"upper\": 8 }, \"source\": \"judgement\" } ] }")
            .contains("uncertain.inputs[0].path: expected a numeric field of the scenario, found a string"))
        XCTAssertTrue(problem("{ \"inputs\": [\(Self.workers), \(Self.workers)] }").contains("a path given once across inputs and fitted"))
        XCTAssertTrue(problem("{ \"inputs\": [\(Self.workers)], \"replicationsPerDraw\": 2 }", replications: 5)
            .contains("run.replications: expected a multiple of uncertain.replicationsPerDraw (2), found 5"))
        XCTAssertTrue(problem("{ \"inputs\": [\(Self.workers)], \"replicationsPerDraw\": 2 }",
                              slo: "[ { \"metric\": \"origin.rejected503\", \"op\": \"<=\", \"threshold\": 0, \"probability\": 0.9 } ]")
            .contains("slo[0].probability: a chance constraint needs independent days"))
    }

    /// An input that alone sets a metric: the audience size. `pushes.targeted` equals the devices
    /// drawn, so its simulation variance is exactly 0 and the input share exactly 1; the interval
    /// is over the 4 draw means, not the 8 replications.
    func testTheSpreadSplitsIntoTheInputsPartAndTheSimulationsPart() throws {
        let s = try decode(Self.scenario(uncertain: """
            { "inputs": [ { "path": "population.devices", "distribution": { "kind": "categorical", "values": [100, 200, 300], "weights": [1, 1, 1] }, "source": "judgement" } ],
              "replicationsPerDraw": 2 }
            """, replications: 8))
        let results = try ReplicationRunner(scenario: s, jobs: 2)
            .run(progress: ProgressBoard(output: CapturedOutput(), live: false, replications: 8, horizonSeconds: 600))
        let aggregate = try RunAggregate(results: results, confidenceLevel: 0.95, perDraw: s.replicationsPerDraw)
        let targeted = try XCTUnwrap(aggregate.metrics.first { $0.name == "pushes.targeted" })
        let values = targeted.values.compactMap { $0 }
        for d in 0..<4 { XCTAssertEqual(values[2 * d], values[2 * d + 1]) }
        let split = try XCTUnwrap(targeted.varianceSplit)
        XCTAssertEqual(split.simulationVariance, 0)
        if Set(values).count > 1 { XCTAssertEqual(split.inputShare, 1) }
        XCTAssertEqual(targeted.confidenceInterval?.n, 4, "the interval is over the draws")
        // A metric the audience size does not set has a simulation part.
        let p95 = try XCTUnwrap(aggregate.metrics.first { $0.name == "tapToPaint.p95Seconds" }?.varianceSplit)
        XCTAssertGreaterThan(p95.simulationVariance, 0)
    }

    /// From the command line: summary.json carries each metric's split, the report names the
    /// inputs with their sources and leads the split table with the metric the input sets.
    func testRunWritesTheSplitAndTheReportShowsIt() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let file = try t.file("unsure.json", Self.scenario(uncertain: """
            { "inputs": [ { "path": "population.devices", "distribution": { "kind": "categorical", "values": [100, 300], "weights": [1, 1] }, "source": "audience forecast, judgement" } ],
              "replicationsPerDraw": 2 }
            """, replications: 8))
        let out = t.root.appendingPathComponent("unsure").path
        XCTAssertEqual(t.run(["run", file, "--out", out]), .ok, t.err.text)
        let data = try Data(contentsOf: URL(fileURLWithPath: out + "/summary.json"))
        let summary = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        let metrics = try XCTUnwrap(summary["metrics"] as? [[String: Any]])
        let targeted = try XCTUnwrap(metrics.first { $0["name"] as? String == "pushes.targeted" })
        let split = try XCTUnwrap(targeted["varianceSplit"] as? [String: Any])
        XCTAssertEqual(split["simulationVariance"] as? Double, 0)
        XCTAssertEqual(split["draws"] as? Int, 4)
        let report = try String(contentsOf: URL(fileURLWithPath: out + "/report.md"), encoding: .utf8)
        XCTAssertTrue(report.contains("Uncertain inputs"), report)
        XCTAssertTrue(report.contains("audience forecast, judgement"))
        XCTAssertTrue(report.contains("Where the spread comes from"))
        // Validate refuses a chance constraint on that design, naming the field.
        XCTAssertEqual(t.run(["validate", file, "--set", "slo=[{\"metric\":\"origin.rejected503\",\"op\":\"<=\",\"threshold\":0,\"probability\":0.9}]"]), .badInput)
        XCTAssertTrue(t.err.text.contains("slo[0].probability"), t.err.text)
    }
}
