import Foundation
import PreloadKit
@testable import PreloadKitFoundation
import XCTest

/// The clock mapping the driver's timers rely on.
final class DriverClockTests: XCTestCase {
    /// A timer armed with `continuousInstant(for:)` must wake when `now()` has reached the
    /// instant: otherwise the session would see an early `.timerFired` and the driver would
    /// re-arm at the same deadline.
    func testSleepingUntilTheMappedInstantReachesIt() async throws {
        let clock = DriverClock()
        for delayMicroseconds: Int64 in [0, 1, 999, 20_000] {
            let target = clock.now().advanced(byMicroseconds: delayMicroseconds)
            try await Task.sleep(until: clock.continuousInstant(for: target), clock: .continuous)
            let reached = clock.now()
            XCTAssertGreaterThanOrEqual(reached, target, "delay \(delayMicroseconds) us")
        }
    }

    func testNowIsAnchoredOnTheWallClockAndNeverDecreases() {
        let clock = DriverClock()
        let wallMicroseconds = Int64(Date().timeIntervalSince1970 * 1e6)
        var previous = clock.now()
        // Anchored on the Unix epoch: within a minute of the wall clock.
        XCTAssertLessThan(abs(previous.microseconds - wallMicroseconds), 60_000_000)
        for _ in 0..<10_000 {
            let next = clock.now()
            XCTAssertGreaterThanOrEqual(next, previous)
            previous = next
        }
    }

    func testDistantFutureIsClampedInsteadOfOverflowing() {
        let clock = DriverClock()
        let far = clock.continuousInstant(for: .distantFuture)
        XCTAssertGreaterThan(far, ContinuousClock.now.advanced(by: .seconds(365 * 86_400)))
    }

    func testDurationConversionRoundsDown() {
        XCTAssertEqual(DriverClock.microseconds(.nanoseconds(1_999)), 1)
        XCTAssertEqual(DriverClock.microseconds(.seconds(3) + .nanoseconds(500)), 3_000_000)
        XCTAssertEqual(DriverClock.microseconds(.seconds(Int64.max)), .max)
    }
}
