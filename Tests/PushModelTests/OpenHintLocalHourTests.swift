import Foundation
import InfraModel
import XCTest
@testable import PushModel

/// `users.openHint`'s time-of-day term reads the hour on each region's local clock, at the instant
/// the campaign sends to that region (its wave's, with a calendar).
final class OpenHintLocalHourTests: XCTestCase {
    /// Two regions, UTC and UTC+12, one PoP each; the UTC clock reads 19:55 at t = 0 and the
    /// campaign sends at 300 s (20:00 UTC, 08:00 the next day at UTC+12). No spread between users
    /// and no hint noise, so a user's probability is logistic(logit(p_segment) + h) exactly.
    func twoZones() -> PushWorldConfig {
        var c = oneAssetWorld(devices: 2_000)
        c.infra.topology = TopologyConfig(popCount: 2, shieldCount: 1, regions: [RegionConfig(popIndex: 0), RegionConfig(popIndex: 1)])
        c.infra.topology.regionNames = ["london", "auckland"]
        c.infra.topology.regions[1].utcOffsetSeconds = 12 * 3_600
        c.population.dozeNight.clockAtStartSeconds = 20 * 3_600 - 300
        var hint = OpenHintConfig()
        hint.noiseSdLogit = 0
        hint.userSdLogit = 0
        c.users.openHint = hint
        return c
    }

    /// Each device's probability, by region.
    func probabilities(_ c: PushWorldConfig) throws -> [[Double]] {
        let population = try Population(config: c, runSeed: 11)
        var byRegion: [[Double]] = [[], []]
        for d in 0..<c.population.devices {
            let id = DeviceID(rawValue: UInt32(d))
            let a = population.device(id)
            let u = population.user(id, campaign: CampaignID(rawValue: 0), audienceShare: 1, isIOS: a.isIOS, segment: a.segment)
            let base = a.isIOS ? c.users.segments[a.segment].iosOpenProbability : c.users.segments[a.segment].androidOpenProbability
            // Back to the logit scale, less the segment's: the time-of-day term alone.
            byRegion[population.region(of: id)].append(OpenHintModel.logit(u.openProbability) - OpenHintModel.logit(base))
        }
        return byRegion
    }

    /// 20:00 local in London is the evening peak (+0.5); the same instant is 08:00 in Auckland,
    /// the trough (−0.5). With the UTC clock alone both would read +0.5.
    func testTheHourIsEachRegionsLocalHour() throws {
        let h = try probabilities(twoZones())
        XCTAssertGreaterThan(h[0].count, 500)
        XCTAssertGreaterThan(h[1].count, 500)
        for x in h[0] { XCTAssertEqual(x, 0.5, accuracy: 1e-6) }
        for x in h[1] { XCTAssertEqual(x, -0.5, accuracy: 1e-6) }
    }

    /// Sent at 20:00 local in each region (two waves twelve hours apart), both regions open at
    /// the evening peak.
    func testAWaveAtLocalTimeReadsItsOwnHour() throws {
        var c = twoZones()
        c.horizonSeconds = 14 * 3_600
        c.infra.metricsHorizonSeconds = 14 * 3_600
        c.campaigns[0].sendAtLocalSeconds = 20 * 3_600
        c.campaigns[0].sendStartSeconds = 0
        XCTAssertEqual(CalendarRules.waves(c, campaign: 0).startSeconds.count, 2)
        let h = try probabilities(c)
        for x in h[0] + h[1] { XCTAssertEqual(x, 0.5, accuracy: 1e-6) }
    }
}
