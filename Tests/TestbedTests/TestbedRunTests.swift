import Foundation
import XCTest
import Experiments
import ScenarioFormat
@testable import Testbed

/// End-to-end runs on real software. They need Varnish (`make deps`) and take about a minute and a
/// half; `make test-testbed` runs them (PRESTAGE_TESTBED=1).
final class TestbedRunTests: XCTestCase {
    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    func loadDefault() throws -> ScenarioFile {
        let library = ScenarioLibrary(directories: [Self.packageRoot.appendingPathComponent("scenarios")])
        return try ScenarioLoader.load("default", library: library).scenario
    }

    func requireVarnish() throws { try requireTestbedEnvironment() }

    func workDirectory(_ name: String) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(getpid())", isDirectory: true)
        try? FileManager.default.removeItem(at: dir)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// 200 devices over 60 s against 5 model replications of the same scaled scenario: every
    /// quantity the comparison judges agrees within its stated tolerance (docs/testbed.md). The CDN,
    /// origin, byte and outcome quantities are always judged; latencies whenever the machine let
    /// the testbed's threads wake up on time (`TestbedComparison.schedulingLagLimitSeconds`).
    func testSmallRunAgreesWithTheModel() throws {
        try requireVarnish()
        let plan = try TestbedPlan(scenario: try loadDefault(), options: TestbedOptions(devices: 200, seconds: 60, replications: 5))
        let work = try workDirectory("testbed-run")
        defer { try? FileManager.default.removeItem(at: work) }
        let measurement = try TestbedRunner(plan: plan, workDirectory: work).run(interrupt: InterruptFlag())
        let model = try ReplicationRunner(scenario: plan.scaled, jobs: 2)
            .run(progress: ProgressBoard(output: NullOutput(), live: false, replications: 5, horizonSeconds: 60))
        let comparison = TestbedComparison(testbed: measurement, model: model)
        XCTAssertEqual(measurement.records.filter { $0.outcome == "notRun" || $0.outcome == "rejected" }.count, 0)
        for name in ["edge hit ratio (device requests)", "shield hit ratio (all requests)", "origin requests", "origin 503s",
                     "pre-stage bytes received by devices", "CDN egress to devices (edge body bytes)",
                     "pushes completed (every critical asset ready at delivery)"] {
            XCTAssertNotNil(comparison.row(name)?.agrees, "\(name) was not judged")
        }
        if comparison.latenciesJudged {
            for name in ["extension download latency (KS)", "tap-to-paint (KS)", "extension download latency p50"] {
                XCTAssertNotNil(comparison.row(name)?.agrees, "\(name) was not judged")
            }
        }
        for row in comparison.rows where row.agrees == false {
            XCTFail("\(row.metric): testbed \(row.testbed ?? .nan), model \(row.model ?? .nan), rule \(row.toleranceRule)")
        }
    }

    /// The origin dies once the devices run: the run stops with an error naming it, and no
    /// component process (nor any member of its process group) is left.
    func testKilledOriginStopsEverythingAndNamesIt() throws {
        try requireVarnish()
        let plan = try TestbedPlan(scenario: try loadDefault(), options: TestbedOptions(devices: 40, seconds: 20, replications: 1))
        let work = try workDirectory("testbed-kill")
        defer { try? FileManager.default.removeItem(at: work) }
        let seen = ResultBox<[pid_t]>()
        var runner = TestbedRunner(plan: plan, workDirectory: work)
        runner.onDevicesStarted = { stack in
            seen.set(stack.components.map(\.pid))
            if let origin = stack.origin { kill(origin.pid, SIGKILL) }
        }
        XCTAssertThrowsError(try runner.run(interrupt: InterruptFlag())) { error in
            guard case let TestbedError.componentFailed(component, reason, _) = error else {
                return XCTFail("expected componentFailed, got \(error)")
            }
            XCTAssertEqual(component, "origin")
            XCTAssertTrue(reason.contains("died"), reason)
        }
        let pids = try XCTUnwrap(seen.get())
        XCTAssertEqual(pids.count, 2 + 3 + 2 + 1, "origin, 3 edges, 2 shields, 2 link shapers")
        for pid in pids {
            XCTAssertNotEqual(kill(pid, 0), 0, "process \(pid) still exists")
            XCTAssertNotEqual(kill(-pid, 0), 0, "process group \(pid) still has members")
        }
    }
}

final class NullOutput: TextOutput, @unchecked Sendable {
    func write(_ text: String) {}
}

/// Tests that start real processes (Varnish, Python, sockets on the real clock) run only with
/// PRESTAGE_TESTBED=1 (`make test-testbed`), and need Varnish, varnish-modules and python3.
func requireTestbedEnvironment() throws {
    guard ProcessInfo.processInfo.environment["PRESTAGE_TESTBED"] == "1" else {
        throw XCTSkip("real-software test: run with PRESTAGE_TESTBED=1 (make test-testbed)")
    }
    do { try TestbedRunner.checkPrograms(python: "python3") } catch { throw XCTSkip("\(error)") }
}
