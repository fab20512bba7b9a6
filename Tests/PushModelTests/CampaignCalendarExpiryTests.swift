import Foundation
import PreloadKit
import XCTest
@testable import PushModel

/// Each calendar wave is signed when it is sent: its pushes carry `exp` = the wave's own start
/// + the payload lifetime, so a wave hours after the first is not refused as expired.
final class CampaignCalendarExpiryTests: XCTestCase {
    /// Three regions at UTC+1, UTC and UTC−5, the UTC clock at 08:00 at t = 0, a campaign at
    /// 09:00 local (waves at 0, 1 h and 6 h) whose signed payload lives 10 minutes; pushes arrive
    /// 1 s after their send.
    func world(devices: Int = 900) -> PushWorldConfig {
        var c = nineAmLocalWorld(devices: devices, deliveryLatencySeconds: 1)
        c.campaigns[0].payloadLifetimeSeconds = 600
        // No Doze: a deferral would hold a push past a lifetime this short in any wave.
        c.population.doze.awake = 1
        c.population.doze.lightDoze = 0
        c.population.doze.deepDoze = 0
        return c
    }

    /// Wave k's push is usable up to its own start + lifetime + PreloadKit's clock-skew
    /// tolerance and refused one second later; the first wave's push is long expired then.
    func testEachWaveExpiresALifetimeAfterItsOwnStart() throws {
        let c = world()
        XCTAssertEqual(CalendarRules.waves(c, campaign: 0).startSeconds, [0, 3_600, 21_600])
        let plans = try PushWorld(config: c, masterSeed: 1, replication: 0, progressSink: nil).plans
        let tolerance = plans.payloadOptions.expiryClockSkewToleranceSeconds
        for (wave, start) in [0, 3_600, 21_600].enumerated() {
            let last = Int64(start + 600) + tolerance
            XCTAssertTrue(plans.payloadUsable(campaign: 0, part: 0, wave: wave, now: last * 1_000_000), "wave \(wave)")
            XCTAssertFalse(plans.payloadUsable(campaign: 0, part: 0, wave: wave, now: (last + 1) * 1_000_000), "wave \(wave)")
        }
        XCTAssertFalse(plans.payloadUsable(campaign: 0, part: 0, wave: 0, now: 3_600 * 1_000_000))
    }

    /// Run end to end: every wave's pushes reach their handlers within their lifetime, so none
    /// is refused as expired and every region pre-stages (signed from the first send, the
    /// second and third waves would all be refused).
    func testLaterWavesArePreStagedNotRefused() throws {
        let c = world()
        let r = try simulate(c, seed: 11)
        XCTAssertEqual(r.outcomes.total, r.pushesTargeted, "every push in one outcome")
        XCTAssertEqual(r.outcomes.payloadExpired, 0, "seed 11")
        XCTAssertEqual(r.value("outcomes.payloadExpiredShare"), 0)
        XCTAssertGreaterThan(r.value("extension.fetchesStarted"), 0.9 * Double(r.pushesTargeted), "seed 11")
        // A lifetime shorter than the delivery latency still expires every wave's pushes: the
        // check runs in each wave, not only in the first.
        var late = c
        late.campaigns[0].deliveryLatencySeconds = .constant(value: 700 + 60)
        let expired = try simulate(late, seed: 11)
        XCTAssertEqual(expired.outcomes.payloadExpired, expired.pushesTargeted, "seed 11")
    }
}
