import Foundation
import SimKernel
import XCTest
@testable import PushModel

final class OSRulesTests: XCTestCase {
    /// Five silent campaigns 100 s apart to iOS devices: the budget (burst 3, then one per
    /// 3600 / 2.5 = 1 440 s) admits the first three and drops the last two on every device.
    func testIOSSilentBudget() throws {
        let seed: UInt64 = 41
        var c = smallWorld(devices: 500)
        c.population.iosShare = 1
        c.population.iosForceQuitShare = 0
        c.platforms.ios.silentHoldProbability = 0
        c.campaigns = (0..<5).map { i in
            var k = CampaignConfig()
            k.name = "s\(i)"
            k.iosPush = .silent
            k.sendStartSeconds = 300 + 100 * Double(i)
            k.deliveryLatencySeconds = .constant(value: 0.5)
            return k
        }
        let r = try simulate(c, seed: seed)
        // GCRA: TAT − now before each push = 0, 1 340, 2 680 (≤ 2 × 1 440: admitted), 4 020, 3 920 (dropped).
        XCTAssertEqual(r.outcomes.notDelivered, 2 * 500, "seed \(seed)")
        XCTAssertEqual(r.value("os.silentOverBudget"), 2 * 500, "seed \(seed)")
        XCTAssertEqual(r.outcomes.total, r.pushesTargeted, "seed \(seed)")
    }

    /// Held silent pushes coalesce: a newer push replaces the held one, which never runs.
    func testIOSSilentHoldCoalesces() throws {
        let seed: UInt64 = 43
        var c = smallWorld(devices: 500)
        c.population.iosShare = 1
        c.population.iosForceQuitShare = 0
        c.platforms.ios.silentHoldProbability = 1
        c.platforms.ios.silentHoldSeconds = .constant(value: 250)
        c.campaigns = (0..<2).map { i in
            var k = CampaignConfig()
            k.name = "s\(i)"
            k.iosPush = .silent
            k.sendStartSeconds = 300 + 100 * Double(i)
            k.deliveryLatencySeconds = .constant(value: 0.5)
            return k
        }
        let r = try simulate(c, seed: seed)
        // Push 1 is held until 550 s; push 2 arrives at 400 s (held until 650 s) and replaces it.
        XCTAssertEqual(r.value("os.silentCoalesced"), 500, "seed \(seed)")
        XCTAssertEqual(r.value("sessions.started"), 500, "only the newest push runs (seed \(seed))")
        XCTAssertEqual(r.outcomes.deferredThenCompleted + r.outcomes.deferredThenExpired, 1_000, "seed \(seed)")
        XCTAssertEqual(r.outcomes.total, r.pushesTargeted, "seed \(seed)")
    }

    /// High-priority data messages that show no notification (carousel parts before the last)
    /// get later ones deprioritised to normal priority, which Doze then defers.
    func testAndroidDeprioritisation() throws {
        let seed: UInt64 = 47
        var c = smallWorld(devices: 500)
        c.population.iosShare = 0
        c.population.doze = DozeSharesConfig()
        c.population.doze.awake = 0
        c.population.doze.lightDoze = 0
        c.population.doze.deepDoze = 1
        c.platforms.android.deprioritiseAfterSilentHighPriority = 1
        c.campaigns[0].carouselIntervalSeconds = 90
        c.campaigns[0].assets = [AssetConfig(name: "a"), AssetConfig(name: "b"), AssetConfig(name: "c")]
        let r = try simulate(c, seed: seed)
        // Part 0 runs at once and shows nothing; parts 1 and 2 are then sent as normal priority.
        XCTAssertEqual(r.value("os.androidDeprioritised"), 2 * 500, "seed \(seed)")
        XCTAssertGreaterThan(r.outcomes.deferredThenCompleted + r.outcomes.deferredThenExpired, 0, "seed \(seed)")
        XCTAssertEqual(r.outcomes.total, r.pushesTargeted, "seed \(seed)")
    }

    /// Stopping on the event limit still accounts for every push; progress is reported.
    func testEventLimitConservationAndProgress() throws {
        final class Sink: ProgressSink {
            var calls = 0
            var lastEvents: UInt64 = 0
            func progress(_ report: ProgressReport) {
                calls += 1
                lastEvents = report.eventsProcessed
                XCTAssertLessThanOrEqual(report.pushesSent, report.pushesPlanned)
                XCTAssertGreaterThan(report.pendingEvents, 0)
            }
        }
        let seed: UInt64 = 53
        let sink = Sink()
        let r = try PushSimulation.run(smallWorld(devices: 2_000), masterSeed: seed, replication: 0,
                                       limits: RunLimits(eventsMax: 5_000, progressEveryEvents: 1_000), progress: sink)
        XCTAssertEqual(r.stopReason, "eventLimit", "seed \(seed)")
        XCTAssertEqual(r.eventsProcessed, 5_000, "seed \(seed)")
        XCTAssertEqual(r.outcomes.total, r.pushesTargeted, "seed \(seed)")
        XCTAssertEqual(r.pushesTargeted, 2_000, "unsent pushes are counted as not delivered (seed \(seed))")
        XCTAssertEqual(sink.calls, 5, "seed \(seed)")
        XCTAssertEqual(sink.lastEvents, 5_000, "seed \(seed)")
    }

    /// Two replications on two threads at once give the same results as one after the other.
    func testConcurrentReplications() throws {
        let seed: UInt64 = 59
        let c = smallWorld(devices: 1_500)
        let sequential = try (0..<2).map { try encoded(simulate(c, seed: seed, replication: $0)) }
        final class Box: @unchecked Sendable { var data: [Data?] = [nil, nil] }
        let box = Box()
        let lock = NSLock()
        DispatchQueue.concurrentPerform(iterations: 2) { i in
            let d = try? encoded(PushSimulation.run(c, masterSeed: seed, replication: i))
            lock.lock(); box.data[i] = d; lock.unlock()
        }
        XCTAssertEqual(box.data[0], sequential[0], "seed \(seed)")
        XCTAssertEqual(box.data[1], sequential[1], "seed \(seed)")
    }
}

final class WorkManagerTests: XCTestCase {
    /// With pre-staging in a WorkManager job, the notification is shown by the message handler
    /// first: early taps land while the job is still downloading and see its partial state
    /// (PreloadKit answers the tap; what is missing comes from the network or `.paintReady`).
    func testTapsDuringJobSeePartialState() throws {
        let seed: UInt64 = 61
        var c = smallWorld(devices: 1_500)
        c.population.iosShare = 0
        c.population.networkMix = NetworkMixConfig(wifi: 0, fiveG: 0, lte: 1, fourG: 0, threeG: 0, twoG: 0, slow2G: 0)
        c.preloadPolicy.meteredSessionBytesMax = 2_000_000
        c.users.tapDelaySeconds = .constant(value: 0.3)
        c.campaigns[0].androidHandler = .workManager
        c.campaigns[0].assets[0].bytes = 700_000  // ≈ 0.5 s at LTE's 12 Mbit/s median: still running at the tap
        let r = try simulate(c, seed: seed)
        XCTAssertGreaterThan(r.value("taps.duringSession"), 0, "seed \(seed)")
        XCTAssertLessThan(r.value("taps.instantShare"), 0.5, "seed \(seed)")
        XCTAssertEqual(r.series.taps.totalCount, r.series.paints.totalCount + UInt64(r.value("taps.paintFailed")), "seed \(seed)")
        XCTAssertEqual(r.outcomes.total, r.pushesTargeted, "seed \(seed)")

        // Pre-staging in the message handler: the notification waits for the download, taps paint at once.
        c.campaigns[0].androidHandler = .messageHandler
        let h = try simulate(c, seed: seed)
        XCTAssertEqual(h.value("taps.duringSession"), 0, "seed \(seed)")
        XCTAssertGreaterThan(h.value("taps.instantShare"), 0.8, "seed \(seed)")
    }
}
