import Foundation
import SimStats
import XCTest
@testable import Experiments
@testable import PrestageCLI
@testable import ScenarioFormat

final class CompareAndScenarioTests: XCTestCase {
    private func summary(seed: UInt64, values: [Double], better: String = "lower") -> RunSummary {
        RunSummary(toolVersion: "t", scenarioName: "s", question: "q", scenarioHash: "h", seed: seed, replications: values.count,
                   confidenceLevel: 0.95, metrics: [MetricSummary(name: "m", unit: "s", better: better, values: values, level: 0.95)],
                   eventsProcessed: values.map { _ in 1 }, virtualEndSeconds: values.map { _ in 1 })
    }

    func testPairedDifferenceMatchesTheDefinition() throws {
        // B − A per replication: 0.9, 1.1, 1.0, 1.2, 0.8 → mean 1.0, s = 0.158114, t_{0.975,4} = 2.776445.
        let a = summary(seed: 1, values: [10, 11, 12, 13, 14])
        let b = summary(seed: 1, values: [10.9, 12.1, 13.0, 14.2, 14.8])
        let rows = RunComparison.compare(baseline: a, variant: b)
        XCTAssertEqual(rows.count, 1)
        XCTAssertEqual(rows[0].method, .paired)
        let d = try XCTUnwrap(rows[0].difference)
        XCTAssertEqual(d.mean, 1.0, accuracy: 1e-12)
        XCTAssertEqual(d.halfWidth, 2.776445 * 0.1581139 / 5.0.squareRoot(), accuracy: 1e-5)
        XCTAssertEqual(rows[0].verdict, "regression")  // lower is better, B is higher
        XCTAssertEqual(RunComparison.compare(baseline: b, variant: a)[0].verdict, "improvement")
        let higher = RunComparison.compare(baseline: summary(seed: 1, values: [10, 11, 12, 13, 14], better: "higher"),
                                           variant: summary(seed: 1, values: [10.9, 12.1, 13.0, 14.2, 14.8], better: "higher"))
        XCTAssertEqual(higher[0].verdict, "improvement")
    }

    /// A significant change no larger than the metric's threshold is "within threshold", not a
    /// regression: the bench gate's by default (tap-to-paint p95: +5 % or +50 ms), a relative one
    /// for every metric, or the metric's own. Paired differences here are exact (+0.01 s each).
    func testSignificantChangesWithinTheThresholdAreNotRegressions() throws {
        func run(_ name: String, _ values: [Double]) -> RunSummary {
            RunSummary(toolVersion: "t", scenarioName: "s", question: "q", scenarioHash: "h", seed: 1, replications: values.count,
                       confidenceLevel: 0.95, metrics: [MetricSummary(name: name, unit: "s", better: "lower", values: values, level: 0.95)],
                       eventsProcessed: values.map { _ in 1 }, virtualEndSeconds: values.map { _ in 1 })
        }
        let a = [1.0, 1.1, 1.2, 1.3, 1.4], b = [1.01, 1.11, 1.21, 1.31, 1.41]
        let gated = RunComparison.compare(baseline: run("tapToPaint.p95Seconds", a), variant: run("tapToPaint.p95Seconds", b))[0]
        XCTAssertEqual(gated.verdict, "regression within threshold")
        XCTAssertEqual(try XCTUnwrap(gated.threshold), 0.060, accuracy: 1e-12, "max(5 % of 1.2 s, 50 ms)")
        var own = CompareThresholds()
        own.perMetric["tapToPaint.p95Seconds"] = .zero
        XCTAssertEqual(RunComparison.compare(baseline: run("tapToPaint.p95Seconds", a), variant: run("tapToPaint.p95Seconds", b), thresholds: own)[0].verdict,
                       "regression")
        // An ungated metric: every significant change counts unless a threshold is given.
        XCTAssertEqual(RunComparison.compare(baseline: run("m", a), variant: run("m", b))[0].verdict, "regression")
        let every = try CompareThresholds.parse(["1%"], known: ["m"]).get()
        XCTAssertEqual(RunComparison.compare(baseline: run("m", a), variant: run("m", b), thresholds: every)[0].verdict, "regression within threshold",
                       "+0.01 s is 0.83 % of 1.2 s")
        let absolute = try CompareThresholds.parse(["m=0.005"], known: ["m"]).get()
        XCTAssertEqual(RunComparison.compare(baseline: run("m", a), variant: run("m", b), thresholds: absolute)[0].verdict, "regression")
        XCTAssertEqual(RunComparison.compare(baseline: run("m", b), variant: run("m", a), thresholds: every)[0].verdict, "improvement within threshold")
    }

    func testDifferentSeedsFallBackToWelch() throws {
        let a = summary(seed: 1, values: [10, 11, 12, 13, 14])
        let b = summary(seed: 2, values: [10.9, 12.1, 13.0, 14.2, 14.8])
        let row = RunComparison.compare(baseline: a, variant: b)[0]
        XCTAssertEqual(row.method, .welch)
        // Unpaired, the run-to-run spread (s ≈ 1.58 each) swamps the 1.0 difference.
        XCTAssertEqual(row.verdict, "no significant difference")
        let d = try XCTUnwrap(row.difference)
        XCTAssertEqual(d.mean, 1.0, accuracy: 1e-12)
        XCTAssertGreaterThan(d.halfWidth, 1.0)
        let text = RunComparison.render(baseline: a, variant: b, baselineLabel: "A", variantLabel: "B")
        XCTAssertTrue(text.contains("Welch"), text)
    }

    func testMetricsWithMissingValuesAreNotCompared() {
        let a = summary(seed: 1, values: [1, .nan, 3])
        let b = summary(seed: 1, values: [1, 2, 3])
        XCTAssertNil(a.metrics[0].confidenceInterval)
        XCTAssertEqual(a.metrics[0].values, [1, nil, 3])
        XCTAssertEqual(RunComparison.compare(baseline: a, variant: b)[0].verdict, "not compared")
    }

    /// The resolved scenario decodes back to itself, and its hash ignores layout and where the
    /// population size was given.
    func testResolvedScenarioRoundTripsAndHashIsCanonical() throws {
        let library = ScenarioLibrary(directories: [TestEnvironment.repositoryScenarios])
        for entry in library.entries() {
            let scenario = try ScenarioLoader.load(entry.url.path, library: library).scenario
            let again = try ScenarioLoader.decode(try scenario.canonicalJSON(), label: entry.name)
            XCTAssertEqual(again, scenario, entry.name)
            XCTAssertEqual(try again.hash(), try scenario.hash(), entry.name)
        }
        let compact = Data(#"{"name":"h","question":"q?","population":{"devices":500}}"#.utf8)
        let spaced = Data("{\n  \"question\": \"q?\",\n  \"run\": { \"devices\": 500 },\n  \"name\": \"h\"\n}\n".utf8)
        let x = try ScenarioLoader.decode(compact, label: "x"), y = try ScenarioLoader.decode(spaced, label: "y")
        XCTAssertEqual(try x.hash(), try y.hash())
        XCTAssertTrue(try x.hash().hasPrefix("sha256:"))
        XCTAssertEqual(try x.hash().count, 7 + 64)
        let other = try ScenarioLoader.decode(compact, label: "z", flags: .init(devices: 501))
        XCTAssertNotEqual(try x.hash(), try other.hash())
    }
}
