import XCTest
@testable import Experiments

/// The progress ETA: from work done, smoothed, counting down with the clock, never creeping up.
final class ProgressEstimateTests: XCTestCase {
    func testSteadyWorkGivesTheExactRemainingTime() throws {
        var estimate = ProgressEstimate()
        // 1 % of the work per second: after 10 s, 90 s remain.
        var eta: Double?
        for second in 1...10 { eta = estimate.update(elapsedSeconds: Double(second), fraction: Double(second) / 100) }
        XCTAssertEqual(try XCTUnwrap(eta), 90, accuracy: 1e-9)
        XCTAssertEqual(estimate.update(elapsedSeconds: 11, fraction: 1), 0)
    }

    func testUnevenWorkNeverMakesTheShownTimeGoUpSlightly() {
        var estimate = ProgressEstimate()
        var shown: [Double] = []
        var fraction = 0.0
        // Work arrives in bursts: fast, then a slow stretch (the send window), then fast again.
        for step in 1...200 {
            let perSecond = (60...100).contains(step) ? 0.001 : 0.006
            fraction = min(1, fraction + perSecond)
            if let eta = estimate.update(elapsedSeconds: Double(step), fraction: fraction) { shown.append(eta) }
        }
        XCTAssertGreaterThan(shown.count, 100)
        // Between consecutive updates the shown time either counts down (by at most the second that
        // passed, or more when the run sped up) or jumps up by more than half (a real slowdown).
        for (before, after) in zip(shown, shown.dropFirst()) where after > before {
            XCTAssertGreaterThan(after, (before - 1) * (1 + ProgressEstimate.raiseShare), "crept up from \(before) to \(after)")
        }
    }

    /// A stall (no work for a while, as while a replication builds its result) raises the estimate
    /// at most to 4 times what the run's average pace gives, not towards infinity.
    func testAStallRaisesTheEstimateAtMostToFourTimesTheAveragePace() throws {
        var estimate = ProgressEstimate()
        for second in 1...98 { _ = estimate.update(elapsedSeconds: Double(second), fraction: Double(second) / 100) }
        var eta: Double?
        for second in 99...140 { eta = estimate.update(elapsedSeconds: Double(second), fraction: 0.98) }
        // Average pace at 140 s: 0.98 / 140 per second; 2 % left → 2.86 s at that pace, at most 4 × that.
        let atAverage = 0.02 / (0.98 / 140)
        XCTAssertLessThanOrEqual(try XCTUnwrap(eta), 4 * atAverage + 1e-9)
        XCTAssertGreaterThan(try XCTUnwrap(eta), atAverage, "a stall still raises it")
    }

    /// A start-up second with no work shown (the population being built) is not a sample: with the
    /// work then steady at 5 % a second, the ETA from the third redraw with work on is the exact
    /// time left. Seeded with the first interval's rate (work over the time since the start, the
    /// start-up included), the estimate read 45.7 s with 18 s left at 3 s.
    func testAStartUpWithNoWorkDoesNotHoldTheEstimateHigh() throws {
        var estimate = ProgressEstimate()
        for quarter in 1...4 { XCTAssertNil(estimate.update(elapsedSeconds: Double(quarter) / 4, fraction: 0)) }
        var eta: Double?
        for quarter in 5...12 { eta = estimate.update(elapsedSeconds: Double(quarter) / 4, fraction: 0.05 * Double(quarter - 4) / 4) }
        // At 3 s: 10 % done, 5 % a second, so 18 s left.
        XCTAssertEqual(try XCTUnwrap(eta), 18, accuracy: 1e-9)
    }

    func testClockAndBar() {
        XCTAssertEqual(ProgressEstimate.clock(65), "1:05")
        XCTAssertEqual(ProgressEstimate.clock(3723), "1:02:03")
        XCTAssertEqual(ProgressEstimate.clock(-3), "0:00")
        XCTAssertEqual(ProgressEstimate.bar(0.5, width: 10), "[#####.....]")
    }
}
