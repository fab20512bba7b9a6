import InfraModel

extension PushMetrics {
    /// The HTTP caching metrics (RFC 5861 stale-if-error at the tiers; validators and 304s
    /// between them; the upstream tiers' egress), from InfraModel's counters.
    func appendCachingMetrics(to m: inout [Metric], infra: InfraWorld) {
        let edge = infra.tierCounters(.edge)
        let shield = infra.tierCounters(.shield)
        m.append(Metric(MetricID.edgeStaleOnError.spec, value: Double(edge.staleIfErrorServed)))
        m.append(Metric(MetricID.shieldStaleOnError.spec, value: Double(shield.staleIfErrorServed)))
        m.append(Metric(MetricID.edgeErrorResponses.spec, value: Double(edge.errorsServed)))
        m.append(Metric(MetricID.originNotModified.spec, value: Double(infra.originCounters.notModified)))
        m.append(Metric(MetricID.shieldNotModified.spec, value: Double(shield.notModified)))
        m.append(Metric(MetricID.bytesOriginEgress.spec, value: Double(infra.originCounters.bytesServed)))
        m.append(Metric(MetricID.bytesShieldEgress.spec, value: Double(shield.bytesServed)))
        m.append(Metric(MetricID.deviceConditionalRequests.spec, value: Double(counters.conditionalRequests)))
        m.append(Metric(MetricID.deviceNotModified.spec, value: Double(counters.notModified)))
    }

    /// A `.storeAsset`: a downloaded asset stored, or a stored entry a 304 refreshed (no body).
    @inline(__always)
    mutating func countStored(notModified: Bool) {
        if notModified { counters.notModified += 1 } else { counters.assetsStored += 1 }
    }
}
