import XCTest
@testable import Experiments
@testable import PushModel

/// The memory estimate counts FCM's per-device limit state when the plan keeps it (24 bytes a
/// device for the rate windows, 16 for the collapsible burst, per concurrent replication); without
/// it, as before.
final class MemoryEstimateDeviceCapsTests: XCTestCase {
    func testDeviceCapsAddTheirBytesPerDevice() throws {
        var c = PushWorldConfig()
        c.providers = ProvidersConfig()
        XCTAssertEqual(c.deviceCapsBytesPerDevice, 0, "one push a device: no state")
        c.campaigns[0].collapsible = true
        c.providers?.fcm.collapsibleBurstMessages = 1
        var second = c.campaigns[0]
        second.name = "second"
        c.campaigns.append(second)
        XCTAssertEqual(c.deviceCapsBytesPerDevice, 16, "two collapsible over a burst of 1")
        c.providers?.fcm.deviceMessagesPerHourMax = 1
        c.campaigns[1].collapsible = false
        c.campaigns.append(second)
        c.campaigns[2].name = "third"
        c.campaigns[2].collapsible = false
        c.campaigns[0].collapsible = false
        XCTAssertEqual(c.deviceCapsBytesPerDevice, 24, "three plain over 1 an hour, no collapsible")
        let off = MemoryInputs(devices: 1_000_000, pushesTargeted: 1_000_000, activeSessionsPeak: 10_000, horizonSeconds: 3_600,
                               replications: 2, concurrentReplications: 2)
        let on = MemoryInputs(devices: 1_000_000, pushesTargeted: 1_000_000, activeSessionsPeak: 10_000, horizonSeconds: 3_600,
                              replications: 2, concurrentReplications: 2, deviceCapsBytesPerDevice: 32)
        XCTAssertEqual(MemoryEstimate(on).totalBytes - MemoryEstimate(off).totalBytes, 2 * 1_000_000 * 32)
        let json = String(decoding: try JSONEncoder().encode(off), as: UTF8.self)
        XCTAssertFalse(json.contains("deviceCaps"), "off, run-info.json's inputs are as before")
    }
}
