import Foundation
import XCTest
@testable import PrestageCLI
@testable import ScenarioFormat

/// topic-fanout uses what it promises: two overlapping topic sends and a priority-5 campaign,
/// `validate` naming the overlap, and a run whose fan-out and burst metrics read as its notes say.
final class TopicFanOutLibraryTests: XCTestCase {
    func testTopicFanOutUsesTopicsAndPriority5() throws {
        let library = ScenarioLibrary(directories: [TestEnvironment.repositoryScenarios])
        let scenario = try ScenarioLoader.load("topic-fanout", library: library).scenario
        XCTAssertNotNil(scenario.world.providers)
        XCTAssertEqual(scenario.world.campaigns.map(\.sendAs), [.topic, .topic])
        XCTAssertEqual(scenario.world.campaigns.map(\.apnsPriority), [10, 5])
        let warnings = scenario.world.providerLimitWarnings()
        XCTAssertTrue(warnings.contains { $0.contains("topic campaigns flash-topic, restock-topic fan out at once at t = 620 s") }, "\(warnings)")
        XCTAssertTrue(scenario.notes.contains { $0.contains("prestage run topic-fanout") })
    }

    /// At 5 000 devices (1/200 of the file's): the flash sale fans out 100 messages a second of
    /// the second alone (t0 = 600 s), then both share until the restock's ≈ 2 500 are out, then
    /// the flash sale's rest at the full rate: the 7 500 together end ≈ 7 500 / R after t0; R is
    /// scaled too (50/s) so the arithmetic is the file's: 150 s, ± 2 s (one batch either way, and
    /// the restock's audience drawn per device). One topic request each.
    func testScaledRunEndsAtTheNotesArithmetic() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let out = t.root.appendingPathComponent("topic").path
        XCTAssertEqual(t.run(["run", "topic-fanout", "--devices", "5000", "--set", "providers.fcm.fanOutPerSecond=50", "--out", out]), .ok, t.err.text)
        let data = try Data(contentsOf: URL(fileURLWithPath: out).appendingPathComponent("summary.json"))
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        let metrics = try XCTUnwrap(json["metrics"] as? [[String: Any]])
        func v(_ name: String) throws -> Double {
            try XCTUnwrap(metrics.first { $0["name"] as? String == name }?["mean"] as? Double, name)
        }
        let messages = try v("provider.fcm.fanOutMessages")
        XCTAssertEqual(try v("provider.fcm.topicRequests"), 2)
        XCTAssertEqual(try v("provider.fcm.fanOutLastSendSeconds") - 600, messages / 50, accuracy: 2)
        // The restock's iOS pushes wait for their bursts: below the 900 s interval.
        XCTAssertGreaterThan(try v("provider.apns.priority5Delayed"), 0)
        XCTAssertLessThan(try v("provider.apns.priority5DelayMeanSeconds"), 900)
    }
}
