import Foundation
import XCTest
@testable import PrestageCLI
@testable import ScenarioFormat

/// live-score-updates uses what it promises: 120 collapsible updates 30 s apart through FCM,
/// `validate` naming the burst, and a run whose throttle metrics read as its notes say.
final class LiveScoreLibraryTests: XCTestCase {
    /// Update k (k = 1…120) is sent at t_k = 600 + 30(k − 1) s (one collapse key). With burst 20
    /// and one token every 180 s, update 24 (t = 1 290 s) is the first held, until 1 320 s. From
    /// then a held update is replaced by each next one sent before it leaves, and a token is
    /// spent only when one leaves: updates 25 + 6(j − 1) … 30 + 6(j − 1) (j = 1…16) are held
    /// for 1 320 + 180 j s and the last of each six leaves then. So 97 held, 16 · 5 = 80 replaced,
    /// the last (t = 4 170 s) leaving at 1 320 + 16 · 180 = 4 200 s.
    func testValidateNamesTheBurst() throws {
        let library = ScenarioLibrary(directories: [TestEnvironment.repositoryScenarios])
        let scenario = try ScenarioLoader.load("live-score-updates", library: library).scenario
        XCTAssertNotNil(scenario.world.providers)
        XCTAssertEqual(scenario.world.campaigns.reduce(0) { $0 + $1.pushesPerDevice }, 120)
        XCTAssertTrue(scenario.world.campaigns.allSatisfy(\.collapsible))
        let warnings = scenario.world.providerLimitWarnings()
        XCTAssertTrue(warnings.contains { $0.contains("FCM holds 97 of them") && $0.contains("80 replaced while held")
                && $0.contains("leaves FCM at t = 4 200 s") }, "\(warnings)")
        XCTAssertTrue(scenario.notes.contains { $0.contains("prestage run live-score-updates") })
    }

    /// At 100 devices: every device's 97 held (9 700) and 80 replaced while held (8 000); the
    /// time held, added up, is 30 s for update 24 and 180 s for each of the 16 sixes (each from
    /// its first update's send to the last's release; a replaced one is held until replaced), so
    /// the mean hold is (30 + 16 · 180) / 97 = 30 s. The notes' variant with a burst of 200 holds
    /// none and emits no throttle metric (120 ≤ 200: no state kept).
    func testScaledRunHoldsWhatTheArithmeticSays() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        func metrics(_ extra: [String], _ name: String) throws -> [[String: Any]] {
            let out = t.root.appendingPathComponent(name).path
            XCTAssertEqual(t.run(["run", "live-score-updates", "--devices", "100", "--out", out] + extra), .ok, t.err.text)
            let data = try Data(contentsOf: URL(fileURLWithPath: out).appendingPathComponent("summary.json"))
            let json = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
            return try XCTUnwrap(json["metrics"] as? [[String: Any]])
        }
        let m = try metrics([], "live")
        func v(_ name: String) throws -> Double {
            try XCTUnwrap(m.first { $0["name"] as? String == name }?["mean"] as? Double, name)
        }
        XCTAssertEqual(try v("provider.fcm.collapsibleThrottled"), 9_700)
        XCTAssertEqual(try v("provider.fcm.collapsibleHeldMeanSeconds"), 30, accuracy: 1e-6)
        XCTAssertEqual(try v("provider.fcm.collapsibleCollapsedWhileHeld"), 8_000)
        // The Data API's collapsed also counts updates a newer one replaced while Doze held them.
        XCTAssertGreaterThanOrEqual(try v("provider.fcm.dataApi.collapsed"), 8_000)
        XCTAssertEqual(try v("provider.fcm.dataApi.accepted"), 12_000)
        let wide = try metrics(["--set", "providers.fcm.collapsibleBurstMessages=200"], "wide")
        XCTAssertFalse(wide.contains { $0["name"] as? String == "provider.fcm.collapsibleThrottled" })
    }
}
