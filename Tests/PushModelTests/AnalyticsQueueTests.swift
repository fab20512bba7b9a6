import Foundation
import XCTest
@testable import PushModel

/// The analytics endpoint's capacity and queue: hand-worked arrivals, conservation on random
/// ones, and on simulated receipt storms the direction each knob moves the answer.
final class AnalyticsQueueTests: XCTestCase {
    /// Arrivals 5, 0, 3 at 2 a second with room for 2 waiting, worked by hand. Second 0: 2 served,
    /// 3 left, 1 rejected (the last arrival), 2 wait (positions 2 and 3: ⌊2/2⌋ = ⌊3/2⌋ = 1 s).
    /// Second 1: the 2 waiting are served. Second 2: 2 served, 1 waits 1 s and is still queued
    /// at the horizon.
    func testHandWorkedQueue() {
        let q = AnalyticsQueue(arrivals: [5, 0, 3] as [UInt64], config: AnalyticsConfig(capacityPerSecond: 2, queueMax: 2))
        XCTAssertEqual(q.arrived, 8)
        XCTAssertEqual(q.served, 6)
        XCTAssertEqual(q.rejected, 1)
        XCTAssertEqual(q.delayed, 3)
        XCTAssertEqual(q.queueLengthMax, 2)
        XCTAssertEqual(q.queuedAtHorizon, 1)
        XCTAssertEqual(Array(q.waitCounts.prefix(3)), [4, 3, 0])
        XCTAssertEqual(q.waitQuantileSeconds(0.5), 0)
        XCTAssertEqual(q.waitQuantileSeconds(0.95), 1)
    }

    /// Half a receipt a second serves one every other second: seconds 0 and 2 serve none, 1 and 3
    /// one each. Arrivals 1, 1, 1, 1: the first waits 1 s (served in second 1), the second 2 s
    /// (second 3), the third and fourth are queued at the horizon with waits 3 and 4 (served in
    /// seconds 5 and 7).
    func testFractionalCapacityCarriesItsRemainder() {
        let q = AnalyticsQueue(arrivals: [1, 1, 1, 1] as [UInt64], config: AnalyticsConfig(capacityPerSecond: 0.5, queueMax: 10))
        XCTAssertEqual(q.served, 2)
        XCTAssertEqual(q.rejected, 0)
        XCTAssertEqual(q.queuedAtHorizon, 2)
        XCTAssertEqual(q.delayed, 4)
        XCTAssertEqual(Array(q.waitCounts.prefix(5)), [0, 1, 1, 1, 1])
    }

    /// No queue: everything beyond a second's capacity is rejected, nothing waits.
    func testQueueOfZeroRejectsTheOverflow() {
        let q = AnalyticsQueue(arrivals: [10, 3, 7] as [UInt64], config: AnalyticsConfig(capacityPerSecond: 4, queueMax: 0))
        XCTAssertEqual(q.served, 4 + 3 + 4)
        XCTAssertEqual(q.rejected, 6 + 0 + 3)
        XCTAssertEqual(q.delayed, 0)
        XCTAssertEqual(q.waitQuantileSeconds(1), 0)
    }

    /// On random arrivals (seeded; the seed is in every message): every receipt is served,
    /// rejected or still queued; the waits are counted once per admitted receipt; the queue never
    /// exceeds its bound; and the served ones are what a per-receipt FIFO simulation serves.
    func testConservationAgainstAReceiptByReceiptQueue() {
        var rng = SplitMix(seed: 20261203)
        for trial in 0..<300 {
            let seconds = 1 + Int(rng.next() % 40)
            let arrivals = (0..<seconds).map { _ in rng.next() % 4 == 0 ? rng.next() % 60 : rng.next() % 6 }
            let capacity = [0.5, 1, 2.5, 3, 7, 13.25][Int(rng.next() % 6)]
            let queueMax = Int(rng.next() % 30)
            let q = AnalyticsQueue(arrivals: arrivals, config: AnalyticsConfig(capacityPerSecond: capacity, queueMax: queueMax))
            let message = "seed 20261203 trial \(trial): arrivals \(arrivals), c \(capacity), queueMax \(queueMax)"
            XCTAssertEqual(q.arrived, arrivals.reduce(0, +), message)
            XCTAssertEqual(q.served + q.rejected + q.queuedAtHorizon, q.arrived, message)
            XCTAssertEqual(q.waitCounts.reduce(0, +), q.admitted, message)
            XCTAssertLessThanOrEqual(q.queueLengthMax, UInt64(queueMax), message)
            // Receipt by receipt: a FIFO of arrival seconds, served up to the second's capacity.
            var fifo: [Int] = [], head = 0, served: UInt64 = 0, rejected: UInt64 = 0
            var waits = [UInt64](repeating: 0, count: 200)
            for (s, a) in arrivals.enumerated() {
                for _ in 0..<a { fifo.append(s) }
                let cap = Int((capacity * Double(s + 1)).rounded(.down) - (capacity * Double(s)).rounded(.down))
                var n = 0
                while n < cap, head < fifo.count { waits[s - fifo[head]] += 1; head += 1; n += 1; served += 1 }
                while fifo.count - head > queueMax { fifo.removeLast(); rejected += 1 }
            }
            // Those still waiting at the horizon: served in the seconds after it.
            var s = arrivals.count
            while head < fifo.count {
                let cap = Int((capacity * Double(s + 1)).rounded(.down) - (capacity * Double(s)).rounded(.down))
                var n = 0
                while n < cap, head < fifo.count { waits[s - fifo[head]] += 1; head += 1; n += 1 }
                s += 1
            }
            XCTAssertEqual(q.served, served, message)
            XCTAssertEqual(q.rejected, rejected, message)
            XCTAssertEqual(Array(q.waitCounts.prefix(200)), waits, message)
        }
    }

    /// A simulated storm: with the 0 s jitter window every receipt comes in the delivery burst, so
    /// an endpoint sized between the jittered peak and the burst holds with jitter and rejects
    /// without it; a larger queue rejects fewer; a capacity above the burst rejects none and
    /// delays none. The deliveries are the same in every run (common random numbers), only the
    /// endpoint differs.
    func testEachKnobMovesTheAnswerTheRightWay() throws {
        func run(window: Double, capacity: Double, queueMax: Int = 1_000) throws -> ReplicationResult {
            var c = smallWorld(devices: 3_000)
            c.preloadPolicy.receiptsEnabled = true
            c.preloadPolicy.receiptJitterWindowSeconds = window
            c.analytics = AnalyticsConfig(capacityPerSecond: capacity, queueMax: queueMax)
            return try simulate(c, seed: 5)
        }
        let burst = try run(window: 0, capacity: 1e9)
        let peak = burst.value("analytics.peakRequestsPerSecond")
        XCTAssertGreaterThan(peak, 100, "the burst of a 3 000-device send")
        XCTAssertEqual(burst.value("analytics.rejected"), 0)
        XCTAssertEqual(burst.value("analytics.delayedShare"), 0)
        XCTAssertEqual(burst.value("analytics.served"), burst.value("receipts.sent") - burst.value("receipts.beyondHorizon"))
        let jittered = try run(window: 300, capacity: 50)
        XCTAssertLessThan(jittered.value("analytics.peakRequestsPerSecond"), 50, "the jittered peak is below the capacity")
        XCTAssertEqual(jittered.value("analytics.rejected"), 0)
        let small = try run(window: 0, capacity: 50, queueMax: 100), large = try run(window: 0, capacity: 50, queueMax: 1_000)
        XCTAssertGreaterThan(small.value("analytics.rejected"), 0)
        XCTAssertGreaterThan(small.value("analytics.rejected"), large.value("analytics.rejected"))
        XCTAssertGreaterThan(large.value("analytics.waitP95Seconds"), small.value("analytics.waitP95Seconds"), "a longer queue waits longer")
        XCTAssertEqual(small.outcomes, large.outcomes, "the endpoint does not change any push's outcome")
    }
}

/// A tiny deterministic generator for the test's random arrivals (no variate the simulator uses).
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
