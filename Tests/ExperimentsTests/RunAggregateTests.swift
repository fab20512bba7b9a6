import Foundation
import PushModel
import SimStats
import XCTest
@testable import Experiments
@testable import ScenarioFormat

final class RunAggregateTests: XCTestCase {
    func testAggregateMergesReplicationsAndMarksMissingMetrics() throws {
        var world = PushWorldConfig()
        world.population.devices = 120
        world.horizonSeconds = 1_800
        let seed: UInt64 = 77
        var results = try (0..<3).map { try PushSimulation.run(world, masterSeed: seed, replication: $0) }
        let dropped = "tapToPaint.p50Seconds"
        XCTAssertNotNil(results[1].metric(dropped), "seed \(seed)")
        results[1].metrics.removeAll { $0.name == dropped }

        let aggregate = try RunAggregate(results: results, confidenceLevel: 0.95)
        let m = try XCTUnwrap(aggregate.metrics.first { $0.name == dropped })
        XCTAssertNil(m.values[1])
        XCTAssertNil(m.confidenceInterval, "a CI over the other replications would be biased (seed \(seed))")
        let kept = [results[0].metric(dropped), results[2].metric(dropped)].compactMap { $0 }
        XCTAssertEqual(m.mean ?? .nan, kept.reduce(0, +) / 2, accuracy: 1e-12)
        XCTAssertNotNil(aggregate.metrics.first { $0.name == "pushes.targeted" }?.confidenceInterval)

        // Histograms and series are sums over the replications; outcomes cover every push.
        let all = try XCTUnwrap(aggregate.histograms.first { $0.name == "tapToPaint" })
        XCTAssertEqual(all.histogram.count, results.reduce(0) { $0 + $1.tapToPaint.count })
        let groups = aggregate.histograms.filter { $0.name.hasPrefix("tapToPaint.") }
        XCTAssertEqual(groups.map(\.name), groups.map(\.name).sorted())
        XCTAssertEqual(groups.reduce(0) { $0 + $1.histogram.count }, all.histogram.count)
        XCTAssertEqual(aggregate.series.column(.pushesSent).reduce(0, +), results.reduce(0) { $0 + $1.series.pushesSent.totalCount })
        XCTAssertEqual(aggregate.outcomes.total, results.reduce(0) { $0 + $1.pushesTargeted })
        XCTAssertEqual(aggregate.bytes.cdnEgressBytes, results.reduce(0) { $0 + $1.bytes.cdnEgressBytes })
    }

    func testEveryMetricsIntervalStaysInsideItsRange() throws {
        // 503s on one of three days: the t interval is [-17.1, 27.8]; a count's never goes below 0.
        let count = MetricSummary(name: "origin.rejected503", unit: "count", better: "lower", values: [0, 0, 16], level: 0.95)
        let ci = try XCTUnwrap(count.confidenceInterval)
        XCTAssertEqual(ci.lower, 0)
        XCTAssertEqual(ci.upper, 16.0 / 3 + ci.halfWidth, accuracy: 1e-9)
        // A share's interval never passes 1, nor 0.
        let share = try XCTUnwrap(MetricSummary(name: "edge.prestageHitRatio", unit: "ratio", better: "higher", values: [1, 0.98, 1], level: 0.95).confidenceInterval)
        XCTAssertEqual(share.upper, 1)
        let rare = try XCTUnwrap(MetricSummary(name: "outcomes.fetchFailedShare", unit: "ratio", better: "lower", values: [0, 0.01, 0], level: 0.95).confidenceInterval)
        XCTAssertEqual(rare.lower, 0)
    }
}
