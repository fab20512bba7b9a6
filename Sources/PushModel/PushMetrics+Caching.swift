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
    }
}
