// FCM topic fan-out and APNs priority-5 burst metrics (emitted only with `providers`, the fan-out
// ones only with a campaign sent as a topic, the burst ones only with one at priority 5).
// docs/metrics.md ("Push providers").

extension MetricTable {
    /// The rows of the fan-out and priority-5 metrics.
    static func fanOutSpec(_ id: MetricID) -> MetricSpec {
        let n = id.rawValue
        switch id {
        case .providerFcmTopicRequests:
            return MetricSpec(n, .count, .none, "FCM topic messages accepted from the sender")
        case .providerFcmFanOutMessages:
            return MetricSpec(n, .count, .none, "Messages FCM's topic fan-out sent to devices")
        case .providerFcmFanOutLastSendSeconds:
            // The instant FCM's fan-out sent its last message to a device (its last carousel part).
            return MetricSpec(n, .seconds, .none, "Last topic fan-out send (virtual time)")
        case .providerApnsPriority5Pushes:
            return MetricSpec(n, .count, .none, "Priority-5 pushes to iOS devices")
        case .providerApnsPriority5Delayed:
            return MetricSpec(n, .count, .lower, "Priority-5 pushes held for the device's next burst")
        case .providerApnsPriority5DelayMeanSeconds:
            return MetricSpec(n, .seconds, .lower, "Mean wait of a priority-5 push for its burst",
                              ratio: ("seconds priority-5 pushes waited for their burst, added up",
                                      "priority-5 pushes to iOS devices (provider.apns.priority5Pushes)"))
        default:
            return MetricSpec(n, .count, .none, n)
        }
    }
}

extension PushMetrics {
    /// The fan-out and priority-5 metrics of `t`, each group only when a campaign uses it, so a
    /// run without them emits what it did before.
    func appendFanOutMetrics(_ t: ProviderTally, to m: inout [Metric]) {
        func add(_ id: MetricID, _ value: Double) { m.append(Metric(id.spec, value: value)) }
        if providerTopics {
            add(.providerFcmTopicRequests, Double(t.fanOut.topicRequests))
            add(.providerFcmFanOutMessages, Double(t.fanOut.messages))
            if t.fanOut.lastSendTicks >= 0 { add(.providerFcmFanOutLastSendSeconds, Double(t.fanOut.lastSendTicks) / 1e6) }
        }
        if providerPriority5 {
            let p = t.priority5
            add(.providerApnsPriority5Pushes, Double(p.pushes))
            add(.providerApnsPriority5Delayed, Double(p.delayed))
            add(.providerApnsPriority5DelayMeanSeconds, p.pushes > 0 ? Double(p.delayTicks) / 1e6 / Double(p.pushes) : 0)
        }
    }
}
