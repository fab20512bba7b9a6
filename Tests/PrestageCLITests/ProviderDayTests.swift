import Foundation
import XCTest
@testable import PrestageCLI
@testable import ScenarioFormat

/// provider-day uses what it promises: stale tokens at both providers, the providers' measured
/// latencies (LoginTC's means) taking over from the campaign's default, a normal-priority push
/// Doze defers; and its FCM Data API counts partition the accepted messages when it runs.
final class ProviderDayTests: XCTestCase {
    func testProviderDayUsesStaleTokensAndProviderLatencies() throws {
        let library = ScenarioLibrary(directories: [TestEnvironment.repositoryScenarios])
        let scenario = try ScenarioLoader.load("provider-day", library: library).scenario
        let providers = try XCTUnwrap(scenario.world.providers)
        XCTAssertGreaterThan(providers.fcm.unregisteredShare, 0)
        XCTAssertGreaterThan(providers.apns.unregisteredShare, 0)
        // Lognormal means exp(μ + σ²/2): LoginTC's 2.31 s (Android) and 1.07 s (iOS), to 1 ms.
        for (distribution, mean) in [(providers.fcm.deliveryLatencySeconds, 2.31), (providers.apns.deliveryLatencySeconds, 1.07)] {
            guard case .lognormal(let mu, let sigma)? = distribution else { return XCTFail("not a lognormal: \(String(describing: distribution))") }
            XCTAssertEqual(exp(mu + sigma * sigma / 2), mean, accuracy: 0.001)
        }
        XCTAssertEqual(scenario.world.campaigns[0].androidPriority, .normal)
        XCTAssertTrue(scenario.notes.contains { $0.contains("prestage run provider-day") })
    }

    func testProviderDayDataApiCountsPartitionTheAcceptedMessages() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let out = t.root.appendingPathComponent("day").path
        XCTAssertEqual(t.run(["run", "provider-day", "--devices", "5000", "--out", out]), .ok, t.err.text)
        let data = try Data(contentsOf: URL(fileURLWithPath: out).appendingPathComponent("summary.json"))
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        let metrics = try XCTUnwrap(json["metrics"] as? [[String: Any]])
        func v(_ name: String) throws -> Double {
            try XCTUnwrap(metrics.first { $0["name"] as? String == name }?["mean"] as? Double, name)
        }
        let accepted = try v("provider.fcm.dataApi.accepted")
        XCTAssertGreaterThan(accepted, 0)
        XCTAssertEqual(accepted, try v("provider.fcm.dataApi.delivered") + v("provider.fcm.dataApi.pending") + v("provider.fcm.dataApi.ttlExpired"))
        XCTAssertGreaterThan(try v("provider.fcm.dataApi.delayedDeviceDoze"), 0)
        XCTAssertEqual(accepted, try v("provider.fcm.messages") - v("provider.fcm.unregistered"))
        XCTAssertGreaterThan(try v("provider.apns.unregistered"), 0)
    }
}
