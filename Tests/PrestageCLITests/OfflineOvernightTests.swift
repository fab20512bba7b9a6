import Foundation
import XCTest
@testable import PrestageCLI
@testable import ScenarioFormat

/// offline-overnight uses what it promises: offline windows, collapsible campaigns and inactive
/// devices; run, its FCM Data API counts partition the accepted messages with every offline
/// category but the 100-pending drop in use, and APNs' coalescing leaves one per device.
final class OfflineOvernightTests: XCTestCase {
    func testOfflineOvernightUsesOfflineWindowsAndCollapseKeys() throws {
        let library = ScenarioLibrary(directories: [TestEnvironment.repositoryScenarios])
        let scenario = try ScenarioLoader.load("offline-overnight", library: library).scenario
        let providers = try XCTUnwrap(scenario.world.providers)
        XCTAssertGreaterThan(try XCTUnwrap(providers.offline).deviceShare, 0)
        XCTAssertGreaterThan(providers.fcm.inactiveShare, 0)
        XCTAssertGreaterThanOrEqual(scenario.world.campaigns.filter(\.collapsible).count, 2)
        XCTAssertTrue(scenario.notes.contains { $0.contains("prestage run offline-overnight") })
    }

    func testOfflineOvernightDataApiCountsPartitionTheAcceptedMessages() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let out = t.root.appendingPathComponent("night").path
        XCTAssertEqual(t.run(["run", "offline-overnight", "--devices", "4000", "--out", out]), .ok, t.err.text)
        let data = try Data(contentsOf: URL(fileURLWithPath: out).appendingPathComponent("summary.json"))
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        let metrics = try XCTUnwrap(json["metrics"] as? [[String: Any]])
        func v(_ name: String) throws -> Double {
            try XCTUnwrap(metrics.first { $0["name"] as? String == name }?["mean"] as? Double, name)
        }
        let a = "provider.fcm.dataApi."
        let accepted = try v(a + "accepted")
        XCTAssertGreaterThan(accepted, 0)
        XCTAssertEqual(accepted, try ["delivered", "pending", "ttlExpired", "collapsed", "droppedTooManyPendingMessages", "droppedDeviceInactive"]
            .map { try v(a + $0) }.reduce(0, +))
        for name in ["delayedDeviceOffline", "collapsed", "droppedDeviceInactive"] { XCTAssertGreaterThan(try v(a + name), 0, name) }
        // Every window ends by 10 h (1 h spread + 9 h), before the 12 h horizon and the 24 h TTL:
        // each stored notification was replaced or handed over.
        XCTAssertEqual(try v("provider.offline.expiredInStore"), 0)
        XCTAssertEqual(try v("provider.apns.offline.stored"),
                       try v("provider.apns.offline.coalesced") + v("provider.apns.offline.deliveredAfterReconnect"))
        XCTAssertGreaterThan(try v("provider.apns.offline.coalesced"), 0)
    }
}
