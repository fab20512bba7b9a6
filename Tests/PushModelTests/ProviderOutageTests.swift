import Foundation
import XCTest
@testable import PushModel

/// A provider's scheduled outage: every send in the window is refused with a 5xx and retried after
/// the campaign service's backoff, so the send resumes after the window; every push still lands in
/// exactly one outcome; a window that misses the send changes nothing.
final class ProviderOutageTests: XCTestCase {
    /// 3 000 Android devices through FCM from t = 300 s at 60 000/min (a 3 s send), the project's
    /// quota far above it, backoff 60 s doubling (the defaults), no jitter.
    func world(outages: [ProviderOutageConfig]) -> PushWorldConfig {
        var c = smallWorld(devices: 3_000)
        c.population.iosShare = 0
        c.campaigns[0].sendRatePerMinute = 60_000
        c.campaigns[0].provider = .fcm
        var p = ProvidersConfig()
        p.retry.jitterShare = 0
        p.outages = outages
        c.providers = p
        return c
    }

    func testAnOutageHoldsTheSendUntilTheBackoffFindsItUp() throws {
        let seed: UInt64 = 37
        let r = try simulate(world(outages: [ProviderOutageConfig(provider: .fcm, startSeconds: 290, durationSeconds: 120)]), seed: seed)
        XCTAssertGreaterThan(r.value("provider.fcm.outageRefused"), 0, "seed \(seed)")
        XCTAssertEqual(r.value("provider.apns.outageRefused"), 0, "seed \(seed)")
        // Refused at 300 s, retried after 60 s (360 s: still down), then 120 s more (480 s: up).
        XCTAssertGreaterThanOrEqual(r.value("provider.lastSendSeconds"), 480, "seed \(seed)")
        XCTAssertLessThan(r.value("provider.lastSendSeconds"), 490, "seed \(seed)")
        XCTAssertEqual(r.outcomes.total, r.pushesTargeted, "every push in exactly one outcome (seed \(seed))")
        XCTAssertEqual(r.value("provider.fcm.messages"), Double(r.pushesTargeted), "each push accepted once (seed \(seed))")

        // An APNs outage, or one after the send, refuses nothing and changes no outcome.
        let base = try simulate(world(outages: []), seed: seed)
        XCTAssertNil(base.metric(.providerFcmOutageRefused), "no outages: no outage metrics")
        for other in [ProviderOutageConfig(provider: .apns, startSeconds: 290, durationSeconds: 120),
                      ProviderOutageConfig(provider: .fcm, startSeconds: 400, durationSeconds: 600)] {
            let o = try simulate(world(outages: [other]), seed: seed)
            XCTAssertEqual(o.value("provider.fcm.outageRefused") + o.value("provider.apns.outageRefused"), 0, "\(other) seed \(seed)")
            XCTAssertEqual(o.outcomes, base.outcomes, "\(other) seed \(seed)")
            XCTAssertEqual(o.value("provider.lastSendSeconds"), base.value("provider.lastSendSeconds"), "\(other) seed \(seed)")
        }
    }
}
