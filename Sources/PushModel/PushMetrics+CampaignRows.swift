import InfraModel
import SimStats

extension PushMetrics {
    /// The `campaign:NAME/METRIC` rows (`MetricTable.perCampaignMetrics`), campaigns in scenario
    /// order; nothing with one campaign. Each row is its pooled metric's formula over the
    /// campaign's own counters, so counts summed over campaigns are the pooled counts.
    func appendCampaignMetrics(to m: inout [Metric]) {
        let t = campaignTally
        guard t.enabled else { return }
        let wifi = Int(NetworkClass.wifi.rawValue)
        for (c, name) in campaignNames.enumerated() {
            func add(_ id: MetricID, _ value: Double) { m.append(Metric(MetricTable.campaign(name, id), value: value)) }
            let o = t.outcomes[c]
            let total = Double(max(1, o.total))
            add(.pushesTargeted, Double(t.targeted[c]))
            if let reach = secondsToDeliver(share: 0.99, targeted: t.targeted[c], firstSendTicks: t.sendStartTicks[c], deliveries: t.deliveries[c]) {
                add(.deliverySecondsTo99Percent, reach)
            }
            add(.outcomesCompletedShare, Double(o.completed) / total)
            add(.outcomesPartialShare, Double(o.partial) / total)
            add(.outcomesFetchTimedOutShare, Double(o.fetchTimedOut) / total)
            add(.outcomesFetchFailedShare, Double(o.fetchFailed) / total)
            add(.outcomesTimedOutOrKilledShare, Double(o.timedOutOrKilled) / total)
            add(.outcomesSkippedByPolicyShare, Double(o.skippedByPolicy) / total)
            add(.outcomesDeferredThenCompletedShare, Double(o.deferredThenCompleted) / total)
            add(.outcomesDeferredThenExpiredShare, Double(o.deferredThenExpired) / total)
            add(.outcomesPayloadExpiredShare, Double(o.payloadExpired) / total)
            add(.outcomesNotDeliveredShare, Double(o.notDelivered) / total)
            if t.prestageRequests[c] > 0 { add(.edgePrestageHitRatio, Double(t.prestageHits[c]) / Double(t.prestageRequests[c])) }
            add(.extensionFetchesStarted, Double(t.fetchesStarted[c]))
            if t.fetchesStarted[c] > 0 {
                add(.extensionFetchSuccessRatio, Double(t.fetchesOK[c]) / Double(t.fetchesStarted[c]))
                add(.extensionFetchTimeoutShare, Double(t.fetchesTimedOut[c]) / Double(t.fetchesStarted[c]))
            }
            if o.handled > 0 { add(.extensionTimeoutShare, Double(o.timedOutOrKilled + o.fetchTimedOut) / Double(o.handled)) }
            let taps = t.taps[c]
            add(.tapsCount, Double(taps))
            add(.tapsInstantShare, taps > 0 ? Double(t.tapsInstant[c]) / Double(taps) : 0)
            let h = t.tapToPaint[c]
            add(.tapToPaintCount, Double(h.count))
            for (id, q) in [(MetricID.tapToPaintP50, 0.5), (.tapToPaintP90, 0.9), (.tapToPaintP95, 0.95), (.tapToPaintP99, 0.99)] {
                if let v = h.quantile(q).microseconds { add(id, v / 1e6) }
            }
            if let share = h.shareBelow(500_000) { add(.tapToPaintShareUnder500ms, share) }
            add(.tapsAbandoned, Double(t.tapsAbandoned[c]))
            add(.tapsAbandonedShare, taps > 0 ? Double(t.tapsAbandoned[c]) / Double(taps) : 0)
            add(.readsCount, Double(t.reads[c]))
            var background: UInt64 = 0, foreground: UInt64 = 0, neverOpened: UInt64 = 0, cellular: UInt64 = 0
            for r in 0..<attribution.regions {
                for n in 0..<ByteAttribution.classes {
                    let b = attribution.value(campaign: c, region: r, network: n, .background)
                    let f = attribution.value(campaign: c, region: r, network: n, .foreground)
                    background &+= b
                    foreground &+= f
                    neverOpened &+= attribution.value(campaign: c, region: r, network: n, .neverOpened)
                    if n != wifi { cellular &+= b &+ f }
                }
            }
            add(.bytesBackground, Double(background))
            add(.bytesForeground, Double(foreground))
            add(.bytesCellular, Double(cellular))
            add(.bytesNeverOpened, Double(neverOpened))
        }
    }

    /// Seconds from the first send (`firstSendTicks`) to the end of the second in which
    /// `deliveries` reached `share` of the `targeted` pushes (the time to the horizon when never
    /// reached); nil when nothing was targeted. The pooled figure and each campaign's.
    func secondsToDeliver(share: Double, targeted: UInt64, firstSendTicks: Int64, deliveries: PerSecondCounter) -> Double? {
        guard targeted > 0 else { return nil }
        let needed = UInt64((share * Double(targeted)).rounded(.up))
        let firstSend = Double(firstSendTicks) / 1e6
        var cumulative = deliveries.beforeStartCount
        for second in 0..<deliveries.horizonSeconds {
            cumulative += deliveries[second]
            if cumulative >= needed { return max(0, Double(second + 1) - firstSend) }
        }
        return max(0, Double(deliveries.horizonSeconds) - firstSend)
    }
}
