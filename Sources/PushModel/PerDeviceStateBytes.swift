/// Bytes a model adds to every device's state when a scenario turns it on, for the memory
/// estimate (`MemoryModel` in Experiments): the strides of the per-device elements themselves.
package enum PerDeviceStateBytes {
    /// The radio energy model (`energy.enabled`): one radio state word a device
    /// (`RadioEnergy.DeviceState`): 8 bytes.
    package static let radioEnergy = MemoryLayout<RadioEnergy.DeviceState>.stride
    /// The `budgeted` decision kind (`preloadPolicy.decision.kind`): one ledger a device
    /// (`CompactLedger`): 24 bytes.
    package static let budgetedLedger = MemoryLayout<CompactLedger>.stride
    /// Offline windows in the provider layer (`providers.offline`): one store slot a device
    /// (`OfflineSlot`, four 16-bit counters: messages stored and handed over under FCM's
    /// 100-pending rule and under the keep-the-newest rule of APNs and FCM collapse keys): 8 bytes.
    package static let offlineStore = MemoryLayout<OfflineSlot>.stride
    /// FCM's per-device rate caps (`providers.fcm.deviceMessagesPerMinuteMax`, `...PerHourMax`),
    /// kept only when a device's non-collapsible FCM messages in the run can exceed the smaller:
    /// one `DeviceRateSlot` a device (when its minute and hour opened, and their counts): 24 bytes.
    package static let deviceRateCaps = MemoryLayout<DeviceRateSlot>.stride
    /// FCM's collapsible burst (`providers.fcm.collapsibleBurstMessages`), kept only when a device's
    /// collapsible FCM messages in the run can exceed it: one instant and the held message's word
    /// a device (`DeviceCapsState.tat`, `.held`): 16 bytes.
    package static let collapsibleBurst = MemoryLayout<Int64>.stride + MemoryLayout<UInt64>.stride
    /// FCM collapse keys in the offline stores (`campaigns[].collapseKey`), kept only with
    /// `providers.offline` and more than one collapse key: four 16-bit message ids a device
    /// (`CollapseSlots`): 8 bytes.
    package static let collapseKeySlots = MemoryLayout<CollapseSlots>.stride
    /// Doze holds of collapsible FCM messages (`PushWorldConfig.dozeCollapseKept`): one message word
    /// a device (`DozeCollapseState.held`): 8 bytes.
    package static let dozeCollapse = MemoryLayout<UInt64>.stride
}
