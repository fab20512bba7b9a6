import InfraModel

extension PushMetrics {
    /// The bandwidth metrics (`MetricTable.BandwidthFigure`) of every tier from InfraModel's
    /// per-second byte series, over the run's horizon of `horizonSeconds` seconds (InfraModel's
    /// series can be longer: `infra.metricsHorizonSeconds`; its seconds past the horizon are idle).
    ///
    /// The quantiles of seconds sort only the busy (non-zero) seconds: with Z idle ones, rank r of
    /// all N is 0 for r ≤ Z and busy rank r − Z otherwise, the same value as sorting all N.
    func appendBandwidthMetrics(to m: inout [Metric], timeSeries ts: TimeSeries, horizonSeconds h: Int) {
        for tier in Tier.allCases {
            let all: [UInt64]
            switch tier {
            case .edge: all = ts.edgeBytes
            case .shield: all = ts.shieldBytes
            case .origin: all = ts.originBytes
            }
            // InfraModel's series as it is when it spans the horizon (the usual case: no copy).
            var seconds = all
            if seconds.count != h {
                seconds = Array(all.prefix(h))
                if seconds.count < h { seconds += [UInt64](repeating: 0, count: h - seconds.count) }
            }
            var busy = seconds.filter { $0 > 0 }
            busy.sort()
            let idle = h - busy.count
            func quantile(_ p: Double) -> Double {
                guard h > 0 else { return 0 }
                let r = BandwidthBilling.rank(p, of: h)
                return r <= idle ? 0 : Double(busy[r - idle - 1]) * 8
            }
            let figures: [(MetricTable.BandwidthFigure, Double)] = [
                (.peak, Double(busy.last ?? 0) * 8),
                (.p95, quantile(0.95)),
                (.p99, quantile(0.99)),
                (.billed, BandwidthBilling.percentile95BitsPerSecond(bytesPerSecond: seconds)),
            ]
            for (figure, value) in figures { m.append(Metric(MetricTable.bandwidth(tier, figure).spec, value: value)) }
        }
    }
}
