import InfraModel

// The CDN APIs' metrics in a replication result (only with `infra.cdnApi`).

extension PushMetrics {
    func appendCdnApiMetrics(to m: inout [Metric], infra: InfraWorld) {
        guard let c = infra.cdnApiCounters else { return }
        let rows: [(MetricID, Double)] = [
            (.cdnApiPurgeCalls, Double(c.purgeCalls)),
            (.cdnApiPurgeRequests, Double(c.purgeRequests)),
            (.cdnApiPurgeItems, Double(c.purgeItems)),
            (.cdnApiPurgeCompleteSeconds, Double(c.purgeCompleteTicksMax) / 1e6),
            (.cdnApiWarmRequests, Double(c.warmRequests)),
            (.cdnApiWarmCompleteSeconds, Double(c.warmCompleteTicksMax) / 1e6),
            (.cdnApiFailures, Double(c.failures)),
            (.cdnApiRetries, Double(c.retries)),
            (.cdnApiBatchesAbandoned, Double(c.batchesAbandoned)),
        ]
        for (id, v) in rows { m.append(Metric(id.spec, value: v)) }
    }
}
