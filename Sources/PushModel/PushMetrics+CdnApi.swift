import InfraModel

// The CDN APIs' metrics in a replication result (only with `infra.cdnApi`), pooled and, with two
// campaigns or more, per campaign (`campaign:NAME/cdnApi.…`: its own calls).

extension PushMetrics {
    func appendCdnApiMetrics(to m: inout [Metric], infra: InfraWorld) {
        guard let c = infra.cdnApiCounters else { return }
        let tally = cdnApiTally
        for (id, v) in Self.cdnApiRows(c, purgeAfterSend: CdnApiTally.latest(tally.purgeAfterSendTicks),
                                       warmAfterSend: CdnApiTally.latest(tally.warmAfterSendTicks)) {
            m.append(Metric(id.spec, value: v))
        }
        guard campaignTally.enabled, tally.enabled else { return }
        for (k, name) in campaignNames.enumerated() {
            let own = tally.counters[k]
            for (id, v) in Self.cdnApiRows(own, purgeAfterSend: tally.purgeAfterSendTicks[k], warmAfterSend: tally.warmAfterSendTicks[k]) {
                // A campaign without purge (or warm) calls has no longest or latest one.
                if (own.purgeCalls == 0 && id == .cdnApiPurgeCompleteSeconds) || (own.warmCalls == 0 && id == .cdnApiWarmCompleteSeconds) { continue }
                m.append(Metric(MetricTable.campaign(name, id), value: v))
            }
        }
    }

    /// The rows of `c`: the counts, the longest purge and warm, and the latest purge's and warm's
    /// last effect after (or before) the send it was for, when there was one (the positive and the
    /// negative part of one signed time: one of the two is 0).
    static func cdnApiRows(_ c: CdnApiCounters, purgeAfterSend: Int64?, warmAfterSend: Int64?) -> [(MetricID, Double)] {
        var rows: [(MetricID, Double)] = [
            (.cdnApiPurgeCalls, Double(c.purgeCalls)),
            (.cdnApiPurgeRequests, Double(c.purgeRequests)),
            (.cdnApiPurgeItems, Double(c.purgeItems)),
            (.cdnApiPurgeCompleteSeconds, Double(c.purgeCompleteTicksMax) / 1e6),
            (.cdnApiWarmCalls, Double(c.warmCalls)),
            (.cdnApiWarmItems, Double(c.warmItems)),
            (.cdnApiWarmRequests, Double(c.warmRequests)),
            (.cdnApiWarmCompleteSeconds, Double(c.warmCompleteTicksMax) / 1e6),
            (.cdnApiFailures, Double(c.failures)),
            (.cdnApiRetries, Double(c.retries)),
            (.cdnApiBatchesAbandoned, Double(c.batchesAbandoned)),
        ]
        if let p = purgeAfterSend {
            rows += [(.cdnApiPurgeAfterSendSeconds, Double(max(0, p)) / 1e6), (.cdnApiPurgeBeforeSendSeconds, Double(max(0, -p)) / 1e6)]
        }
        if let w = warmAfterSend {
            rows += [(.cdnApiWarmAfterSendSeconds, Double(max(0, w)) / 1e6), (.cdnApiWarmBeforeSendSeconds, Double(max(0, -w)) / 1e6)]
        }
        return rows
    }
}
