import Foundation
import XCTest
import PushModel
import Experiments
@testable import ScenarioFormat
import InfraModel
import SimStats
@testable import Testbed

final class TestbedComparisonTests: XCTestCase {
    func histogram(_ secondsValues: [Double]) throws -> LatencyHistogram {
        var h = try LatencyHistogram(maxValueMicroseconds: 1 << 40)
        for v in secondsValues { h.record(Int64(v * 1e6)) }
        return h
    }

    /// The same values on both sides: D is the histogram's resolution only (values at bucket
    /// midpoints, relative error ≤ 1/2048), far below the critical value.
    func testKSAcceptsTheSameDistribution() throws {
        let values = (1...400).map { Double($0) / 100 }
        let r = try XCTUnwrap(KolmogorovSmirnov.test(samples: values, model: try histogram(values)))
        XCTAssertLessThanOrEqual(r.statistic, 1.0 / 400 + 1e-9)
        XCTAssertTrue(r.agrees)
    }

    /// Disjoint supports give D = 1, above any critical value.
    func testKSRejectsAShiftedDistribution() throws {
        let r = try XCTUnwrap(KolmogorovSmirnov.test(samples: (1...100).map { Double($0) / 100 },
                                                     model: try histogram((1...100).map { 2 + Double($0) / 100 })))
        XCTAssertEqual(r.statistic, 1, accuracy: 1e-12)
        XCTAssertFalse(r.agrees)
    }

    /// c(0.01) = √(−ln(0.005)/2) = 1.6276; n = m = 100 gives 1.6276·√(2/100).
    func testCriticalValue() {
        XCTAssertEqual(KolmogorovSmirnov.critical(alpha: 0.01, n: 100, m: 100), 1.62762 * sqrt(0.02), accuracy: 1e-4)
    }

    /// Ranks nq ∓ 2.576·√(nq(1−q)): for n = 100, q = 0.5 that is 50 ∓ 12.88 → ranks 37 and 64 (+1).
    func testQuantileIntervalUsesOrderStatistics() throws {
        let v = (1...100).map(Double.init)
        let (lo, hi) = try XCTUnwrap(TestbedComparison.quantileInterval(v, 0.5))
        XCTAssertEqual(lo, 37)
        XCTAssertEqual(hi, 64)
        let (_, high95) = try XCTUnwrap(TestbedComparison.quantileInterval(Array(v.prefix(14)), 0.95))
        XCTAssertEqual(high95, .infinity, "14 samples cannot bound p95 from above")
    }

    func testVarnishCountersParseAndDifference() {
        let text = """
        MAIN.cache_hit              120         0.00 Cache hits
        MAIN.cache_miss              10         0.00 Cache misses
        MAIN.busy_sleep               4         0.00 Number of requests sent to sleep on busy objhdr
        MAIN.s_resp_bodybytes     50000         0.00 Response body bytes
        """
        let c = VarnishCounters.parse(text)
        XCTAssertEqual(c.hits, 120)
        XCTAssertEqual(c.misses, 10)
        XCTAssertEqual(c.collapsed, 4)
        XCTAssertEqual(c.modelHits, 116)
        XCTAssertEqual(c.hitRatio ?? -1, 116.0 / 130.0, accuracy: 1e-12)
        XCTAssertEqual(c.since(c).lookups, 0)
    }

    /// The scaled scenario keeps what the testbed reproduces and turns off what it cannot, in the
    /// model too.
    func testPlanScalesTheScenario() throws {
        var world = PushWorldConfig()
        world.population.devices = 1_000_000
        world.infra.topology.popCount = 280
        world.campaigns[0].warm = WarmConfig(mode: .allPops, aheadSeconds: 300)
        let scenario = ScenarioFile(name: "big", question: "q", world: world)
        let plan = try TestbedPlan(scenario: scenario, options: TestbedOptions(devices: 200, seconds: 60, replications: 3))
        let w = plan.scaled.world
        XCTAssertEqual(w.population.devices, 200)
        XCTAssertEqual(w.horizonSeconds, 60)
        XCTAssertEqual(w.infra.topology.popCount, TestbedPlan.popsMax)
        XCTAssertEqual(w.campaigns[0].sendStartSeconds, TestbedPlan.sendStartSeconds)
        XCTAssertEqual(w.campaigns[0].sendStartSeconds - w.campaigns[0].warm.aheadSeconds, TestbedPlan.warmAtSeconds)
        XCTAssertEqual(w.campaigns[0].sendRatePerMinute, 200 / (0.35 * 60) * 60, accuracy: 1e-9)
        XCTAssertEqual(w.infra.networks[.lte].failureProbability, 0)
        XCTAssertEqual(w.population.iosShare, 1)
        XCTAssertEqual(plan.scaled.run.replications, 3)
        XCTAssertThrowsError(try TestbedPlan(scenario: scenario, options: TestbedOptions(devices: 0)))
    }

    /// The testbed sends inline manifests only: another payload form is refused, naming the field.
    func testPlanRefusesAPayloadFormOtherThanInline() {
        var world = PushWorldConfig()
        world.campaigns[0].payloadForm = .manifestReference
        let scenario = ScenarioFile(name: "ref", question: "q", world: world)
        XCTAssertThrowsError(try TestbedPlan(scenario: scenario, options: TestbedOptions())) { error in
            guard case .unsupportedScenario(let path, _, _)? = error as? TestbedError else { return XCTFail("\(error)") }
            XCTAssertEqual(path, "campaigns[0].payloadForm")
        }
    }
}
