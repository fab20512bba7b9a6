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
        var b = bytes
        b.cdnEgressBytes = infra.tierCounters(.edge).bytesServed

        var groups: [GroupHistogram] = []
        for (i, h) in groupHistograms.enumerated() where h.count > 0 {
            let net = InfraNetworkClass(rawValue: UInt8(i % InfraNetworkClass.count)) ?? .wifi
            groups.append(GroupHistogram(platform: i < InfraNetworkClass.count ? "ios" : "android", network: net.description, histogram: h))
        }
        var pops: [PopCounts] = []
        for p in popRequests.indices where popRequests[p] > 0 {
            pops.append(PopCounts(pop: p, prestageRequests: popRequests[p], prestageHits: popHits[p]))
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
            TierCounts(tier: "edge", requests: edge.requests, freshHits: edge.freshHits, staleHits: edge.staleHits, misses: edge.misses,
                       deviceRequests: edge.deviceRequests, deviceHits: edge.deviceHits, warmRequests: edge.warmRequests, rejected503: 0),
            TierCounts(tier: "shield", requests: shield.requests, freshHits: shield.freshHits, staleHits: shield.staleHits, misses: shield.misses,
                       deviceRequests: 0, deviceHits: 0, warmRequests: shield.warmRequests, rejected503: 0),
            TierCounts(tier: "origin", requests: o.requests, freshHits: o.served, staleHits: 0, misses: 0,
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
        return ReplicationResult(
            masterSeed: masterSeed, replication: replication, metrics: metrics(series: s, bytes: b, originPeak: s.originRequests.peak?.count ?? 0, infra: infra,
                                                                               activeSessionsMax: activeSessionsMax, parkedWholeStores: parkedWholeStores),
            outcomes: outcomes, pushesTargeted: pushesTargeted, tapToPaint: tapToPaint, tapToPaintByGroup: groups,
            extensionDownloadLatency: extensionLatency, series: s, pops: pops, missesByRegion: misses, missBinSeconds: missBinSeconds,
            prestage: prestage, tiers: tiers, bytes: b, devices: devices,
            eventsProcessed: outcome.eventsProcessed, virtualEndSeconds: kernel.now.seconds, stopReason: reason)
    }

    /// The scalar metrics, sorted by name. Quantile metrics of empty histograms are left out.
    func metrics(series s: PushTimeSeries, bytes b: ByteCounts, originPeak: UInt64, infra: InfraWorld,
                 activeSessionsMax: Int, parkedWholeStores: Int) -> [Metric] {
        var m: [Metric] = []
        func add(_ name: String, _ value: Double, _ unit: String, _ better: String) {
            m.append(Metric(name: name, value: value, unit: unit, better: better))
        }
        func quantiles(_ prefix: String, _ h: LatencyHistogram, _ qs: [(String, Double)]) {
            for (label, q) in qs {
                if let v = h.quantile(q).microseconds { add("\(prefix).\(label)Seconds", v / 1e6, "s", "lower") }
            }
        }
        let tapQs = [("p50", 0.5), ("p90", 0.9), ("p95", 0.95), ("p99", 0.99)]
        quantiles("tapToPaint", tapToPaint, tapQs)
        if let share = tapToPaint.shareBelow(500_000) { add("tapToPaint.shareUnder500ms", share, "ratio", "higher") }
        add("tapToPaint.count", Double(tapToPaint.count), "count", "none")
        for c in InfraNetworkClass.allCases {
            var merged = groupHistograms[Int(c.rawValue)]
            try? merged.merge(groupHistograms[InfraNetworkClass.count + Int(c.rawValue)])
            if merged.count > 0 { quantiles("tapToPaint.\(c.description)", merged, [("p50", 0.5), ("p90", 0.9)]) }
        }
        quantiles("extension.download", extensionLatency, [("p50", 0.5), ("p95", 0.95)])
        if let mean = extensionLatency.meanMicroseconds { add("extension.downloadMeanSeconds", mean / 1e6, "s", "lower") }
        let handled = outcomes.completed + outcomes.partial + outcomes.timedOutOrKilled + outcomes.skippedByPolicy
        if handled > 0 { add("extension.timeoutShare", Double(outcomes.timedOutOrKilled) / Double(handled), "ratio", "lower") }
        if counters.fetchesStarted > 0 {
            add("extension.fetchSuccessRatio", Double(counters.prestageFetchesOK) / Double(counters.fetchesStarted), "ratio", "higher")
            add("extension.fetchTimeoutShare", Double(counters.fetchesTimedOut) / Double(counters.fetchesStarted), "ratio", "lower")
        }
        add("extension.fetchesStarted", Double(counters.fetchesStarted), "count", "none")
        if counters.prestageRequests > 0 {
            add("edge.prestageHitRatio", Double(counters.prestageHits) / Double(counters.prestageRequests), "ratio", "higher")
        }
        add("origin.peakRequestsPerSecond", Double(originPeak), "1/s", "lower")
        add("origin.requests", Double(infra.originCounters.requests), "count", "lower")
        add("origin.rejected503", Double(infra.originCounters.rejected503), "count", "lower")
        add("origin.queueLengthMax", Double(infra.originCounters.queueLengthMax), "count", "lower")
        let total = Double(max(1, outcomes.total))
        add("outcomes.completedShare", Double(outcomes.completed) / total, "ratio", "higher")
        add("outcomes.partialShare", Double(outcomes.partial) / total, "ratio", "lower")
        add("outcomes.timedOutOrKilledShare", Double(outcomes.timedOutOrKilled) / total, "ratio", "lower")
        add("outcomes.skippedByPolicyShare", Double(outcomes.skippedByPolicy) / total, "ratio", "none")
        add("outcomes.deferredThenCompletedShare", Double(outcomes.deferredThenCompleted) / total, "ratio", "none")
        add("outcomes.deferredThenExpiredShare", Double(outcomes.deferredThenExpired) / total, "ratio", "lower")
        add("outcomes.notDeliveredShare", Double(outcomes.notDelivered) / total, "ratio", "lower")
        add("pushes.targeted", Double(pushesTargeted), "count", "none")
        add("bytes.cdnEgress", Double(b.cdnEgressBytes), "bytes", "lower")
        add("bytes.cellular", Double(b.cellularBytes), "bytes", "lower")
        add("bytes.neverOpened", Double(b.neverOpenedBytes), "bytes", "lower")
        add("bytes.background", Double(b.backgroundBytes), "bytes", "none")
        add("bytes.foreground", Double(b.foregroundBytes), "bytes", "lower")
        add("storage.evictions", Double(b.storageEvictions), "count", "lower")
        add("storage.parkedWhole", Double(parkedWholeStores), "count", "none")
        add("taps.count", Double(s.taps.totalCount), "count", "none")
        add("taps.instantShare", s.taps.totalCount > 0 ? Double(counters.tapsInstant) / Double(s.taps.totalCount) : 0, "ratio", "higher")
        add("taps.duringSession", Double(counters.tapsDuringSession), "count", "none")
        add("taps.scheduled", Double(counters.tapsScheduled), "count", "none")
        add("taps.beyondHorizon", Double(counters.tapsBeyondHorizon), "count", "none")
        add("taps.paintFailed", Double(counters.paintsFailed), "count", "lower")
        add("taps.tokenRefreshes", Double(counters.tokenRefreshes), "count", "lower")
        add("sessions.started", Double(counters.sessionsStarted), "count", "none")
        add("sessions.killedByMemory", Double(counters.killedByMemory), "count", "lower")
        add("sessions.killedByTime", Double(counters.killedByTime), "count", "lower")
        add("sessions.expiryWarnings", Double(counters.expiryWarnings), "count", "lower")
        add("sessions.activeMax", Double(activeSessionsMax), "count", "none")
        add("sessions.replaced", Double(counters.sessionsReplaced), "count", "none")
        add("sessions.cutByHorizon", Double(counters.sessionsCutByHorizon), "count", "none")
        add("extension.fetchesCancelled", Double(counters.fetchesCancelled), "count", "none")
        add("extension.assetsStored", Double(counters.assetsStored), "count", "none")
        add("campaigns.creativeSwaps", Double(counters.creativeSwaps), "count", "none")
        add("os.silentForceQuit", Double(counters.silentForceQuit), "count", "none")
        add("os.silentOverBudget", Double(counters.silentOverBudget), "count", "lower")
        add("os.silentCoalesced", Double(counters.silentCoalesced), "count", "lower")
        add("os.androidDeprioritised", Double(counters.deprioritised), "count", "lower")
        add("os.expeditedJobDenied", Double(counters.expeditedDenied), "count", "lower")
        add("os.backgroundTokenExpired", Double(counters.backgroundTokenExpired), "count", "lower")
        m.sort { $0.name < $1.name }
        return m
    }
}
