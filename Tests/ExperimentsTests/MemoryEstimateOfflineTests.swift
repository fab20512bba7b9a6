import XCTest
@testable import Experiments
@testable import PushModel

/// The memory estimate counts the offline stores (`providers.offline`): 8 bytes a device per
/// concurrent replication, the stride of the store slot; without offline windows, as before.
final class MemoryEstimateOfflineTests: XCTestCase {
    func testOfflineStoresAddTheirSlotPerDevice() throws {
        XCTAssertEqual(PerDeviceStateBytes.offlineStore, MemoryLayout<OfflineSlot>.stride)
        XCTAssertEqual(MemoryModel().bytesPerDeviceOfflineStore, 8)
        let off = MemoryInputs(devices: 5_000_000, pushesTargeted: 5_000_000, activeSessionsPeak: 10_000, horizonSeconds: 3_600,
                               replications: 4, concurrentReplications: 2)
        let on = MemoryInputs(devices: 5_000_000, pushesTargeted: 5_000_000, activeSessionsPeak: 10_000, horizonSeconds: 3_600,
                              replications: 4, concurrentReplications: 2, offlineStores: true)
        XCTAssertEqual(MemoryEstimate(on).totalBytes - MemoryEstimate(off).totalBytes, 2 * 5_000_000 * 8)
        XCTAssertEqual(MemoryEstimate(on).parts.first { $0.name == "offline stores" }?.bytes, 2 * 5_000_000 * 8)
        XCTAssertFalse(MemoryEstimate(off).parts.contains { $0.name == "offline stores" })
        let json = String(decoding: try JSONEncoder().encode(off), as: UTF8.self)
        XCTAssertFalse(json.contains("offlineStores"), "off, run-info.json's inputs are as before")
    }
}
