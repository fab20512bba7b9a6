import InfraModel

// The CDN APIs' metrics (emitted only with `infra.cdnApi`).

extension MetricTable {
    /// The rows of the `cdnApi.*` metrics.
    static func cdnApiSpec(_ id: MetricID) -> MetricSpec {
        let n = id.rawValue
        switch id {
        case .cdnApiPurgeCalls: return MetricSpec(n, .count, .none, "Purge calls (one per surrogate key purged)")
        case .cdnApiPurgeRequests: return MetricSpec(n, .count, .none, "Purge API requests, retries included")
        case .cdnApiPurgeItems: return MetricSpec(n, .count, .none, "Purge items (URLs or keys) named")
        case .cdnApiPurgeCompleteSeconds:
            return MetricSpec(n, .seconds, .lower, "Longest purge, call to the last cache's effect")
        case .cdnApiWarmCalls: return MetricSpec(n, .count, .none, "Warm calls")
        case .cdnApiWarmItems: return MetricSpec(n, .count, .none, "Warm URLs named (once per call)")
        case .cdnApiWarmRequests: return MetricSpec(n, .count, .none, "Warm API requests, or warm lookups without a warm API")
        case .cdnApiWarmCompleteSeconds:
            return MetricSpec(n, .seconds, .lower, "Longest warm, call to the last warm request reaching its cache")
        case .cdnApiFailures: return MetricSpec(n, .count, .lower, "CDN API requests that failed")
        case .cdnApiRetries: return MetricSpec(n, .count, .none, "CDN API requests that retried a failed one")
        case .cdnApiBatchesAbandoned: return MetricSpec(n, .count, .lower, "CDN API batches abandoned after every attempt failed")
        case .cdnApiPurgeAfterSendSeconds:
            return MetricSpec(n, .seconds, .lower, "Latest purge's last effect after its campaign's send (0: before)")
        case .cdnApiPurgeBeforeSendSeconds:
            return MetricSpec(n, .seconds, .higher, "Latest purge's last effect before its campaign's send (0: after)")
        case .cdnApiWarmAfterSendSeconds:
            return MetricSpec(n, .seconds, .lower, "Latest warm's last request after its send (0: before)")
        case .cdnApiWarmBeforeSendSeconds:
            return MetricSpec(n, .seconds, .higher, "Latest warm's last request before its send (0: after)")
        default:
            return MetricSpec(n, .count, .none, n)
        }
    }

    /// The `cdnApi.*` metrics also reported per campaign (a campaign's warm and purge calls are
    /// its own; each call's requests, retries and failures are counted to its campaign).
    static let cdnApiPerCampaign: [MetricID] = [
        .cdnApiPurgeCalls, .cdnApiPurgeItems, .cdnApiPurgeRequests, .cdnApiPurgeCompleteSeconds,
        .cdnApiPurgeAfterSendSeconds, .cdnApiPurgeBeforeSendSeconds,
        .cdnApiWarmCalls, .cdnApiWarmItems, .cdnApiWarmRequests, .cdnApiWarmCompleteSeconds,
        .cdnApiWarmAfterSendSeconds, .cdnApiWarmBeforeSendSeconds,
        .cdnApiFailures, .cdnApiRetries, .cdnApiBatchesAbandoned,
    ]
}
