import InfraModel
import SimStats

/// One outcome bucket of `OutcomeCounts` (so a site that classifies a push names its bucket once
/// and the per-campaign tally follows it).
enum OutcomeKind: Int, CaseIterable {
    case completed, partial, fetchTimedOut, fetchFailed, timedOutOrKilled, skippedByPolicy
    case deferredThenCompleted, deferredThenExpired, payloadExpired, notDelivered
}

extension OutcomeCounts {
    /// Adds `n` to bucket `kind`.
    @inline(__always)
    mutating func add(_ kind: OutcomeKind, _ n: UInt64 = 1) {
        switch kind {
        case .completed: completed &+= n
        case .partial: partial &+= n
        case .fetchTimedOut: fetchTimedOut &+= n
        case .fetchFailed: fetchFailed &+= n
        case .timedOutOrKilled: timedOutOrKilled &+= n
        case .skippedByPolicy: skippedByPolicy &+= n
        case .deferredThenCompleted: deferredThenCompleted &+= n
        case .deferredThenExpired: deferredThenExpired &+= n
        case .payloadExpired: payloadExpired &+= n
        case .notDelivered: notDelivered &+= n
        }
    }
}

/// The per-campaign counters behind the `campaign:NAME/METRIC` rows: the pooled counters' split by
/// the campaign of the push (or of the tap, or of the request). Kept only when the scenario has
/// two campaigns or more (`enabled`); with one campaign every array is empty and each hook is one
/// predictable branch. Fixed arrays indexed by the campaign's index (at most
/// `PushWorldConfig.campaignsMax`), allocated once per replication: no per-event allocation and
/// no per-device state (0 bytes per device). Memory per campaign: one tap-to-paint histogram
/// (8 bytes a bucket, ≈ 181 KiB at the 1 h maximum) and one per-second delivery counter
/// (8 bytes a second of horizon).
struct CampaignTally {
    let enabled: Bool
    var outcomes: [OutcomeCounts] = []
    var targeted: [UInt64] = []
    /// Pushes in the provider / held by the OS, per campaign (the pooled `inProvider` / `inDeferred`).
    var inProvider: [UInt64] = []
    var inDeferred: [UInt64] = []
    /// Pushes that reached a handler, per second of virtual time (for the time to 99 %).
    var deliveries: [PerSecondCounter] = []
    var tapToPaint: [LatencyHistogram] = []
    var taps: [UInt64] = []
    var tapsInstant: [UInt64] = []
    var tapsAbandoned: [UInt64] = []
    var reads: [UInt64] = []
    var prestageRequests: [UInt64] = []
    var prestageHits: [UInt64] = []
    /// Pre-stage fetches started, answered with the asset, ended by a timeout.
    var fetchesStarted: [UInt64] = []
    var fetchesOK: [UInt64] = []
    var fetchesTimedOut: [UInt64] = []
    /// Each campaign's first send, microseconds (the origin of its time to 99 %).
    var sendStartTicks: [Int64] = []

    init(campaigns: Int, sendStartTicks starts: [Int64], histogram: LatencyHistogram, deliveries counter: PerSecondCounter) {
        enabled = campaigns >= 2
        guard enabled else { return }
        let zeros = [UInt64](repeating: 0, count: campaigns)
        outcomes = [OutcomeCounts](repeating: OutcomeCounts(), count: campaigns)
        targeted = zeros
        inProvider = zeros
        inDeferred = zeros
        deliveries = [PerSecondCounter](repeating: counter, count: campaigns)
        tapToPaint = [LatencyHistogram](repeating: histogram, count: campaigns)
        taps = zeros
        tapsInstant = zeros
        tapsAbandoned = zeros
        reads = zeros
        prestageRequests = zeros
        prestageHits = zeros
        fetchesStarted = zeros
        fetchesOK = zeros
        fetchesTimedOut = zeros
        sendStartTicks = starts
    }
}

extension PushMetrics {
    /// Push of campaign `c` classified into `kind` (`n` pushes at once).
    @inline(__always)
    mutating func countOutcome(_ kind: OutcomeKind, campaign c: Int, _ n: UInt64 = 1) {
        outcomes.add(kind, n)
        if campaignTally.enabled { campaignTally.outcomes[c].add(kind, n) }
    }

    /// `n` pushes of campaign `c` targeted.
    @inline(__always)
    mutating func countTargeted(campaign c: Int, _ n: UInt64 = 1) {
        pushesTargeted &+= n
        if campaignTally.enabled { campaignTally.targeted[c] &+= n }
    }

    /// A push of campaign `c` entered (+1) or left (−1) the provider.
    @inline(__always)
    mutating func notePushInProvider(campaign c: Int, entering: Bool) {
        if entering { inProvider += 1 } else { inProvider -= 1 }
        if campaignTally.enabled {
            if entering { campaignTally.inProvider[c] += 1 } else { campaignTally.inProvider[c] -= 1 }
        }
    }

    /// A push of campaign `c` was held (+1) or released (−1) by the OS.
    @inline(__always)
    mutating func notePushDeferred(campaign c: Int, entering: Bool) {
        if entering { inDeferred += 1 } else { inDeferred -= 1 }
        if campaignTally.enabled {
            if entering { campaignTally.inDeferred[c] += 1 } else { campaignTally.inDeferred[c] -= 1 }
        }
    }

    /// A push of campaign `c` reached a handler at `now`.
    @inline(__always)
    mutating func noteDelivery(campaign c: Int, now: Int64) {
        series.deliveries.add(atMicroseconds: now)
        if campaignTally.enabled { campaignTally.deliveries[c].add(atMicroseconds: now) }
    }

    /// A tap on campaign `c`'s notification at `now`.
    @inline(__always)
    mutating func noteTap(campaign c: Int, now: Int64) {
        series.taps.add(atMicroseconds: now)
        if campaignTally.enabled { campaignTally.taps[c] &+= 1 }
    }

    /// The tap on campaign `c` painted from what the device had (no foreground fetch).
    @inline(__always)
    mutating func noteInstantTap(campaign c: Int) {
        counters.tapsInstant += 1
        if campaignTally.enabled { campaignTally.tapsInstant[c] &+= 1 }
    }

    /// `n` users of campaign `c` left before the article (or after a failed paint).
    @inline(__always)
    mutating func noteAbandoned(campaign c: Int, _ n: UInt64 = 1) {
        counters.tapsAbandoned += n
        if campaignTally.enabled { campaignTally.tapsAbandoned[c] &+= n }
    }

    /// A user of campaign `c` read the article.
    @inline(__always)
    mutating func noteRead(campaign c: Int) {
        counters.reads += 1
        if campaignTally.enabled { campaignTally.reads[c] &+= 1 }
    }

    /// A tap on campaign `c` painted `latency` after the tap (also the pooled `recordPaint`).
    @inline(__always)
    mutating func recordPaint(latency: Int64, isIOS: Bool, network: InfraNetworkClass, now: Int64, campaign c: Int) {
        recordPaint(latency: latency, isIOS: isIOS, network: network, now: now)
        if campaignTally.enabled { campaignTally.tapToPaint[c].record(latency) }
    }

    /// A pre-stage fetch of campaign `c`'s push started: its per-campaign count (the run's total,
    /// `counters.fetchesStarted`, is counted by the driver; this is called only under `requestHooks`).
    @inline(__always)
    mutating func noteFetchStarted(campaign c: Int) {
        if campaignTally.enabled { campaignTally.fetchesStarted[c] &+= 1 }
    }

    /// A pre-stage fetch of campaign `c`'s push was answered with the asset.
    @inline(__always)
    mutating func noteFetchOK(campaign c: Int) {
        counters.prestageFetchesOK += 1
        if campaignTally.enabled { campaignTally.fetchesOK[c] &+= 1 }
    }

    /// A pre-stage fetch of campaign `c`'s push ended by a timeout.
    @inline(__always)
    mutating func noteFetchTimedOut(campaign c: Int) {
        counters.fetchesTimedOut += 1
        if campaignTally.enabled { campaignTally.fetchesTimedOut[c] &+= 1 }
    }

    /// Request `r`'s edge lookup, for its campaign (called beside `recordPrestage`).
    @inline(__always)
    mutating func notePrestageLookup(_ result: FetchResult, request r: Int) {
        guard campaignTally.enabled else { return }
        let c = Int(reqCampaign[r])
        switch result.edgeLookup {
        case .hit:
            campaignTally.prestageRequests[c] &+= 1
            campaignTally.prestageHits[c] &+= 1
        case .miss: campaignTally.prestageRequests[c] &+= 1
        case .notReached: break
        }
    }

    /// At the horizon: the pushes still in the provider, held, or in a session cut by the horizon
    /// (`cut[c]`), per campaign, into their buckets as `PushWorld.finishUnsent` does pooled.
    mutating func finishCampaigns(cut: [UInt64]) {
        guard campaignTally.enabled else { return }
        for c in campaignTally.outcomes.indices {
            campaignTally.outcomes[c].add(.notDelivered, campaignTally.inProvider[c])
            campaignTally.outcomes[c].add(.deferredThenExpired, campaignTally.inDeferred[c])
            campaignTally.outcomes[c].add(.timedOutOrKilled, c < cut.count ? cut[c] : 0)
            campaignTally.inProvider[c] = 0
            campaignTally.inDeferred[c] = 0
        }
    }
}

extension SessionDriver {
    /// `undeliveredAtHorizon()` split by the campaign of each session's push (`campaigns` long).
    mutating func undeliveredAtHorizon(campaigns: Int) -> [UInt64] {
        var n = [UInt64](repeating: 0, count: campaigns)
        for s in slot.indices where deviceSlot[Int(slot[s].device)] == Int32(s) && !sessions[s].delivered() {
            let c = PushWord(slot[s].push).campaign
            if c < campaigns { n[c] += 1 }
        }
        return n
    }
}

extension TapTracker {
    /// `censoredAbandoned(now:population:)` split by the tap's campaign (`campaigns` long).
    func censoredAbandoned(now: Int64, population: Population, campaigns: Int) -> [UInt64] {
        var n = [UInt64](repeating: 0, count: campaigns)
        for t in tDevice.indices where !tapPool.isFree(UInt32(t)) {
            if patience.leftWhileWaiting(device: DeviceID(rawValue: tDevice[t]), campaign: CampaignID(tCampaign[t]), waitTicks: now - tStart[t], population: population) {
                let c = Int(tCampaign[t])
                if c < campaigns { n[c] += 1 }
            }
        }
        return n
    }
}

/// The memory of the per-campaign counters (for the run's memory estimate): per campaign, with two
/// campaigns or more, one tap-to-paint histogram, the outcome buckets and counters, and one
/// per-second delivery counter.
package enum CampaignTallyBytes {
    /// Bytes per campaign besides the per-second delivery counter.
    package static let fixedPerCampaign: UInt64 = {
        let buckets = (try? LatencyHistogram(maxValueMicroseconds: PushMetrics.histogramMaxMicroseconds))?.bucketCount ?? 0
        return UInt64(buckets * 8 + MemoryLayout<OutcomeCounts>.stride + 14 * 8)
    }()
    /// Bytes per campaign per second of horizon (the delivery counter's slot).
    package static let perCampaignPerSecond: UInt64 = 8
}
