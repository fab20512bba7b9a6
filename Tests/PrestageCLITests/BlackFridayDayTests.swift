import Foundation
import PushModel
import XCTest
@testable import PrestageCLI
@testable import ScenarioFormat

/// black-friday-day is the whole day the library promises: at least 8 campaigns across at least 4
/// time zones, every local send on the same local date, the FCM quota binding, a scheduled fault.
final class BlackFridayDayTests: XCTestCase {
    func testTheDayHasWhatItPromises() throws {
        let library = ScenarioLibrary(directories: [TestEnvironment.repositoryScenarios])
        let scenario = try ScenarioLoader.load("black-friday-day", library: library).scenario
        let w = scenario.world
        XCTAssertGreaterThanOrEqual(w.campaigns.count, 8)
        XCTAssertGreaterThanOrEqual(Set(w.infra.topology.regions.map(\.utcOffsetSeconds)).count, 4)
        XCTAssertNotNil(w.providers)
        XCTAssertFalse(w.infra.faults.isEmpty)
        XCTAssertTrue(w.campaigns.contains { $0.creativeSwap != nil })
        XCTAssertTrue(w.campaigns.contains { $0.audience.rule == .disjointFrom })
        // Every local-time campaign sends on the day after t = 0's, in every region: its waves
        // are 9 h apart at most (UTC+1 to UTC−8), none before t = 0, all inside the horizon.
        for (c, campaign) in w.campaigns.enumerated() where campaign.sendAtLocalSeconds != nil {
            XCTAssertEqual(campaign.sendOnLocalDay, 1, campaign.name)
            let starts = CalendarRules.waves(w, campaign: c).startSeconds
            XCTAssertGreaterThanOrEqual(starts.first ?? -1, 0, campaign.name)
            XCTAssertLessThanOrEqual((starts.last ?? 0) - (starts.first ?? 0), 9 * 3_600, campaign.name)
            XCTAssertLessThan(starts.last ?? .infinity, w.horizonSeconds, campaign.name)
        }
        XCTAssertTrue(scenario.notes.contains { $0.contains("prestage run black-friday-day") })
    }

    /// At 1/250 of its devices with the FCM quota scaled alike (2 400/min), the flash sale's
    /// 1/250 rate is still twice the quota: 429s; and every campaign is reported on its own.
    func testTheQuotaBindsAndEveryCampaignIsReported() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let out = t.root.appendingPathComponent("bfd").path
        XCTAssertEqual(t.run(["run", "black-friday-day", "--devices", "20000", "--set", "providers.fcm.projectQuotaPerMinute=2400",
                              "--set", "campaigns[4].sendRatePerMinute=4800", "--set", "campaigns[4].providerQuotaPerMinute=4800", "--out", out]), .ok, t.err.text)
        let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/summary.json"))) as? [String: Any]
        let metrics = (summary?["metrics"] as? [[String: Any]]) ?? []
        func mean(_ name: String) -> Double? { metrics.first { $0["name"] as? String == name }?["mean"] as? Double }
        XCTAssertGreaterThan(mean("provider.fcm.rejected429") ?? 0, 0)
        XCTAssertGreaterThan(mean("faults.popFailovers") ?? 0, 0)
        XCTAssertEqual((summary?["campaigns"] as? [[String: Any]])?.count, 8)
    }
}
