import InfraModel
import SimStats

// The one table of the metrics a replication result emits: each metric's name, unit, better
// direction, title, ratio parts, report alarm level and bench gate. Result building, reports,
// comparisons and the bench gate read it instead of spelling names and directions themselves.

/// Which direction of a metric is better (`Metric.better` in results: "lower", "higher", "none").
package enum MetricBetter: String, Sendable, Equatable, CaseIterable {
    case lower
    case higher
    /// A count or share reported for context; neither direction is better.
    case none

    /// The direction paired comparisons use (nil: not compared as better or worse).
    package var direction: BetterDirection? {
        switch self {
        case .lower: return .lower
        case .higher: return .higher
        case .none: return nil
        }
    }
}

/// A metric's unit (`Metric.unit` in results).
package enum MetricUnit: String, Sendable, Equatable, CaseIterable {
    case seconds = "s"
    case ratio
    case count
    case bytes
    case perSecond = "1/s"
    // bandwidth
    /// Bits per second (a byte rate × 8): bandwidth as CDN and transit contracts state it.
    case bitsPerSecond = "bit/s"
    // energy
    case joules = "J"
    // costs
    /// An amount in the scenario's `costs.currency`.
    case money
    /// A dimensionless factor that may exceed 1 (a utilisation: a rate used over the rate bought);
    /// shown as a percentage.
    case factor

    /// The values a metric of this unit can take: a ratio is a share (0…1); counts, bytes, seconds,
    /// rates and factors are never negative.
    package var bounds: ClosedRange<Double> { self == .ratio ? 0...1 : 0...Double.infinity }
}

/// A ratio metric's parts, in words.
package struct MetricRatio: Sendable, Equatable {
    package let numerator: String
    package let denominator: String
}

/// A report's alarm level for a metric, in the metric's unit.
package struct MetricAlarm: Sendable, Equatable {
    package enum When: Sendable, Equatable {
        /// Alarm when the value is below `value`.
        case below
        /// Alarm when the value is above `value`.
        case above
    }
    package let value: Double
    package let when: When
    /// What to look at when the alarm sounds (or the interval crosses it), in the reader's words:
    /// the likely cause, the lever and the chart or file that shows where.
    package let lookAt: String

    init(value: Double, when: When, lookAt: String) {
        self.value = value
        self.when = when
        self.lookAt = lookAt
    }
}

/// The bench regression gate of a metric: the smallest worsening that counts is
/// max(`relative` · |baseline mean|, `absolute`), in the metric's unit; `text` is how it reads.
package struct MetricGate: Sendable, Equatable {
    package let relative: Double
    package let absolute: Double
    package let text: String
}

/// Everything known about one metric.
package struct MetricSpec: Sendable, Equatable {
    /// The metric's name in results, e.g. "tapToPaint.p50Seconds".
    package let name: String
    package let unit: MetricUnit
    package let better: MetricBetter
    /// A human title, e.g. "Tap to paint, median".
    package let title: String
    /// For a ratio or share: what is divided by what.
    package let ratio: MetricRatio?
    /// The report's alarm level, where there is one.
    package let alarm: MetricAlarm?
    /// The bench gate, for the metrics `prestage bench` watches.
    package let gate: MetricGate?
    /// For a rate that is not a share (bit/s): what is counted over what span of time.
    package let rate: MetricRatio?

    init(_ name: String, _ unit: MetricUnit, _ better: MetricBetter, _ title: String, ratio: (String, String)? = nil,
         alarm: MetricAlarm? = nil, gate: MetricGate? = nil, rate: (String, String)? = nil) {
        self.rate = rate.map { MetricRatio(numerator: $0.0, denominator: $0.1) }
        self.name = name
        self.unit = unit
        self.better = better
        self.title = title
        self.ratio = ratio.map { MetricRatio(numerator: $0.0, denominator: $0.1) }
        self.alarm = alarm
        self.gate = gate
    }
}

/// The metric table (see the file comment).
package enum MetricTable {
    /// The quantiles reported per network class.
    package enum NetworkQuantile: String, Sendable, CaseIterable {
        case p50
        case p90

        /// The quantile as a probability.
        package var probability: Double { self == .p50 ? 0.5 : 0.9 }
    }

    /// The network class names of the per-network metrics: InfraModel's classes' names
    /// (`NetworkClass.description`), in InfraModel's order.
    package static let networkNames: [String] = InfraNetworkClass.allCases.map(\.description)

    /// Tap-to-paint quantile `quantile` on InfraModel network class `network`, both platforms.
    package static func tapToPaint(network: InfraModel.NetworkClass, quantile: NetworkQuantile) -> MetricSpec {
        tapToPaint(network: network.description, quantile: quantile)
    }

    /// Tap-to-paint quantile `quantile` on the InfraModel network class named `network` (its
    /// description, e.g. "lte"), both platforms: `tapToPaint.<network>.<quantile>Seconds`.
    package static func tapToPaint(network: String, quantile: NetworkQuantile) -> MetricSpec {
        MetricSpec("tapToPaint.\(network).\(quantile.rawValue)Seconds", .seconds, .lower,
                   "Tap to paint on \(network), \(quantile.rawValue)")
    }

    /// Radio energy of the fetches on InfraModel network class `network` (named by its
    /// description, e.g. "lte"): `energy.<network>.joules`. Emitted when `energy.enabled`.
    package static func energy(network: String) -> MetricSpec {
        MetricSpec("energy.\(network).joules", .joules, .lower, "Radio energy on \(network)")
    }

    /// The metrics `prestage bench` gates, in report order.
    package static let benchGated: [MetricID] = [
        .tapToPaintP50, .tapToPaintP95, .tapToPaintShareUnder500ms, .tapsInstantShare, .edgePrestageHitRatio,
        .extensionTimeoutShare, .outcomesCompletedShare, .outcomesTimedOutOrKilledShare, .originPeakRequestsPerSecond,
        .bytesCdnEgress,
    ]

    /// The metric named `name` (fixed or per network), if the result can emit it.
    package static func spec(named name: String) -> MetricSpec? {
        if let id = MetricID(rawValue: name) { return id.spec }
        if name.hasPrefix("energy."), name.hasSuffix(".joules"), networkNames.contains(String(name.dropFirst(7).dropLast(7))) {
            return energy(network: String(name.dropFirst(7).dropLast(7)))
        }
        if let spec = costSpec(named: name) { return spec }
        if let spec = campaignSpec(named: name) { return spec }
        for q in NetworkQuantile.allCases where name.hasPrefix("tapToPaint.") && name.hasSuffix(".\(q.rawValue)Seconds") {
            let network = name.dropFirst("tapToPaint.".count).dropLast(".\(q.rawValue)Seconds".count)
            if !network.isEmpty && !network.contains(".") { return tapToPaint(network: String(network), quantile: q) }
        }
        return nil
    }

    static let pointDown = MetricGate(relative: 0, absolute: 0.01, text: "−1 point")
    static let pointUp = MetricGate(relative: 0, absolute: 0.01, text: "+1 point")
    static let outcomeShare = "pushes targeted (every push in exactly one outcome bucket)"

    /// The table. One row per metric.
    static func spec(_ id: MetricID) -> MetricSpec {
        let n = id.rawValue
        switch id {
        case .tapToPaintP50:
            return MetricSpec(n, .seconds, .lower, "Tap to paint, median",
                              gate: MetricGate(relative: 0.05, absolute: 0.020, text: "+5 % or +20 ms, whichever is larger"))
        case .tapToPaintP90: return MetricSpec(n, .seconds, .lower, "Tap to paint, p90")
        case .tapToPaintP95:
            return MetricSpec(n, .seconds, .lower, "Tap to paint, p95",
                              gate: MetricGate(relative: 0.05, absolute: 0.050, text: "+5 % or +50 ms, whichever is larger"))
        case .tapToPaintP99: return MetricSpec(n, .seconds, .lower, "Tap to paint, p99")
        case .tapToPaintShareUnder500ms:
            return MetricSpec(n, .ratio, .higher, "Taps painted within 500 ms",
                              ratio: ("taps painted within 500 ms of the tap",
                                      "taps painted (not those that failed or were still loading at the end: taps.paintFailed)"),
                              gate: pointDown)
        case .tapToPaintCount: return MetricSpec(n, .count, .none, "Taps painted")
        case .extensionDownloadP50: return MetricSpec(n, .seconds, .lower, "Pre-stage download, median")
        case .extensionDownloadP95:
            return MetricSpec(n, .seconds, .lower, "Pre-stage download, p95",
                              alarm: MetricAlarm(value: 1.2, when: .above,
                                                 lookAt: "slow background downloads: warm earlier so they hit the edge (see the hit-ratio chart), "
                                                     + "or check the networks and PoPs that miss (tap to paint per network, the PoP table)"))
        case .extensionDownloadMean: return MetricSpec(n, .seconds, .lower, "Pre-stage download, mean")
        case .extensionTimeoutShare:
            return MetricSpec(n, .ratio, .lower, "Handled pushes timed out or killed",
                              ratio: ("pushes timed out or killed, or with nothing stored because a fetch timed out "
                                      + "(timedOutOrKilled + fetchTimedOut)",
                                      "pushes handled without an OS hold "
                                      + "(completed, partial, fetchTimedOut, fetchFailed, timedOutOrKilled, skippedByPolicy)"),
                              gate: pointUp)
        case .extensionFetchSuccessRatio:
            return MetricSpec(n, .ratio, .higher, "Pre-stage fetches succeeded",
                              ratio: ("pre-stage fetches answered with the asset (a body handed to a running session; "
                                      + "placeholder redirects and expired signed URLs not included)", "pre-stage fetches started"))
        case .extensionFetchTimeoutShare:
            return MetricSpec(n, .ratio, .lower, "Pre-stage fetches timed out",
                              ratio: ("pre-stage fetches ended by a timeout (PreloadKit's request timeout, hard deadline or OS expiry, "
                                      + "or InfraModel's timeout)", "pre-stage fetches started"))
        case .extensionFetchesStarted: return MetricSpec(n, .count, .none, "Pre-stage fetches started")
        case .extensionFetchesCancelled: return MetricSpec(n, .count, .none, "Pre-stage fetches cancelled")
        case .extensionAssetsStored: return MetricSpec(n, .count, .none, "Assets stored by pre-staging")
        case .edgePrestageHitRatio:
            return MetricSpec(n, .ratio, .higher, "Pre-stage edge hit ratio",
                              ratio: ("pre-stage requests whose edge lookup hit (placeholder redirects included)",
                                      "pre-stage requests that reached the edge, whatever their ending "
                                      + "(timed out or cancelled after the lookup included)"),
                              alarm: MetricAlarm(value: 0.9, when: .below,
                                                 lookAt: "warm earlier or warm the PoPs that miss: see the region chart and the PoP table (pops.csv)"),
                              gate: pointDown)
        case .edgePrestageCompletedHitRatio:
            return MetricSpec(n, .ratio, .higher, "Pre-stage edge hit ratio, answered requests only",
                              ratio: ("pre-stage requests answered from the edge cache (placeholder included)",
                                      "pre-stage requests that reached the edge and got an answer (not timed out or cancelled)"))
        case .originPeakRequestsPerSecond:
            return MetricSpec(n, .perSecond, .lower, "Origin peak requests per second",
                              gate: MetricGate(relative: 0.10, absolute: 5, text: "+10 % or +5 req/s, whichever is larger"))
        case .originRequests: return MetricSpec(n, .count, .lower, "Origin requests")
        case .originRejected503: return MetricSpec(n, .count, .lower, "Origin 503 rejections")
        case .originQueueLengthMax: return MetricSpec(n, .count, .lower, "Origin queue length, max")
        case .outcomesCompletedShare:
            return MetricSpec(n, .ratio, .higher, "Pushes completed", ratio: ("pushes completed", outcomeShare), gate: pointDown)
        case .outcomesPartialShare:
            return MetricSpec(n, .ratio, .lower, "Pushes partial (some assets ready)",
                              ratio: ("pushes settled with some, not all, critical assets ready", outcomeShare))
        case .outcomesFetchTimedOutShare:
            return MetricSpec(n, .ratio, .lower, "Pushes with nothing stored, a fetch timed out",
                              ratio: ("pushes settled with no critical asset ready and a fetch timed out", outcomeShare))
        case .outcomesFetchFailedShare:
            return MetricSpec(n, .ratio, .lower, "Pushes with nothing stored, fetches failed",
                              ratio: ("pushes settled with no critical asset ready and no fetch timed out", outcomeShare))
        case .outcomesPayloadExpiredShare:
            return MetricSpec(n, .ratio, .lower, "Pushes refused as expired",
                              ratio: ("pushes reaching a handler after their signed expiry (nothing fetched)", outcomeShare))
        case .outcomesTimedOutOrKilledShare:
            return MetricSpec(n, .ratio, .lower, "Pushes timed out or killed",
                              ratio: ("pushes delivered at the hard deadline or OS expiry warning, killed by the OS, or cut by the horizon",
                                      outcomeShare), gate: pointUp)
        case .outcomesSkippedByPolicyShare:
            return MetricSpec(n, .ratio, .none, "Pushes skipped by policy", ratio: ("pushes skipped by policy", outcomeShare))
        case .outcomesDeferredThenCompletedShare:
            return MetricSpec(n, .ratio, .none, "Pushes deferred, then completed", ratio: ("pushes deferred, then completed", outcomeShare))
        case .outcomesDeferredThenExpiredShare:
            return MetricSpec(n, .ratio, .lower, "Pushes deferred, then expired", ratio: ("pushes deferred, then expired", outcomeShare))
        case .outcomesNotDeliveredShare:
            return MetricSpec(n, .ratio, .lower, "Pushes not delivered", ratio: ("pushes not delivered", outcomeShare))
        case .pushesTargeted: return MetricSpec(n, .count, .none, "Pushes targeted")
        case .bytesCdnEgress:
            return MetricSpec(n, .bytes, .lower, "CDN egress", gate: MetricGate(relative: 0.05, absolute: 0, text: "+5 %"))
        case .bytesCellular: return MetricSpec(n, .bytes, .lower, "Bytes over cellular")
        case .bytesNeverOpened: return MetricSpec(n, .bytes, .lower, "Pre-stage bytes for pushes never opened")
        case .bytesBackground: return MetricSpec(n, .bytes, .none, "Pre-stage (background) bytes")
        case .bytesForeground: return MetricSpec(n, .bytes, .lower, "Foreground bytes after taps")
        case .storageEvictedForSpace: return MetricSpec(n, .count, .lower, "Store entries evicted for space (LRU)")
        case .storageExpiredRemoved: return MetricSpec(n, .count, .none, "Expired store entries removed")
        case .storageParkedWhole: return MetricSpec(n, .count, .none, "Device stores parked whole")
        case .tapsCount: return MetricSpec(n, .count, .none, "Taps")
        case .tapsInstantShare:
            return MetricSpec(n, .ratio, .higher, "Taps with every asset already stored",
                              ratio: ("taps finding every critical asset of the screen ready in the store", "taps (painted or not)"), gate: pointDown)
        case .tapsDuringSession: return MetricSpec(n, .count, .none, "Taps while the handler runs")
        case .tapsScheduled: return MetricSpec(n, .count, .none, "Taps scheduled")
        case .tapsBeyondHorizon: return MetricSpec(n, .count, .none, "Taps beyond the horizon")
        case .tapsPaintFailed: return MetricSpec(n, .count, .lower, "Taps that could not paint")
        case .tapsTokenRefreshes: return MetricSpec(n, .count, .lower, "Signed-URL refreshes at tap")
        case .sessionsStarted: return MetricSpec(n, .count, .none, "Sessions started")
        case .sessionsKilledByMemory: return MetricSpec(n, .count, .lower, "Sessions killed for memory")
        case .sessionsKilledByTime: return MetricSpec(n, .count, .lower, "Sessions killed for time")
        case .sessionsExpiryWarnings: return MetricSpec(n, .count, .lower, "Expiry warnings")
        case .sessionsActiveMax: return MetricSpec(n, .count, .none, "Sessions active at once, max")
        case .sessionsReplaced: return MetricSpec(n, .count, .none, "Sessions replaced by a newer push")
        case .sessionsCutByHorizon: return MetricSpec(n, .count, .none, "Sessions cut by the horizon")
        case .campaignsCreativeSwaps: return MetricSpec(n, .count, .none, "Creative swaps")
        case .creativeStalePrestages: return MetricSpec(n, .count, .lower, "Pre-stages that got the superseded creative")
        case .creativeStalePrestageShare:
            return MetricSpec(n, .ratio, .lower, "Pre-stages that got the superseded creative, share",
                              ratio: ("pre-stage fetches answered with a copy generated before its campaign's latest purge call",
                                      "pre-stage fetches answered with the asset (extension.fetchSuccessRatio's numerator)"))
        case .creativeStaleTaps: return MetricSpec(n, .count, .lower, "Taps that painted the superseded creative")
        case .creativeStaleTapShare:
            return MetricSpec(n, .ratio, .lower, "Taps that painted the superseded creative, share",
                              ratio: ("taps painted with a campaign asset pre-staged or fetched from a superseded copy", "taps painted"))
        case .faultsOriginOutageErrors, .faultsPopFailovers, .faultsPopsAllDown, .faultsWarmsLost, .faultsDegradedRequests:
            return faultSpec(id)
        case .extensionPlaceholderRedirects, .tapsPlaceholderPainted, .tapsPlaceholderShare:
            return placeholderSpec(id)
        case .cdnApiWarmCalls, .cdnApiWarmItems, .cdnApiPurgeAfterSendSeconds, .cdnApiPurgeBeforeSendSeconds, .cdnApiWarmAfterSendSeconds,
             .cdnApiWarmBeforeSendSeconds:
            return cdnApiSpec(id)
        case .cdnApiPurgeCalls, .cdnApiPurgeRequests, .cdnApiPurgeItems, .cdnApiPurgeCompleteSeconds, .cdnApiWarmRequests,
             .cdnApiWarmCompleteSeconds, .cdnApiFailures, .cdnApiRetries, .cdnApiBatchesAbandoned:
            return cdnApiSpec(id)
        case .hlsMediaPlaylistsStored, .hlsSegmentsStored, .hlsInitSectionsStored, .hlsSegmentsPerVariantChosen,
             .hlsChosenBitsPerSecondMean, .hlsTopVariantShare:
            return hlsSpec(id)
        case .osSilentForceQuit: return MetricSpec(n, .count, .none, "Silent pushes to force-quit apps")
        case .osSilentOverBudget: return MetricSpec(n, .count, .lower, "Silent pushes over budget")
        case .osSilentCoalesced: return MetricSpec(n, .count, .lower, "Held silent pushes coalesced")
        case .osAndroidDeprioritised: return MetricSpec(n, .count, .lower, "High-priority messages deprioritised")
        case .osExpeditedJobDenied: return MetricSpec(n, .count, .lower, "Expedited jobs denied")
        case .osBackgroundTokenExpired: return MetricSpec(n, .count, .lower, "Pre-stage fetches with an expired signed URL")
        case .receiptsSent: return MetricSpec(n, .count, .none, "Delivery receipts sent")
        case .receiptsPerPush:
            return MetricSpec(n, .ratio, .none, "Delivery receipts per push",
                              ratio: ("delivery receipts scheduled (one per push a PreloadKit session delivered)", "pushes targeted"))
        case .receiptsBeyondHorizon: return MetricSpec(n, .count, .none, "Delivery receipts due after the horizon")
        case .analyticsPeakRequestsPerSecond:
            return MetricSpec(n, .perSecond, .lower, "Analytics endpoint peak requests per second")
        case .analyticsP99RequestsPerSecond:
            return MetricSpec(n, .perSecond, .lower, "Analytics endpoint requests per second, p99 over the receipt span")
        case .analyticsServed, .analyticsRejected, .analyticsRejectedShare, .analyticsDelayedShare, .analyticsWaitP95Seconds,
             .analyticsQueueLengthMax, .analyticsQueuedAtHorizon:
            return analyticsQueueSpec(id)
        case .osDozeDeferred: return MetricSpec(n, .count, .lower, "Android messages deferred by Doze")
        case .osDozeDeferralMeanSeconds:
            return MetricSpec(n, .seconds, .lower, "Doze deferral, mean wait")
        case .networkSessionsChanged: return MetricSpec(n, .count, .lower, "Sessions whose device changed network")
        case .networkFetchesFailed: return MetricSpec(n, .count, .lower, "Pre-stage fetches failed by a network change")
        case .networkTapsOnOtherNetwork: return MetricSpec(n, .count, .none, "Taps on another network than at push handling")
        case .fallbackEnqueued: return MetricSpec(n, .count, .none, "Fallback jobs enqueued at the FCM deadline")
        case .fallbackExpedited: return MetricSpec(n, .count, .none, "Fallback jobs run expedited")
        case .fallbackCompleted: return MetricSpec(n, .count, .higher, "Fallback jobs that stored every critical asset")
        case .tapsAbandoned: return MetricSpec(n, .count, .lower, "Taps whose user left before the paint")
        case .tapsAbandonedShare:
            return MetricSpec(n, .ratio, .lower, "Taps whose user left before the paint, share",
                              ratio: ("taps whose user left before the screen painted (taps that could not paint, and taps still loading "
                                          + "at the end whose user had already left, included)", "taps (painted or not)"))
        case .tapsForegroundKept: return MetricSpec(n, .count, .none, "Foreground-fetched assets kept in the store")
        case .tapsForegroundNotKept: return MetricSpec(n, .count, .none, "Foreground-fetched assets PreloadKit refused to keep")
        case .tapsForegroundNotKeptSessionRunning:
            return MetricSpec(n, .count, .none, "Foreground-fetched assets not kept: a handler held the store")
        case .readsCount: return MetricSpec(n, .count, .higher, "Articles read after a push")
        case .readsPerPush:
            return MetricSpec(n, .ratio, .higher, "Push to article read",
                              ratio: ("taps that painted before their user left and were read", outcomeShare))
        case .edgeStaleOnError: return MetricSpec(n, .count, .none, "Device requests answered stale on an upstream error")
        case .shieldStaleOnError: return MetricSpec(n, .count, .none, "PoP fetches answered stale on an origin error")
        case .edgeErrorResponses: return MetricSpec(n, .count, .lower, "Device requests answered with an upstream error")
        case .originNotModified: return MetricSpec(n, .count, .none, "Origin 304 Not Modified answers")
        case .shieldNotModified: return MetricSpec(n, .count, .none, "Shield 304 Not Modified answers")
        case .bytesOriginEgress: return MetricSpec(n, .bytes, .lower, "Origin egress")
        case .bytesShieldEgress: return MetricSpec(n, .bytes, .lower, "Shield egress")
        case .deviceConditionalRequests: return MetricSpec(n, .count, .none, "Store revalidations sent with If-None-Match")
        case .deviceNotModified: return MetricSpec(n, .count, .none, "Store entries refreshed by a 304 Not Modified")
        case .tapToPaintWorstMinuteP95: return MetricSpec(n, .seconds, .lower, "Tap to paint, p95 in the worst minute")
        case .deliverySecondsTo99Percent: return MetricSpec(n, .seconds, .lower, "Time to reach 99 % of the audience")
        // decision kinds
        case .policyWastedBytesPer1000Deliveries:
            // bytes.neverOpened × 1 000 / pushes delivered (docs/metrics.md states it).
            return MetricSpec(n, .bytes, .lower, "Waste per 1 000 deliveries")
        case .policySkipShare:
            return MetricSpec(n, .ratio, .none, "Sessions the decision kind skipped",
                              ratio: ("sessions in which the decision kind skipped at least one asset or manifest", "sessions that ended"))
        case .policyBudgetSpentShare:
            return MetricSpec(n, .ratio, .none, "Daily data budget spent",
                              ratio: ("cellular bytes committed to pre-staging on each device's last simulated day, summed",
                                      "dailyDataBytes × devices that decided at least once under budgeted"))
        case .policyEnergyBudgetSpentShare:
            return MetricSpec(n, .ratio, .none, "Daily energy budget spent (app estimate)",
                              ratio: ("joules PreloadKit's estimate committed on each device's last simulated day, summed",
                                      "dailyEnergyJoules × devices that decided at least once under budgeted"))
        // bandwidth
        case .edgePeakBitsPerSecond, .edgeP95BitsPerSecond, .edgeP99BitsPerSecond, .edgeBilledBitsPerSecond,
             .shieldPeakBitsPerSecond, .shieldP95BitsPerSecond, .shieldP99BitsPerSecond, .shieldBilledBitsPerSecond,
             .originPeakBitsPerSecond, .originP95BitsPerSecond, .originP99BitsPerSecond, .originBilledBitsPerSecond:
            return bandwidthSpec(id)
        // energy
        case .energyJoules:
            return MetricSpec(n, .joules, .lower, "Radio energy of every fetch")
        case .energyJoulesPerPush:
            return MetricSpec(n, .joules, .lower, "Radio energy per push")
        case .energyJoulesPerDevice:
            return MetricSpec(n, .joules, .lower, "Radio energy per device")
        case .energyBatteryShare:
            return MetricSpec(n, .ratio, .lower, "Share of a battery per device",
                              ratio: ("radio joules per device (energy.joulesPerDevice)", "joules in a battery (energy.batteryCapacityWh × 3 600)"))
        case .energyBackgroundJoulesPerPush: return energyPerPush(n, "Pre-stage radio energy per push")
        case .energyBackgroundPromotionJoulesPerPush: return energyPerPush(n, "Pre-stage promotion energy per push")
        case .energyBackgroundTransferJoulesPerPush: return energyPerPush(n, "Pre-stage transfer energy per push")
        case .energyBackgroundTailJoulesPerPush: return energyPerPush(n, "Pre-stage tail energy per push")
        case .energyForegroundJoulesPerPush: return energyPerPush(n, "Foreground radio energy per push")
        case .energyForegroundPromotionJoulesPerPush: return energyPerPush(n, "Foreground promotion energy per push")
        case .energyForegroundTransferJoulesPerPush: return energyPerPush(n, "Foreground transfer energy per push")
        case .energyForegroundTailJoulesPerPush: return energyPerPush(n, "Foreground tail energy per push")
        case .energyNeverOpenedJoules:
            return MetricSpec(n, .joules, .lower, "Pre-stage radio energy for pushes never opened")
        case .energyNeverOpenedShare:
            return MetricSpec(n, .ratio, .lower, "Share of pre-stage energy for pushes never opened",
                              ratio: ("radio joules of pre-stage fetches of pushes never opened", "radio joules of every pre-stage fetch"))
        case .energyPromotions: return MetricSpec(n, .count, .lower, "Radio promotions (idle to connected)")
        // costs and users' data
        case .costTotal, .costPrestage, .costForeground, .costWarm, .costFill, .costNeverOpened, .costRequests, .costCommit,
             .costCommitOverage, .costCommitUtilisation, .costUsersCellular, .userDataPushesReached, .userDataOpenedMeanBytes, .userDataNeverOpenedMeanBytes,
             .userDataCellularOpenedMeanBytes, .userDataCellularNeverOpenedMeanBytes:
            return costSpec(id) ?? MetricSpec(n, .money, .lower, n)
        // users' data quantiles
        case .userDataOpenedP95Bytes: return MetricSpec(n, .bytes, .lower, "Data per opened push, p95")
        case .userDataNeverOpenedP95Bytes: return MetricSpec(n, .bytes, .lower, "Data per push never opened, p95")
        case .userDataCellularOpenedP95Bytes: return MetricSpec(n, .bytes, .lower, "Data per opened push on cellular devices, p95")
        case .userDataCellularNeverOpenedP95Bytes: return MetricSpec(n, .bytes, .lower, "Data per push never opened on cellular devices, p95")
        // push providers
        case .providerFcmMessages, .providerFcmRejected429, .providerFcmRejected429Share, .providerApnsMessages,
             .providerApnsStreamWaits, .providerLastSendSeconds, .providerFcmOutageRefused, .providerApnsOutageRefused:
            return providerSpec(id)
        case .providerFcmUnregistered, .providerApnsUnregistered, .providerFcmDataApiAccepted, .providerFcmDataApiDelivered,
             .providerFcmDataApiPending, .providerFcmDataApiTtlExpired, .providerFcmDataApiDeliveredNoDelay, .providerFcmDataApiDelayedDeviceDoze:
            return dataApiSpec(id)
        case .providerFcmDataApiDelayedDeviceOffline, .providerFcmDataApiCollapsed, .providerFcmDataApiDroppedTooManyPendingMessages,
             .providerFcmDataApiDroppedDeviceInactive, .providerFcmOfflineStored, .providerApnsOfflineStored, .providerApnsOfflineCoalesced,
             .providerApnsOfflineDeliveredAfterReconnect, .providerOfflineExpiredInStore, .providerFcmOfflineCollapseKeyLimitDropped:
            return offlineSpec(id)
        case .providerFcmTopicRequests, .providerFcmFanOutMessages, .providerFcmFanOutLastSendSeconds, .providerApnsPriority5Pushes,
             .providerApnsPriority5Delayed, .providerApnsPriority5DelayMeanSeconds:
            return fanOutSpec(id)
        case .providerFcmDeviceRateRejected, .providerFcmDeviceRateRetriedAccepted, .providerFcmCollapsibleThrottled,
             .providerFcmCollapsibleHeldMeanSeconds, .providerFcmCollapsibleCollapsedWhileHeld, .providerFcmDataApiDelayedMessageThrottled:
            return deviceCapsSpec(id)
        }
    }

    /// A per-push energy metric (joules over pushes targeted; docs/metrics.md states the formula).
    static func energyPerPush(_ n: String, _ title: String) -> MetricSpec { MetricSpec(n, .joules, .lower, title) }
}
