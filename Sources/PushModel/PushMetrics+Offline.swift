extension PushMetrics {
    /// The offline-store metrics, only when the scenario has `providers.offline` or an FCM
    /// inactive share, so a run without them emits exactly what it did before. Definitions:
    /// docs/metrics.md ("Offline devices").
    func appendOfflineMetrics(to m: inout [Metric]) {
        guard let o = offlineTally, let api = providerTally?.dataApi else { return }
        func add(_ id: MetricID, _ value: UInt64) { m.append(Metric(id.spec, value: Double(value))) }
        add(.providerFcmDataApiDelayedDeviceOffline, api.delayedDeviceOffline)
        add(.providerFcmDataApiCollapsed, api.collapsed)
        add(.providerFcmDataApiDroppedTooManyPendingMessages, api.droppedTooManyPendingMessages)
        add(.providerFcmDataApiDroppedDeviceInactive, api.droppedDeviceInactive)
        add(.providerFcmOfflineStored, o.androidStored)
        add(.providerApnsOfflineStored, o.iosStored)
        add(.providerApnsOfflineCoalesced, o.iosCoalesced)
        add(.providerApnsOfflineDeliveredAfterReconnect, o.iosDeliveredAfterReconnect)
        add(.providerOfflineExpiredInStore, o.expiredInStore)
        // Only with more than one collapse key, so a scenario without `collapseKey` emits as before.
        if offlineKeyed { add(.providerFcmOfflineCollapseKeyLimitDropped, o.collapseKeyLimitDropped) }
    }
}
