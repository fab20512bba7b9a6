import Foundation
import InfraModel
import SimKernel
import XCTest
@testable import PushModel

/// The campaign calendar: regions' UTC offsets, sends at a local time (one wave per offset, one
/// shared rate), the Doze night on local time, targeting and audience rules.
final class CampaignCalendarTests: XCTestCase {
    /// Three named regions ("east", "central", "west") at UTC+1, UTC and UTC−5, one PoP each;
    /// the UTC clock reads 08:00 at t = 0; a campaign at 09:00 local with a send far faster than
    /// the audience, whose pushes arrive after the horizon (the run costs the sender alone).
    func calendarWorld(devices: Int = 3_000) -> PushWorldConfig {
        nineAmLocalWorld(devices: devices, deliveryLatencySeconds: 30_000)
    }

    /// The seconds in which pushes were sent.
    func sendSeconds(_ r: ReplicationResult) -> [Int] {
        (0..<r.series.pushesSent.horizonSeconds).filter { r.series.pushesSent[$0] > 0 }
    }

    /// 09:00 local with the UTC clock at 08:00: UTC+1 at t = 0, UTC at 1 h, UTC−5 at 6 h.
    func testWaveStartsFollowEachOffsetsLocalTime() {
        let w = CalendarRules.waves(calendarWorld(), campaign: 0)
        XCTAssertEqual(w.startSeconds, [0, 3_600, 21_600])
        XCTAssertEqual(w.waveOfRegion, [0, 1, 2])
        // Before the local time on the first day: the next day's.
        XCTAssertEqual(CalendarRules.waveStartSeconds(sendAtLocalSeconds: 7 * 3_600, utcOffsetSeconds: 0, clockAtStartSeconds: 8 * 3_600), 23 * 3_600)
        // Offsets a day apart (UTC−12 and UTC+12) send at the same instant: one wave.
        var c = calendarWorld()
        c.infra.topology.regions[0].utcOffsetSeconds = 43_200
        c.infra.topology.regions[2].utcOffsetSeconds = -43_200
        XCTAssertEqual(CalendarRules.waves(c, campaign: 0).startSeconds, [3_600, 46_800])
    }

    /// The simulation sends in exactly the waves' seconds, each region's devices in its own wave,
    /// every audience device once.
    func testSimulationSendsOneWavePerOffsetAtItsLocalTime() throws {
        let c = calendarWorld()
        let r = try simulate(c, seed: 5)
        XCTAssertEqual(sendSeconds(r), [0, 3_600, 21_600])
        XCTAssertEqual(r.pushesTargeted, UInt64(c.population.devices))
        XCTAssertEqual(r.series.pushesSent.totalCount, r.pushesTargeted)
        // Each wave carries its region's devices (counted with the run's own draws).
        let world = try PushWorld(config: c, masterSeed: 5, replication: 0, progressSink: nil)
        var perRegion = [0, 0, 0]
        for d in 0..<c.population.devices { perRegion[world.population.region(of: DeviceID(d))] += 1 }
        XCTAssertEqual([0, 3_600, 21_600].map { Int(r.series.pushesSent[$0]) }, perRegion)
    }

    /// The same waves through the push providers, every push taken from a provider once.
    func testWavesThroughTheProviders() throws {
        var c = calendarWorld()
        c.providers = ProvidersConfig()
        let r = try simulate(c, seed: 5)
        XCTAssertEqual(sendSeconds(r), [0, 3_600, 21_600])
        XCTAssertEqual(r.value("provider.fcm.messages") + r.value("provider.apns.messages"), Double(c.population.devices))
    }

    /// One send rate for the campaign: a wave still sending when the next one's local time comes
    /// holds it back. At 1 push a second, 240 devices in two regions a minute apart: never more
    /// than one push a second, and the last push leaves about 240 s after the first (two waves in
    /// parallel would end near 60 + 120 s and send 2 a second while both run).
    func testWavesQueueBehindEachOtherAtTheCampaignsRate() throws {
        var c = calendarWorld(devices: 240)
        c.infra.topology = TopologyConfig(popCount: 2, shieldCount: 1, regions: [RegionConfig(popIndex: 0), RegionConfig(popIndex: 1)])
        c.infra.topology.regions[1].utcOffsetSeconds = -60
        c.population.dozeNight.clockAtStartSeconds = 9 * 3_600 - 100
        c.campaigns[0].sendRatePerMinute = 60
        c.campaigns[0].providerQuotaPerMinute = 60
        XCTAssertEqual(CalendarRules.waves(c, campaign: 0).startSeconds, [100, 160])
        let r = try simulate(c, seed: 2)
        let seconds = sendSeconds(r)
        XCTAssertEqual(seconds.map { Int(r.series.pushesSent[$0]) }.max(), 1)
        XCTAssertEqual(seconds.first, 100)
        XCTAssertEqual(Double(seconds.last ?? 0), 100 + 239, accuracy: 2)
        XCTAssertEqual(r.pushesTargeted, 240)
    }

    /// The Doze night follows local time: a device's bedtime instant is earlier by its region's
    /// offset (east of UTC goes to bed earlier in virtual time); at offset 0 it is as before.
    func testDozeNightFollowsLocalTime() throws {
        var utc = calendarWorld(devices: 2_000)
        utc.population.iosShare = 0
        utc.population.dozeNight.deviceShare = 1
        for r in utc.infra.topology.regions.indices { utc.infra.topology.regions[r].utcOffsetSeconds = 0 }
        var local = utc
        local.infra.topology.regions[0].utcOffsetSeconds = 3_600
        local.infra.topology.regions[2].utcOffsetSeconds = -5 * 3_600
        let a = try Population(config: utc, runSeed: 9), b = try Population(config: local, runSeed: 9)
        var checked = 0
        for d in 0..<2_000 {
            let x = a.device(DeviceID(d)), y = b.device(DeviceID(d))
            XCTAssertEqual(x.region, y.region)
            guard x.doze == .night else { continue }
            let offset = Double(local.infra.topology.regions[Int(x.region)].utcOffsetSeconds)
            XCTAssertEqual(x.nightBedSeconds - y.nightBedSeconds, offset, accuracy: 1e-6)
            checked += 1
        }
        XCTAssertEqual(checked, 2_000)
        // The deferred-work window moves with it: at the UTC night's deep Doze, an east device
        // (an hour later in its night) is in the same state an hour earlier.
        let schedule = DozeSchedule(AndroidRulesConfig())
        let d = (0..<2_000).first { a.device(DeviceID($0)).region == 0 }!
        let x = a.device(DeviceID(d)), y = b.device(DeviceID(d))
        let t = x.nightBedSeconds + 4 * 3_600
        XCTAssertEqual(schedule.nextWindow(atOrAfter: t, device: x) - 3_600, schedule.nextWindow(atOrAfter: t - 3_600, device: y), accuracy: 1e-6)
    }

    /// Three campaigns over one seeded population: B disjoint from A, C nested in A. Over
    /// n = 40 000 devices no device is in A and B, every C device is in A, and each audience is
    /// its share of n within 5 binomial standard deviations (sd = √(n p (1 − p)) ≤ 100, so ±500;
    /// each device's membership is independent of the others').
    func testDisjointAudiencesNeverOverlapAndNestedIsASubset() throws {
        var c = calendarWorld(devices: 40_000)
        c.campaigns[0].sendAtLocalSeconds = nil
        var a = c.campaigns[0]; a.name = "A"; a.audienceShare = 0.5
        var b = a; b.name = "B"; b.audienceShare = 0.4; b.audience = CampaignAudienceConfig(rule: .disjointFrom, campaign: "A")
        var n = a; n.name = "C"; n.audienceShare = 0.25; n.audience = CampaignAudienceConfig(rule: .nestedIn, campaign: "A")
        c.campaigns = [a, b, n]
        let calendars = try CampaignCalendars(c)
        let population = try Population(config: c, runSeed: 4)
        var counts = [0, 0, 0], both = 0, cOutsideA = 0
        for d in 0..<40_000 {
            let m = (0..<3).map { calendars.isMember(DeviceID(d), campaign: $0, wave: -1, population: population) }
            for i in 0..<3 where m[i] { counts[i] += 1 }
            if m[0] && m[1] { both += 1 }
            if m[2] && !m[0] { cOutsideA += 1 }
        }
        XCTAssertEqual(both, 0)
        XCTAssertEqual(cOutsideA, 0)
        XCTAssertEqual(Double(counts[0]), 20_000, accuracy: 500)
        XCTAssertEqual(Double(counts[1]), 16_000, accuracy: 500)
        XCTAssertEqual(Double(counts[2]), 10_000, accuracy: 500)
        // Independent audiences of the same shares do overlap (about 0.5 × 0.4 n = 8 000).
        c.campaigns[1].audience = CampaignAudienceConfig()
        let independent = try CampaignCalendars(c)
        let overlap = (0..<40_000).filter { d in
            independent.isMember(DeviceID(d), campaign: 0, wave: -1, population: population)
                && independent.isMember(DeviceID(d), campaign: 1, wave: -1, population: population)
        }.count
        XCTAssertEqual(Double(overlap), 8_000, accuracy: 500)
    }

    /// The run sends to exactly the rule's audiences: targeted pushes are the members counted.
    func testSimulationSendsToTheRulesAudiences() throws {
        var c = calendarWorld(devices: 4_000)
        var b = c.campaigns[0]
        c.campaigns[0].name = "A"; c.campaigns[0].audienceShare = 0.6
        b.name = "B"; b.audienceShare = 0.3; b.audience = CampaignAudienceConfig(rule: .disjointFrom, campaign: "A")
        c.campaigns.append(b)
        let world = try PushWorld(config: c, masterSeed: 8, replication: 0, progressSink: nil)
        var members = 0
        for d in 0..<4_000 {
            for k in 0..<2 where world.calendars.isMember(DeviceID(d), campaign: k, wave: -1, population: world.population) { members += 1 }
        }
        let r = try simulate(c, seed: 8)
        XCTAssertEqual(r.pushesTargeted, UInt64(members))
    }

    /// Targeting: only devices of the named regions and segments are in the audience, and all of
    /// them at share 1.
    func testTargetingRestrictsToNamedRegionsAndSegments() throws {
        var c = calendarWorld(devices: 6_000)
        var heavy = UserSegmentConfig(); heavy.name = "heavy"; heavy.share = 1
        var light = UserSegmentConfig(); light.name = "light"; light.share = 2
        c.users.segments = [heavy, light]
        c.campaigns[0].regions = ["east", "west"]
        c.campaigns[0].segments = ["heavy"]
        let calendars = try CampaignCalendars(c)
        let population = try Population(config: c, runSeed: 1)
        var members = 0, eligible = 0
        for d in 0..<6_000 {
            let a = population.device(DeviceID(d))
            let inTarget = a.region != 1 && a.segment == 0
            if inTarget { eligible += 1 }
            let m = calendars.isMember(DeviceID(d), campaign: 0, wave: -1, population: population)
            XCTAssertEqual(m, inTarget, "device \(d)")
            if m { members += 1 }
        }
        XCTAssertGreaterThan(members, 1_000)
        XCTAssertEqual(members, eligible)
        // Two waves only: the central region is not targeted.
        XCTAssertEqual(CalendarRules.waves(c, campaign: 0).startSeconds, [0, 21_600])
        let r = try simulate(c, seed: 1)
        XCTAssertEqual(sendSeconds(r), [0, 21_600])
    }

    /// The world refuses what the scenario format refuses (a world built in code): an unknown
    /// region, a cycle, an infeasible share, each with its path.
    func testWorldRefusesBadCalendar() {
        func refusal(_ c: PushWorldConfig) -> String {
            do { _ = try CampaignCalendars(c); return "accepted" } catch { return "\(error)" }
        }
        var unknown = calendarWorld()
        unknown.campaigns[0].regions = ["north"]
        XCTAssertTrue(refusal(unknown).contains("campaigns[0].regions[0]"), refusal(unknown))
        var cycle = calendarWorld()
        var b = cycle.campaigns[0]
        cycle.campaigns[0].name = "A"; cycle.campaigns[0].audienceShare = 0.2
        cycle.campaigns[0].audience = CampaignAudienceConfig(rule: .nestedIn, campaign: "B")
        b.name = "B"; b.audienceShare = 0.2; b.audience = CampaignAudienceConfig(rule: .disjointFrom, campaign: "A")
        cycle.campaigns.append(b)
        XCTAssertTrue(refusal(cycle).contains("cycle"), refusal(cycle))
        var infeasible = cycle
        infeasible.campaigns[0].audience = CampaignAudienceConfig()
        infeasible.campaigns[1].audienceShare = 0.9
        XCTAssertTrue(refusal(infeasible).contains("campaigns[1].audienceShare"), refusal(infeasible))
    }

    /// A run stopped between waves (at 2 h: the UTC+1 and UTC waves sent, the UTC−5 one not)
    /// still accounts for every audience push: the wave not started counts as not delivered.
    /// Progress moves forward through the waves (one pass per wave, never back to 0).
    func testStopBetweenWavesAccountsForTheUnsentWaveAndProgressMovesForward() throws {
        final class Sink: ProgressSink {
            var sent: [Double] = []
            func progress(_ report: ProgressReport) { sent.append(report.pushesSent) }
        }
        var c = calendarWorld()
        c.campaigns[0].deliveryLatencySeconds = .constant(value: 0.5)
        let sink = Sink()
        let r = try PushSimulation.run(c, masterSeed: 6, replication: 0,
                                       limits: RunLimits(timeMax: SimTime(ticks: 7_200_000_000), progressEveryEvents: 200), progress: sink)
        XCTAssertEqual(r.pushesTargeted, UInt64(c.population.devices))
        XCTAssertEqual(r.outcomes.total, r.pushesTargeted)
        let world = try PushWorld(config: c, masterSeed: 6, replication: 0, progressSink: nil)
        let west = (0..<c.population.devices).filter { world.population.region(of: DeviceID($0)) == 2 }.count
        XCTAssertGreaterThan(west, 0)
        XCTAssertGreaterThanOrEqual(r.outcomes.notDelivered, UInt64(west))
        XCTAssertEqual(r.series.pushesSent.totalCount, UInt64(c.population.devices - west))
        XCTAssertGreaterThan(sink.sent.count, 2)
        XCTAssertEqual(sink.sent, sink.sent.sorted(), "progress never moves back")
    }

    /// `validate`'s provider limits see the waves: a campaign above the FCM quota is warned about
    /// at each wave's start (0, 1 h, 6 h), each wave with its regions' share of the messages
    /// (1 000 Android devices, equal region weights: 333 each), not once at `sendStartSeconds`.
    func testProviderLimitWarningsPerWave() {
        var c = calendarWorld(devices: 1_000)
        c.population.iosShare = 0
        c.providers = ProvidersConfig()
        c.campaigns[0].sendRatePerMinute = 1_200_000
        c.campaigns[0].providerQuotaPerMinute = 1_200_000
        let w = c.providerLimitWarnings()
        XCTAssertEqual(w.count, 3, "\(w)")
        for (k, start) in ["0", "3 600", "21 600"].enumerated() {
            XCTAssertTrue(w[k].contains("campaign campaign (wave \(k + 1)) sends 1 200 000 FCM messages/min at t = \(start) s"), w[k])
            XCTAssertTrue(w[k].contains("333 sends"), w[k])
        }
    }
}
