import Foundation
import XCTest
@testable import PrestageCLI
@testable import ScenarioFormat

/// Reading the topic fan-out and priority-5 fields: a bad value is bad input (exit 2) naming its
/// path, the value found and the expectation; the defaults write nothing.
final class FanOutReadingTests: XCTestCase {
    func testBadValuesNameTheirPath() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let file = try t.file("bad.json", #"""
            { "name": "bad", "question": "Bad fan-out fields?",
              "campaigns": [ { "sendAs": "topic", "provider": "apns", "apnsPriority": 7 }, { "name": "b", "sendAs": "broadcast" } ],
              "providers": { "fcm": { "fanOutPerSecond": 0 }, "apns": { "priority5BurstIntervalSeconds": 0 } } }
            """#)
        XCTAssertEqual(t.run(["validate", file]), .badInput)
        let err = t.err.text
        for path in ["campaigns[0].apnsPriority", "campaigns[1].sendAs", "providers.fcm.fanOutPerSecond",
                     "providers.apns.priority5BurstIntervalSeconds"] {
            XCTAssertTrue(err.contains(path), "\(path) not named:\n\(err)")
        }
        XCTAssertTrue(err.contains("10 or 5"), err)
        XCTAssertTrue(err.contains("broadcast"), err)
    }

    /// Topics are FCM's: a topic campaign routed to APNs is refused, with the reason.
    func testTopicThroughAPNsIsRefused() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let file = try t.file("apns-topic.json", #"""
            { "name": "apns-topic", "question": "Topic through APNs?", "providers": {},
              "campaigns": [ { "sendAs": "topic", "provider": "apns" } ] }
            """#)
        XCTAssertEqual(t.run(["validate", file]), .badInput)
        XCTAssertTrue(t.err.text.contains("campaigns[0].sendAs"), t.err.text)
        XCTAssertTrue(t.err.text.contains("APNs has none"), t.err.text)
    }

    /// Without a `providers` section there is no FCM fan-out, no APNs burst, no FCM storage and no
    /// route: `sendAs: topic`, `apnsPriority: 5`, `collapsible: true` and `provider` would change nothing, so they are
    /// bad input naming their path, the value and what they need (`providers`), not ignored.
    func testProviderFieldsWithoutProvidersAreRefused() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let file = try t.file("no-providers.json", #"""
            { "name": "no-providers", "question": "Provider fields without providers?",
              "campaigns": [ { "sendAs": "topic" }, { "name": "b", "apnsPriority": 5 }, { "name": "c", "collapsible": true },
                             { "name": "d", "provider": "apns" } ] }
            """#)
        XCTAssertEqual(t.run(["validate", file]), .badInput)
        let err = t.err.text
        for (path, value) in [("campaigns[0].sendAs", "topic"), ("campaigns[1].apnsPriority", "5"), ("campaigns[2].collapsible", "true"), ("campaigns[3].provider", "apns")] {
            XCTAssertTrue(err.contains(path), "\(path) not named:\n\(err)")
            XCTAssertTrue(err.contains(value), "\(value) not named:\n\(err)")
        }
        XCTAssertTrue(err.contains("\"providers\""), err)
        XCTAssertEqual(t.run(["run", file, "--replications", "1"]), .badInput)
        // With `providers` (its defaults), the same campaigns are valid.
        let with = try t.file("with-providers.json", #"""
            { "name": "with-providers", "question": "Provider fields with providers?", "providers": {},
              "campaigns": [ { "sendAs": "topic" }, { "name": "b", "apnsPriority": 5 }, { "name": "c", "collapsible": true } ] }
            """#)
        XCTAssertEqual(t.run(["validate", with]), .ok, t.err.text)
    }

    /// Left at their defaults, the new fields are not written: scenarios encode as before.
    func testDefaultsWriteNothing() throws {
        let library = ScenarioLibrary(directories: [TestEnvironment.repositoryScenarios])
        let scenario = try ScenarioLoader.load("shared-fcm-quota", library: library).scenario
        let text = String(decoding: try CanonicalJSON.encode(scenario), as: UTF8.self)
        for key in ["sendAs", "apnsPriority", "fanOutPerSecond", "priority5BurstIntervalSeconds"] {
            XCTAssertFalse(text.contains("\"\(key)\""), key)
        }
    }
}
