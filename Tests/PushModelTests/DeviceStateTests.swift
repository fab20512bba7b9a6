import Foundation
import InfraModel
import SimKernel
import XCTest
@testable import PushModel

/// Devices that change state: network changes over time and Doze over the night.
final class DeviceStateTests: XCTestCase {
    /// The share of devices on a different class an hour after a first look matches the closed
    /// form of the two-state process with handovers, device by device.
    ///
    /// Mix: Wi-Fi w = 0.6, LTE 0.2, 3G 0.2 (cellular classes c = 1/2 each); r = 0.5 switches/h,
    /// h = 2 handovers/h, t = 1 h. a = r/(2w), b = r/(2(1−w)), λ = a + b, π_w = w. A device's change
    /// is Bernoulli(p): from Wi-Fi p = (1 − w)(1 − e^{−λt}); from cellular class j
    /// p = w(1 − e^{−λt}) + ((1 − w) + w e^{−λt} − e^{−(b+h)t}) · (1 − c_j) (Wi-Fi, or a fresh class
    /// other than j). The count of changes is a sum of independent Bernoullis: mean Σp, variance
    /// Σp(1 − p); 4.5 sd bounds a false failure at below 1e-5.
    func testChangeShareMatchesTheTransitionProbability() throws {
        let seed: UInt64 = 61
        var c = smallWorld(devices: 20_000)
        c.population.networkMix = NetworkMixConfig(wifi: 0.6, fiveG: 0, lte: 0.2, fourG: 0, threeG: 0.2, twoG: 0, slow2G: 0)
        c.population.networkChanges.switchesPerDay = 12  // 0.5 an hour
        c.population.networkChanges.handoversPerDay = 48  // 2 an hour
        let population = try Population(config: c, runSeed: seed)
        var networks = try NetworkChanges(config: c)
        let w = 0.6, t = 3_600.0
        let a = 0.5 / 3_600 / (2 * w), b = 0.5 / 3_600 / (2 * (1 - w)), h = 2.0 / 3_600
        let decay = exp(-(a + b) * t)
        var changed = 0.0, mean = 0.0, variance = 0.0, onWifi = 0.0
        for d in 0..<c.population.devices {
            let attributes = population.device(DeviceID(d))
            XCTAssertFalse(networks.look(d, attributes, now: 0, population: population).changed, "no time, no change (seed \(seed))")
            let p = attributes.network == .wifi ? (1 - w) * (1 - decay)
                : w * (1 - decay) + ((1 - w) + w * decay - exp(-(b + h) * t)) * 0.5
            let look = networks.look(d, attributes, now: SimDuration.seconds(t).ticks, population: population)
            if look.changed { changed += 1 }
            if look.net == .wifi { onWifi += 1 }
            mean += p
            variance += p * (1 - p)
        }
        XCTAssertLessThan(abs(changed - mean), 4.5 * variance.squareRoot(), "changed \(changed), expected \(mean) (seed \(seed))")
        // The mix stays stationary: the Wi-Fi share after an hour is still w (binomial, 4.5 sd).
        let n = Double(c.population.devices)
        XCTAssertLessThan(abs(onWifi / n - w), 4.5 * (w * (1 - w) / n).squareRoot(), "Wi-Fi share \(onWifi / n) (seed \(seed))")
    }

    /// In a run, the share of taps on another class than at push handling is the closed form's.
    /// Mix Wi-Fi w = 0.6, LTE 0.4, no handovers, r = 24 switches a day: a = 1/(2w), b = 1/(2(1 − w))
    /// per hour, λ = a + b. Every tap comes 3 600 s after its notification, which is shown at most
    /// 30 s after the handler's look (the NSE deadline is 22 s, the FCM one 8 s), so t ∈ [3 600,
    /// 3 630] s; the device's class at the look follows the (stationary) mix, so a tap is on
    /// another class with probability 2w(1 − w)(1 − e^{−λt}), independently across devices:
    /// binomial, 4.5 sd around the range of that probability over t.
    func testTapsOnAnotherNetworkMatchTheClosedForm() throws {
        let seed: UInt64 = 79
        var c = smallWorld(devices: 3_000)
        c.horizonSeconds = 7_200
        c.infra.metricsHorizonSeconds = 7_200
        c.population.networkMix = NetworkMixConfig(wifi: 0.6, fiveG: 0, lte: 0.4, fourG: 0, threeG: 0, twoG: 0, slow2G: 0)
        c.population.networkChanges.switchesPerDay = 24
        c.users.segments[0].iosOpenProbability = 1
        c.users.segments[0].androidOpenProbability = 1
        c.users.tapDelaySeconds = .constant(value: 3_600)
        let r = try simulate(c, seed: seed)
        let taps = r.value("taps.count")
        let w = 0.6, lambda = (1 / (2 * w) + 1 / (2 * (1 - w))) / 3_600
        let low = 2 * w * (1 - w) * (1 - exp(-lambda * 3_600)), high = 2 * w * (1 - w) * (1 - exp(-lambda * 3_630))
        let share = r.value("network.tapsOnOtherNetwork") / taps
        let sd = (high * (1 - high) / taps).squareRoot()
        XCTAssertGreaterThan(taps, 1_000, "seed \(seed)")
        XCTAssertGreaterThan(share, low - 4.5 * sd, "share \(share) of \(taps) taps, expected \(low)...\(high) (seed \(seed))")
        XCTAssertLessThan(share, high + 4.5 * sd, "share \(share) of \(taps) taps, expected \(low)...\(high) (seed \(seed))")
    }

    /// Network changes while a pre-stage runs fail its open fetches: a higher rate completes fewer
    /// pushes. On 3G (slow: a session lasts seconds) with 720 switches an hour (one per 5 s on
    /// average at w = 0.5) a change falls inside a session of a few seconds with probability
    /// 1 − e^{−qL} ≈ 0.3–0.8: many more failed fetches than the rate-0 run's none; common random
    /// numbers keep every other draw the same.
    func testNetworkChangesDuringSessionsLowerCompletion() throws {
        let seed: UInt64 = 67
        var c = smallWorld(devices: 1_500)
        c.population.networkMix = NetworkMixConfig(wifi: 0.5, fiveG: 0, lte: 0, fourG: 0, threeG: 0.5, twoG: 0, slow2G: 0)
        let off = try simulate(c, seed: seed)
        c.population.networkChanges.switchesPerDay = 17_280  // 720 an hour
        c.population.networkChanges.handoversPerDay = 17_280
        let on = try simulate(c, seed: seed)
        XCTAssertEqual(off.value("network.sessionsChanged"), 0, "seed \(seed)")
        XCTAssertEqual(off.value("network.fetchesFailed"), 0, "seed \(seed)")
        XCTAssertGreaterThan(on.value("network.sessionsChanged"), 0, "seed \(seed)")
        XCTAssertGreaterThan(on.value("network.fetchesFailed"), 0, "seed \(seed)")
        XCTAssertLessThan(on.value("outcomes.completedShare"), off.value("outcomes.completedShare"), "seed \(seed)")
        XCTAssertGreaterThan(on.value("network.tapsOnOtherNetwork"), 0, "seed \(seed)")
        XCTAssertEqual(on.outcomes.total, on.pushesTargeted, "every push in one outcome (seed \(seed))")
    }

    /// A night-cycle device: awake in the evening, its deferred work waits for a maintenance
    /// window at 03:00, and the morning pick-up ends the wait.
    func testNightCycleWindows() {
        var rules = AndroidRulesConfig()
        rules.lightDozeAfterScreenOffSeconds = 300
        rules.deepDozeAfterScreenOffSeconds = 1_800
        let doze = DozeSchedule(rules)
        let bed = 23 * 3_600.0, idle = 8 * 3_600.0  // clock at t = 0: midnight
        XCTAssertEqual(doze.nextNightWindow(atOrAfter: 20 * 3_600, bedSeconds: bed, idleSeconds: idle), 20 * 3_600)
        XCTAssertEqual(doze.nextNightWindow(atOrAfter: bed + 100, bedSeconds: bed, idleSeconds: idle), bed + 100, "screen just off")
        // Light Doze from 23:05: windows every 960 s from 23:05 + 900 s.
        XCTAssertEqual(doze.nextNightWindow(atOrAfter: bed + 400, bedSeconds: bed, idleSeconds: idle), bed + 300 + 900)
        // Deep Doze from 23:30: windows at 00:30, 02:35, 06:40 (idle 1 h, 2 h, 4 h, each + 5 min).
        let deep = bed + 1_800
        XCTAssertEqual(doze.nextNightWindow(atOrAfter: 27 * 3_600, bedSeconds: bed, idleSeconds: idle), deep + 3_600 + 300 + 7_200 + 300 + 14_400)
        // The morning pick-up (07:00) comes before a window after it.
        XCTAssertEqual(doze.nextNightWindow(atOrAfter: 36 * 3_600, bedSeconds: bed, idleSeconds: idle), 36 * 3_600, "noon: awake")
        XCTAssertEqual(doze.nextNightWindow(atOrAfter: 30.8 * 3_600, bedSeconds: bed, idleSeconds: idle), bed + idle)
        // The next night repeats a day later.
        XCTAssertEqual(doze.nextNightWindow(atOrAfter: 20 * 3_600 + 86_400, bedSeconds: bed, idleSeconds: idle), 20 * 3_600 + 86_400)
    }

    /// Normal-priority sends in the night wait for Doze; in the evening they do not. Every Android
    /// device follows the night (bedtime 23:00, 8 h); the send starts 300 s after t = 0. Clock
    /// 20:00 at t = 0: the devices are awake, nothing is deferred. Clock 03:00: every device is in
    /// deep Doze since 23:30, its next window 06:40 (see `testNightCycleWindows`): every message is
    /// deferred about 3.5 h (3 h 35 min minus the send offset and provider latency).
    func testNightSendsWaitForDoze() throws {
        let seed: UInt64 = 71
        var c = smallWorld(devices: 800)
        c.population.iosShare = 0
        c.population.dozeNight.deviceShare = 1
        c.population.dozeNight.bedtimeSeconds = .constant(value: 23 * 3_600)
        c.population.dozeNight.idleSeconds = .constant(value: 8 * 3_600)
        c.campaigns[0].androidPriority = .normal
        c.population.dozeNight.clockAtStartSeconds = 20 * 3_600
        let evening = try simulate(c, seed: seed)
        c.population.dozeNight.clockAtStartSeconds = 3 * 3_600
        let night = try simulate(c, seed: seed)
        XCTAssertEqual(evening.value("os.dozeDeferred"), 0, "seed \(seed)")
        XCTAssertEqual(night.value("os.dozeDeferred"), Double(night.pushesTargeted), "seed \(seed)")
        XCTAssertGreaterThan(night.value("os.dozeDeferralMeanSeconds"), 3 * 3_600, "seed \(seed)")
        XCTAssertLessThan(night.value("os.dozeDeferralMeanSeconds"), 3.6 * 3_600, "seed \(seed)")
        XCTAssertEqual(night.outcomes.total, night.pushesTargeted, "seed \(seed)")
    }
}

/// Android's fallback: a WorkManager job enqueued when the FCM handler's deadline comes with
/// critical assets missing.
final class FallbackJobTests: XCTestCase {
    /// Android only, awake, on 3G with a 2 s handler deadline (the deadline often comes first; 2G
    /// would be gated as too slow to pre-stage at all). With the
    /// fallback, the pushes the handler left incomplete get a job of up to 120 s, run at once
    /// (expedited: one push per device, every bucket's quota ≥ 1): more pushes complete, and every
    /// push still has exactly one outcome. With every quota 0 each fallback is denied expedition
    /// and waits for its bucket's regular-job delay (up to 0 s, 2 h, 8 h, 24 h, 24 h) — past the
    /// 1 h horizon for most of them.
    func testFallbackCompletesMorePushesAndQuotaExhaustionShows() throws {
        let seed: UInt64 = 73
        var c = smallWorld(devices: 1_500)
        c.population.iosShare = 0
        c.population.doze.lightDoze = 0  // every device awake (the weights are normalised)
        c.population.doze.deepDoze = 0
        c.population.networkMix = NetworkMixConfig(wifi: 0, fiveG: 0, lte: 0, fourG: 0, threeG: 1, twoG: 0, slow2G: 0)
        c.preloadPolicy.androidMessageHandlerDeadlineSeconds = 2
        let off = try simulate(c, seed: seed)
        c.preloadPolicy.fallbackOnHandlerDeadline = true
        let on = try simulate(c, seed: seed)
        c.platforms.android.standbyBuckets.expeditedJobs = [0, 0, 0, 0, 0]
        let denied = try simulate(c, seed: seed)

        XCTAssertEqual(off.value("fallback.enqueued"), 0, "seed \(seed)")
        XCTAssertGreaterThan(off.outcomes.timedOutOrKilled, 0, "the handler deadline must bite (seed \(seed))")
        XCTAssertGreaterThan(on.value("fallback.enqueued"), 0, "seed \(seed)")
        XCTAssertEqual(on.value("fallback.expedited"), on.value("fallback.enqueued"), "seed \(seed)")
        XCTAssertGreaterThan(on.value("fallback.completed"), 0, "seed \(seed)")
        XCTAssertGreaterThan(on.value("outcomes.completedShare"), off.value("outcomes.completedShare"), "seed \(seed)")
        XCTAssertEqual(on.outcomes.total, on.pushesTargeted, "every push in one outcome (seed \(seed))")

        XCTAssertEqual(denied.value("fallback.expedited"), 0, "seed \(seed)")
        XCTAssertEqual(denied.value("os.expeditedJobDenied"), denied.value("fallback.enqueued"), "seed \(seed)")
        XCTAssertLessThan(denied.value("outcomes.completedShare"), on.value("outcomes.completedShare"), "seed \(seed)")
        XCTAssertEqual(denied.outcomes.total, denied.pushesTargeted, "every push in one outcome (seed \(seed))")
    }
}
