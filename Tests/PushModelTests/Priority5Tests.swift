import Foundation
import XCTest
@testable import PushModel

/// APNs priority 5 (`apnsPriority: 5`): an iOS device takes its priority-5 pushes only at its
/// burst instants, phase + m · interval.
final class Priority5Tests: XCTestCase {
    /// The burst instant is the first of phase + m·I (m ≥ 0) at or after the arrival.
    func testBurstIsTheNextInstantOfTheDevicesGrid() {
        var b = Priority5Bursts()
        b.intervalTicks = 100
        XCTAssertEqual(b.burst(after: 5, phase: 30), 30)
        XCTAssertEqual(b.burst(after: 30, phase: 30), 30, "arriving at a burst: no wait")
        XCTAssertEqual(b.burst(after: 31, phase: 30), 130)
        XCTAssertEqual(b.burst(after: 130, phase: 30), 130)
        XCTAssertEqual(b.burst(after: 1_000_000_029, phase: 30), 1_000_000_030)
    }

    /// iOS-only world, one campaign at priority 5 through APNs, interval I = 600 s.
    func burstWorld(priority: Int) -> PushWorldConfig {
        var c = smallWorld(devices: 2_000)
        c.population.iosShare = 1
        c.campaigns[0].apnsPriority = priority
        var p = ProvidersConfig()
        p.apns.priority5BurstIntervalSeconds = 600
        c.providers = p
        return c
    }

    /// Every priority-5 push waits less than the interval, and all but a measure-zero share wait
    /// (the arrival is continuous): the mean wait of a uniform phase is I/2 = 300 s. With N
    /// pushes of independent phases the mean of waits uniform in [0, I) has sd I/√(12N)
    /// (N = 2 000: 3.9 s); 5 sd either side. Priority 10 leaves the arrivals alone.
    func testPriority5WaitsForTheBurstAndPriority10DoesNot() throws {
        let r = try simulate(burstWorld(priority: 5), seed: 8)
        let pushes = r.value("provider.apns.priority5Pushes")
        XCTAssertEqual(pushes, Double(r.pushesTargeted))
        XCTAssertEqual(r.value("provider.apns.priority5Delayed"), pushes, accuracy: 2)
        let sd = 600 / (12 * pushes).squareRoot()
        XCTAssertEqual(r.value("provider.apns.priority5DelayMeanSeconds"), 300, accuracy: 5 * sd)
        XCTAssertLessThan(r.value("provider.apns.priority5DelayMeanSeconds"), 600)
        let ten = try simulate(burstWorld(priority: 10), seed: 8)
        XCTAssertNil(ten.metric("provider.apns.priority5Pushes"), "no priority-5 campaign, no burst metrics")
        // The waits move delivery later: 99 % of the pushes are delivered only after the 99th
        // percentile of the waits, 0.99 · I ≈ 594 s; half of that is a safe margin.
        XCTAssertGreaterThan(r.value("delivery.secondsTo99Percent"), ten.value("delivery.secondsTo99Percent") + 300)
    }

    /// A silent (content-available) campaign at priority 5 on iOS devices that would always hold a
    /// silent push for 1 200 s (`silentHoldProbability` 1): the push waits for its device's burst
    /// (less than the 600 s interval, plus the 1 s latency) and is then handled at once, not held
    /// 1 200 s more -- one low-priority deferral, not two. So no push is in a deferred outcome and
    /// 99 % are delivered within 601 s of the send. At priority 10 the hold applies as before:
    /// every push is held (deferred), 99 % only after 1 200 s.
    func testPriority5SilentPushWaitsForItsBurstOnlyNotAlsoTheSilentHold() throws {
        var c = burstWorld(priority: 5)
        c.population.devices = 50
        c.population.iosForceQuitShare = 0
        c.campaigns[0].iosPush = .silent
        c.campaigns[0].deliveryLatencySeconds = .constant(value: 1)
        c.platforms.ios.silentHoldProbability = 1
        c.platforms.ios.silentHoldSeconds = .constant(value: 1_200)
        let r = try simulate(c, seed: 3)
        XCTAssertEqual(r.outcomes.total, r.pushesTargeted)
        XCTAssertGreaterThan(r.pushesTargeted, 0)
        XCTAssertEqual(r.value("provider.apns.priority5Pushes"), Double(r.pushesTargeted))
        XCTAssertEqual(r.outcomes.deferredThenCompleted + r.outcomes.deferredThenExpired, 0, "not held after the burst")
        XCTAssertLessThanOrEqual(r.value("delivery.secondsTo99Percent"), 601)
        var ten = c
        ten.campaigns[0].apnsPriority = 10
        let held = try simulate(ten, seed: 3)
        XCTAssertEqual(held.outcomes.deferredThenCompleted + held.outcomes.deferredThenExpired, held.pushesTargeted)
        XCTAssertGreaterThanOrEqual(held.value("delivery.secondsTo99Percent"), 1_200)
    }

    /// A push arrives only at a burst instant of its device: the arrival instants of each
    /// device's pushes (two arrivals 20 s apart) are on one grid: their difference is a multiple
    /// of I, and each waits less than I.
    func testArrivalsAreOnTheDevicesBurstGrid() throws {
        var world = try PushWorld(config: burstWorld(priority: 5), masterSeed: 8, replication: 0, progressSink: nil)
        let interval = world.providers.priority5.intervalTicks
        XCTAssertEqual(interval, 600_000_000)
        for d in 0..<200 {
            let a = world.priority5Arrival(device: d, arrive: 1_000_000_000)
            let b = world.priority5Arrival(device: d, arrive: 1_020_000_000)
            XCTAssertGreaterThanOrEqual(a, 1_000_000_000)
            XCTAssertLessThan(a - 1_000_000_000, interval, "delay < interval")
            XCTAssertEqual((b - a) % interval, 0, "device \(d): both on its grid")
        }
    }
}
