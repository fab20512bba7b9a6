import Foundation
import XCTest
@testable import PrestageCLI
@testable import ScenarioFormat

/// Reading the stale-token shares and the providers' delivery latencies: a bad value is bad input
/// (exit 2) naming its path, the value found and the expectation; the defaults write nothing.
final class ProviderExtrasReadingTests: XCTestCase {
    func testBadSharesAndLatenciesNameTheirPath() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let file = try t.file("bad.json", #"""
            { "name": "bad", "question": "Bad provider extras?",
              "providers": { "fcm": { "unregisteredShare": 1.5, "deliveryLatencySeconds": { "kind": "constant", "value": -1 } },
                             "apns": { "unregisteredShare": -0.1, "deliveryLatencySeconds": { "kind": "uniform", "lower": 0, "upper": 90000 } } } }
            """#)
        XCTAssertEqual(t.run(["validate", file]), .badInput)
        let err = t.err.text
        for path in ["providers.fcm.unregisteredShare", "providers.fcm.deliveryLatencySeconds",
                     "providers.apns.unregisteredShare", "providers.apns.deliveryLatencySeconds"] {
            XCTAssertTrue(err.contains(path), "\(path) not named:\n\(err)")
        }
        XCTAssertTrue(err.contains("1.5"), err)
        XCTAssertTrue(err.contains("at most 86400 s"), err)
    }

    /// Left at their defaults, the new fields are not written: a `providers` scenario encodes as before.
    func testDefaultsWriteNothing() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let library = ScenarioLibrary(directories: [TestEnvironment.repositoryScenarios])
        let scenario = try ScenarioLoader.load("shared-fcm-quota", library: library).scenario
        let json = try JSONSerialization.jsonObject(with: try CanonicalJSON.encode(scenario)) as? [String: Any]
        let providers = try XCTUnwrap(json?["providers"] as? [String: Any])
        for provider in ["fcm", "apns"] {
            let fields = try XCTUnwrap(providers[provider] as? [String: Any], provider)
            XCTAssertNil(fields["unregisteredShare"], provider)
            XCTAssertNil(fields["deliveryLatencySeconds"], provider)
        }
    }
}
