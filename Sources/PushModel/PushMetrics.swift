import Foundation
import InfraModel
import SimKernel
import SimStats

/// The run's measurements: outcome counts, driver counters, latency histograms, per-second
/// series, per-PoP and per-region tables, bytes, and which issuer each InfraWorld request had
/// (to attribute its traffic). Builds the `ReplicationResult` (`PushMetrics+Result.swift`).
struct PushMetrics {
    var outcomes = OutcomeCounts()
    var pushesTargeted: UInt64 = 0
    var tapToPaint: LatencyHistogram
    /// Tap-to-paint per platform (iOS first) and InfraModel network class.
    var groupHistograms: [LatencyHistogram]
    var extensionLatency: LatencyHistogram
    /// Tap-to-paint per window of tap time (`tapToPaintWindowSeconds`).
    var tapToPaintWindows: WindowedLatencyHistogram
    var series: PushTimeSeries
    var popRequests: [UInt64]
    var popHits: [UInt64]
    /// Pre-stage edge misses per region and time bin, `region * missBins + bin`.
    var regionMisses: [UInt64]
    let missBinSeconds: Int
    let missBins: Int
    let firstSendTicks: Int64
    var bytes = ByteCounts()
    var counters = DriverCounters()
    /// The decision kind's counts (`PushMetrics+Decision.swift`), set at the end; nil without one.
    var decisionTally: DecisionTally?
    /// The push providers' counts (`PushMetrics+Providers.swift`), set at the end; nil without `providers`.
    var providerTally: ProviderTally?
    /// The offline stores' counts (`PushWorld+Offline.swift`); nil when offline windows and
    /// inactive devices are off.
    var offlineTally: OfflineTally?
    /// The offline stores keep collapsible messages by key (more than one collapse key).
    var offlineKeyed = false
    /// Held collapsible messages can collapse outside the offline stores (FCM's burst, Doze):
    /// `provider.fcm.dataApi.collapsed` is emitted without the offline metrics too.
    var collapsedOutsideOffline = false
    /// FCM's per-device limits (`PushWorld+DeviceCaps.swift`), only when the run kept their state.
    var deviceCapsTally: DeviceCapsTally?
    /// FCM's collapsible burst can bind (its buckets were kept): `provider.fcm.dataApi.delayedMessageThrottled`
    /// is emitted only then.
    var collapsibleBurstKept = false
    /// Delivery receipts at the app's analytics endpoint; nil when the policy sends none.
    var analytics: AnalyticsEndpoint?
    /// `infra.placeholder.enabled`: the placeholder's metrics are emitted only then.
    var placeholderEnabled = false
    /// `infra.faults` is not empty: the faults' metrics are emitted only then.
    var faultsScheduled = false
    /// `providers.outages` is not empty: the outage counts are emitted only then.
    var providerOutagesScheduled = false
    /// A provider's `unregisteredShare` is > 0: the stale-token counts are emitted only then.
    var providerStaleTokens = false
    /// What pre-stage sessions stored of HLS playlists (`PushMetrics+HLS.swift`); nil when no
    /// asset is a playlist of variants (the `hls.*` metrics are emitted only then).
    var hls: HLSTally?
    /// Whether a campaign is sent as an FCM topic / at APNs priority 5 (their metrics are emitted only then).
    var providerTopics = false
    var providerPriority5 = false

    // Resolution counters for pushes not yet resolved (for conservation at any stop).
    var inProvider: UInt64 = 0
    var inDeferred: UInt64 = 0

    // Per InfraWorld request id: the issuer's region and traffic flags.
    var reqRegion: [UInt32] = []
    var reqFlags: [UInt8] = []
    /// The radio energy model (per-device state only when the scenario turns it on).
    var energy: RadioEnergy
    /// The energy model or the per-campaign tally is on: one test per pre-stage request start and end
    /// when both are off.
    var requestHooks = false
    /// Per InfraWorld request id: the issuer's campaign (`reqFlags` bits 2–4 hold its network class).
    var reqCampaign: [UInt8] = []
    /// Bytes by purpose per campaign × region × class, and pushes reached (`ByteAttribution`).
    var attribution: ByteAttribution
    /// Prices, the campaigns' names, each catalogue object's campaign and the horizon, for the
    /// money metrics (`PushMetrics+Costs.swift`).
    let costs: CostsConfig?
    let campaignNames: [String]
    var objectCampaign: [Int] = []
    /// The bytes of each sampled push, for the users' data quantiles (`PushBytesSample`).
    var pushBytes: PushBytesSample
    let horizonSeconds: Double
    /// The per-campaign counters (`PushMetrics+Campaigns.swift`); empty with one campaign.
    var campaignTally: CampaignTally
    /// The CDN API calls per campaign (`CdnApiTally.swift`); empty without `infra.cdnApi`.
    var cdnApiTally = CdnApiTally()

    static let histogramMaxMicroseconds: Int64 = 3_600_000_000
    /// The window of tap time the tap-to-paint quantiles over time are read per (k6 and Gatling bin
    /// by request start; widened for very long horizons, see `WindowedLatencyHistogram`).
    static let tapToPaintWindowSeconds = 10
    static let requestCellular: UInt8 = 1
    static let requestNeverOpened: UInt8 = 2

    init(config: PushWorldConfig, popCount: Int, regionCount regions: Int) throws {
        do {
            tapToPaint = try LatencyHistogram(maxValueMicroseconds: PushMetrics.histogramMaxMicroseconds)
            groupHistograms = [LatencyHistogram](repeating: tapToPaint, count: 2 * InfraNetworkClass.count)
            extensionLatency = tapToPaint
            let h = max(1, Int(config.horizonSeconds.rounded(.up)))
            let counter = try PerSecondCounter(horizonSeconds: h)
            tapToPaintWindows = try WindowedLatencyHistogram(horizonSeconds: h, preferredWindowSeconds: min(h, PushMetrics.tapToPaintWindowSeconds))
            series = PushTimeSeries(pushesSent: counter, deliveries: counter, prestageEdgeRequests: counter, prestageEdgeHits: counter,
                                    originRequests: counter, origin503: counter, taps: counter, paints: counter)
            if config.preloadPolicy.receiptsEnabled {
                analytics = try AnalyticsEndpoint(horizonSeconds: h)
                analytics?.capacity = config.analytics
            }
        } catch {
            throw PushModelError(path: "horizonSeconds", reason: "\(error)")
        }
        popRequests = [UInt64](repeating: 0, count: popCount)
        popHits = popRequests
        firstSendTicks = SimDuration.seconds(config.campaigns.map(\.sendStartSeconds).min() ?? 0).ticks
        let minutes = max(1, Int((config.horizonSeconds / 60).rounded(.up)))
        var bin = 1
        while regions * ((minutes + bin - 1) / bin) > 2_000_000 { bin *= 2 }
        missBinSeconds = 60 * bin
        missBins = (minutes + bin - 1) / bin
        regionMisses = [UInt64](repeating: 0, count: regions * missBins)
        energy = RadioEnergy(config: config.energy, devices: config.population.devices)
        attribution = ByteAttribution(campaigns: config.campaigns.count, regions: regions)
        pushBytes = PushBytesSample(devices: config.population.devices, campaigns: config.campaigns.count)
        costs = config.costs
        placeholderEnabled = config.infra.placeholder.enabled
        hls = config.campaigns.contains { $0.assets.contains(where: \.isHLSPlaylist) } ? HLSTally() : nil
        faultsScheduled = !config.infra.faults.isEmpty
        providerOutagesScheduled = !(config.providers?.outages.isEmpty ?? true)
        providerStaleTokens = config.providers.map { $0.fcm.unregisteredShare > 0 || $0.apns.unregisteredShare > 0 } ?? false
        providerTopics = config.providers != nil && config.campaigns.contains { $0.sendAs == .topic }
        providerPriority5 = config.providers != nil && config.campaigns.contains { $0.apnsPriority == 5 }
        campaignNames = config.campaigns.map(\.name)
        horizonSeconds = config.horizonSeconds
        campaignTally = CampaignTally(campaigns: config.campaigns.count, sendStartTicks: config.campaigns.map { SimDuration.seconds($0.sendStartSeconds).ticks },
                                      histogram: tapToPaint, deliveries: series.deliveries)
        requestHooks = energy.enabled || campaignTally.enabled
    }

    /// Records who issued InfraWorld request `id` (ids are dense and recycled).
    mutating func noteRequest(_ id: UInt32, region: UInt32, cellular: Bool, neverOpened: Bool, campaign: Int, network: InfraNetworkClass) {
        let i = Int(id)
        while reqRegion.count <= i {
            reqRegion.append(0)
            reqFlags.append(0)
            reqCampaign.append(0)
        }
        reqRegion[i] = region
        reqFlags[i] = (cellular ? PushMetrics.requestCellular : 0) | (neverOpened ? PushMetrics.requestNeverOpened : 0) | network.rawValue << 2
        reqCampaign[i] = UInt8(truncatingIfNeeded: campaign)
    }

    /// Pre-stage traffic accounting of a finished or cancelled request (every one, also those of
    /// sessions that have ended: the request's own region and flags, recorded when it was issued).
    mutating func countPrestageTransfer(_ result: FetchResult, request r: Int) {
        recordPrestage(result, region: Int(reqRegion[r]))
        if _slowPath(requestHooks) {
            notePrestageLookup(result, request: r)
            if energy.enabled { energy.close(result, request: r) }
        }
        if result.bytes > 0 {
            bytes.backgroundBytes += UInt64(result.bytes)
            if reqFlags[r] & PushMetrics.requestCellular != 0 { bytes.cellularBytes += UInt64(result.bytes) }
            if reqFlags[r] & PushMetrics.requestNeverOpened != 0 { bytes.neverOpenedBytes += UInt64(result.bytes) }
        }
        attribute(result, request: r, foreground: false)
    }

    /// Foreground traffic accounting of a finished request.
    mutating func countForegroundTransfer(_ result: FetchResult, request r: Int) {
        if energy.enabled { energy.close(result, request: r) }
        if result.bytes > 0 {
            bytes.foregroundBytes += UInt64(result.bytes)
            if reqFlags[r] & PushMetrics.requestCellular != 0 { bytes.cellularBytes += UInt64(result.bytes) }
        }
        attribute(result, request: r, foreground: true)
    }

    /// Counts a pre-stage request's edge lookup (per PoP, per second, misses by region and time)
    /// whatever its ending: a request that missed and then timed out or was cancelled missed.
    /// Requests that completed are counted again for the completed-only ratio.
    mutating func recordPrestage(_ r: FetchResult, region: Int) {
        switch r.edgeLookup {
        case .hit:
            counters.prestageRequests += 1
            counters.prestageHits += 1
            popRequests[Int(r.popIndex)] += 1
            popHits[Int(r.popIndex)] += 1
            series.prestageEdgeRequests.add(atMicroseconds: r.startTime.ticks)
            series.prestageEdgeHits.add(atMicroseconds: r.startTime.ticks)
        case .miss:
            counters.prestageRequests += 1
            counters.prestageMisses += 1
            popRequests[Int(r.popIndex)] += 1
            series.prestageEdgeRequests.add(atMicroseconds: r.startTime.ticks)
            let bin = Int(max(0, r.startTime.ticks - firstSendTicks) / (Int64(missBinSeconds) * 1_000_000))
            regionMisses[region * missBins + min(bin, missBins - 1)] += 1
        case .notReached:
            counters.prestageNoEdge += 1
        }
        switch r.outcome {
        case .edgeFreshHit, .edgeStaleHit, .placeholder:
            counters.prestageCompleted += 1
            counters.prestageCompletedHits += 1
        case .miss, .collapsed, .origin503, .staleIfError:
            counters.prestageCompleted += 1
        case .timeout, .networkFailure, .cancelled:
            break
        }
    }

    /// A tap painted at `now`, `latency` after the tap (counted over time in the window of the tap).
    mutating func recordPaint(latency: Int64, isIOS: Bool, network: InfraNetworkClass, now: Int64) {
        tapToPaint.record(latency)
        tapToPaintWindows.record(latency, atMicroseconds: now - latency)
        groupHistograms[(isIOS ? 0 : InfraNetworkClass.count) + Int(network.rawValue)].record(latency)
        series.paints.add(atMicroseconds: now)
    }
}


/// Driver-level counters (reported as metrics).
struct DriverCounters {
    var sessionsStarted: UInt64 = 0
    var sessionsReplaced: UInt64 = 0
    var sessionsCutByHorizon: UInt64 = 0
    var killedByMemory: UInt64 = 0
    var killedByTime: UInt64 = 0
    var expiryWarnings: UInt64 = 0
    var fetchesStarted: UInt64 = 0
    var fetchesCancelled: UInt64 = 0
    /// Fetches ended by a timeout: PreloadKit's request timeout, hard deadline or OS expiry
    /// cancelling them, or InfraModel's request timeout.
    var fetchesTimedOut: UInt64 = 0
    var assetsStored: UInt64 = 0
    /// Pre-stage fetches sent with `If-None-Match` (a stale store entry's revalidation), and the
    /// stored entries a 304 Not Modified refreshed (`.storeAsset` with `notModified`; not in
    /// `assetsStored`).
    var conditionalRequests: UInt64 = 0
    var notModified: UInt64 = 0
    var silentForceQuit: UInt64 = 0
    var silentOverBudget: UInt64 = 0
    var silentCoalesced: UInt64 = 0
    var deprioritised: UInt64 = 0
    var expeditedDenied: UInt64 = 0
    var backgroundTokenExpired: UInt64 = 0
    var creativeSwaps: UInt64 = 0
    var tapsScheduled: UInt64 = 0
    var tapsBeyondHorizon: UInt64 = 0
    var tapsInstant: UInt64 = 0
    var tapsDuringSession: UInt64 = 0
    var tokenRefreshes: UInt64 = 0
    var paintsFailed: UInt64 = 0
    var prestageRequests: UInt64 = 0
    var prestageHits: UInt64 = 0
    var prestageMisses: UInt64 = 0
    var prestageNoEdge: UInt64 = 0
    /// Pre-stage requests that reached the edge and got their answer (not timed out or
    /// cancelled), and those among them that hit.
    var prestageCompleted: UInt64 = 0
    var prestageCompletedHits: UInt64 = 0
    var prestageFetchesOK: UInt64 = 0
    /// Pre-stage fetches answered with a creative a purge had superseded (of `prestageFetchesOK`).
    var stalePrestages: UInt64 = 0
    /// Taps that painted with a superseded creative (of the taps painted).
    var staleTaps: UInt64 = 0
    /// Pre-stage fetches answered with the CDN's 302 to its placeholder (not followed: nothing
    /// stored), and taps whose paint showed the placeholder (a foreground fetch followed it).
    var prestagePlaceholderRedirects: UInt64 = 0
    var placeholderTaps: UInt64 = 0
    // Devices that change state (Doze over the night, network changes).
    /// Android messages Doze deferred to a maintenance window (or the morning), and the sum of
    /// their waits.
    var dozeDeferred: UInt64 = 0
    var dozeDeferralMicroseconds: UInt64 = 0
    /// Pre-stage sessions whose device changed network while they ran (their open fetches failed).
    var sessionsNetworkChanged: UInt64 = 0
    /// Pre-stage fetches failed by a network change.
    var fetchesNetworkChanged: UInt64 = 0
    /// Taps on a different network class than the device's previous look (its push handling).
    var tapsOnOtherNetwork: UInt64 = 0
    /// Android fallback WorkManager jobs PreloadKit enqueued at the FCM handler's deadline, those
    /// that ran expedited, and those whose delivery had every critical asset ready.
    var fallbacksEnqueued: UInt64 = 0
    var fallbacksExpedited: UInt64 = 0
    var fallbacksCompleted: UInt64 = 0
    /// Foreground-fetched critical assets written to the device's store (PreloadKit admitted
    /// them), refused by PreloadKit, and not written because a session held the store.
    var foregroundKept: UInt64 = 0
    var foregroundNotKept: UInt64 = 0
    var foregroundNotKeptSessionRunning: UInt64 = 0
    /// Taps whose user left before the paint (failed paints, and taps still waiting at the end
    /// whose user had left, included), and taps read ("push to article read").
    var tapsAbandoned: UInt64 = 0
    var reads: UInt64 = 0
}
