import Foundation
import XCTest
@testable import PrestageCLI
@testable import ScenarioFormat

/// live-score-updates uses what it promises: 120 collapsible updates 30 s apart through FCM,
/// `validate` naming the burst, and a run whose throttle metrics read as its notes say.
final class LiveScoreLibraryTests: XCTestCase {
    /// Update k (k = 1…120) is sent at t_k = 600 + 30(k − 1) s and leaves FCM at
    /// max(t_k, 600 + 180(k − 20)) s (burst 20, one token every 180 s): later than sent for
    /// k ≥ 24, so 97 held, the last leaving at 600 + 180 · 100 = 18 600 s.
    func testValidateNamesTheBurst() throws {
        let library = ScenarioLibrary(directories: [TestEnvironment.repositoryScenarios])
        let scenario = try ScenarioLoader.load("live-score-updates", library: library).scenario
        XCTAssertNotNil(scenario.world.providers)
        XCTAssertEqual(scenario.world.campaigns.reduce(0) { $0 + $1.pushesPerDevice }, 120)
        XCTAssertTrue(scenario.world.campaigns.allSatisfy(\.collapsible))
        let warnings = scenario.world.providerLimitWarnings()
        XCTAssertTrue(warnings.contains { $0.contains("FCM holds 97 of them") && $0.contains("leaves FCM at t = 18 600 s") }, "\(warnings)")
        XCTAssertTrue(scenario.notes.contains { $0.contains("prestage run live-score-updates") })
    }

    /// At 100 devices: every device's 97 held (9 700), a mean hold of 150 · 72 − 3 570 = 7 230 s
    /// (hold 150k − 3 570 for k = 24…120, mean k 72); the notes' variant with a burst of 200
    /// holds none and emits no throttle metric (120 ≤ 200: no state kept).
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
        XCTAssertEqual(try v("provider.fcm.collapsibleHeldMeanSeconds"), 7_230, accuracy: 1e-6)
        XCTAssertEqual(try v("provider.fcm.dataApi.accepted"), 12_000)
        let wide = try metrics(["--set", "providers.fcm.collapsibleBurstMessages=200"], "wide")
        XCTAssertFalse(wide.contains { $0["name"] as? String == "provider.fcm.collapsibleThrottled" })
    }
}
