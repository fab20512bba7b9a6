/// Bytes a model adds to every device's state when a scenario turns it on, for the memory
/// estimate (`MemoryModel` in Experiments): the strides of the per-device elements themselves.
package enum PerDeviceStateBytes {
    /// The radio energy model (`energy.enabled`): one radio state word a device
    /// (`RadioEnergy.DeviceState`): 8 bytes.
    package static let radioEnergy = MemoryLayout<RadioEnergy.DeviceState>.stride
    /// The `budgeted` decision kind (`preloadPolicy.decision.kind`): one ledger a device
    /// (`CompactLedger`): 24 bytes.
    package static let budgetedLedger = MemoryLayout<CompactLedger>.stride
}
