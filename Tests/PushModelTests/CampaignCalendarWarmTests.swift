import Foundation
import InfraModel
import SimKernel
import XCTest
@testable import PushModel

/// A campaign sent at a local time warms before each of its waves, not once before the first.
final class CampaignCalendarWarmTests: XCTestCase {
    /// Three regions ("east", "central", "west") at UTC+1, UTC and UTC−5, one PoP each, the UTC
    /// clock at 07:30 at t = 0: a campaign at 09:00 local sends waves at 1 800 s, 5 400 s and
    /// 23 400 s, each to its own PoP. Its one image may stay 1 800 s at the edge (no
    /// stale-while-revalidate), so a copy warmed for the first wave has expired by the second.
    func wavesWorld(devices: Int = 1_500) -> PushWorldConfig {
        var c = oneAssetWorld(devices: devices)
        placeInThreeTimeZones(&c, clockAtStartSeconds: 7.5 * 3_600)
        c.campaigns[0].sendAtLocalSeconds = 9 * 3_600
        c.campaigns[0].sendStartSeconds = 0
        c.campaigns[0].sendRatePerMinute = 600_000
        c.campaigns[0].providerQuotaPerMinute = 600_000
        c.campaigns[0].cacheControl = CacheControlConfig(maxAgeSeconds: 1_800, staleWhileRevalidateSeconds: 0)
        c.campaigns[0].warm = WarmConfig(mode: .allPops, aheadSeconds: 300)
        return c
    }

    /// One warm call per wave, `aheadSeconds` before it, in the simulation and in what reports
    /// are told; never before t = 0.
    func testAWarmCallBeforeEachWave() throws {
        let c = wavesWorld()
        XCTAssertEqual(CalendarRules.waves(c, campaign: 0).startSeconds, [1_800, 5_400, 23_400])
        XCTAssertEqual(CalendarRules.warmCallSeconds(c, campaign: 0), [1_500, 5_100, 23_100])
        let world = try PushWorld(config: c, masterSeed: 3, replication: 0, progressSink: nil)
        XCTAssertEqual(world.warmCallTicks(0), [1_500_000_000, 5_100_000_000, 23_100_000_000])
        // Every PoP receives a warm request for every warmed object at each of the three calls.
        let r = try simulate(c, seed: 3)
        let perCall = UInt64(c.infra.topology.popCount * world.plans.warmObjects[0].count)
        XCTAssertGreaterThan(perCall, 0)
        XCTAssertEqual(r.tier(.edge)?.warmRequests, 3 * perCall)
        var early = c
        early.population.dozeNight.clockAtStartSeconds = 8 * 3_600
        XCTAssertEqual(CalendarRules.warmCallSeconds(early, campaign: 0), [0, 3_300, 21_300])
    }

    /// The waves after the first find their PoP warm: no pre-stage request misses at the edge. (With
    /// one warm call before the first wave only, each later wave's PoP holds a copy expired 1 800 s
    /// after it was warmed, and its first requests miss.)
    func testLaterWavesFindTheirPoPWarm() throws {
        let r = try simulate(wavesWorld(), seed: 3)
        XCTAssertGreaterThan(r.prestage.requests, 1_000)
        XCTAssertEqual(r.prestage.misses, 0)
    }

    /// A campaign without a calendar keeps its one warm call before `sendStartSeconds`.
    func testWithoutACalendarOneWarmCall() throws {
        var c = oneAssetWorld()
        c.campaigns[0].warm = WarmConfig(mode: .allPops, aheadSeconds: 120)
        XCTAssertEqual(CalendarRules.warmCallSeconds(c, campaign: 0), [180])
        let world = try PushWorld(config: c, masterSeed: 3, replication: 0, progressSink: nil)
        XCTAssertEqual(world.warmCallTicks(0), [c.campaigns[0].timing.warmTicks])
        c.campaigns[0].warm.mode = .none
        XCTAssertEqual(CalendarRules.warmCallSeconds(c, campaign: 0), [])
    }
}
