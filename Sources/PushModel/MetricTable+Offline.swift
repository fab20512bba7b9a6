// The offline stores' counts and the FCM Data API's offline categories (emitted only with
// `providers.offline` or `providers.fcm.inactiveShare` > 0). docs/metrics.md ("Push providers").

extension MetricTable {
    /// The rows of the offline-store metrics.
    static func offlineSpec(_ id: MetricID) -> MetricSpec {
        let n = id.rawValue
        switch id {
        case .providerFcmDataApiDelayedDeviceOffline:
            return MetricSpec(n, .count, .lower, "FCM Data API: delivered, delayed by the device being offline")
        case .providerFcmDataApiCollapsed:
            return MetricSpec(n, .count, .none, "FCM Data API: collapsed by a newer message")
        case .providerFcmDataApiDroppedTooManyPendingMessages:
            return MetricSpec(n, .count, .lower, "FCM Data API: dropped, over 100 pending for an offline device")
        case .providerFcmDataApiDroppedDeviceInactive:
            return MetricSpec(n, .count, .lower, "FCM Data API: dropped, device inactive")
        case .providerFcmOfflineStored:
            return MetricSpec(n, .count, .none, "Pushes stored for an offline Android device")
        case .providerApnsOfflineStored:
            return MetricSpec(n, .count, .none, "Notifications APNs stored for an offline iOS device")
        case .providerApnsOfflineCoalesced:
            return MetricSpec(n, .count, .none, "Stored notifications APNs replaced by a newer one (coalesced)")
        case .providerApnsOfflineDeliveredAfterReconnect:
            return MetricSpec(n, .count, .none, "Stored notifications APNs handed over at the reconnect")
        case .providerOfflineExpiredInStore:
            return MetricSpec(n, .count, .lower, "Stored pushes past their TTL at the reconnect")
        case .providerFcmOfflineCollapseKeyLimitDropped:
            return MetricSpec(n, .count, .lower, "Stored collapsible messages dropped for a fifth collapse key")
        default:
            return MetricSpec(n, .count, .none, n)
        }
    }
}
