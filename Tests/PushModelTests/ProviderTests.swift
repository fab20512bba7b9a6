import Foundation
import XCTest
@testable import PushModel

/// The push-provider layer: one FCM project's token bucket shared by every campaign in flight,
/// 429s with the sender's retry, APNs' pool, and the limits `validate` lists.
final class ProviderTests: XCTestCase {
    /// A world whose only work is the send: every push's provider latency is beyond the horizon,
    /// so no device acts on it (each counts as not delivered) and a run costs the sender's loop.
    /// `devices` Android devices, one campaign through FCM at `senderPerMinute`, the project at
    /// `quotaPerMinute`.
    func senderWorld(devices: Int, quotaPerMinute: Int64, senderPerMinute: Double) -> PushWorldConfig {
        var c = smallWorld(devices: devices)
        c.horizonSeconds = 2_700
        c.infra.metricsHorizonSeconds = 2_700
        c.population.iosShare = 0
        c.campaigns[0].sendStartSeconds = 300
        c.campaigns[0].sendRatePerMinute = senderPerMinute
        c.campaigns[0].providerQuotaPerMinute = 1e9
        c.campaigns[0].deliveryLatencySeconds = .constant(value: 3_000)
        c.campaigns[0].provider = .fcm
        var p = ProvidersConfig()
        p.fcm.projectQuotaPerMinute = quotaPerMinute
        c.providers = p
        return c
    }

    func lastSendAfterStart(_ r: ReplicationResult) -> Double { r.value("provider.lastSendSeconds") - 300 }

    /// The target at a 1/100 scale: 200 000 devices at a quota of 6 000/min is the arithmetic of
    /// 20 M at 600 000/min (the last send N·60/Q = 2 000 s = 33.3 min after the first); the 20 M
    /// run itself is measured in docs/performance.md.
    ///
    /// The bound, from the bucket (capacity C = Q·bucketSeconds/60 = 100 messages, full at the
    /// start, refilled at Q/60 a second): by time t FCM has accepted at most C + Q(t − t0)/60, so
    /// the N-th send is at t ≥ t0 + (N − C)·60/Q = t0 + 1 999 s. Above: the sender only waits
    /// after a 429, for the whole-second Retry-After; the bucket then refills for that second
    /// and, being at most one second deep, loses less than the one message it lacked at the
    /// refusal, so at most R messages' refill (R = the 429 count) is lost overall, and the
    /// send's last second may end one batch late: t ≤ t0 + (N + R)·60/Q + 2 s. A sender at the
    /// quota has R = 0: within [1 999, 2 002] s; a sender at twice the quota meets about one 429
    /// per 2 s cycle (R ≈ 1 000), within 2 012 s. Both inside the target 33.3 ± 0.5 min
    /// (1 970…2 030 s), which is asserted too.
    func testTwentyMillionArithmeticAtOneHundredthScaleAndTheFourTwoNineRule() throws {
        let n = 200_000.0, q = 6_000.0, capacity = 100.0
        for (sender, rejects) in [(6_000.0, false), (12_000.0, true), (6_060.0, true), (5_940.0, false)] {
            let r = try simulate(senderWorld(devices: Int(n), quotaPerMinute: Int64(q), senderPerMinute: sender), seed: 3)
            let rejected = r.value("provider.fcm.rejected429")
            // 429s exactly when the sender's rate exceeds the bucket's refill.
            XCTAssertEqual(rejected > 0, rejects, "sender \(sender)/min: \(rejected) 429s")
            XCTAssertEqual(r.value("provider.fcm.messages"), n, "every push accepted once, retried or not")
            XCTAssertEqual(r.pushesTargeted, UInt64(n))
            XCTAssertEqual(r.outcomes.total, r.pushesTargeted, "every push in exactly one outcome")
            let last = lastSendAfterStart(r)
            if sender >= q {
                XCTAssertGreaterThanOrEqual(last, (n - capacity) * 60 / q - 1e-6, "sender \(sender)")
                XCTAssertLessThanOrEqual(last, (n + rejected) * 60 / q + 2, "sender \(sender)")
                XCTAssertEqual(last / 60, 33.3, accuracy: 0.5, "sender \(sender)")
            } else {
                // Below the quota the sender alone paces: (N − 1)/rate after the first send.
                XCTAssertEqual(last, (n - 1) * 60 / sender, accuracy: 1, "sender \(sender)")
            }
            if sender == 12_000 {
                XCTAssertEqual(r.value("provider.fcm.rejected429Share"), rejected / (rejected + n), accuracy: 1e-12)
            }
        }
    }

    /// A sender that ignores Retry-After backs off exponentially from 60 s (Firebase's minimum
    /// initial delay) with jitter: its pauses outlast the one-second bucket, so it finishes later
    /// than one honouring Retry-After, and a replay with the same seed draws the same jitter.
    func testBackoffWithoutRetryAfterIsSlowerAndDeterministic() throws {
        var c = senderWorld(devices: 20_000, quotaPerMinute: 6_000, senderPerMinute: 12_000)
        let honoured = try simulate(c, seed: 5)
        c.providers?.retry.honourRetryAfter = false
        let backoff = try simulate(c, seed: 5)
        let again = try simulate(c, seed: 5)
        XCTAssertGreaterThan(backoff.value("provider.fcm.rejected429"), 0)
        // Each 429 pauses ≥ 60 s while the bucket holds 1 s of quota: ≈ 200 messages per ≥ 61 s
        // against 100 a second honoured, so the 20 000 take ≥ 100 cycles, i.e. past the horizon.
        XCTAssertGreaterThan(lastSendAfterStart(backoff), lastSendAfterStart(honoured) + 60)
        XCTAssertEqual(backoff.metrics, again.metrics)
        XCTAssertEqual(backoff.outcomes.total, backoff.pushesTargeted, "unsent pushes land in not delivered")
        c.providers?.retry.jitterShare = 0
        let flat = try simulate(c, seed: 5)
        XCTAssertNotEqual(flat.value("provider.lastSendSeconds"), backoff.value("provider.lastSendSeconds"), "jitter moves the retries")
    }

    /// The quota is the project's: two campaigns each sending at the quota share one bucket, so
    /// their 2N messages take 2N·60/Q together (and meet 429s), where per-campaign quotas would let
    /// each finish in N·60/Q.
    func testTwoCampaignsShareTheProjectBucket() throws {
        var c = senderWorld(devices: 50_000, quotaPerMinute: 6_000, senderPerMinute: 6_000)
        var second = c.campaigns[0]
        second.name = "second"
        c.campaigns.append(second)
        let shared = try simulate(c, seed: 2)
        XCTAssertGreaterThan(shared.value("provider.fcm.rejected429"), 0)
        XCTAssertEqual(shared.value("provider.fcm.messages"), 100_000)
        // Same derivation as the target's: 2N = 100 000 messages, within [(2N − C)·60/Q, (2N + R)·60/Q + 2].
        let last = lastSendAfterStart(shared)
        XCTAssertGreaterThanOrEqual(last, (100_000 - 100) * 60 / 6_000.0 - 1e-6)
        XCTAssertLessThanOrEqual(last, (100_000 + shared.value("provider.fcm.rejected429")) * 60 / 6_000.0 + 2)
        // Without the layer each campaign is paced by its own quota: both are done 500 s after the
        // first send (50 000 at 100 a second), half the shared bucket's 1 000 s.
        c.providers = nil
        let separate = try simulate(c, seed: 2)
        XCTAssertNil(separate.metric("provider.lastSendSeconds"))
        XCTAssertEqual(separate.outcomes.total, 100_000)
        let sentAfter = (300 + 501)..<2_700
        XCTAssertEqual(sentAfter.reduce(0) { $0 + separate.series.pushesSent[$1] }, 0, "per-campaign pacing ends by t0 + 500 s")
        XCTAssertGreaterThan(sentAfter.reduce(0) { $0 + shared.series.pushesSent[$1] }, 40_000, "the shared bucket sends half after it")
    }

    /// With providers that never bind (a huge quota, a wide APNs pool) every push leaves at the
    /// instant it would without them: every other metric is the same, only `provider.*` is added;
    /// by platform, Android goes to FCM and iOS to APNs.
    func testNonBindingProvidersChangeNoOtherMetric() throws {
        var c = smallWorld(devices: 2_000)
        let plain = try simulate(c, seed: 11)
        var p = ProvidersConfig()
        p.fcm.projectQuotaPerMinute = 1_000_000_000
        p.apns.connections = 1_000
        c.providers = p
        let layered = try simulate(c, seed: 11)
        XCTAssertEqual(layered.metrics.filter { !$0.name.hasPrefix("provider.") }, plain.metrics)
        XCTAssertEqual(layered.outcomes, plain.outcomes)
        XCTAssertEqual(layered.value("provider.fcm.rejected429"), 0)
        XCTAssertEqual(layered.value("provider.apns.streamWaits"), 0)
        let fcm = layered.value("provider.fcm.messages"), apns = layered.value("provider.apns.messages")
        XCTAssertEqual(fcm + apns, Double(plain.pushesTargeted))
        // iosShare 0.5 over 2 000 devices: binomial sd √(2000·¼) ≈ 22; 5 sd either side.
        XCTAssertEqual(apns, 1_000, accuracy: 112)
    }

    /// APNs answers no 429: a send beyond the pool's streams waits for one to free.
    func testAPNsPoolWaitsInsteadOfRefusing() throws {
        var c = senderWorld(devices: 20_000, quotaPerMinute: 6_000, senderPerMinute: 60_000)
        c.campaigns[0].provider = .apns
        c.providers?.apns.connections = 1
        c.providers?.apns.streamsPerConnection = 16
        c.providers?.apns.requestSeconds = 0.1
        let r = try simulate(c, seed: 4)
        XCTAssertEqual(r.value("provider.fcm.rejected429"), 0)
        XCTAssertEqual(r.value("provider.apns.messages"), 20_000)
        XCTAssertGreaterThan(r.value("provider.apns.streamWaits"), 0)
        // 16 streams / 0.1 s = 160 a second, below the sender's 1 000: the pool paces the send
        // ((N − 16)/160 s at the least, the in-flight window going at once).
        XCTAssertGreaterThanOrEqual(lastSendAfterStart(r), (20_000 - 16) / 160.0 - 1e-6)
        XCTAssertLessThanOrEqual(lastSendAfterStart(r), 20_000 / 160.0 + 2)
    }

    /// `validate`'s warnings: the example of the issue (20 M sends at the default quota), and none
    /// for the default world.
    func testLimitWarningsStateTheNumbers() {
        XCTAssertEqual(PushWorldConfig().providerLimitWarnings(), [])
        var c = PushWorldConfig()
        c.population.devices = 20_000_000
        c.population.iosShare = 0
        c.campaigns[0].sendRatePerMinute = 1_200_000
        c.campaigns[0].providerQuotaPerMinute = 1_200_000
        c.horizonSeconds = 7_200
        let w = c.providerLimitWarnings()
        XCTAssertEqual(w.count, 1, "\(w)")
        XCTAssertTrue(w[0].contains("campaign campaign sends 1 200 000 FCM messages/min at t = 600 s, above the default FCM quota (600 000/min)"), w[0])
        XCTAssertTrue(w[0].contains("20 000 000 sends at the default FCM quota (600 000/min) need ≥ 33.3 min; an increase is at most +25 % (750 000/min: ≥ 26.7 min) and must be requested ≥ 15 days ahead."), w[0])
        // Too short a horizon for the send at the quota.
        c.horizonSeconds = 1_800
        let short = c.providerLimitWarnings()
        XCTAssertEqual(short.count, 2, "\(short)")
        XCTAssertTrue(short[1].contains("campaign campaign cannot send its 20 000 000 FCM messages by the horizon (1 800 s)"), short[1])
        // Half of them iOS: APNs carries those; 10 M at the FCM quota.
        c.population.iosShare = 0.5
        c.horizonSeconds = 7_200
        XCTAssertTrue(c.providerLimitWarnings().isEmpty, "600 000/min of Android pushes fit the quota")
    }

    /// Routing by platform reads the device's platform from the first draw of its attribute
    /// stream: the same answer as the full draw, for every device.
    func testPlatformRouteIsTheDevicesPlatform() throws {
        let population = try Population(config: smallWorld(devices: 2_000), runSeed: 99)
        var ios = 0
        for d in 0..<2_000 {
            let quick = population.isIOS(DeviceID(d))
            XCTAssertEqual(quick, population.device(DeviceID(d)).isIOS, "device \(d)")
            if quick { ios += 1 }
        }
        // iosShare 0.5: binomial sd √(2000·¼) ≈ 22; 5 sd either side.
        XCTAssertEqual(Double(ios), 1_000, accuracy: 112)
    }
}
