extension PushMetrics {
    /// The push-provider metrics (`provider.*`), only when the scenario has `providers`, so a run
    /// without it emits exactly what it did before. Definitions: docs/metrics.md ("Push providers").
    func appendProviderMetrics(to m: inout [Metric]) {
        guard let t = providerTally else { return }
        func add(_ id: MetricID, _ value: Double) { m.append(Metric(id.spec, value: value)) }
        add(.providerFcmMessages, Double(t.fcmMessages))
        add(.providerFcmRejected429, Double(t.fcmRejected429))
        let attempts = t.fcmMessages + t.fcmRejected429
        add(.providerFcmRejected429Share, attempts > 0 ? Double(t.fcmRejected429) / Double(attempts) : 0)
        add(.providerApnsMessages, Double(t.apnsMessages))
        add(.providerApnsStreamWaits, Double(t.apnsStreamWaits))
        if t.lastSendTicks >= 0 { add(.providerLastSendSeconds, Double(t.lastSendTicks) / 1e6) }
        // Only with scheduled outages, so a run without them emits what it did before.
        if providerOutagesScheduled {
            add(.providerFcmOutageRefused, Double(t.fcmOutageRefused))
            add(.providerApnsOutageRefused, Double(t.apnsOutageRefused))
        }
        // Only with stale tokens, likewise.
        if providerStaleTokens {
            add(.providerFcmUnregistered, Double(t.fcmUnregistered))
            add(.providerApnsUnregistered, Double(t.apnsUnregistered))
        }
        appendFanOutMetrics(t, to: &m)
        appendDeviceCapsMetrics(to: &m)
        // The FCM Data API's categories: accepted = delivered + pending + ttlExpired (+ the offline
        // ones), and delivered = deliveredNoDelay + delayedDeviceDoze (+ delayedDeviceOffline with
        // the offline metrics, + delayedMessageThrottled with the device-cap ones).
        let api = t.dataApi
        add(.providerFcmDataApiAccepted, Double(api.accepted))
        add(.providerFcmDataApiDelivered, Double(api.delivered))
        add(.providerFcmDataApiPending, Double(api.pending))
        add(.providerFcmDataApiTtlExpired, Double(api.ttlExpired))
        add(.providerFcmDataApiDeliveredNoDelay, Double(api.deliveredNoDelay))
        add(.providerFcmDataApiDelayedDeviceDoze, Double(api.delayedDeviceDoze))
        // `collapsed` is the offline metrics' row; without them it is emitted here when held
        // messages can collapse anyway (FCM's collapsible burst, Doze holds).
        if offlineTally == nil && collapsedOutsideOffline { add(.providerFcmDataApiCollapsed, Double(api.collapsed)) }
    }
}
