import InfraModel

extension PushMetrics {
    /// The bandwidth metrics (`MetricTable.BandwidthFigure`) of every tier from InfraModel's
    /// per-second byte series, over the run's horizon ⌈`horizonSeconds`⌉ (InfraModel's series can
    /// be longer: `infra.metricsHorizonSeconds`; its seconds past the horizon are idle).
    func appendBandwidthMetrics(to m: inout [Metric], series s: PushTimeSeries) {
        let horizon = s.pushesSent.horizonSeconds
        for tier in Tier.allCases {
            var perSecond = [UInt64](repeating: 0, count: horizon)
            if let counter = s.bytes(tier) { for second in 0..<horizon { perSecond[second] = counter[second] } }
            let rates = perSecond.map { Double($0) * 8 }
            let figures: [(MetricTable.BandwidthFigure, Double)] = [
                (.peak, rates.max() ?? 0),
                (.p95, BandwidthBilling.percentileOfSamples(rates, percentile: 0.95)),
                (.p99, BandwidthBilling.percentileOfSamples(rates, percentile: 0.99)),
                (.billed, BandwidthBilling.percentile95BitsPerSecond(bytesPerSecond: perSecond)),
            ]
            for (figure, value) in figures { m.append(Metric(MetricTable.bandwidth(tier, figure).spec, value: value)) }
        }
    }
}
