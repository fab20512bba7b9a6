// FCM per-device limit metrics (emitted only with `providers` when a device's plan can exceed a
// cap: `PushWorld+DeviceCaps.swift`). docs/metrics.md ("Push providers").

extension MetricTable {
    /// The rows of the per-device limit metrics.
    static func deviceCapsSpec(_ id: MetricID) -> MetricSpec {
        let n = id.rawValue
        switch id {
        case .providerFcmDeviceRateRejected:
            return MetricSpec(n, .count, .lower, "FCM 429s for a device's message rate (per message and attempt)")
        case .providerFcmDeviceRateRetriedAccepted:
            return MetricSpec(n, .count, .none, "Messages FCM accepted after a device-rate 429 and retry")
        case .providerFcmCollapsibleThrottled:
            return MetricSpec(n, .count, .lower, "Collapsible messages FCM held for the device's burst to refill")
        case .providerFcmCollapsibleHeldMeanSeconds:
            return MetricSpec(n, .seconds, .lower, "Mean hold of a throttled collapsible message",
                              ratio: ("seconds throttled collapsible messages were held, added up",
                                      "collapsible messages held (provider.fcm.collapsibleThrottled)"))
        case .providerFcmCollapsibleCollapsedWhileHeld:
            return MetricSpec(n, .count, .none, "Held collapsible messages a newer one of the same key replaced")
        case .providerFcmDataApiDelayedMessageThrottled:
            return MetricSpec(n, .count, .lower, "FCM Data API: delivered, delayed by the collapsible burst throttle")
        default:
            return MetricSpec(n, .count, .none, n)
        }
    }
}

extension PushMetrics {
    /// The per-device limit metrics, only when the run kept per-device limit state, so a run
    /// whose plan cannot reach a cap emits what it did before.
    func appendDeviceCapsMetrics(to m: inout [Metric]) {
        guard let t = deviceCapsTally else { return }
        func add(_ id: MetricID, _ value: Double) { m.append(Metric(id.spec, value: value)) }
        add(.providerFcmDeviceRateRejected, Double(t.deviceRateRejected))
        add(.providerFcmDeviceRateRetriedAccepted, Double(t.deviceRateRetriedAccepted))
        add(.providerFcmCollapsibleThrottled, Double(t.collapsibleThrottled))
        add(.providerFcmCollapsibleHeldMeanSeconds,
            t.collapsibleThrottled > 0 ? Double(t.collapsibleHeldTicks) / 1e6 / Double(t.collapsibleThrottled) : 0)
        add(.providerFcmCollapsibleCollapsedWhileHeld, Double(t.collapsibleCollapsedWhileHeld))
        // The Data API's throttled category, only when the collapsible burst can bind.
        if collapsibleBurstKept, let api = providerTally?.dataApi {
            add(.providerFcmDataApiDelayedMessageThrottled, Double(api.delayedMessageThrottled))
        }
    }
}
