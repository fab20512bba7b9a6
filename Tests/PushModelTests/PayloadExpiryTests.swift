import Foundation
import PreloadKit
import XCTest
@testable import PushModel

/// The simulated campaign service signs each push with `exp` (first send + payload lifetime)
/// and `campaign_id`; every delivery checks the expiry with PreloadKit, and an expired push
/// fetches nothing (`outcomes.payloadExpired`).
final class PayloadExpiryTests: XCTestCase {
    /// The signed payload carries exp = send start + lifetime and the campaign id; PreloadKit
    /// accepts it up to its clock-skew tolerance after exp and refuses it one second later.
    func testExpiryIsSignedAndCheckedAtDelivery() throws {
        var campaign = CampaignConfig()
        campaign.name = "spring"
        campaign.sendStartSeconds = 300
        campaign.payloadLifetimeSeconds = 120
        let plans = try CampaignPlans(campaigns: [campaign])
        let request = plans.requests[0][0]
        XCTAssertEqual(request.expiresAt, Instant(microseconds: 420_000_000))
        XCTAssertEqual(request.campaignID, "spring")
        let tolerance = plans.payloadOptions.expiryClockSkewToleranceSeconds
        XCTAssertTrue(plans.payloadUsable(campaign: 0, part: 0, wave: 0, now: (420 + tolerance) * 1_000_000))
        XCTAssertFalse(plans.payloadUsable(campaign: 0, part: 0, wave: 0, now: (421 + tolerance) * 1_000_000))
        campaign.payloadLifetimeSeconds = nil
        XCTAssertEqual(try CampaignPlans(campaigns: [campaign]).requests[0][0].expiresAt,
                       Instant(microseconds: (300 + 86_400) * 1_000_000), "default: the message TTL")
    }

    /// Android devices in deep Doze get a normal-priority push at their next maintenance
    /// window, minutes to hours after the send: with a 2-minute payload lifetime most arrive
    /// after it and are refused (nothing fetched); with the default lifetime (the 24 h message
    /// TTL) none is.
    func testAPushDeliveredAfterItsLifetimeIsRefused() throws {
        let seed: UInt64 = 31
        var c = smallWorld(devices: 1_000)
        c.population.iosShare = 0
        c.population.doze.awake = 0
        c.population.doze.lightDoze = 0
        c.population.doze.deepDoze = 1
        c.campaigns[0].androidPriority = .normal
        c.campaigns[0].payloadLifetimeSeconds = 120
        let short = try simulate(c, seed: seed)
        XCTAssertEqual(short.outcomes.total, short.pushesTargeted, "seed \(seed)")
        XCTAssertGreaterThan(short.outcomes.payloadExpired, 0, "seed \(seed)")
        XCTAssertEqual(short.value("outcomes.payloadExpiredShare"), Double(short.outcomes.payloadExpired) / Double(short.pushesTargeted))
        c.campaigns[0].payloadLifetimeSeconds = nil
        let long = try simulate(c, seed: seed)
        XCTAssertEqual(long.outcomes.payloadExpired, 0, "seed \(seed)")
        XCTAssertGreaterThan(long.value("extension.fetchesStarted"), short.value("extension.fetchesStarted"),
                             "expired pushes fetch nothing (seed \(seed))")
    }
}
