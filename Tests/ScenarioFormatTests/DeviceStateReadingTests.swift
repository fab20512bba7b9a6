import Foundation
import XCTest
import PushModel

@testable import ScenarioFormat

/// The scenario format of devices that change state: network changes, the Doze night and the
/// Android fallback.
final class DeviceStateReadingTests: XCTestCase {
    private func diagnostics(_ json: String) -> [Diagnostic] {
        switch StrictJSONDecoder().decode(PushWorldConfig.self, from: Data(json.utf8)) {
        case .success: return []
        case let .failure(errors): return errors.diagnostics
        }
    }

    func testFieldsAreRead() throws {
        let json = #"""
        {"population": {"dozeNight": {"deviceShare": 0.6, "clockAtStartSeconds": 72000, "idleSeconds": {"kind": "constant", "value": 28800}},
                        "networkChanges": {"switchesPerDay": 4, "handoversPerDay": 2}},
         "platforms": {"android": {"lightDozeAfterScreenOffSeconds": 180, "deepDozeAfterScreenOffSeconds": 2400}},
         "preloadPolicy": {"fallbackOnHandlerDeadline": true}}
        """#
        let c = try StrictJSONDecoder().decode(PushWorldConfig.self, from: Data(json.utf8)).get()
        XCTAssertEqual(c.population.dozeNight.deviceShare, 0.6)
        XCTAssertEqual(c.population.dozeNight.clockAtStartSeconds, 72_000)
        XCTAssertEqual(c.population.dozeNight.idleSeconds, .constant(value: 28_800))
        XCTAssertEqual(c.population.dozeNight.bedtimeSeconds, DozeNightConfig().bedtimeSeconds)
        XCTAssertEqual(c.population.networkChanges.switchesPerDay, 4)
        XCTAssertEqual(c.population.networkChanges.handoversPerDay, 2)
        XCTAssertEqual(c.platforms.android.lightDozeAfterScreenOffSeconds, 180)
        XCTAssertEqual(c.platforms.android.deepDozeAfterScreenOffSeconds, 2_400)
        XCTAssertTrue(c.preloadPolicy.fallbackOnHandlerDeadline)
    }

    /// Out-of-range values are refused at their path, with what was expected and found.
    func testBadValuesNamePathExpectedAndFound() {
        let d = diagnostics(#"{"population": {"dozeNight": {"deviceShare": 1.5}, "networkChanges": {"switchesPerDay": -1}}}"#)
        XCTAssertEqual(d.map(\.path.description).sorted(), ["population.dozeNight.deviceShare", "population.networkChanges.switchesPerDay"])
        XCTAssertTrue(d.allSatisfy { $0.message.contains("found") }, "\(d)")
        // Deep Doze cannot begin before light Doze.
        let e = diagnostics(#"{"platforms": {"android": {"lightDozeAfterScreenOffSeconds": 600, "deepDozeAfterScreenOffSeconds": 300}}}"#)
        XCTAssertEqual(e.map(\.path.description), ["platforms.android.deepDozeAfterScreenOffSeconds"])
        XCTAssertEqual(e.first?.expected, "a number in 600.0...86400.0 seconds")
    }
}
