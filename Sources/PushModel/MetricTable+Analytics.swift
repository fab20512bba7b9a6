// The analytics endpoint's queue metrics (emitted only with `analytics`).

extension MetricTable {
    /// The rows of the analytics endpoint's queue metrics (`analytics.served` … `queuedAtHorizon`).
    static func analyticsQueueSpec(_ id: MetricID) -> MetricSpec {
        let n = id.rawValue
        switch id {
        case .analyticsServed: return MetricSpec(n, .count, .none, "Receipts the analytics endpoint served")
        case .analyticsRejected: return MetricSpec(n, .count, .lower, "Receipts rejected by the analytics endpoint (queue full)")
        case .analyticsRejectedShare:
            return MetricSpec(n, .ratio, .lower, "Receipts rejected by the analytics endpoint, share",
                              ratio: ("receipts rejected because the endpoint's queue was full", "receipts that arrived at the endpoint inside the horizon"))
        case .analyticsDelayedShare:
            return MetricSpec(n, .ratio, .lower, "Receipts that waited in the analytics endpoint's queue, share",
                              ratio: ("admitted receipts not served within the second they arrived in", "receipts that arrived at the endpoint inside the horizon"))
        case .analyticsWaitP95Seconds: return MetricSpec(n, .seconds, .lower, "Analytics endpoint queue wait, p95 of admitted receipts")
        case .analyticsQueueLengthMax: return MetricSpec(n, .count, .lower, "Analytics endpoint queue, longest")
        case .analyticsQueuedAtHorizon: return MetricSpec(n, .count, .lower, "Receipts still queued at the horizon")
        default:
            return MetricSpec(n, .count, .none, n)
        }
    }
}
