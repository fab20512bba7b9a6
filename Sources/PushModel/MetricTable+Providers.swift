// The push-provider metrics (emitted only when the scenario has `providers`).

extension MetricTable {
    /// The rows of the push-provider metrics.
    static func providerSpec(_ id: MetricID) -> MetricSpec {
        let n = id.rawValue
        switch id {
        case .providerFcmMessages:
            return MetricSpec(n, .count, .none, "Messages FCM accepted (every campaign, the project's quota)")
        case .providerFcmRejected429:
            // A count: messages refused with 429 RESOURCE_EXHAUSTED because the project's bucket was
            // empty (a push refused n times counts n times); the share below divides it.
            return MetricSpec(n, .count, .lower, "FCM sends refused with 429 (quota exhausted)")
        case .providerFcmRejected429Share:
            return MetricSpec(n, .ratio, .lower, "Share of FCM sends refused with 429",
                              ratio: ("messages FCM refused with 429 (provider.fcm.rejected429)",
                                      "messages sent to FCM: accepted (provider.fcm.messages) + refused"))
        case .providerApnsMessages:
            return MetricSpec(n, .count, .none, "Notifications APNs accepted")
        case .providerApnsStreamWaits:
            return MetricSpec(n, .count, .lower, "APNs sends that waited for a free stream")
        case .providerLastSendSeconds:
            // The instant the providers accepted the run's last push (its last carousel part).
            return MetricSpec(n, .seconds, .none, "Last push sent (virtual time)")
        case .providerFcmOutageRefused:
            return MetricSpec(n, .count, .lower, "FCM sends refused during an outage (5xx)")
        case .providerApnsOutageRefused:
            return MetricSpec(n, .count, .lower, "APNs sends refused during an outage (5xx)")
        default:
            return MetricSpec(n, .count, .none, n)
        }
    }
}
