import Foundation
import InfraModel
import XCTest
@testable import PushModel

/// `sendOnLocalDay`: every region sends on the same local date, however far apart the offsets.
final class CampaignCalendarDayTests: XCTestCase {
    /// Berlin (UTC+1) and Los Angeles (UTC−8) with the UTC clock at 22:00 on day 0 (Thursday):
    /// Berlin is at 23:00 and Los Angeles at 14:00, both still Thursday.
    func world(local: Double, day: Int?) -> PushWorldConfig {
        var c = smallWorld(devices: 1_000)
        c.infra.topology = TopologyConfig(popCount: 2, shieldCount: 1, regions: [RegionConfig(popIndex: 0), RegionConfig(popIndex: 1)])
        c.infra.topology.regionNames = ["berlin", "los-angeles"]
        c.infra.topology.regions[0].utcOffsetSeconds = 3_600
        c.infra.topology.regions[1].utcOffsetSeconds = -8 * 3_600
        c.population.dozeNight.clockAtStartSeconds = 22 * 3_600
        c.horizonSeconds = 40 * 3_600
        c.campaigns[0].sendStartSeconds = 0
        c.campaigns[0].sendAtLocalSeconds = local
        c.campaigns[0].sendOnLocalDay = day
        c.campaigns[0].payloadLifetimeSeconds = 3 * 86_400
        return c
    }

    func testEveryRegionSendsOnTheSameLocalDate() {
        // Friday 09:00: Berlin 1 h to midnight + 9 h = 10 h; Los Angeles 10 h to midnight + 9 h = 19 h.
        XCTAssertEqual(CalendarRules.waves(world(local: 9 * 3_600, day: 1), campaign: 0).startSeconds, [36_000, 68_400])
        // Friday 21:00: Berlin at 22 h, Los Angeles at 31 h. Without a day, Los Angeles's first
        // 21:00 is Thursday's, 7 h after t = 0: the dates differ.
        XCTAssertEqual(CalendarRules.waves(world(local: 21 * 3_600, day: 1), campaign: 0).startSeconds, [79_200, 111_600])
        XCTAssertEqual(CalendarRules.waves(world(local: 21 * 3_600, day: nil), campaign: 0).startSeconds, [25_200, 79_200])
        XCTAssertEqual(CalendarRules.issues(world(local: 9 * 3_600, day: 1)), [])
    }

    func testADayBeforeTheStartIsRefused() {
        // Thursday 09:00 (day 0) has passed in both regions at t = 0.
        let issues = CalendarRules.issues(world(local: 9 * 3_600, day: 0))
        XCTAssertEqual(issues.map(\.pathText), ["campaigns[0].sendOnLocalDay"])
        var c = world(local: 9 * 3_600, day: 1)
        c.campaigns[0].sendAtLocalSeconds = nil
        XCTAssertEqual(CalendarRules.issues(c).map(\.pathText), ["campaigns[0].sendOnLocalDay"])
    }
}
