import Foundation
import PushModel
import XCTest
@testable import Experiments
import ReportKit
@testable import PrestageCLI
@testable import ScenarioFormat

/// The campaign calendar in the scenario library.
final class CalendarLibraryTests: XCTestCase {
    /// time-zone-waves: regions in at least 3 time zones, a 09:00-local campaign sending one wave
    /// per offset, a disjoint and a nested audience, and notes with the command.
    func testTimeZoneWavesUsesTheCalendar() throws {
        let library = ScenarioLibrary(directories: [TestEnvironment.repositoryScenarios])
        let scenario = try ScenarioLoader.load("time-zone-waves", library: library).scenario
        let w = scenario.world
        XCTAssertGreaterThanOrEqual(Set(w.infra.topology.regions.map(\.utcOffsetSeconds)).count, 3)
        let morning = try XCTUnwrap(w.campaigns.firstIndex { $0.sendAtLocalSeconds == 32_400 })
        XCTAssertEqual(CalendarRules.waves(w, campaign: morning).startSeconds.count, Set(w.infra.topology.regions.map(\.utcOffsetSeconds)).count)
        XCTAssertTrue(w.campaigns.contains { $0.audience.rule == .disjointFrom })
        XCTAssertTrue(w.campaigns.contains { $0.audience.rule == .nestedIn })
        XCTAssertTrue(scenario.notes.contains { $0.contains("prestage run time-zone-waves") })
    }

    /// The report shades one send band per wave at the wave's start (Berlin 1 h, London 2 h, New
    /// York 7 h, Los Angeles 10 h for the 09:00 deal), not one from `sendStartSeconds`.
    func testReportShadesEachWave() throws {
        let library = ScenarioLibrary(directories: [TestEnvironment.repositoryScenarios])
        let scenario = try ScenarioLoader.load("time-zone-waves", library: library).scenario
        let bands = ReportBuilder.sendBands(scenario).filter { $0.label.hasPrefix("send morning-deal") }
        XCTAssertEqual(bands.map(\.fromSeconds), [3_600, 7_200, 25_200, 36_000])
        XCTAssertEqual(bands.map(\.label).last, "send morning-deal wave 4")
        XCTAssertTrue(bands.allSatisfy { $0.toSeconds > $0.fromSeconds })
        // A campaign without a local send time keeps its one band.
        XCTAssertEqual(ReportBuilder.sendBands(scenario).filter { $0.label == "send vip-early-access" }.map(\.fromSeconds), [1_800])
    }
}
