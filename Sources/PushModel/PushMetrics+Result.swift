import Foundation
import InfraModel
import SimKernel
import SimStats

extension PushMetrics {
    /// Builds the replication result (deterministic: arrays only, sorted), with InfraModel's
    /// counters and the session driver's figures.
    func makeResult(infra: InfraWorld, kernel: Kernel, outcome: RunOutcome, masterSeed: UInt64, replication: Int, devices: Int,
                    activeSessionsMax: Int, parkedWholeStores: Int) -> ReplicationResult {
        var s = series
        let ts = infra.timeSeries
        for sec in 0..<min(ts.horizonSeconds, s.originRequests.horizonSeconds) {
            if ts.originRequests[sec] > 0 { s.originRequests.add(atMicroseconds: Int64(sec) * 1_000_000, times: UInt64(ts.originRequests[sec])) }
            if ts.origin503[sec] > 0 { s.origin503.add(atMicroseconds: Int64(sec) * 1_000_000, times: UInt64(ts.origin503[sec])) }
        }
        s.analyticsReceipts = analytics?.arrivals
        s.addBandwidth(ts)
        var b = bytes
        b.cdnEgressBytes = infra.tierCounters(.edge).bytesServed

        var groups: [GroupHistogram] = []
        for (i, h) in groupHistograms.enumerated() where h.count > 0 {
            let net = InfraNetworkClass(rawValue: UInt8(i % InfraNetworkClass.count)) ?? .wifi
            groups.append(GroupHistogram(platform: i < InfraNetworkClass.count ? "ios" : "android", network: net.description, histogram: h))
        }
        var pops: [PopCounts] = []
        for p in popRequests.indices {
            let upstream = infra.counters[p].upstreamFetches
            if popRequests[p] > 0 || upstream > 0 {
                pops.append(PopCounts(pop: p, prestageRequests: popRequests[p], prestageHits: popHits[p], upstreamFetches: upstream))
            }
        }
        var misses: [RegionMisses] = []
        for r in 0..<(regionMisses.count / max(1, missBins)) {
            var bins: [[UInt64]] = []
            for k in 0..<missBins where regionMisses[r * missBins + k] > 0 { bins.append([UInt64(k), regionMisses[r * missBins + k]]) }
            if !bins.isEmpty { misses.append(RegionMisses(region: r, perBin: bins)) }
        }
        let edge = infra.tierCounters(.edge)
        let shield = infra.tierCounters(.shield)
        let o = infra.originCounters
        let tiers = [
            TierCounts(tier: .edge, requests: edge.requests, freshHits: edge.freshHits, staleHits: edge.staleHits, misses: edge.misses,
                       deviceRequests: edge.deviceRequests, deviceHits: edge.deviceHits, warmRequests: edge.warmRequests, rejected503: 0),
            TierCounts(tier: .shield, requests: shield.requests, freshHits: shield.freshHits, staleHits: shield.staleHits, misses: shield.misses,
                       deviceRequests: 0, deviceHits: 0, warmRequests: shield.warmRequests, rejected503: 0),
            TierCounts(tier: .origin, requests: o.requests, freshHits: o.served, staleHits: 0, misses: 0,
                       deviceRequests: 0, deviceHits: 0, warmRequests: 0, rejected503: o.rejected503),
        ]
        let prestage = PrestageCounts(requests: counters.prestageRequests, hits: counters.prestageHits,
                                      misses: counters.prestageMisses, notReachingEdge: counters.prestageNoEdge)
        let reason: String
        switch outcome.reason {
        case .drained: reason = "drained"
        case .timeLimit: reason = "timeLimit"
        case .eventLimit: reason = "eventLimit"
        case .stopped: reason = "stopped"
        }
        var result = ReplicationResult(
            masterSeed: masterSeed, replication: replication, metrics: metrics(series: s, bytes: b, originPeak: s.originRequests.peak?.count ?? 0, infra: infra,
                                                                               activeSessionsMax: activeSessionsMax, parkedWholeStores: parkedWholeStores),
            outcomes: outcomes, pushesTargeted: pushesTargeted, tapToPaint: tapToPaint, tapToPaintByGroup: groups,
            extensionDownloadLatency: extensionLatency, tapToPaintWindows: tapToPaintWindows, series: s, pops: pops, missesByRegion: misses, missBinSeconds: missBinSeconds,
            firstSendSeconds: Double(firstSendTicks) / 1e6,
            prestage: prestage, tiers: tiers, bytes: b, devices: devices,
            eventsProcessed: outcome.eventsProcessed, virtualEndSeconds: kernel.now.seconds, stopReason: reason,
            bandwidth: BandwidthSeries(ts.bins, horizonSeconds: s.pushesSent.horizonSeconds))
        result.attribution = attribution
        let p95 = pushBytes.regionPercentiles95(regions: attribution.regions)
        result.userDataRegions = (0..<attribution.regions).compactMap { r in
            p95[1][r] == nil && p95[0][r] == nil ? nil : RegionUserData(region: r, openedP95Bytes: p95[1][r], neverOpenedP95Bytes: p95[0][r])
        }
        return result
    }

    /// The metrics that report one driver counter as it is.
    static var counterMetrics: [(MetricID, KeyPath<DriverCounters, UInt64>)] { [
        (.extensionFetchesStarted, \.fetchesStarted),
        (.tapsDuringSession, \.tapsDuringSession),
        (.tapsScheduled, \.tapsScheduled),
        (.tapsBeyondHorizon, \.tapsBeyondHorizon),
        (.tapsPaintFailed, \.paintsFailed),
        (.tapsTokenRefreshes, \.tokenRefreshes),
        (.sessionsStarted, \.sessionsStarted),
        (.sessionsKilledByMemory, \.killedByMemory),
        (.sessionsKilledByTime, \.killedByTime),
        (.sessionsExpiryWarnings, \.expiryWarnings),
        (.sessionsReplaced, \.sessionsReplaced),
        (.sessionsCutByHorizon, \.sessionsCutByHorizon),
        (.extensionFetchesCancelled, \.fetchesCancelled),
        (.extensionAssetsStored, \.assetsStored),
        (.campaignsCreativeSwaps, \.creativeSwaps),
        (.creativeStalePrestages, \.stalePrestages),
        (.creativeStaleTaps, \.staleTaps),
        (.osSilentForceQuit, \.silentForceQuit),
        (.osSilentOverBudget, \.silentOverBudget),
        (.osSilentCoalesced, \.silentCoalesced),
        (.osAndroidDeprioritised, \.deprioritised),
        (.osExpeditedJobDenied, \.expeditedDenied),
        (.osBackgroundTokenExpired, \.backgroundTokenExpired),
        (.osDozeDeferred, \.dozeDeferred),
        (.networkSessionsChanged, \.sessionsNetworkChanged),
        (.networkFetchesFailed, \.fetchesNetworkChanged),
        (.networkTapsOnOtherNetwork, \.tapsOnOtherNetwork),
        (.fallbackEnqueued, \.fallbacksEnqueued),
        (.fallbackExpedited, \.fallbacksExpedited),
        (.fallbackCompleted, \.fallbacksCompleted),
        (.tapsAbandoned, \.tapsAbandoned),
        (.tapsForegroundKept, \.foregroundKept),
        (.tapsForegroundNotKept, \.foregroundNotKept),
        (.tapsForegroundNotKeptSessionRunning, \.foregroundNotKeptSessionRunning),
        (.readsCount, \.reads),
    ] }

    /// The scalar metrics (`MetricTable`), sorted by name. Quantile metrics of empty histograms
    /// are left out.
    func metrics(series s: PushTimeSeries, bytes b: ByteCounts, originPeak: UInt64, infra: InfraWorld,
                 activeSessionsMax: Int, parkedWholeStores: Int) -> [Metric] {
        var m: [Metric] = []
        func add(_ id: MetricID, _ value: Double) {
            m.append(Metric(id.spec, value: value))
        }
        func quantiles(_ h: LatencyHistogram, _ qs: [(MetricID, Double)]) {
            for (id, q) in qs {
                if let v = h.quantile(q).microseconds { add(id, v / 1e6) }
            }
        }
        quantiles(tapToPaint, [(.tapToPaintP50, 0.5), (.tapToPaintP90, 0.9), (.tapToPaintP95, 0.95), (.tapToPaintP99, 0.99)])
        let spanWindows = max(1, Self.worstSpanSeconds / tapToPaintWindows.windowSeconds)
        if let worst = tapToPaintWindows.worstSpan(quantile: 0.95, spanWindows: spanWindows, countMin: Self.worstSpanTapsMin) {
            add(.tapToPaintWorstMinuteP95, worst.quantileMicroseconds / 1e6)
        }
        if let reach = secondsToDeliver(share: 0.99, deliveries: s.deliveries) { add(.deliverySecondsTo99Percent, reach) }
        if let share = tapToPaint.shareBelow(500_000) { add(.tapToPaintShareUnder500ms, share) }
        add(.tapToPaintCount, Double(tapToPaint.count))
        for c in InfraNetworkClass.allCases {
            var merged = groupHistograms[Int(c.rawValue)]
            try? merged.merge(groupHistograms[InfraNetworkClass.count + Int(c.rawValue)])
            guard merged.count > 0 else { continue }
            for q in MetricTable.NetworkQuantile.allCases {
                if let v = merged.quantile(q.probability).microseconds {
                    m.append(Metric(MetricTable.tapToPaint(network: c, quantile: q), value: v / 1e6))
                }
            }
        }
        quantiles(extensionLatency, [(.extensionDownloadP50, 0.5), (.extensionDownloadP95, 0.95)])
        if let mean = extensionLatency.meanMicroseconds { add(.extensionDownloadMean, mean / 1e6) }
        let handled = outcomes.handled
        if handled > 0 { add(.extensionTimeoutShare, Double(outcomes.timedOutOrKilled + outcomes.fetchTimedOut) / Double(handled)) }
        if counters.fetchesStarted > 0 {
            add(.extensionFetchSuccessRatio, Double(counters.prestageFetchesOK) / Double(counters.fetchesStarted))
            add(.extensionFetchTimeoutShare, Double(counters.fetchesTimedOut) / Double(counters.fetchesStarted))
        }
        if counters.prestageRequests > 0 {
            add(.edgePrestageHitRatio, Double(counters.prestageHits) / Double(counters.prestageRequests))
        }
        if counters.prestageCompleted > 0 {
            add(.edgePrestageCompletedHitRatio, Double(counters.prestageCompletedHits) / Double(counters.prestageCompleted))
        }
        add(.originPeakRequestsPerSecond, Double(originPeak))
        add(.originRequests, Double(infra.originCounters.requests))
        add(.originRejected503, Double(infra.originCounters.rejected503))
        add(.originQueueLengthMax, Double(infra.originCounters.queueLengthMax))
        let total = Double(max(1, outcomes.total))
        add(.outcomesCompletedShare, Double(outcomes.completed) / total)
        add(.outcomesPartialShare, Double(outcomes.partial) / total)
        add(.outcomesFetchTimedOutShare, Double(outcomes.fetchTimedOut) / total)
        add(.outcomesFetchFailedShare, Double(outcomes.fetchFailed) / total)
        add(.outcomesPayloadExpiredShare, Double(outcomes.payloadExpired) / total)
        add(.outcomesTimedOutOrKilledShare, Double(outcomes.timedOutOrKilled) / total)
        add(.outcomesSkippedByPolicyShare, Double(outcomes.skippedByPolicy) / total)
        add(.outcomesDeferredThenCompletedShare, Double(outcomes.deferredThenCompleted) / total)
        add(.outcomesDeferredThenExpiredShare, Double(outcomes.deferredThenExpired) / total)
        add(.outcomesNotDeliveredShare, Double(outcomes.notDelivered) / total)
        add(.pushesTargeted, Double(pushesTargeted))
        add(.bytesCdnEgress, Double(b.cdnEgressBytes))
        add(.bytesCellular, Double(b.cellularBytes))
        add(.bytesNeverOpened, Double(b.neverOpenedBytes))
        add(.bytesBackground, Double(b.backgroundBytes))
        add(.bytesForeground, Double(b.foregroundBytes))
        add(.storageEvictedForSpace, Double(b.evictedForSpace))
        add(.storageExpiredRemoved, Double(b.expiredRemoved))
        add(.storageParkedWhole, Double(parkedWholeStores))
        add(.tapsCount, Double(s.taps.totalCount))
        add(.tapsInstantShare, s.taps.totalCount > 0 ? Double(counters.tapsInstant) / Double(s.taps.totalCount) : 0)
        add(.sessionsActiveMax, Double(activeSessionsMax))
        if counters.prestageFetchesOK > 0 {
            add(.creativeStalePrestageShare, Double(counters.stalePrestages) / Double(counters.prestageFetchesOK))
        }
        if tapToPaint.count > 0 { add(.creativeStaleTapShare, Double(counters.staleTaps) / Double(tapToPaint.count)) }
        // The faults' metrics exist only with scheduled faults (`infra.faults`).
        if faultsScheduled {
            let f = infra.faultCounters
            add(.faultsOriginOutageErrors, Double(f.originOutageErrors))
            add(.faultsPopFailovers, Double(f.popFailovers))
            add(.faultsPopsAllDown, Double(f.popsAllDown))
            add(.faultsWarmsLost, Double(f.warmsLost))
            add(.faultsDegradedRequests, Double(f.degradedRequests))
        }
        // The placeholder's metrics exist only with it on (`infra.placeholder.enabled`).
        if placeholderEnabled {
            add(.extensionPlaceholderRedirects, Double(counters.prestagePlaceholderRedirects))
            add(.tapsPlaceholderPainted, Double(counters.placeholderTaps))
            if tapToPaint.count > 0 { add(.tapsPlaceholderShare, Double(counters.placeholderTaps) / Double(tapToPaint.count)) }
        }
        if let a = analytics {
            add(.receiptsSent, Double(a.receipts))
            add(.receiptsPerPush, Double(a.receipts) / Double(max(1, pushesTargeted)))
            add(.receiptsBeyondHorizon, Double(a.arrivals.beyondHorizonCount))
            add(.analyticsPeakRequestsPerSecond, Double(a.peakRequestsPerSecond))
            add(.analyticsP99RequestsPerSecond, Double(a.perSecondQuantile(0.99) ?? 0))
            if let q = a.queue {
                add(.analyticsServed, Double(q.served))
                add(.analyticsRejected, Double(q.rejected))
                add(.analyticsRejectedShare, q.arrived > 0 ? Double(q.rejected) / Double(q.arrived) : 0)
                add(.analyticsDelayedShare, q.arrived > 0 ? Double(q.delayed) / Double(q.arrived) : 0)
                add(.analyticsWaitP95Seconds, q.waitQuantileSeconds(0.95) ?? 0)
                add(.analyticsQueueLengthMax, Double(q.queueLengthMax))
                add(.analyticsQueuedAtHorizon, Double(q.queuedAtHorizon))
            }
        }
        // The mean wait of the messages Doze deferred; 0 when none was (no message waited).
        add(.osDozeDeferralMeanSeconds, Double(counters.dozeDeferralMicroseconds) / 1e6 / Double(max(1, counters.dozeDeferred)))
        add(.tapsAbandonedShare, s.taps.totalCount > 0 ? Double(counters.tapsAbandoned) / Double(s.taps.totalCount) : 0)
        add(.readsPerPush, Double(counters.reads) / total)
        for (id, counter) in Self.counterMetrics { add(id, Double(counters[keyPath: counter])) }
        appendCachingMetrics(to: &m, infra: infra)
        appendDecisionMetrics(to: &m, bytes: b)
        appendBandwidthMetrics(to: &m, timeSeries: infra.timeSeries, horizonSeconds: s.pushesSent.horizonSeconds)
        appendCdnApiMetrics(to: &m, infra: infra)
        appendHLSMetrics(to: &m)
        appendEnergyMetrics(to: &m)
        appendCostAndUserDataMetrics(to: &m, infra: infra)
        appendProviderMetrics(to: &m)
        appendOfflineMetrics(to: &m)
        appendCampaignMetrics(to: &m)
        m.sort { $0.name < $1.name }
        return m
    }
}

extension PushMetrics {
    /// The span of tap time `tapToPaint.worstMinuteP95Seconds` reads (a minute, stepped by the
    /// window of `tapToPaintWindows`).
    static let worstSpanSeconds = 60
    /// Fewest painted taps a span needs for its p95 to count: below 20 the nearest-rank p95 is the
    /// span's slowest tap (judgement).
    static let worstSpanTapsMin: UInt64 = 20

    /// Seconds from the first send to the end of the second in which deliveries reached `share` of
    /// the pushes targeted; a share never reached by the horizon reads the time to the horizon's
    /// end (a lower bound: an objective on it must allow less, which `validate` checks). Nil when
    /// nothing was targeted. Resolution: 1 s.
    func secondsToDeliver(share: Double, deliveries: PerSecondCounter) -> Double? {
        secondsToDeliver(share: share, targeted: pushesTargeted, firstSendTicks: firstSendTicks, deliveries: deliveries)
    }
}

