import Foundation
import XCTest
@testable import PushModel

/// FCM topic fan-out (`sendAs: topic`): one request of the project quota, then FCM's fan-out at
/// `fanOutPerSecond`, shared by the topic sends in flight.
final class FanOutTests: XCTestCase {
    /// A world whose only work is the send (every push's latency is beyond the horizon): `devices`
    /// Android devices, one topic campaign from t0 = 300 s, the project's fan-out at `perSecond`.
    func topicWorld(devices: Int, perSecond: Int64) -> PushWorldConfig {
        var c = smallWorld(devices: devices)
        c.horizonSeconds = 2_700
        c.infra.metricsHorizonSeconds = 2_700
        c.population.iosShare = 0
        c.campaigns[0].sendStartSeconds = 300
        c.campaigns[0].deliveryLatencySeconds = .constant(value: 3_000)
        c.campaigns[0].sendAs = .topic
        var p = ProvidersConfig()
        p.fcm.fanOutPerSecond = perSecond
        c.providers = p
        return c
    }

    func fanOutEnd(_ r: ReplicationResult) -> Double { r.value("provider.fcm.fanOutLastSendSeconds") - 300 }

    /// 5 M devices at 10 000/s at a 1/100 scale: 50 000 devices at 100/s is the same arithmetic
    /// (N/R = 500 s = 8.3 min). The fan-out sends device m (m = 0…N−1, in send order) at
    /// t0 + m/R exactly: each second's pass sends R devices spaced 1/R apart, and the fan-out
    /// bucket (R deep, refilled at R) holds R − 1 ≥ 1 at every take, so it never binds alone. The
    /// last send is at t0 + (N − 1)/R = 499.99 s; ± 1 ms covers the microsecond ticks.
    func testOneTopicSendFinishesAtDevicesOverTheFanOutRate() throws {
        let n = 50_000.0, rate = 100.0
        let r = try simulate(topicWorld(devices: Int(n), perSecond: Int64(rate)), seed: 3)
        XCTAssertEqual(fanOutEnd(r), (n - 1) / rate, accuracy: 1e-3)
        XCTAssertEqual(r.value("provider.fcm.fanOutMessages"), n)
        XCTAssertEqual(r.value("provider.fcm.topicRequests"), 1)
        // One message of the HTTP v1 quota for the whole send, so no 429 whatever the audience.
        XCTAssertEqual(r.value("provider.fcm.messages"), 1)
        XCTAssertEqual(r.value("provider.fcm.rejected429"), 0)
        XCTAssertEqual(r.pushesTargeted, UInt64(n))
        XCTAssertEqual(r.outcomes.total, r.pushesTargeted, "every push in exactly one outcome")
        XCTAssertEqual(r.value("provider.fcm.dataApi.accepted"), n, "Android topic messages are in the Data API")
    }

    /// Two topic sends of N each at once share the rate: together 2N messages, so both end about
    /// 2N/R after t0, twice one alone. Bounds: the bucket lets through at most C + R·t by t
    /// (C = R, one second deep), so the last send is ≥ t0 + (2N − C)/R; after the first second the
    /// two shares add up to the refill, so the bucket only loses the seconds it sat full (before
    /// the first send) and a pass may end one batch late: ≤ t0 + 2N/R + 2 s. Each gets half, so
    /// the first to finish is within the same 2 s.
    func testTwoConcurrentTopicSendsTakeTwiceAsLong() throws {
        let n = 20_000.0, rate = 100.0
        var c = topicWorld(devices: Int(n), perSecond: Int64(rate))
        let alone = try simulate(c, seed: 2)
        var second = c.campaigns[0]
        second.name = "second"
        c.campaigns.append(second)
        let both = try simulate(c, seed: 2)
        let end = fanOutEnd(both)
        XCTAssertGreaterThanOrEqual(end, (2 * n - rate) / rate - 1e-6)
        XCTAssertLessThanOrEqual(end, 2 * n / rate + 2)
        XCTAssertEqual(end / fanOutEnd(alone), 2, accuracy: 2.0 / (n / rate), "twice as long, within the 2 s of the bounds")
        XCTAssertEqual(both.value("provider.fcm.fanOutMessages"), 2 * n)
        XCTAssertEqual(both.value("provider.fcm.topicRequests"), 2)
        // Neither finishes early: the per-second series has sends in the last 2 s before the end.
        let last = Int(300 + end)
        XCTAssertGreaterThan(Double(both.series.pushesSent[last - 1]), rate / 2, "both still fanning out near the end")
    }

    /// The two share the rate equally (Firebase: "each fanout will only see half"), so neither
    /// finishes first: with pushes delivered 1 s after their send, each campaign's 99 % is
    /// delivered ≈ 0.99 · 2N/R after its first send (198 s for N = 10 000 at R = 100), where a
    /// first-come split would deliver the first campaign's 99 % at 0.99 · N/R = 99 s. ± 3 s: the
    /// 1 s latency, the one-second batches and the first second, which the first campaign has
    /// alone.
    func testConcurrentFanOutsShareTheRateEqually() throws {
        let n = 10_000.0, rate = 100.0
        var c = topicWorld(devices: Int(n), perSecond: Int64(rate))
        c.campaigns[0].deliveryLatencySeconds = .constant(value: 1)
        c.campaigns[0].preStage = false
        var second = c.campaigns[0]
        second.name = "second"
        c.campaigns.append(second)
        let r = try simulate(c, seed: 12)
        for name in ["campaign", "second"] {
            XCTAssertEqual(r.value("campaign:\(name)/delivery.secondsTo99Percent"), 0.99 * 2 * n / rate, accuracy: 3, name)
        }
    }

    /// Per-token sends of the same audience at a sender rate above the fan-out rate take the
    /// project's HTTP v1 quota per device; the topic send takes one message and is paced by the
    /// fan-out instead (the metric moves the expected way: later for a slower fan-out).
    func testFanOutRateMovesTheEnd() throws {
        let slow = try simulate(topicWorld(devices: 10_000, perSecond: 50), seed: 4)
        let fast = try simulate(topicWorld(devices: 10_000, perSecond: 200), seed: 4)
        XCTAssertEqual(fanOutEnd(slow), 9_999 / 50.0, accuracy: 1e-3)
        XCTAssertEqual(fanOutEnd(fast), 9_999 / 200.0, accuracy: 1e-3)
        var tokens = topicWorld(devices: 10_000, perSecond: 50)
        tokens.campaigns[0].sendAs = .tokens
        tokens.campaigns[0].provider = .fcm
        let perToken = try simulate(tokens, seed: 4)
        XCTAssertEqual(perToken.value("provider.fcm.messages"), 10_000)
        XCTAssertNil(perToken.metric("provider.fcm.fanOutMessages"), "no topic campaign, no fan-out metrics")
    }

    /// The topic request goes through the project like any send: refused with a 5xx during an FCM
    /// outage, it is retried after the backoff (60 s, stretched by ≤ 20 % jitter), so the fan-out
    /// starts after the outage and ends (N − 1)/R after that start.
    func testTopicRequestRetriedAfterAnOutage() throws {
        var c = topicWorld(devices: 5_000, perSecond: 100)
        c.providers?.outages = [ProviderOutageConfig(provider: .fcm, startSeconds: 290, durationSeconds: 30)]
        let r = try simulate(c, seed: 6)
        XCTAssertEqual(r.value("provider.fcm.outageRefused"), 1)
        XCTAssertEqual(r.value("provider.fcm.topicRequests"), 1)
        // Retried at 300 + 60·(1 + 0.2u) s, u in [0, 1): the end is 49.99 s after that.
        let end = fanOutEnd(r)
        XCTAssertGreaterThanOrEqual(end, 60 + 4_999 / 100.0 - 1e-3)
        XCTAssertLessThan(end, 72 + 4_999 / 100.0 + 1e-3)
    }

    /// Stale tokens in a topic: FCM's fan-out still sends to them (they take fan-out capacity),
    /// they count in `provider.fcm.unregistered` and are not delivered. Share 0.1 of 10 000
    /// devices: binomial sd √(10 000 · 0.09) = 30; 5 sd either side.
    func testStaleTokensInATopicAreNotDelivered() throws {
        var c = topicWorld(devices: 10_000, perSecond: 1_000)
        c.providers?.fcm.unregisteredShare = 0.1
        let r = try simulate(c, seed: 9)
        let stale = r.value("provider.fcm.unregistered")
        XCTAssertEqual(stale, 1_000, accuracy: 150)
        XCTAssertEqual(r.value("provider.fcm.fanOutMessages"), 10_000)
        XCTAssertEqual(r.value("provider.fcm.dataApi.accepted"), 10_000 - stale, "stale tokens are not accepted")
        XCTAssertEqual(r.outcomes.total, r.pushesTargeted)
    }

    /// `validate`: a fan-out that cannot finish by the horizon, and two that overlap, are named
    /// with the arithmetic (5 M at 10 000/s: 8.3 min).
    func testValidateWarnsWhenFanOutsOverlapOrOutlastTheHorizon() {
        var c = PushWorldConfig()
        c.population.devices = 5_000_000
        c.campaigns[0].sendAs = .topic
        c.providers = ProvidersConfig()
        c.horizonSeconds = 7_200
        XCTAssertEqual(c.providerLimitWarnings(), [], "5 M at 10 000/s: 8.3 min, inside the horizon, alone")
        c.horizonSeconds = 900
        let short = c.providerLimitWarnings()
        XCTAssertEqual(short, ["warning: campaign campaign cannot finish its topic fan-out by the horizon (900 s): from t = 600 s, "
                               + "5 000 000 topic messages at 10 000/s need ≥ 8.3 min."])
        c.horizonSeconds = 7_200
        var second = c.campaigns[0]
        second.name = "second"
        second.sendStartSeconds = 700
        c.campaigns.append(second)
        let overlap = c.providerLimitWarnings()
        XCTAssertEqual(overlap.count, 1, "\(overlap)")
        XCTAssertTrue(overlap[0].hasPrefix("warning: topic campaigns campaign, second fan out at once at t = 700 s"), overlap[0])
        XCTAssertTrue(overlap[0].contains("10 000 000 topic messages at 10 000/s need ≥ 16.7 min."), overlap[0])
        // Without `providers` a topic campaign is a per-token send: no fan-out warning.
        c.providers = nil
        XCTAssertTrue(c.providerLimitWarnings().allSatisfy { !$0.contains("topic") })
    }
}
