import Foundation
import XCTest
@testable import Experiments
@testable import PrestageCLI
@testable import ScenarioFormat

/// `prestage sensitivity` end to end on a small run of a library scenario.
final class SensitivityCommandTests: XCTestCase {
    /// `default` at 50–100 devices over 15 minutes (the send at 10 min): every PoP is warmed ahead of the send, so the origin never
    /// queues and its worker count has no path to the CDN's egress, while the audience size
    /// drives it. With common random numbers every design point runs the same streams, so the
    /// workers' elementary effects are exactly 0 and the devices' are all positive.
    static let arguments = ["sensitivity", "default", "--set", "horizonSeconds=900", "--factor", "population.devices=50..100",
                            "--factor", "infra.origin.workers=8..64", "--metric", "bytes.cdnEgress", "--metric", "origin.queueLengthMax",
                            "--trajectories", "3", "--sobol-samples", "4", "--bootstrap", "100", "--replications", "2"]

    func testAFactorWithNoPathHasNoEffectAndTheDominantOneRanksFirst() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let out = t.root.appendingPathComponent("s").path
        XCTAssertEqual(t.run(Self.arguments + ["--out", out]), .ok, t.err.text)
        for name in ["sensitivity.json", "sensitivity.csv", "sensitivity.md", "sensitivity.html"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/" + name), name)
        }
        let first = try Data(contentsOf: URL(fileURLWithPath: out + "/sensitivity.json"))
        let document = try JSONDecoder().decode(SensitivityDocument.self, from: first)
        // 3 · 3 Morris + 5 tornado + 4 · (2 + 2) Sobol points.
        XCTAssertEqual(document.designPoints, 30)
        let egress = try XCTUnwrap(document.results.first { $0.metric == "bytes.cdnEgress" })
        let queue = try XCTUnwrap(document.results.first { $0.metric == "origin.queueLengthMax" })
        XCTAssertTrue(queue.morris.allSatisfy { $0.muStar == 0 }, "the origin never queues: \(queue.morris)")
        XCTAssertEqual(egress.morris.first?.factor, "population.devices", "\(egress.morris)")
        XCTAssertGreaterThan(egress.morris[0].muStarLower, 0, "the audience's effect is distinguishable from 0")
        let workers = try XCTUnwrap(egress.morris.first { $0.factor == "infra.origin.workers" })
        XCTAssertTrue(workers.muStarLower <= 0 && 0 <= workers.muStarUpper, "\(workers)")
        XCTAssertEqual(workers.muStar, 0)
        XCTAssertEqual(egress.tornado.first?.factor, "population.devices")
        let sobolWorkers = try XCTUnwrap(egress.sobol.first { $0.factor == "infra.origin.workers" })
        XCTAssertEqual(sobolWorkers.total.value, 0, "no effect, no variance: ST = 0 exactly")
        XCTAssertTrue(t.out.text.contains("1. population.devices"), t.out.text)
        // A rerun reuses every replication and writes the same bytes.
        let t2 = try TestEnvironment()
        defer { t2.cleanUp() }
        XCTAssertEqual(t2.run(Self.arguments + ["--out", out]), .ok, t2.err.text)
        XCTAssertTrue(t2.out.text.contains("(0 run now"), t2.out.text)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: out + "/sensitivity.json")), first)
    }

    /// On a cluster: the screening, then the Sobol step, each written as a sweep of listed
    /// points, run as two shards, merged and ingested; the study it ends with is byte-identical
    /// to the one run on one machine.
    func testEmitSweepAndIngestReachTheSameStudyAsALocalRun() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let local = t.root.appendingPathComponent("local").path, cluster = t.root.appendingPathComponent("cluster").path
        XCTAssertEqual(t.run(Self.arguments + ["--out", local]), .ok, t.err.text)
        let step = t.root.appendingPathComponent("step.json").path
        var steps: [String] = []
        var ingest: [String] = []
        while steps.count < 4 {
            let before = t.out.text.count
            XCTAssertEqual(t.run(Self.arguments + ["--out", cluster, "--emit-sweep", step] + ingest), .ok, t.err.text)
            let said = String(t.out.text.dropFirst(before))
            guard said.contains("next step") else { break }
            steps.append(said)
            let s0 = t.root.appendingPathComponent("s\(steps.count)-0").path, s1 = t.root.appendingPathComponent("s\(steps.count)-1").path
            let merged = t.root.appendingPathComponent("m\(steps.count)").path
            XCTAssertEqual(t.run(["sweep", step, "--shard", "0/2", "--out", s0]), .ok, t.err.text)
            XCTAssertEqual(t.run(["sweep", step, "--shard", "1/2", "--out", s1]), .ok, t.err.text)
            XCTAssertEqual(t.run(["merge", s0, s1, "--out", merged]), .ok, t.err.text)
            ingest = ["--ingest", merged]
        }
        XCTAssertEqual(steps.count, 2, "the screening, then the Sobol step: \(steps)")
        XCTAssertTrue(steps.first?.contains("the screening (Morris and the tornado)") ?? false, "\(steps)")
        XCTAssertTrue(steps.last?.contains("the Sobol step") ?? false, "\(steps)")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: cluster + "/sensitivity.json")),
                       try Data(contentsOf: URL(fileURLWithPath: local + "/sensitivity.json")))
    }

    func testBadInputNamesTheArgumentAndExitsTwo() throws {
        let cases: [([String], String)] = [
            (["--factor", "population.devices=300..200", "--metric", "bytes.cdnEgress"], "--factor population.devices=300..200: expected a non-empty range LO..HI with LO < HI"),
            (["--factor", "infra.origin.wrokers=1..9", "--metric", "bytes.cdnEgress"], "did you mean"),
            (["--factor", "population.devices=100..300", "--metric", "bytes.cdnEgres"], "did you mean \"bytes.cdnEgress\"?"),
            (["--factor", "population.devices=100..300"], "--metric: required"),
            (["--metric", "bytes.cdnEgress"], "--factor: required"),
            (["--factor", "population.devices=100..300", "--metric", "bytes.cdnEgress", "--levels", "3"], "--levels: expected an even"),
            (["--factor", "population.devices=100..300", "--metric", "bytes.cdnEgress", "--confidence", "1.5"], "--confidence"),
            (["--factor", "population.devices=100..300", "--factor", "population.devices=1..2", "--metric", "bytes.cdnEgress"], "given twice"),
        ]
        for (extra, expected) in cases {
            let t = try TestEnvironment()
            defer { t.cleanUp() }
            XCTAssertEqual(t.run(["sensitivity", "default", "--out", t.root.appendingPathComponent("x").path] + extra), .badInput, "\(extra)")
            XCTAssertTrue(t.err.text.contains(expected), "\(extra): \(t.err.text)")
        }
    }
}

/// `--metric` takes every metric an objective may name: a campaign's own (`campaign:NAME/METRIC`)
/// and a campaign's cost part, checked against the scenario's campaigns as objectives are.
final class SensitivityCampaignMetricTests: XCTestCase {
    func run(_ scenario: String, _ metric: String) throws -> (ExitCode, String) {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let code = t.run(["sensitivity", scenario, "--out", t.root.appendingPathComponent("s").path, "--factor", "population.devices=100..300",
                          "--metric", metric, "--emit-sweep", t.root.appendingPathComponent("step.json").path])
        return (code, t.err.text + t.out.text)
    }

    func testCampaignAndCostMetricsAreAccepted() throws {
        for (scenario, metric) in [("weekly-mix", "campaign:saturday-video/taps.instantShare"),
                                   ("black-friday-flash-sale", "cost.campaign.black-friday.total")] {
            let (code, text) = try run(scenario, metric)
            XCTAssertEqual(code, .ok, "\(metric): \(text)")
        }
    }

    func testACampaignTheScenarioLacksIsRefusedWithItsCampaigns() throws {
        let (code, text) = try run("weekly-mix", "campaign:sunday-brunch/taps.instantShare")
        XCTAssertEqual(code, .badInput)
        XCTAssertTrue(text.contains("--metric: expected campaign:NAME/METRIC with NAME a campaign of this scenario (monday-newsletter, tuesday-promo"), text)
        let (code2, text2) = try run("weekly-mix", "campaign:saturday-video/taps.instantShar")
        XCTAssertEqual(code2, .badInput)
        XCTAssertTrue(text2.contains("did you mean \"taps.instantShare\"?"), text2)
        let (code3, text3) = try run("default", "energy.joulesPerPush")
        XCTAssertEqual(code3, .badInput)
        XCTAssertTrue(text3.contains("need \"energy\": {\"enabled\": true}"), text3)
    }
}
