// The stale-token counts and the FCM Data API's categories (emitted only with `providers`; the
// stale-token counts only with an `unregisteredShare` > 0). docs/metrics.md ("Push providers").

extension MetricTable {
    /// The rows of the stale-token and FCM Data API metrics.
    static func dataApiSpec(_ id: MetricID) -> MetricSpec {
        let n = id.rawValue
        switch id {
        case .providerFcmUnregistered:
            return MetricSpec(n, .count, .lower, "FCM sends answered 404 UNREGISTERED (stale token)")
        case .providerApnsUnregistered:
            return MetricSpec(n, .count, .lower, "APNs sends answered 410 Unregistered (stale token)")
        case .providerFcmDataApiAccepted:
            // The Data API's denominator (countMessagesAccepted): messages FCM accepted for Android devices.
            return MetricSpec(n, .count, .none, "FCM Data API: messages accepted (Android)")
        case .providerFcmDataApiDelivered:
            return MetricSpec(n, .count, .higher, "FCM Data API: delivered")
        case .providerFcmDataApiPending:
            return MetricSpec(n, .count, .lower, "FCM Data API: pending at the horizon")
        case .providerFcmDataApiTtlExpired:
            return MetricSpec(n, .count, .lower, "FCM Data API: held by Doze past the TTL")
        case .providerFcmDataApiDeliveredNoDelay:
            return MetricSpec(n, .count, .higher, "FCM Data API: delivered without delay")
        case .providerFcmDataApiDelayedDeviceDoze:
            return MetricSpec(n, .count, .lower, "FCM Data API: delivered, delayed by Doze")
        default:
            return MetricSpec(n, .count, .none, n)
        }
    }
}
