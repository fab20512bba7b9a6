import XCTest
@testable import PushModel

/// FCM's per-device limits (`providers.fcm.deviceMessagesPerMinuteMax`, `deviceMessagesPerHourMax`,
/// `collapsibleBurstMessages`, `collapsibleRefillSeconds`): a device's non-collapsible messages over
/// its rate are refused 429 and retried after the sender's backoff; its collapsible messages over
/// the burst are held until a token refills. Every push stays in exactly one outcome and the Data
/// API's identity holds.
final class DeviceCapsTests: XCTestCase {
    /// One Android device through FCM; `campaigns` campaigns of `parts` carousel parts `interval`
    /// seconds apart, the k-th from `k × spacing` s; pushes arrive 1 s after they leave FCM.
    func capsWorld(campaigns: Int, parts: Int, interval: Double, spacing: Double, collapsible: Bool,
                   horizonSeconds: Double = 3_600) -> PushWorldConfig {
        var c = smallWorld(devices: 1)
        c.horizonSeconds = horizonSeconds
        c.infra.metricsHorizonSeconds = Int(horizonSeconds)
        c.population.iosShare = 0
        var base = c.campaigns[0]
        base.carouselIntervalSeconds = interval
        base.assets = (1...parts).map { AssetConfig(name: "part-\($0)") }
        base.deliveryLatencySeconds = .constant(value: 1)
        base.collapsible = collapsible
        c.campaigns = (0..<campaigns).map { k in
            var x = base
            x.name = "c\(k)"
            x.sendStartSeconds = Double(k) * spacing
            return x
        }
        c.providers = ProvidersConfig()
        return c
    }

    func assertOnePerOutcome(_ r: ReplicationResult, file: StaticString = #filePath, line: UInt = #line) {
        func v(_ s: String) -> Double { r.metric("provider.fcm.dataApi." + s) ?? 0 }
        XCTAssertEqual(v("accepted"), v("delivered") + v("pending") + v("ttlExpired") + v("collapsed")
                       + v("droppedTooManyPendingMessages") + v("droppedDeviceInactive"), "accepted = the categories", file: file, line: line)
        XCTAssertEqual(v("delivered"), v("deliveredNoDelay") + v("delayedDeviceDoze") + v("delayedDeviceOffline") + v("delayedMessageThrottled"),
                       "delivered = its delays", file: file, line: line)
        XCTAssertEqual(r.outcomes.total, r.pushesTargeted, "every push in exactly one outcome", file: file, line: line)
    }

    /// 30 collapsible messages at t_k = 2(k − 1) s (k = 1…30, inside a minute) with burst B = 20 and
    /// refill R = 180 s: a virtual-scheduling bucket lets message k leave at max(t_k, (k − B)·R), so
    /// the first 20 leave when sent and message 20 + i at i·180 s (i = 1…10: 180, 360, …, 1 800 s).
    func testThirtyCollapsibleInAMinuteLeaveTwentyAtOnceThenOneEveryThreeMinutes() {
        let c = capsWorld(campaigns: 2, parts: 15, interval: 2, spacing: 30, collapsible: true)
        var s = DeviceCapsState(c)
        XCTAssertTrue(s.collapsibleOn)
        XCTAssertFalse(s.rate, "no non-collapsible message: no rate state")
        let releases = (1...30).map { k in Double(s.collapsibleRelease(0, at: Int64(2 * (k - 1)) * 1_000_000)) / 1e6 }
        XCTAssertEqual(Array(releases[0..<20]), (1...20).map { Double(2 * ($0 - 1)) })
        XCTAssertEqual(Array(releases[20...]), (1...10).map { Double($0) * 180 })
        XCTAssertEqual(s.tally.collapsibleThrottled, 10)
    }

    /// The same 30 messages through a world, all of the app's one collapse key: message 21
    /// (t = 40 s) is held until 180 s; each of messages 22…30 (t = 42…58 s), sent while the one
    /// before is held, replaces it (FCM keeps the newest of a key it has not delivered), so 9 are
    /// collapsed and message 30 leaves at 180 s: 21 delivered. 10 were held; the time held, added
    /// up, is 180 − 40 = 140 s (each replaced one until the next was sent), a mean of 14 s. With
    /// the burst raised to 30 nothing is held.
    func testThrottledCollapsibleMessagesAreReplacedByTheNewestWhileHeld() throws {
        let c = capsWorld(campaigns: 2, parts: 15, interval: 2, spacing: 30, collapsible: true, horizonSeconds: 2_700)
        let r = try simulate(c, seed: 1)
        XCTAssertEqual(r.value("provider.fcm.collapsibleThrottled"), 10)
        XCTAssertEqual(r.value("provider.fcm.collapsibleCollapsedWhileHeld"), 9)
        XCTAssertEqual(r.value("provider.fcm.dataApi.collapsed"), 9)
        XCTAssertEqual(r.value("provider.fcm.collapsibleHeldMeanSeconds"), 14, accuracy: 1e-6)
        XCTAssertEqual(r.value("provider.fcm.deviceRateRejected"), 0)
        XCTAssertEqual(r.value("provider.fcm.dataApi.accepted"), 30)
        XCTAssertEqual(r.value("provider.fcm.dataApi.delivered"), 21)
        XCTAssertEqual(r.pushesTargeted, 30)
        XCTAssertEqual(r.outcomes.notDelivered, 9, "the replaced ones only")
        assertOnePerOutcome(r)
        var wide = c
        wide.providers?.fcm.collapsibleBurstMessages = 30
        let free = try simulate(wide, seed: 1)
        XCTAssertNil(free.metric("provider.fcm.collapsibleThrottled"), "30 ≤ the burst: no state, no metric")
    }

    /// Two collapse keys (`collapseKey` "a" for c0, "b" for c1), burst 10: messages 1…10 leave at
    /// once (t = 0…18 s); c0's 11…15 (t = 20…28 s) are held for 180 s, each replacing the one
    /// before; c1's 16 (t = 30 s) has another key, so c0's 15 is kept and leaves at 180 s, and
    /// 16…30 are held for 360 s, replacing each other: 12 delivered, 4 + 14 collapsed. With one key
    /// c1's first replaces c0's held one as well: 11 delivered.
    func testOnlyTheSameCollapseKeyReplacesAHeldMessage() throws {
        var c = capsWorld(campaigns: 2, parts: 15, interval: 2, spacing: 30, collapsible: true, horizonSeconds: 2_700)
        c.providers?.fcm.collapsibleBurstMessages = 10
        let one = try simulate(c, seed: 1)
        assertOnePerOutcome(one)
        XCTAssertEqual(one.value("provider.fcm.dataApi.delivered"), 11)
        XCTAssertEqual(one.value("provider.fcm.dataApi.collapsed"), 19)
        c.campaigns[0].collapseKey = "a"
        c.campaigns[1].collapseKey = "b"
        let two = try simulate(c, seed: 1)
        assertOnePerOutcome(two)
        XCTAssertEqual(two.value("provider.fcm.dataApi.delivered"), 12)
        XCTAssertEqual(two.value("provider.fcm.dataApi.collapsed"), 18)
        XCTAssertEqual(two.value("provider.fcm.collapsibleThrottled"), 20)
        XCTAssertEqual(Double(two.outcomes.notDelivered), 18)
    }

    /// 30 one-message collapsible campaigns at t_k = 2(k − 1) s, alternating collapse keys "a" and
    /// "b", burst 20, refill 180 s: the first 20 leave when sent; each of 21…30 is held, and the
    /// next (of the other key) lets it leave, so none is replaced and message 20 + i leaves at
    /// i·180 s. All 30 are delivered: 20 without delay and the 10 held ones in
    /// `delayedMessageThrottled` (FCM's throttled-then-delivered category), not in
    /// `deliveredNoDelay`, which with the burst raised to 30 (nothing held) counts all 30.
    func testHeldThenDeliveredMessagesAreDelayedMessageThrottled() throws {
        var c = capsWorld(campaigns: 30, parts: 1, interval: 0, spacing: 2, collapsible: true, horizonSeconds: 2_700)
        for k in c.campaigns.indices { c.campaigns[k].collapseKey = k % 2 == 0 ? "a" : "b" }
        let r = try simulate(c, seed: 1)
        assertOnePerOutcome(r)
        XCTAssertEqual(r.value("provider.fcm.collapsibleThrottled"), 10)
        XCTAssertEqual(r.value("provider.fcm.collapsibleCollapsedWhileHeld"), 0)
        XCTAssertEqual(r.value("provider.fcm.dataApi.delivered"), 30)
        XCTAssertEqual(r.value("provider.fcm.dataApi.delayedMessageThrottled"), 10, "the held-then-delivered messages")
        XCTAssertEqual(r.value("provider.fcm.dataApi.deliveredNoDelay"), 20)
        var wide = c
        wide.providers?.fcm.collapsibleBurstMessages = 30
        let free = try simulate(wide, seed: 1)
        XCTAssertEqual(free.value("provider.fcm.dataApi.deliveredNoDelay"), 30)
        XCTAssertNil(free.metric("provider.fcm.dataApi.delayedMessageThrottled"), "the burst cannot bind: not emitted")
        XCTAssertEqual(free.value("provider.fcm.dataApi.deliveredNoDelay") - r.value("provider.fcm.dataApi.deliveredNoDelay"),
                       r.value("provider.fcm.dataApi.delayedMessageThrottled"))
        // The replacing world above: of the 10 held, 9 were replaced; message 30 was held, then delivered.
        let one = try simulate(capsWorld(campaigns: 2, parts: 15, interval: 2, spacing: 30, collapsible: true, horizonSeconds: 2_700), seed: 1)
        XCTAssertEqual(one.value("provider.fcm.dataApi.delayedMessageThrottled"), 1)
        XCTAssertEqual(one.value("provider.fcm.dataApi.deliveredNoDelay"), 20)
    }

    /// A throttled message that the device then cannot take is counted by the later delay: the
    /// world above with the device offline from 200 s to 1 000 s. Held messages 21 (leaves at
    /// 180 s, arrives 181 s) and 26…30 (1 080…1 800 s) arrive online: `delayedMessageThrottled`, 6.
    /// 22…25 (360…900 s) are stored for the offline device, one kept per key (24 "b", 25 "a"; 22
    /// and 23 collapsed), and handed over at the reconnect: `delayedDeviceOffline`, 2. With the
    /// device in Doze and normal priority, every delivered message is `delayedDeviceDoze`, the 10
    /// throttled ones too (Doze outranks the throttle, as it outranks the offline store).
    func testAThrottledMessageLaterDelayedOfflineOrByDozeCountsTheLaterDelay() throws {
        var c = capsWorld(campaigns: 30, parts: 1, interval: 0, spacing: 2, collapsible: true, horizonSeconds: 2_700)
        for k in c.campaigns.indices { c.campaigns[k].collapseKey = k % 2 == 0 ? "a" : "b" }
        var o = ProviderOfflineConfig()
        o.deviceShare = 1
        o.startSeconds = 200
        o.durationSeconds = .constant(value: 800)
        var offline = c
        offline.providers?.offline = o
        let r = try simulate(offline, seed: 1)
        assertOnePerOutcome(r)
        func v(_ s: String) -> Double { r.value("provider.fcm.dataApi." + s) }
        XCTAssertEqual(v("delayedMessageThrottled"), 6)
        XCTAssertEqual(v("delayedDeviceOffline"), 2)
        XCTAssertEqual(v("collapsed"), 2)
        XCTAssertEqual(v("deliveredNoDelay"), 20)
        XCTAssertEqual(v("delivered"), v("deliveredNoDelay") + v("delayedDeviceDoze") + v("delayedDeviceOffline") + v("delayedMessageThrottled"))

        // Light Doze whose maintenance windows are a microsecond long (every 900 s): every message
        // arrives outside one and is deferred to the next, so none is delivered on arrival.
        var dozing = c
        dozing.horizonSeconds = 3_600
        dozing.infra.metricsHorizonSeconds = 3_600
        dozing.population.doze.awake = 0
        dozing.population.doze.lightDoze = 1
        dozing.population.doze.deepDoze = 0
        dozing.platforms.android.lightMaintenanceWindowSeconds = 1e-6
        for k in dozing.campaigns.indices { dozing.campaigns[k].androidPriority = .normal }
        let d = try simulate(dozing, seed: 1)
        assertOnePerOutcome(d)
        XCTAssertEqual(d.value("provider.fcm.collapsibleThrottled"), 10)
        XCTAssertEqual(d.value("provider.fcm.dataApi.delayedMessageThrottled"), 0)
        XCTAssertEqual(d.value("provider.fcm.dataApi.deliveredNoDelay"), 0)
        XCTAssertGreaterThan(d.value("provider.fcm.dataApi.delayedDeviceDoze"), 0)
        XCTAssertEqual(d.value("provider.fcm.dataApi.delivered"), d.value("provider.fcm.dataApi.delayedDeviceDoze"))
    }

    /// 300 non-collapsible messages at t_k = 0.2(k − 1) s (inside a minute) against 240 a minute:
    /// the minute opens at the first, so the first 240 are accepted and the last 60 refused.
    func testThreeHundredInAMinuteAcceptTwoHundredForty() {
        let c = capsWorld(campaigns: 20, parts: 15, interval: 0, spacing: 3, collapsible: false)
        var s = DeviceCapsState(c)
        XCTAssertTrue(s.rate)
        let taken = (0..<300).map { s.takeRate(0, parts: 1, at: Int64($0) * 200_000) }
        XCTAssertEqual(taken.filter { $0 }.count, 240)
        XCTAssertEqual(Array(taken[240...]), [Bool](repeating: false, count: 60))
        // A minute after the window opened, a new one does.
        XCTAssertTrue(s.takeRate(0, parts: 240, at: 60_000_000))
    }

    /// The hour: 240 messages at the start of each of 21 minutes (t = 0, 60, …, 1 200 s) is 5 040
    /// in the hour that opened at 0 s; 20 minutes take 4 800, so the 21st minute takes 200 (to
    /// 5 000) and refuses 40; an hour after the first, both windows open afresh.
    func testTheHourCapBindsAfterTwentyFullMinutes() {
        let c = capsWorld(campaigns: 20, parts: 15, interval: 0, spacing: 3, collapsible: false)
        var s = DeviceCapsState(c)
        var accepted = [Int](repeating: 0, count: 21)
        for minute in 0..<21 {
            for _ in 0..<240 where s.takeRate(0, parts: 1, at: Int64(minute) * 60_000_000) { accepted[minute] += 1 }
        }
        XCTAssertEqual(Array(accepted[0..<20]), [Int](repeating: 240, count: 20))
        XCTAssertEqual(accepted[20], 200)
        XCTAssertTrue(s.takeRate(0, parts: 240, at: 3_600_000_000))
    }

    /// Through a world: 20 campaigns of 15 parts every 3 s (t = 0…57 s, 300 messages in a minute),
    /// each device's parts charged together: campaigns 1–16 (240) are accepted, 17–20 (60) answered
    /// 429 and retried after the backoff (60 s × (1 + 0.2u) ≥ 60 s later, so at ≥ 108 s, in a
    /// fresh minute holding 60 ≤ 240): 60 refused, 60 accepted on retry, all 300 delivered. With a
    /// first backoff past the horizon the 60 are refused and never accepted: not delivered, and not
    /// in the Data API (FCM never accepted them).
    func testRefusedMessagesAreRetriedAfterTheBackoff() throws {
        let c = capsWorld(campaigns: 20, parts: 15, interval: 0, spacing: 3, collapsible: false)
        let r = try simulate(c, seed: 1)
        XCTAssertEqual(r.value("provider.fcm.deviceRateRejected"), 60)
        XCTAssertEqual(r.value("provider.fcm.deviceRateRetriedAccepted"), 60)
        XCTAssertEqual(r.value("provider.fcm.dataApi.accepted"), 300)
        XCTAssertEqual(r.pushesTargeted, 300)
        XCTAssertEqual(r.outcomes.notDelivered, 0)
        XCTAssertGreaterThanOrEqual(r.value("provider.lastSendSeconds"), 108, "the retries are sent after the backoff")
        assertOnePerOutcome(r)
        var late = c
        late.providers?.retry.initialBackoffSeconds = 7_200
        late.providers?.retry.maxBackoffSeconds = 7_200
        let l = try simulate(late, seed: 1)
        XCTAssertEqual(l.value("provider.fcm.deviceRateRejected"), 60)
        XCTAssertEqual(l.value("provider.fcm.deviceRateRetriedAccepted"), 0)
        XCTAssertEqual(l.value("provider.fcm.dataApi.accepted"), 240)
        XCTAssertEqual(l.outcomes.notDelivered, 60)
        assertOnePerOutcome(l)
        // A higher cap refuses fewer: the metric moves the right way.
        var wider = c
        wider.providers?.fcm.deviceMessagesPerMinuteMax = 270
        XCTAssertEqual(try simulate(wider, seed: 1).value("provider.fcm.deviceRateRejected"), 30)
    }

    /// Off: a plan whose devices cannot reach a cap keeps no state and emits no cap metric; a
    /// world whose state is on but whose caps never bind (2 messages per device, 2 h apart, caps
    /// of 1 a minute and 1 an hour) gives exactly the metrics of the one without state, plus the
    /// cap metrics at 0.
    func testCapsThatCannotBindChangeNothing() throws {
        var c = smallWorld(devices: 2_000)
        c.horizonSeconds = 10_800
        c.infra.metricsHorizonSeconds = 10_800
        var second = c.campaigns[0]
        second.name = "later"
        second.sendStartSeconds = 300 + 7_200
        c.campaigns.append(second)
        c.providers = ProvidersConfig()
        XCTAssertFalse(DeviceCapsState(c).enabled)
        let off = try simulate(c, seed: 5)
        XCTAssertNil(off.metric("provider.fcm.deviceRateRejected"))
        var on = c
        on.providers?.fcm.deviceMessagesPerMinuteMax = 1
        on.providers?.fcm.deviceMessagesPerHourMax = 1
        XCTAssertTrue(DeviceCapsState(on).rate)
        let r = try simulate(on, seed: 5)
        XCTAssertEqual(r.value("provider.fcm.deviceRateRejected"), 0)
        let capNames: Set<String> = ["provider.fcm.deviceRateRejected", "provider.fcm.deviceRateRetriedAccepted",
                                     "provider.fcm.collapsibleThrottled", "provider.fcm.collapsibleHeldMeanSeconds",
                                     "provider.fcm.collapsibleCollapsedWhileHeld", "provider.fcm.dataApi.collapsed"]
        XCTAssertEqual(r.metrics.filter { !capNames.contains($0.name) }, off.metrics)
        XCTAssertEqual(r.outcomes, off.outcomes)
    }

    /// `validate`'s warnings: a carousel of 16 collapsible parts 30 s apart in two campaigns (32 to
    /// one device, t_k = 30(k − 1) s) exceeds the burst: message k leaves at max(t_k, (k − 20)·180),
    /// later than t_k for k = 24…32, 9 held; 20 campaigns of 15 parts in a minute exceed 240 a minute; one
    /// campaign does neither. The stated bytes per device are the strides.
    func testValidateWarnsWhenAPlanExceedsTheDeviceCaps() {
        let folded = capsWorld(campaigns: 2, parts: 16, interval: 30, spacing: 480, collapsible: true)
        XCTAssertEqual(folded.deviceCapsLimitWarnings().count, 1)
        XCTAssertTrue(folded.deviceCapsLimitWarnings()[0].contains("holds 9 of them"), folded.deviceCapsLimitWarnings()[0])
        let plain = capsWorld(campaigns: 20, parts: 15, interval: 0, spacing: 3, collapsible: false)
        XCTAssertEqual(plain.deviceCapsLimitWarnings().count, 1)
        XCTAssertTrue(plain.deviceCapsLimitWarnings()[0].contains("300 non-collapsible"))
        XCTAssertEqual(capsWorld(campaigns: 1, parts: 15, interval: 2, spacing: 0, collapsible: true).deviceCapsLimitWarnings(), [])
        var noProviders = plain
        noProviders.providers = nil
        XCTAssertEqual(noProviders.deviceCapsLimitWarnings(), [])
        XCTAssertEqual(PerDeviceStateBytes.deviceRateCaps, 24)
        XCTAssertEqual(PerDeviceStateBytes.collapsibleBurst, 16, "the bucket's instant and the held message's word")
    }
}
