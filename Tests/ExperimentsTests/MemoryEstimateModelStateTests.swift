import XCTest
@testable import Experiments
@testable import PushModel

/// The memory estimate counts the per-device state of the models a scenario turns on: the radio
/// energy state (8 bytes a device) and the `budgeted` ledgers (24 bytes a device), exactly their
/// element strides, per concurrent replication.
final class MemoryEstimateModelStateTests: XCTestCase {
    /// The sizes the estimate uses are the real strides of the per-device elements.
    func testPerDeviceBytesAreTheElementStrides() {
        XCTAssertEqual(PerDeviceStateBytes.radioEnergy, MemoryLayout<UInt64>.stride)
        XCTAssertEqual(PerDeviceStateBytes.radioEnergy, 8, "the radio state is one word a device (the ≤ 8 bytes target)")
        XCTAssertEqual(PerDeviceStateBytes.budgetedLedger, MemoryLayout<CompactLedger>.stride)
        XCTAssertEqual(PerDeviceStateBytes.budgetedLedger, 24)
        let model = MemoryModel()
        XCTAssertEqual(model.bytesPerDeviceRadioEnergy, 8)
        XCTAssertEqual(model.bytesPerDeviceBudgetedLedger, 24)
        // The arrays a world allocates hold exactly that a device: one state word per device with
        // the model on, none off.
        var on = EnergyConfig()
        on.enabled = true
        XCTAssertEqual(RadioEnergy(config: on, devices: 1_000).state.count * MemoryLayout<RadioEnergy.DeviceState>.stride, 8_000)
        XCTAssertTrue(RadioEnergy(config: EnergyConfig(), devices: 1_000).state.isEmpty)
    }

    /// Turning either model on raises the estimate by exactly devices × bytes × concurrent
    /// replications, and adds one named part; off, the parts are as before.
    func testEstimateRisesByThePerDeviceStateWhenOn() {
        let off = MemoryInputs(devices: 5_000_000, pushesTargeted: 5_000_000, activeSessionsPeak: 10_000, horizonSeconds: 3_600,
                               replications: 4, concurrentReplications: 2)
        let energy = MemoryInputs(devices: 5_000_000, pushesTargeted: 5_000_000, activeSessionsPeak: 10_000, horizonSeconds: 3_600,
                                  replications: 4, concurrentReplications: 2, radioEnergy: true)
        let budgeted = MemoryInputs(devices: 5_000_000, pushesTargeted: 5_000_000, activeSessionsPeak: 10_000, horizonSeconds: 3_600,
                                    replications: 4, concurrentReplications: 2, budgetedLedgers: true)
        let both = MemoryInputs(devices: 5_000_000, pushesTargeted: 5_000_000, activeSessionsPeak: 10_000, horizonSeconds: 3_600,
                                replications: 4, concurrentReplications: 2, radioEnergy: true, budgetedLedgers: true)
        let base = MemoryEstimate(off).totalBytes
        XCTAssertEqual(MemoryEstimate(energy).totalBytes - base, 2 * 5_000_000 * 8)
        XCTAssertEqual(MemoryEstimate(budgeted).totalBytes - base, 2 * 5_000_000 * 24)
        XCTAssertEqual(MemoryEstimate(both).totalBytes - base, 2 * 5_000_000 * 32)
        XCTAssertFalse(MemoryEstimate(off).parts.contains { $0.name == "radio energy state" || $0.name == "budgeted ledgers" })
        XCTAssertEqual(MemoryEstimate(energy).parts.first { $0.name == "radio energy state" }?.bytes, 2 * 5_000_000 * 8)
        XCTAssertEqual(MemoryEstimate(budgeted).parts.first { $0.name == "budgeted ledgers" }?.bytes, 2 * 5_000_000 * 24)
        // Off, the inputs encode as before (no new keys in run-info.json).
        let json = String(decoding: try! JSONEncoder().encode(off), as: UTF8.self)
        XCTAssertFalse(json.contains("radioEnergy") || json.contains("budgetedLedgers"), json)
    }
}
