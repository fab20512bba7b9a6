import XCTest
import Stochastic
@testable import PushModel

/// Offline windows in the provider layer (`providers.offline`) and FCM's inactive devices
/// (`providers.fcm.inactiveShare`): the providers' storage rules, the FCM Data API's offline
/// categories and the APNs counts, and that every push still lands in exactly one outcome.
final class ProviderOfflineTests: XCTestCase {
    /// `devices` devices (30 % iOS) through the providers; a third of them offline from t = 0 for
    /// 30 minutes (the send starts at 300 s; the horizon is an hour), back before the horizon.
    func offlineWorld(devices: Int = 3_000, share: Double = 0.3) -> PushWorldConfig {
        var c = smallWorld(devices: devices)
        c.population.iosShare = 0.3
        c.providers = ProvidersConfig()
        var o = ProviderOfflineConfig()
        o.deviceShare = share
        o.durationSeconds = .constant(value: 1_800)
        c.providers?.offline = o
        return c
    }

    /// The Data API's identity: every message FCM accepted lands in exactly one category.
    func assertDataApiPartition(_ r: ReplicationResult, file: StaticString = #filePath, line: UInt = #line) {
        func v(_ s: String) -> Double { r.value("provider.fcm.dataApi." + s) }
        XCTAssertEqual(v("accepted"), v("delivered") + v("pending") + v("ttlExpired") + v("collapsed")
                       + v("droppedTooManyPendingMessages") + v("droppedDeviceInactive"), "accepted", file: file, line: line)
        // `delayedMessageThrottled` is emitted only when FCM's collapsible burst can bind.
        let throttled = r.metric("provider.fcm.dataApi.delayedMessageThrottled") ?? 0
        XCTAssertEqual(v("delivered"), v("deliveredNoDelay") + v("delayedDeviceDoze") + v("delayedDeviceOffline") + throttled,
                       "delivered = its delays", file: file, line: line)
        XCTAssertEqual(r.outcomes.total, r.pushesTargeted, "every push in exactly one outcome", file: file, line: line)
    }

    /// More devices offline at the send → more messages delivered after the reconnect, fewer
    /// without delay; the delivered share of the offline ones stays (they reconnect before the
    /// horizon). The count delayed by the offline window is near the offline share of the accepted
    /// messages: binomial, within 5 standard deviations (√(n p (1−p)), n ≈ 2 100 accepted; a false
    /// failure has probability < 10⁻⁶), less the few Doze then holds.
    func testMoreDevicesOfflineDelayMoreMessages() throws {
        let few = try simulate(offlineWorld(share: 0.1), seed: 4)
        let many = try simulate(offlineWorld(share: 0.5), seed: 4)
        assertDataApiPartition(few)
        assertDataApiPartition(many)
        let a = "provider.fcm.dataApi."
        XCTAssertGreaterThan(many.value(a + "delayedDeviceOffline"), few.value(a + "delayedDeviceOffline"))
        XCTAssertLessThan(many.value(a + "deliveredNoDelay"), few.value(a + "deliveredNoDelay"))
        XCTAssertGreaterThan(many.value("provider.apns.offline.deliveredAfterReconnect"), few.value("provider.apns.offline.deliveredAfterReconnect"))
        let n = many.value(a + "accepted"), p = 0.5
        XCTAssertEqual(many.value("provider.fcm.offline.stored") / n, p, accuracy: 5 * (p * (1 - p) / n).squareRoot())
        // One push per device: nothing is replaced or dropped.
        XCTAssertEqual(many.value(a + "collapsed") + many.value(a + "droppedTooManyPendingMessages"), 0)
        XCTAssertEqual(many.value("provider.apns.offline.coalesced"), 0)
    }

    /// Back after the horizon: the stored messages stay pending in the Data API and are not
    /// delivered (counted when stored).
    func testOfflinePastTheHorizonStaysPending() throws {
        var c = offlineWorld(share: 1)
        c.providers?.offline?.durationSeconds = .constant(value: 7_200)
        let r = try simulate(c, seed: 2)
        assertDataApiPartition(r)
        XCTAssertEqual(r.value("provider.fcm.dataApi.delivered"), 0)
        XCTAssertEqual(r.value("provider.fcm.dataApi.pending"), r.value("provider.fcm.dataApi.accepted"))
        XCTAssertEqual(Double(r.outcomes.notDelivered), Double(r.pushesTargeted))
    }

    /// Eight campaigns of 16 carousel parts to every device, all offline: 128 non-collapsible
    /// messages per Android device, so FCM drops the first 101 (its 100-pending limit) and keeps
    /// 27 until the reconnect; collapsible, it keeps the newest alone and nothing is dropped.
    func testOverOneHundredPendingMessagesAreDroppedAndCollapsibleOnesCollapse() throws {
        var c = offlineWorld(devices: 200, share: 1)
        c.population.iosShare = 0
        var campaign = c.campaigns[0]
        campaign.assets = (0..<16).map { AssetConfig(name: "a\($0)") }
        campaign.iosPush = .silent
        campaign.carouselIntervalSeconds = 1
        campaign.sendRatePerMinute = 600_000
        campaign.providerQuotaPerMinute = 600_000
        c.campaigns = (0..<8).map { i in
            var k = campaign
            k.name = "c\(i)"
            k.sendStartSeconds = 300 + Double(i) * 60
            return k
        }
        let r = try simulate(c, seed: 3)
        assertDataApiPartition(r)
        let a = "provider.fcm.dataApi."
        let devices = r.value(a + "accepted") / 128
        XCTAssertEqual(devices, 200, "every device got its 128 messages")
        XCTAssertEqual(r.value(a + "droppedTooManyPendingMessages"), 101 * devices)
        XCTAssertEqual(r.value(a + "collapsed"), 0)
        XCTAssertEqual(r.value(a + "delivered") + r.value(a + "pending") + r.value(a + "ttlExpired"), 27 * devices)

        for i in c.campaigns.indices { c.campaigns[i].collapsible = true }
        // FCM's collapsible burst (20 a device by default) would hold most of the 128 past the
        // reconnect (DeviceCapsTests); here only the storage rule is under test.
        c.providers?.fcm.collapsibleBurstMessages = 128
        let collapsible = try simulate(c, seed: 3)
        assertDataApiPartition(collapsible)
        XCTAssertEqual(collapsible.value(a + "droppedTooManyPendingMessages"), 0)
        XCTAssertEqual(collapsible.value(a + "collapsed"), 127 * devices, "the newest of 128 kept")
        XCTAssertEqual(collapsible.value(a + "delayedDeviceOffline") + collapsible.value(a + "pending")
                       + collapsible.value(a + "ttlExpired") + collapsible.value(a + "delayedDeviceDoze"), devices)
    }

    /// Collapse keys in the offline store: six collapsible campaigns, one push each, to every
    /// Android device, all offline until after the sends, with keys k0, k1, k2, k3, k4, k4. The
    /// fifth key (k4) finds four stored and drops the oldest (k0: FCM keeps four keys, which ones
    /// undocumented); the second k4 replaces the first. So 2 collapsed a device (1 by the key
    /// limit) and 4 handed over at the reconnect. With no `collapseKey` (the app's one key) the
    /// newest alone is kept, as before, and the key-limit metric is not emitted.
    func testCollapseKeysReplaceTheirOwnAndFcmKeepsFourKeys() throws {
        var c = offlineWorld(devices: 200, share: 1)
        c.population.iosShare = 0
        let keys = ["k0", "k1", "k2", "k3", "k4", "k4"]
        c.campaigns = keys.indices.map { i in
            var k = c.campaigns[0]
            k.name = "c\(i)"
            k.sendStartSeconds = 300 + Double(i) * 60
            k.collapsible = true
            return k
        }
        let one = try simulate(c, seed: 9)
        assertDataApiPartition(one)
        let a = "provider.fcm.dataApi."
        let devices = one.value(a + "accepted") / 6
        XCTAssertGreaterThan(devices, 100)
        XCTAssertEqual(one.value(a + "collapsed"), 5 * devices, "one key: the newest of six kept")
        XCTAssertNil(one.metric("provider.fcm.offline.collapseKeyLimitDropped"))
        XCTAssertFalse(try OfflineState(c).keyed)
        for i in keys.indices { c.campaigns[i].collapseKey = keys[i] }
        XCTAssertEqual(try OfflineState(c).keySlots.count, 200)
        let keyed = try simulate(c, seed: 9)
        assertDataApiPartition(keyed)
        XCTAssertEqual(keyed.value(a + "accepted"), 6 * devices)
        XCTAssertEqual(keyed.value(a + "collapsed"), 2 * devices)
        XCTAssertEqual(keyed.value("provider.fcm.offline.collapseKeyLimitDropped"), devices)
        XCTAssertEqual(keyed.value(a + "delayedDeviceOffline") + keyed.value(a + "pending") + keyed.value(a + "ttlExpired")
                       + keyed.value(a + "delayedDeviceDoze"), 4 * devices)
        XCTAssertEqual(PerDeviceStateBytes.collapseKeySlots, 8)
    }

    /// The lanes of `CollapseSlots`: appended youngest last, removed with the younger moving down.
    func testCollapseSlotsKeepOrder() {
        var s = CollapseSlots()
        for id: UInt16 in [5, 6, 7, 8] { s.append(id) }
        XCTAssertEqual(s.count, 4)
        s.remove(1)
        XCTAssertEqual((0..<3).map { s.lane($0) }, [5, 7, 8])
        XCTAssertEqual(s.count, 3)
        s.remove(0)
        s.append(9)
        XCTAssertEqual((0..<3).map { s.lane($0) }, [7, 8, 9])
        s.remove(2)
        XCTAssertEqual(s.count, 2)
        XCTAssertEqual(s.lane(of: 8), 1)
        XCTAssertNil(s.lane(of: 9))
    }

    /// APNs keeps one notification per app per offline device: three campaigns to every iOS
    /// device, all offline, give two coalesced and one handed over at the reconnect per device.
    func testApnsCoalescingKeepsOne() throws {
        var c = offlineWorld(devices: 300, share: 1)
        c.population.iosShare = 1
        c.campaigns = (0..<3).map { i in
            var k = c.campaigns[0]
            k.name = "c\(i)"
            k.sendStartSeconds = 300 + Double(i) * 120
            return k
        }
        let r = try simulate(c, seed: 5)
        XCTAssertEqual(r.outcomes.total, r.pushesTargeted)
        let stored = r.value("provider.apns.offline.stored")
        XCTAssertEqual(stored, r.value("provider.apns.messages"), "every device offline at the send")
        let devices = stored / 3
        XCTAssertEqual(r.value("provider.apns.offline.coalesced"), 2 * devices)
        XCTAssertEqual(r.value("provider.apns.offline.deliveredAfterReconnect"), devices)
        XCTAssertEqual(r.value("provider.fcm.dataApi.accepted"), 0, "no Android device")
    }

    /// A stored message older than its TTL at the reconnect is expired, not delivered.
    func testStoredPastTheTtlExpires() throws {
        var c = offlineWorld(share: 1)
        c.campaigns[0].messageTtlSeconds = 600
        let r = try simulate(c, seed: 6)
        assertDataApiPartition(r)
        XCTAssertEqual(r.value("provider.fcm.dataApi.delayedDeviceOffline"), 0)
        XCTAssertEqual(r.value("provider.apns.offline.deliveredAfterReconnect"), 0)
        XCTAssertEqual(r.value("provider.offline.expiredInStore"), r.value("provider.fcm.offline.stored") + r.value("provider.apns.offline.stored"))
    }

    /// FCM's inactive devices: accepted, then dropped (`droppedDeviceInactive`), near the share of
    /// the accepted messages (binomial, 5 standard deviations as above); iOS is not affected.
    func testInactiveDevicesAreDropped() throws {
        var c = offlineWorld(share: 0)
        c.providers?.offline = nil
        c.providers?.fcm.inactiveShare = 0.2
        let r = try simulate(c, seed: 7)
        assertDataApiPartition(r)
        let n = r.value("provider.fcm.dataApi.accepted"), p = 0.2
        XCTAssertEqual(r.value("provider.fcm.dataApi.droppedDeviceInactive") / n, p, accuracy: 5 * (p * (1 - p) / n).squareRoot())
        XCTAssertEqual(r.value("provider.apns.offline.stored"), 0)
    }

    /// A seeded SplitMix64, so the randomized worlds below are the same on every run.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// Randomized worlds (drawn from a fixed seed): whatever the shares, windows, collapsibility
    /// and campaigns, the Data API categories partition the accepted messages, the delays
    /// (throttled by the collapsible burst among them) partition the delivered ones, and every
    /// push lands in one outcome.
    func testPartitionHoldsOnRandomizedWorlds() throws {
        var rng = SplitMix(state: 20_261_204)
        var used: [String: Double] = [:]
        for trial in 0..<3 {
            let seed = UInt64.random(in: 1...1_000_000, using: &rng)
            var c = offlineWorld(devices: 1_500, share: Double.random(in: 0...1, using: &rng))
            c.providers?.fcm.inactiveShare = Double.random(in: 0...0.3, using: &rng)
            c.providers?.offline?.startSpreadSeconds = Double.random(in: 0...1_800, using: &rng)
            c.providers?.offline?.durationSeconds = .uniform(lower: 60, upper: Double.random(in: 600...5_000, using: &rng))
            c.campaigns[0].androidPriority = Bool.random(using: &rng) ? .high : .normal
            c.campaigns[0].messageTtlSeconds = Double.random(in: 300...3_600, using: &rng)
            var second = c.campaigns[0]
            second.name = "second"
            second.collapsible = Bool.random(using: &rng)
            second.sendStartSeconds = Double.random(in: 300...2_000, using: &rng)
            c.campaigns.append(second)
            // Collapsible carousels under up to six collapse keys, over a small burst: held
            // messages replaced, stored ones replaced or dropped by the four-key limit.
            for k in 0..<Int.random(in: 3...6, using: &rng) {
                var burst = c.campaigns[0]
                burst.name = "burst\(k)"
                burst.collapsible = true
                burst.collapseKey = "key\(Int.random(in: 0..<6, using: &rng))"
                burst.assets = (0..<4).map { AssetConfig(name: "a\($0)") }
                burst.iosPush = .silent
                burst.carouselIntervalSeconds = Double.random(in: 1...30, using: &rng)
                burst.sendStartSeconds = Double.random(in: 300...2_000, using: &rng)
                c.campaigns.append(burst)
            }
            c.providers?.fcm.collapsibleBurstMessages = Int64.random(in: 2...6, using: &rng)
            let r = try simulate(c, seed: seed)
            assertDataApiPartition(r)
            XCTAssertEqual(r.outcomes.total, r.pushesTargeted, "trial \(trial) seed \(seed)")
            for name in ["delayedDeviceOffline", "droppedDeviceInactive", "pending", "collapsed"] { used[name, default: 0] += r.value("provider.fcm.dataApi." + name) }
            used["coalesced", default: 0] += r.value("provider.apns.offline.coalesced")
            used["collapsedWhileHeld", default: 0] += r.metric("provider.fcm.collapsibleCollapsedWhileHeld") ?? 0
            used["collapseKeyLimitDropped", default: 0] += r.metric("provider.fcm.offline.collapseKeyLimitDropped") ?? 0
            used["delayedMessageThrottled", default: 0] += r.metric("provider.fcm.dataApi.delayedMessageThrottled") ?? 0
        }
        // Not vacuous: the trials exercised the offline paths.
        for (name, total) in used { XCTAssertGreaterThan(total, 0, name) }
    }

    /// Off (no `providers.offline`, no inactive share): no store is allocated and nothing new is
    /// emitted. The store is one 8-byte slot a device when on.
    func testOffCostsNothingAndTheSlotIsEightBytes() throws {
        var c = offlineWorld()
        c.providers?.offline = nil
        let r = try simulate(c, seed: 1)
        XCTAssertNil(r.metric("provider.fcm.dataApi.delayedDeviceOffline"))
        XCTAssertNil(r.metric("provider.apns.offline.stored"))
        XCTAssertTrue(try OfflineState(c).slots.isEmpty)
        XCTAssertFalse(try OfflineState(c).enabled)
        XCTAssertEqual(try OfflineState(offlineWorld(devices: 1_000)).slots.count, 1_000)
        XCTAssertEqual(PerDeviceStateBytes.offlineStore, 8)
    }

    /// `validate` warns when an offline Android device can be sent more than FCM's 100 pending
    /// non-collapsible messages (8 campaigns × 16 parts = 128), and not when they are collapsible
    /// or without offline windows.
    func testValidateWarnsAboveOneHundredNonCollapsibleMessagesPerDevice() {
        var c = offlineWorld(devices: 100, share: 1)
        var campaign = c.campaigns[0]
        campaign.assets = (0..<16).map { AssetConfig(name: "a\($0)") }
        campaign.carouselIntervalSeconds = 1
        c.campaigns = (0..<8).map { i in
            var k = campaign
            k.name = "c\(i)"
            return k
        }
        XCTAssertEqual(c.nonCollapsibleFcmMessagesPerDeviceMax, 128)
        XCTAssertTrue(c.providerLimitWarnings().contains { $0.contains("up to 128 non-collapsible FCM messages") }, "\(c.providerLimitWarnings())")
        var collapsible = c
        for i in collapsible.campaigns.indices { collapsible.campaigns[i].collapsible = true }
        XCTAssertFalse(collapsible.providerLimitWarnings().contains { $0.contains("non-collapsible") })
        c.providers?.offline = nil
        XCTAssertFalse(c.providerLimitWarnings().contains { $0.contains("non-collapsible") })
    }

    /// Campaigns routed through one provider for every device (`provider: apns` reaches Android
    /// too; `provider: fcm` relays iOS to APNs): the stores follow the device's platform and
    /// FCM's Data API sees only Android through FCM; nothing traps, every push in one outcome.
    func testRoutesThroughOneProviderKeepTheIdentities() throws {
        var c = offlineWorld(devices: 1_000, share: 1)
        c.campaigns = [CampaignProviderConfig.apns, .fcm, .apns].enumerated().map { i, route in
            var k = c.campaigns[0]
            k.name = "c\(i)"
            k.provider = route
            k.collapsible = i == 1
            k.sendStartSeconds = 300 + Double(i) * 120
            return k
        }
        let r = try simulate(c, seed: 8)
        assertDataApiPartition(r)
        XCTAssertGreaterThan(r.value("provider.fcm.dataApi.delayedDeviceOffline"), 0)
        XCTAssertGreaterThan(r.value("provider.apns.offline.coalesced"), 0)
    }
}
