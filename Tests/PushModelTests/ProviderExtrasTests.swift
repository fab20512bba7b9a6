import Foundation
import XCTest
@testable import PushModel

/// Stale tokens, per-provider delivery latency and the FCM Data API's categories.
final class ProviderExtrasTests: XCTestCase {
    /// `devices` devices (30 % iOS), one default campaign routed by platform, `providers` at its
    /// defaults (the quota does not bind: 600 000/min against a few thousand pushes).
    func providerWorld(devices: Int = 4_000) -> PushWorldConfig {
        var c = smallWorld(devices: devices)
        c.population.iosShare = 0.3
        c.providers = ProvidersConfig()
        return c
    }

    /// A stale token costs the send (the provider counts the request) and lands the push in
    /// `notDelivered`, nothing else: the same seed without stale tokens differs in `notDelivered`
    /// by exactly the unregistered count. The share drawn is the configured one: the FCM count
    /// over FCM's messages is a binomial proportion, within 5 standard deviations
    /// (√(p(1−p)/n), n ≈ 2 800) of p = 0.2 (a false failure has probability < 10⁻⁶).
    func testStaleTokensAreSentAndNotDelivered() throws {
        let fresh = try simulate(providerWorld(), seed: 11)
        var c = providerWorld()
        c.providers?.fcm.unregisteredShare = 0.2
        c.providers?.apns.unregisteredShare = 0.1
        let stale = try simulate(c, seed: 11)
        let fcm = stale.value("provider.fcm.unregistered"), apns = stale.value("provider.apns.unregistered")
        XCTAssertGreaterThan(fcm, 0)
        XCTAssertGreaterThan(apns, 0)
        XCTAssertNil(fresh.metric("provider.fcm.unregistered"), "no stale tokens: the counts are not emitted")
        XCTAssertEqual(stale.value("provider.fcm.messages"), fresh.value("provider.fcm.messages"), "the 404s took the quota")
        XCTAssertEqual(stale.value("provider.apns.messages"), fresh.value("provider.apns.messages"))
        XCTAssertEqual(stale.pushesTargeted, fresh.pushesTargeted)
        XCTAssertEqual(stale.outcomes.total, stale.pushesTargeted, "every push in exactly one outcome")
        XCTAssertEqual(Double(stale.outcomes.notDelivered) - Double(fresh.outcomes.notDelivered), fcm + apns)
        XCTAssertGreaterThan(stale.value("outcomes.notDeliveredShare"), fresh.value("outcomes.notDeliveredShare"))
        let n = stale.value("provider.fcm.messages"), p = 0.2
        XCTAssertEqual(fcm / n, p, accuracy: 5 * (p * (1 - p) / n).squareRoot())
        // Stale tokens are not FCM Data API messages (FCM refused them with 404).
        XCTAssertEqual(stale.value("provider.fcm.dataApi.accepted"), n - fcm)
    }

    /// A device's token is stale for every campaign alike (drawn per device, not per push): two
    /// campaigns to the whole audience meet exactly twice one campaign's 404s.
    func testATokenIsStaleForEveryCampaign() throws {
        var one = providerWorld(devices: 2_000)
        one.providers?.fcm.unregisteredShare = 0.3
        var two = one
        two.campaigns.append(two.campaigns[0])
        two.campaigns[1].name = "second"
        two.campaigns[1].sendStartSeconds = 900
        let a = try simulate(one, seed: 4), b = try simulate(two, seed: 4)
        XCTAssertGreaterThan(a.value("provider.fcm.unregistered"), 0)
        XCTAssertEqual(b.value("provider.fcm.unregistered"), 2 * a.value("provider.fcm.unregistered"))
        XCTAssertEqual(b.value("provider.apns.unregistered"), 0)
    }

    /// A provider's latency applies to the pushes through it of a campaign at the default latency:
    /// FCM at 4 000 s (past the 1 h horizon) leaves every Android push undelivered and no iOS push;
    /// a campaign with its own latency keeps it, whatever the provider's.
    func testProviderLatencyAppliesWhenTheCampaignHasNone() throws {
        var c = providerWorld(devices: 2_000)
        let base = try simulate(c, seed: 7)
        c.providers?.fcm.deliveryLatencySeconds = .constant(value: 4_000)
        let slowFcm = try simulate(c, seed: 7)
        let android = slowFcm.value("provider.fcm.messages")
        XCTAssertGreaterThan(android, 0)
        XCTAssertGreaterThanOrEqual(Double(slowFcm.outcomes.notDelivered), android, "every Android push arrives past the horizon")
        XCTAssertEqual(slowFcm.value("provider.fcm.dataApi.pending"), android)
        XCTAssertEqual(slowFcm.value("provider.fcm.dataApi.delivered"), 0)
        XCTAssertLessThan(Double(base.outcomes.notDelivered), android)
        // APNs at its own measured-like latency changes iOS arrivals only; the campaign's own wins.
        c.campaigns[0].deliveryLatencySeconds = .constant(value: 0.5)
        let own = try simulate(c, seed: 7)
        var ownWithout = providerWorld(devices: 2_000)
        ownWithout.campaigns[0].deliveryLatencySeconds = .constant(value: 0.5)
        XCTAssertEqual(try encoded(own), try encoded(simulate(ownWithout, seed: 7)), "the campaign's own latency wins")
    }

    /// The precedence as a table: per campaign and provider, the sampler index (campaign c's at c,
    /// FCM's then APNs' after the campaigns' when set).
    func testLatencyPrecedence() throws {
        var c = providerWorld()
        c.campaigns.append(c.campaigns[0])
        c.campaigns[1].name = "own"
        c.campaigns[1].deliveryLatencySeconds = .constant(value: 1)
        c.providers?.apns.deliveryLatencySeconds = .lognormal(mu: log(1.07) - 0.125, sigma: 0.5)
        let (samplers, byProvider) = try PushWorld.deliveryLatencies(c)
        XCTAssertEqual(samplers.count, 3)
        // Campaign 0 (default): FCM unset → its own; APNs set → APNs' (index 2). Campaign 1: its own.
        XCTAssertEqual(byProvider, [0, 2, 1, 1])
        c.providers = nil
        XCTAssertEqual(try PushWorld.deliveryLatencies(c).byProvider, [])
    }

    /// The FCM Data API's message outcomes partition the messages FCM accepted for Android devices,
    /// and the delays partition the delivered ones. Normal priority under the default Doze shares
    /// (55 % dozing) defers some; a 20-minute TTL expires some; a send ending near the horizon
    /// leaves some pending. With every device awake nothing is delayed by Doze.
    func testDataApiCategoriesPartitionTheAcceptedMessages() throws {
        var c = providerWorld(devices: 3_000)
        c.horizonSeconds = 2_400
        c.infra.metricsHorizonSeconds = 2_400
        c.campaigns[0].androidPriority = .normal
        c.campaigns[0].messageTtlSeconds = 1_200
        c.campaigns[0].sendStartSeconds = 1_800
        c.campaigns[0].sendRatePerMinute = 6_000
        c.campaigns[0].providerQuotaPerMinute = 6_000
        let r = try simulate(c, seed: 9)
        func v(_ s: String) -> Double { r.value("provider.fcm.dataApi." + s) }
        XCTAssertEqual(v("accepted"), r.value("provider.fcm.messages"), "routed by platform: every FCM message is Android's")
        XCTAssertEqual(v("accepted"), v("delivered") + v("pending") + v("ttlExpired"))
        XCTAssertEqual(v("delivered"), v("deliveredNoDelay") + v("delayedDeviceDoze"))
        for name in ["deliveredNoDelay", "delayedDeviceDoze", "pending", "ttlExpired"] { XCTAssertGreaterThan(v(name), 0, name) }
        XCTAssertEqual(r.outcomes.total, r.pushesTargeted)

        c.population.doze.awake = 1
        c.population.doze.lightDoze = 0
        c.population.doze.deepDoze = 0
        let awake = try simulate(c, seed: 9)
        XCTAssertEqual(awake.value("provider.fcm.dataApi.delayedDeviceDoze"), 0)
        XCTAssertEqual(awake.value("provider.fcm.dataApi.ttlExpired"), 0)
        XCTAssertEqual(awake.value("provider.fcm.dataApi.delivered"), awake.value("provider.fcm.dataApi.deliveredNoDelay"))
        XCTAssertGreaterThan(awake.value("provider.fcm.dataApi.deliveredNoDelay"), v("deliveredNoDelay"))
    }

    /// Campaigns routed through APNs put nothing in the Data API; through FCM, only the Android share.
    func testDataApiCountsAndroidThroughFcmOnly() throws {
        var c = providerWorld(devices: 2_000)
        c.campaigns[0].provider = .apns
        XCTAssertEqual(try simulate(c, seed: 2).value("provider.fcm.dataApi.accepted"), 0)
        c.campaigns[0].provider = .fcm
        let r = try simulate(c, seed: 2)
        XCTAssertGreaterThan(r.value("provider.fcm.messages"), r.value("provider.fcm.dataApi.accepted"), "iOS relayed through FCM is not counted")
        XCTAssertGreaterThan(r.value("provider.fcm.dataApi.accepted"), 0)
    }
}
