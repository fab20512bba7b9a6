import Foundation
import InfraModel
import XCTest
@testable import PushModel

/// Scheduled faults: each acts inside its window only, moves its metric the expected way, and a
/// window that misses the traffic changes nothing (the same draws are made with and without it).
final class FaultTests: XCTestCase {
    /// The small world (8 PoPs, a send at 300 s), without warming or `stale-if-error`, so the
    /// origin answers every first request of a PoP.
    func world() -> PushWorldConfig {
        var c = smallWorld(devices: 3_000)
        c.campaigns[0].warm = WarmConfig(mode: .none, aheadSeconds: 0)
        return c
    }

    func testAnOriginOutageFailsFetchesInsideItsWindowOnly() throws {
        let seed: UInt64 = 23
        let base = try simulate(world(), seed: seed)
        var during = world()
        during.infra.faults = [InfraFault(kind: .originOutage, startSeconds: 290, durationSeconds: 120)]
        let down = try simulate(during, seed: seed)
        XCTAssertGreaterThan(down.value("faults.originOutageErrors"), 0, "seed \(seed)")
        XCTAssertGreaterThan(down.value("outcomes.fetchFailedShare") + down.value("outcomes.partialShare"),
                             base.value("outcomes.fetchFailedShare") + base.value("outcomes.partialShare"), "seed \(seed)")
        XCTAssertLessThan(down.value("taps.instantShare"), base.value("taps.instantShare"), "seed \(seed)")
        // Before the send: nothing reaches the origin in the window, and the run is the fault-free one.
        var before = world()
        before.infra.faults = [InfraFault(kind: .originOutage, startSeconds: 0, durationSeconds: 200)]
        let early = try simulate(before, seed: seed)
        XCTAssertEqual(early.value("faults.originOutageErrors"), 0, "seed \(seed)")
        XCTAssertEqual(early.outcomes, base.outcomes, "seed \(seed)")
        XCTAssertEqual(early.value("tapToPaint.p95Seconds"), base.value("tapToPaint.p95Seconds"), "seed \(seed)")
        XCTAssertNil(base.metric(.faultsOriginOutageErrors), "no faults: no faults metrics")
    }

    func testAPopOutageFailsItsRegionsOverAndLosesItsWarms() throws {
        let seed: UInt64 = 29
        var c = world()
        c.campaigns[0].warm = WarmConfig(mode: .allPops, aheadSeconds: 120)
        let base = try simulate(c, seed: seed)
        c.infra.faults = [InfraFault(kind: .popOutage, startSeconds: 0, durationSeconds: 3_600, pop: 0)]
        let r = try simulate(c, seed: seed)
        XCTAssertGreaterThan(r.value("faults.popFailovers"), 0, "seed \(seed)")
        XCTAssertGreaterThan(r.value("faults.warmsLost"), 0, "the warm for PoP 0 is lost (seed \(seed))")
        XCTAssertEqual(r.value("faults.popsAllDown"), 0, "seed \(seed)")
        XCTAssertNil(r.pops.first { $0.pop == 0 && $0.prestageRequests > 0 }, "PoP 0 serves nothing while down (seed \(seed))")
        let basePop0 = base.pops.first { $0.pop == 0 }?.prestageRequests ?? 0
        let basePop1 = base.pops.first { $0.pop == 1 }?.prestageRequests ?? 0
        XCTAssertGreaterThan(basePop0, 0, "seed \(seed)")
        XCTAssertEqual(r.pops.first { $0.pop == 1 }?.prestageRequests, basePop0 + basePop1, "PoP 1 takes PoP 0's requests (seed \(seed))")
        XCTAssertEqual(r.value("faults.popFailovers"), r.value("faults.popFailovers").rounded(), "seed \(seed)")
    }

    func testADegradedRegionPaintsSlowerAndFailsMore() throws {
        let seed: UInt64 = 31
        var c = world()
        c.infra.topology = TopologyConfig(popCount: 1, shieldCount: 1)
        let base = try simulate(c, seed: seed)
        c.infra.faults = [InfraFault(kind: .networkDegradation, startSeconds: 0, durationSeconds: 3_600, region: 0,
                                     throughputFactor: 0.05, failureProbability: 0.3)]
        let r = try simulate(c, seed: seed)
        XCTAssertGreaterThan(r.value("faults.degradedRequests"), 0, "seed \(seed)")
        XCTAssertGreaterThan(r.value("tapToPaint.p95Seconds"), base.value("tapToPaint.p95Seconds"), "seed \(seed)")
        XCTAssertLessThan(r.value("extension.fetchSuccessRatio"), base.value("extension.fetchSuccessRatio") - 0.1, "seed \(seed)")
    }
}
