import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import PushModel
import SimKernel
import XCTest
@testable import Experiments
@testable import PrestageCLI
@testable import ScenarioFormat

/// `prestage bench` in-process on a two-scenario copy of the suite with 300 devices (debug builds
/// skip the instruction count and the CPU-time ratio, so only the model and fingerprint gates run
/// here; the instruction gate's decisions are in `InstructionGateTests`).
final class BenchCommandTests: XCTestCase {
    static let devices = "300"
    static let suiteFiles = ["ios-news-slow-networks.json", "tiny-trace.json"]
    static let repositorySuite = TestEnvironment.repositoryScenarios.appendingPathComponent("bench", isDirectory: true)

    /// A test environment with a suite directory (copies of two repository bench scenarios) and a
    /// freshly recorded baseline.
    private func prepared() throws -> (TestEnvironment, suite: String, baseline: String) {
        let t = try TestEnvironment()
        let suite = t.root.appendingPathComponent("suite", isDirectory: true)
        try FileManager.default.createDirectory(at: suite, withIntermediateDirectories: true)
        for f in Self.suiteFiles {
            try FileManager.default.copyItem(at: Self.repositorySuite.appendingPathComponent(f), to: suite.appendingPathComponent(f))
        }
        let baseline = t.root.appendingPathComponent("baseline").path
        let code = t.run(["bench", "--suite", suite.path, "--baseline", baseline, "--devices", Self.devices, "--update-baseline"])
        XCTAssertEqual(code, .ok, t.err.text)
        return (t, suite.path, baseline)
    }

    private func gate(_ t: TestEnvironment, _ suite: String, _ baseline: String, out: String, extra: [String] = []) -> ExitCode {
        t.run(["bench", "--suite", suite, "--baseline", baseline, "--devices", Self.devices, "--out", t.root.appendingPathComponent(out).path] + extra)
    }

    private func junit(_ t: TestEnvironment, out: String) throws -> JUnitCounter {
        let data = try Data(contentsOf: t.root.appendingPathComponent(out).appendingPathComponent("bench-junit.xml"))
        let counter = JUnitCounter()
        let parser = XMLParser(data: data)
        parser.delegate = counter
        XCTAssertTrue(parser.parse(), "bench-junit.xml is not well-formed: \(parser.parserError.map { "\($0)" } ?? "?")")
        return counter
    }

    func testUnchangedConfigurationPassesAndWritesReports() throws {
        let (t, suite, baseline) = try prepared()
        defer { t.cleanUp() }
        XCTAssertEqual(gate(t, suite, baseline, out: "out"), .ok, t.out.text + t.err.text)
        XCTAssertTrue(t.out.text.contains("bench: passed"), t.out.text)
        let md = try String(contentsOf: t.root.appendingPathComponent("out/bench-report.md"), encoding: .utf8)
        XCTAssertTrue(md.contains("✅ passed"), md)
        XCTAssertTrue(md.contains("### bench-ios-news-slow-networks"), md)
        let j = try junit(t, out: "out")
        // One testcase per scenario × gated metric, one fingerprint per scenario, two for speed
        // (the instruction count and the CPU-time ratio; both skipped in a debug build).
        XCTAssertEqual(j.testcases.count, Self.suiteFiles.count * (BenchSuite.gates.count + 1) + 2)
        XCTAssertEqual(j.failuresIn, [])
        XCTAssertEqual(j.rootFailures, "0")
    }

    func testWorsePolicyFailsNamingScenarioAndMetric() throws {
        let (t, suite, baseline) = try prepared()
        defer { t.cleanUp() }
        // A deliberately worse policy: a 5 s hard deadline for the iOS extension (default 22 s).
        // On this scenario's slow networks fetching the 1.5 MB hero often takes longer, so those
        // pre-stages time out.
        let code = gate(t, suite, baseline, out: "out", extra: ["--set", "preloadPolicy.iosServiceExtensionDeadlineSeconds=5"])
        XCTAssertEqual(code, .gateNotPassed, t.out.text)
        XCTAssertTrue(t.out.text.contains("bench: FAILED"), t.out.text)
        XCTAssertTrue(t.out.text.contains("bench-ios-news-slow-networks extension.timeoutShare: regression"), t.out.text)
        let j = try junit(t, out: "out")
        XCTAssertTrue(j.failuresIn.contains("extension.timeoutShare"), "\(j.failuresIn)")
        XCTAssertEqual(gate(t, suite, baseline, out: "policy", extra: ["--policy-check", "--set", "preloadPolicy.iosServiceExtensionDeadlineSeconds=5"]),
                       .gateNotPassed, "--policy-check still judges the metrics")
        let md = try String(contentsOf: t.root.appendingPathComponent("out/bench-report.md"), encoding: .utf8)
        XCTAssertTrue(md.contains("❌ failed"))
        XCTAssertTrue(md.contains("bench-ios-news-slow-networks extension.timeoutShare: regression"), md)
    }

    func testChangedTraceChangesTheFingerprintAndFailsTheGate() throws {
        let (t, suite, baseline) = try prepared()
        defer { t.cleanUp() }
        // Sending one second later changes every event time of the trace.
        let code = gate(t, suite, baseline, out: "out", extra: ["--set", "campaigns[0].sendStartSeconds=601"])
        XCTAssertEqual(code, .gateNotPassed, t.out.text)
        XCTAssertTrue(t.out.text.contains("bench-tiny-trace fingerprint: changed"), t.out.text)
        XCTAssertTrue(try junit(t, out: "out").failuresIn.contains("fingerprint"))
        // "Would this change regress?": --policy-check judges the metrics alone and reports the trace.
        let before = t.out.text.count
        let policy = gate(t, suite, baseline, out: "policy", extra: ["--policy-check", "--set", "campaigns[0].sendStartSeconds=601"])
        let text = String(t.out.text.dropFirst(before))
        XCTAssertEqual(policy, .ok, text)
        XCTAssertTrue(text.contains("changed, not judged"), text)
        XCTAssertTrue(text.contains("note: --policy-check: the model metrics alone are judged"), text)
        XCTAssertFalse(try junit(t, out: "policy").failuresIn.contains("fingerprint"))
    }

    func testFingerprintIsDeterministicAndTracingDoesNotChangeResults() throws {
        let url = Self.repositorySuite.appendingPathComponent("tiny-trace.json")
        let s = try ScenarioLoader.load(url.path, library: ScenarioLibrary(directories: []), flags: .init(devices: 150)).scenario
        var sinkA = TraceHasher(), sinkB = TraceHasher(), sinkC = TraceHasher()
        let traced = try PushSimulation.run(s.world, masterSeed: s.run.seed, replication: 0, trace: &sinkA)
        let plain = try PushSimulation.run(s.world, masterSeed: s.run.seed, replication: 0)
        _ = try PushSimulation.run(s.world, masterSeed: s.run.seed, replication: 0, trace: &sinkB)
        _ = try PushSimulation.run(s.world, masterSeed: s.run.seed, replication: 1, trace: &sinkC)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        XCTAssertEqual(try encoder.encode(traced), try encoder.encode(plain), "tracing changed the result (seed \(s.run.seed))")
        let a = sinkA.fingerprint(replication: 0), b = sinkB.fingerprint(replication: 0), c = sinkC.fingerprint(replication: 1)
        XCTAssertEqual(a, b, "seed \(s.run.seed)")
        XCTAssertEqual(a.events, plain.eventsProcessed, "every processed event is hashed once")
        XCTAssertNotEqual(a.sha256, c.sha256, "replications 0 and 1 (different streams) hashed alike, seed \(s.run.seed)")
    }

    func testBaselinesAreByteIdenticalWhenRecordedTwice() throws {
        let (t, suite, baseline) = try prepared()
        defer { t.cleanUp() }
        let again = t.root.appendingPathComponent("again").path
        XCTAssertEqual(t.run(["bench", "--suite", suite, "--baseline", again, "--devices", Self.devices, "--update-baseline"]), .ok, t.err.text)
        let names = try FileManager.default.contentsOfDirectory(atPath: baseline).sorted()
        XCTAssertEqual(names, ["bench-ios-news-slow-networks.json", "bench-tiny-trace.json"])
        for n in names {
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: baseline).appendingPathComponent(n)),
                           try Data(contentsOf: URL(fileURLWithPath: again).appendingPathComponent(n)), n)
        }
    }

    func testMissingOrMismatchedBaselineFailsWithAHint() throws {
        let (t, suite, baseline) = try prepared()
        defer { t.cleanUp() }
        XCTAssertEqual(gate(t, suite, t.root.appendingPathComponent("nowhere").path, out: "a"), .runFailed)
        XCTAssertTrue(t.out.text.contains("no baseline for this scenario; record one with `make bench-baseline`"), t.out.text)
        XCTAssertEqual(t.run(["bench", "--suite", suite, "--baseline", baseline, "--devices", "301", "--out", t.root.appendingPathComponent("b").path]), .runFailed)
        XCTAssertTrue(t.out.text.contains("recorded with seed 404, 4 replications, 300 devices"), t.out.text)
    }

    func testBadSuiteIsBadInput() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        XCTAssertEqual(t.run(["bench", "--suite", t.root.appendingPathComponent("none").path]), .badInput)
        XCTAssertTrue(t.err.text.contains("expected a suite directory"), t.err.text)
        let bad = t.root.appendingPathComponent("bad", isDirectory: true)
        try FileManager.default.createDirectory(at: bad, withIntermediateDirectories: true)
        try Data(#"{"name": "x", "question": "q", "horizonSeconds": -1}"#.utf8).write(to: bad.appendingPathComponent("x.json"))
        XCTAssertEqual(t.run(["bench", "--suite", bad.path]), .badInput)
        XCTAssertTrue(t.err.text.contains("horizonSeconds"), t.err.text)
    }

    /// The committed baselines belong to the committed suite: one file per scenario, with its seed,
    /// replication count and size (so `make test`'s gate compares like with like). The scenario
    /// hash is not required to match: a new config field with a default changes every hash without
    /// changing behaviour (the gate notes it; the fingerprints decide).
    func testCommittedBaselinesMatchTheSuite() throws {
        let baseline = TestEnvironment.packageRoot.appendingPathComponent("results/baseline", isDirectory: true)
        guard case let .success(entries) = BenchCommand.loadSuite(Self.repositorySuite, set: [], devices: nil) else {
            return XCTFail("scenarios/bench does not load")
        }
        XCTAssertGreaterThanOrEqual(entries.count, 2)
        for e in entries {
            let b = try BenchBaseline.load(BenchBaseline.url(in: baseline, scenario: e.scenario.name))
            XCTAssertEqual(b.scenarioName, e.scenario.name)
            XCTAssertEqual(b.seed, e.scenario.run.seed, "\(e.scenario.name): results/baseline is stale; run make bench-baseline")
            XCTAssertEqual(b.replications, e.scenario.run.replications, e.scenario.name)
            XCTAssertEqual(b.devices, e.scenario.world.population.devices, e.scenario.name)
            for m in b.metrics { XCTAssertEqual(m.values.count, b.replications, "\(e.scenario.name) \(m.name)") }
            XCTAssertEqual(b.metrics.map(\.name), b.metrics.map(\.name).sorted())
        }
        XCTAssertEqual(BenchCommand.staleBaselines(baseline, suite: entries), [])
    }
}
