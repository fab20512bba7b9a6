import Foundation
import InfraModel
import PreloadKit
import SimKernel
import SimStats
import Stochastic

/// This module's event kinds.
enum PushKind {
    /// One second of a campaign's send (target = campaign).
    static let sendBatch = EventKind(0x0200)
    /// The provider hands a push to the device's OS (target = device, payload = push word).
    static let pushArrive = EventKind(0x0201)
    /// A held iOS silent push is released (target = device, payload = push word).
    static let silentRelease = EventKind(0x0202)
    /// A deferred Android push/job may run now (target = device, payload = push word with handler flags).
    static let deferredStart = EventKind(0x0203)
    /// A session's PreloadKit timer (target = slot, payload = generation).
    static let sessionTimer = EventKind(0x0204)
    /// An OS deadline of a session: expiry warning (0) or kill (1) (target = slot, payload = generation << 8 | which).
    static let osDeadline = EventKind(0x0205)
    /// InfraWorld's reply to a session fetch (target = slot).
    static let fetchReply = EventKind(0x0206)
    /// The user taps (target = device, payload = campaign << 48 | send ticks).
    static let tap = EventKind(0x0207)
    /// InfraWorld's reply to a foreground fetch (target = tap slot).
    static let foregroundReply = EventKind(0x0208)
    /// First paint after a tap (target = tap slot, payload = generation).
    static let paint = EventKind(0x0209)
    /// A far-future bucket is due (target = bucket).
    static let bucketFlush = EventKind(0x020A)
    /// Creative swap: purge by surrogate key (target = campaign).
    static let creativeSwap = EventKind(0x020B)
    /// Re-warm after a creative swap (target = campaign).
    static let rewarm = EventKind(0x020C)
}

/// A push packed in an event payload: bits 56–63 campaign (≤ 64 campaigns), 48–55 part (≤ 16
/// carousel parts), 40–47 flags, 0–39 the send instant in microseconds.
struct PushWord {
    var campaign: Int
    var part: Int
    var flags: UInt8
    var sendTicks: Int64

    /// The OS held the push (Doze, a deferred job, an iOS silent hold).
    static let flagDeferred: UInt8 = 1
    /// Android: runs in a WorkManager job.
    static let flagJob: UInt8 = 2
    /// Android: delivered as a high-priority message (counts toward deprioritisation).
    static let flagHighPriority: UInt8 = 4
    /// Send instants are stored in 40 bits of microseconds (≈ 12.7 days ≥ the 7-day horizon limit).
    static let sendMask: UInt64 = (1 << 40) - 1

    init(campaign: Int, part: Int, flags: UInt8, sendTicks: Int64) {
        self.campaign = campaign
        self.part = part
        self.flags = flags
        self.sendTicks = sendTicks
    }

    init(_ p: UInt64) {
        campaign = Int(p >> 56)
        part = Int((p >> 48) & 0xFF)
        flags = UInt8((p >> 40) & 0xFF)
        sendTicks = Int64(p & PushWord.sendMask)
    }

    var raw: UInt64 {
        UInt64(campaign) << 56 | UInt64(part) << 48 | UInt64(flags) << 40 | (UInt64(sendTicks) & PushWord.sendMask)
    }
}

/// The simulation: devices, OS rules, users and campaigns around InfraModel's world, running
/// PreloadKit's sessions in virtual time. It is the kernel's event handler and routes InfraModel's
/// events to `infra`.
///
/// The session driver maps PreloadKit `Action`s to InfraWorld requests and kernel events and
/// InfraWorld replies / timers / OS deadlines back to `Input`s; every pre-stage decision (gating,
/// selection, timeouts, store) is PreloadKit's.
struct PushWorld: EventHandler {
    let config: PushWorldConfig
    let masterSeed: UInt64
    let replication: Int
    let runSeed: UInt64
    let horizonTicks: Int64
    let population: Population
    let plans: CampaignPlans
    let policy: PreloadPolicy
    let doze: DozeSchedule
    let deliveryLatency: [Sampler]
    let silentHold: Sampler
    let progressSink: ProgressSink?
    let rt: [CampaignRuntime]
    let rules: RulesRuntime
    let expeditedQuota: [Int]
    let regularJobDelayMaxSeconds: [Double]
    /// The placeholder image InfraModel redirects slow / Save-Data requests to, per campaign.
    let placeholderResponses: [ObjectResponse]
    var infra: InfraWorld
    var far: BucketQueue

    // Per device (struct of arrays, indexed by device id).
    var deviceSlot: [Int32]
    /// Each device's preload store between sessions.
    var parked: ParkedStores
    var silentTAT: [Int32]
    var heldPush: [UInt64]
    var hpSilentCount: [UInt8]
    var expeditedUsed: [UInt8]

    // Session slots (active devices only).
    var sessions: [PreloadSession] = []
    /// What a new session slot starts as: no store, the validated policy.
    let idleSession: PreloadSession
    /// The store an ended session holds until its slot is reused (the device's store is parked).
    let noStore = PreloadStore(capacityBytes: 0, entriesMax: 0)
    /// The session slots' driver state, one record per slot (an array of structs: a slot's fields
    /// are read together by each of its events, so they share two cache lines).
    var slot: [SessionSlot] = []
    /// Object id of each fetch, `slot * 64 + fetch id`.
    var sFetchObject: [UInt32] = []
    /// InfraModel request id of slot s's fetch k at `s * 64 + k` (valid while the fetch is open).
    var sFetchRequest: [UInt32] = []
    var slotFree: [Int32] = []
    var activeSessions = 0
    var activeSessionsMax = 0

    // Taps in progress.
    var tDevice: [UInt32] = []
    var tCampaign: [Int] = []
    var tStart: [Int64] = []
    var tPending: [UInt32] = []
    var tGen: [UInt32] = []
    var tNetwork: [InfraNetworkClass] = []
    var tIOS: [Bool] = []
    var tRegion: [UInt32] = []
    var tSaveData: [Bool] = []
    var tFailed: [Bool] = []
    var tSlot: [Int32] = []
    var tSend: [Int64] = []
    var tapFree: [Int32] = []

    // Per InfraWorld request id: the issuer's region and traffic flags.
    var reqRegion: [UInt32] = []
    var reqFlags: [UInt8] = []

    // Sending.
    var sendCursor: [Int]
    var sendCredit: [Double]

    // Resolution counters for pushes not yet resolved (for conservation at any stop).
    var inProvider: UInt64 = 0
    var inDeferred: UInt64 = 0

    // Metrics.
    var outcomes = OutcomeCounts()
    var pushesTargeted: UInt64 = 0
    var tapToPaint: LatencyHistogram
    var groupHistograms: [LatencyHistogram]
    var extensionLatency: LatencyHistogram
    var series: PushTimeSeries
    var popRequests: [UInt64]
    var popHits: [UInt64]
    var regionMisses: [UInt64]
    let missBinSeconds: Int
    let missBins: Int
    let firstSendTicks: Int64
    var bytes = ByteCounts()
    var counters = DriverCounters()
    /// The kernel's pending-event count and the far-event buckets' size, sampled at every
    /// progress report (for the benchmark; not part of the result).
    var pendingProfile = PendingEventProfile()

    static let histogramMaxMicroseconds: Int64 = 3_600_000_000

    init(config: PushWorldConfig, masterSeed: UInt64, replication: Int, progressSink: ProgressSink?,
         bucketFarEvents: Bool = true) throws {
        self.config = config
        self.masterSeed = masterSeed
        self.replication = replication
        self.progressSink = progressSink
        runSeed = StreamSeed.derive(masterSeed: masterSeed, entity: UInt64(bitPattern: Int64(replication)),
                                    purpose: StreamPurpose("push.replication").rawValue)
        horizonTicks = SimDuration.seconds(config.horizonSeconds).ticks
        population = try Population(config: config, runSeed: runSeed)
        plans = try CampaignPlans(campaigns: config.campaigns)
        policy = config.preloadPolicy.preloadPolicy(manifestOptions: plans.payloadOptions)
        do {
            try policy.validate()
            idleSession = try PreloadSession(policy: policy, store: noStore)
        } catch {
            throw PushModelError(path: "preloadPolicy", reason: "\(error)")
        }
        doze = DozeSchedule(config.platforms.android)
        rt = config.campaigns.map(CampaignRuntime.init)
        rules = RulesRuntime(config)
        expeditedQuota = config.platforms.android.standbyBuckets.expeditedJobs
        regularJobDelayMaxSeconds = config.platforms.android.standbyBuckets.regularJobDelayMaxSeconds
        placeholderResponses = config.campaigns.map {
            CampaignPlans.response(type: .image, bytes: config.infra.placeholder.placeholderBytes, cacheControl: $0.cacheControl.headerValue)
        }
        deliveryLatency = try config.campaigns.enumerated().map { i, c in
            try Population.sampler(c.deliveryLatencySeconds, "campaigns[\(i)].deliveryLatencySeconds")
        }
        silentHold = try Population.sampler(config.platforms.ios.silentHoldSeconds, "platforms.ios.silentHoldSeconds")
        do {
            // InfraModel's per-second series must cover the whole horizon.
            var infraConfig = config.infra
            infraConfig.metricsHorizonSeconds = max(infraConfig.metricsHorizonSeconds, Int(config.horizonSeconds.rounded(.up)))
            infra = try InfraWorld(config: infraConfig, catalog: plans.catalog, masterSeed: runSeed)
        } catch {
            throw PushModelError(path: "infra", reason: "\(error)")
        }
        far = BucketQueue(widthTicks: 10_000_000, horizonTicks: horizonTicks, flushKind: PushKind.bucketFlush,
                          isBucketing: bucketFarEvents)

        let n = config.population.devices
        deviceSlot = [Int32](repeating: -1, count: n)
        parked = ParkedStores(devices: n, capacityBytes: config.preloadPolicy.storeCapacityBytes, entriesMax: config.preloadPolicy.storeEntriesMax,
                              plans: plans, campaigns: config.campaigns, placeholderBytes: config.infra.placeholder.placeholderBytes)
        silentTAT = [Int32](repeating: 0, count: n)
        heldPush = [UInt64](repeating: 0, count: n)
        hpSilentCount = [UInt8](repeating: 0, count: n)
        expeditedUsed = [UInt8](repeating: 0, count: n)
        sendCursor = [Int](repeating: 0, count: config.campaigns.count)
        sendCredit = [Double](repeating: 0, count: config.campaigns.count)

        do {
            tapToPaint = try LatencyHistogram(maxValueMicroseconds: PushWorld.histogramMaxMicroseconds)
            groupHistograms = [LatencyHistogram](repeating: tapToPaint, count: 2 * InfraNetworkClass.count)
            extensionLatency = tapToPaint
            let h = max(1, Int(config.horizonSeconds.rounded(.up)))
            let counter = try PerSecondCounter(horizonSeconds: h)
            series = PushTimeSeries(pushesSent: counter, deliveries: counter, prestageEdgeRequests: counter, prestageEdgeHits: counter,
                                    originRequests: counter, origin503: counter, taps: counter, paints: counter)
        } catch {
            throw PushModelError(path: "horizonSeconds", reason: "\(error)")
        }
        popRequests = [UInt64](repeating: 0, count: infra.popCount)
        popHits = popRequests
        firstSendTicks = SimDuration.seconds(config.campaigns.map(\.sendStartSeconds).min() ?? 0).ticks
        let regions = infra.regionCount
        let minutes = max(1, Int((config.horizonSeconds / 60).rounded(.up)))
        var bin = 1
        while regions * ((minutes + bin - 1) / bin) > 2_000_000 { bin *= 2 }
        missBinSeconds = 60 * bin
        missBins = (minutes + bin - 1) / bin
        regionMisses = [UInt64](repeating: 0, count: regions * missBins)
    }

    // MARK: - Run

    mutating func run(limits: RunLimits) throws -> ReplicationResult {
        var kernel = try startKernel()
        let outcome = try kernel.run(&self, limits: kernelLimits(limits))
        return try finish(kernel: kernel, outcome: outcome)
    }

    /// A kernel holding the run's initial events (background streams, warms, swaps, first sends).
    mutating func startKernel() throws -> Kernel {
        var kernel = Kernel(reservingCapacity: 4_096)
        try infra.startBackgroundStreams(kernel: &kernel)
        for (c, campaign) in config.campaigns.enumerated() {
            let start = SimDuration.seconds(campaign.sendStartSeconds).ticks
            if let target = warmTarget(campaign.warm) {
                let at = SimTime(ticks: max(0, start - SimDuration.seconds(campaign.warm.aheadSeconds).ticks))
                try infra.warm(objects: plans.warmObjects[c], at: at, target: target, kernel: &kernel)
            }
            if let swap = campaign.creativeSwap {
                let at = max(0, start - SimDuration.seconds(swap.secondsBeforeSend).ticks)
                if at < horizonTicks { try kernel.schedule(at: SimTime(ticks: at), kind: PushKind.creativeSwap, target: UInt32(c)) }
            }
            if start < horizonTicks {
                try kernel.schedule(at: SimTime(ticks: start), kind: PushKind.sendBatch, target: UInt32(c))
            }
        }
        return kernel
    }

    /// `limits` with the time limit capped at the horizon.
    func kernelLimits(_ limits: RunLimits) -> RunLimits {
        RunLimits(eventsMax: limits.eventsMax, timeMax: SimTime(ticks: min(limits.timeMax.ticks, horizonTicks)),
                  progressEveryEvents: limits.progressEveryEvents)
    }

    /// Accounts the pushes never sent and builds the result.
    mutating func finish(kernel: Kernel, outcome: RunOutcome) throws -> ReplicationResult {
        try finishUnsent()
        return makeResult(kernel: kernel, outcome: outcome)
    }

    func warmTarget(_ w: WarmConfig) -> WarmTarget? {
        switch w.mode {
        case .none: return nil
        case .allPops: return .allPops
        case .topPops: return .topPops(w.topPops)
        case .shieldsOnly: return .shieldsOnly
        }
    }

    mutating func progress(_ p: RunProgress) {
        pendingProfile.add(kernelPending: p.pendingCount, bucketed: far.count)
        guard let sink = progressSink else { return }
        var done = 0
        for c in sendCursor { done += c }
        let total = config.population.devices
        sink.progress(virtualSeconds: p.now.seconds, eventsProcessed: p.eventsProcessed,
                      devicesDone: done / max(1, sendCursor.count), devicesTotal: total)
    }

    mutating func handle(_ event: Event, in kernel: inout Kernel) throws {
        let k = event.kind.rawValue
        if InfraEventKind.range.contains(k) {
            try infra.handle(event, in: &kernel)
            return
        }
        switch k {
        case PushKind.fetchReply.rawValue: try onFetchReply(event, kernel: &kernel)
        case PushKind.sessionTimer.rawValue: try onSessionTimer(event, kernel: &kernel)
        case PushKind.pushArrive.rawValue:
            inProvider -= 1
            try onPushArrive(Int(event.target), PushWord(event.payload), kernel: &kernel)
        case PushKind.foregroundReply.rawValue: try onForegroundReply(event, kernel: &kernel)
        case PushKind.osDeadline.rawValue: try onOSDeadline(event, kernel: &kernel)
        case PushKind.tap.rawValue: try onTap(event, kernel: &kernel)
        case PushKind.paint.rawValue: onPaint(event, kernel: kernel)
        case PushKind.sendBatch.rawValue: try onSendBatch(Int(event.target), kernel: &kernel)
        case PushKind.silentRelease.rawValue:
            inDeferred -= 1
            try onSilentRelease(Int(event.target), PushWord(event.payload), kernel: &kernel)
        case PushKind.deferredStart.rawValue:
            inDeferred -= 1
            try onDeferredStart(Int(event.target), PushWord(event.payload), kernel: &kernel)
        case PushKind.bucketFlush.rawValue: try far.flush(bucket: Int(event.target), kernel: &kernel)
        case PushKind.creativeSwap.rawValue:
            let c = Int(event.target)
            try infra.purge(surrogateKey: UInt32(c), kernel: &kernel)
            counters.creativeSwaps += 1
            if config.campaigns[c].warm.mode != .none {
                let at = kernel.now.ticks + SimDuration.seconds(config.campaigns[c].creativeSwap?.rewarmDelaySeconds ?? 5).ticks
                if at < horizonTicks { try kernel.schedule(at: SimTime(ticks: at), kind: PushKind.rewarm, target: UInt32(c)) }
            }
        case PushKind.rewarm.rawValue:
            let c = Int(event.target)
            if let target = warmTarget(config.campaigns[c].warm) {
                try infra.warm(objects: plans.warmObjects[c], at: kernel.now, target: target, kernel: &kernel)
            }
        default:
            throw PushModelError(path: "", reason: "event kind 0x\(String(k, radix: 16)) is not a PushModel kind")
        }
    }

    // MARK: - Sending

    /// One second of campaign `c`'s send: the next audience devices up to the effective rate get
    /// their pushes (every carousel part), each arriving after a provider latency.
    mutating func onSendBatch(_ c: Int, kernel: inout Kernel) throws {
        let campaign = config.campaigns[c]
        let perSecond = min(campaign.sendRatePerMinute, campaign.providerQuotaPerMinute) / 60
        sendCredit[c] += perSecond
        let now = kernel.now.ticks
        let n = population.deviceCount
        let parts = rt[c].pushesPerDevice
        let share = rt[c].audienceShare
        let interval = SimDuration.seconds(campaign.carouselIntervalSeconds ?? 0).ticks
        var k = 0.0
        var d = sendCursor[c]
        while d < n && sendCredit[c] >= 1 {
            if population.inAudience(d, campaign: c, audienceShare: share) {
                sendCredit[c] -= 1
                let send = now + SimDuration.seconds(k / perSecond).ticks
                k += 1
                for part in 0..<parts {
                    pushesTargeted += 1
                    let partSend = send + Int64(part) * interval
                    series.pushesSent.add(atMicroseconds: partSend)
                    let rng = population.stream(entity: UInt64(d) | UInt64(c) << 32 | UInt64(part) << 40, purpose: PushWorld.purposeLatency)
                    let latency = deliveryLatency[c].sample(rng, clampedTo: 0...86_400)
                    let arrive = partSend + SimDuration.seconds(latency).ticks
                    if arrive >= horizonTicks {
                        outcomes.notDelivered += 1
                        continue
                    }
                    inProvider += 1
                    let word = PushWord(campaign: c, part: part, flags: 0, sendTicks: partSend)
                    try far.schedule(at: arrive, kind: PushKind.pushArrive, target: UInt32(d), payload: word.raw, kernel: &kernel)
                }
            }
            d += 1
        }
        sendCursor[c] = d
        if d >= n {
            sendCredit[c] = 0
        } else if now + 1_000_000 < horizonTicks {
            try kernel.schedule(at: SimTime(ticks: now + 1_000_000), kind: PushKind.sendBatch, target: UInt32(c))
        }
    }

    /// Audience devices never sent to by the horizon count as not delivered.
    mutating func finishUnsent() throws {
        for (c, campaign) in config.campaigns.enumerated() where sendCursor[c] < config.population.devices {
            var remaining: UInt64 = 0
            for d in sendCursor[c]..<config.population.devices
            where population.inAudience(d, campaign: c, audienceShare: campaign.audienceShare) {
                remaining += UInt64(campaign.pushesPerDevice)
            }
            pushesTargeted += remaining
            outcomes.notDelivered += remaining
            sendCursor[c] = config.population.devices
        }
        outcomes.notDelivered += inProvider
        outcomes.deferredThenExpired += inDeferred
        inProvider = 0
        inDeferred = 0
        for s in slot.indices where deviceSlot[Int(slot[s].device)] == Int32(s) && !sessions[s].delivered() {
            outcomes.timedOutOrKilled += 1
            counters.sessionsCutByHorizon += 1
        }
    }

    static let purposeLatency = StreamPurpose("push.provider.latency").rawValue
    static let purposeHold = StreamPurpose("push.ios.hold").rawValue
    static let purposeJob = StreamPurpose("push.android.job").rawValue

    // MARK: - OS rules

    /// The provider delivered push `w` to device `d`'s OS.
    mutating func onPushArrive(_ d: Int, _ w: PushWord, kernel: inout Kernel) throws {
        let a = population.device(d)
        let campaign = rt[w.campaign]
        let now = kernel.now.ticks
        let silent = campaign.silentOnIOS
        if a.isIOS {
            if !silent {
                return try deliver(d, w, kind: .iOSServiceExtension, attributes: a, kernel: &kernel)
            }
            if a.forceQuit {
                counters.silentForceQuit += 1
                outcomes.notDelivered += 1
                return
            }
            // Silent-push budget (generic cell rate: `silentBudgetPerHour`, burst `silentBurst`).
            let nowSeconds = Int32(clamping: now / 1_000_000)
            let intervalSeconds = rules.silentIntervalSeconds
            let tat = max(silentTAT[d], nowSeconds)
            if tat - nowSeconds > (rules.silentBurst - 1) * intervalSeconds {
                counters.silentOverBudget += 1
                outcomes.notDelivered += 1
                return
            }
            silentTAT[d] = tat + intervalSeconds
            let rng = population.stream(entity: UInt64(d) | UInt64(w.campaign) << 32 | UInt64(w.part) << 40, purpose: PushWorld.purposeHold)
            if rng.uniform() < rules.silentHoldProbability {
                let hold = SimDuration.seconds(silentHold.sample(rng, clampedTo: 0...86_400)).ticks
                let release = now + hold
                var held = w
                held.flags |= PushWord.flagDeferred
                if heldPush[d] != 0 { counters.silentCoalesced += 1 }
                heldPush[d] = held.raw
                if Double(hold) / 1e6 > campaign.messageTtlSeconds || release >= horizonTicks {
                    outcomes.deferredThenExpired += 1
                    return
                }
                inDeferred += 1
                try far.schedule(at: release, kind: PushKind.silentRelease, target: UInt32(d), payload: held.raw, kernel: &kernel)
                return
            }
            return try deliver(d, w, kind: .iOSSilentBackground, attributes: a, kernel: &kernel)
        }

        // Android: high priority runs at once, even in Doze, unless deprioritised.
        var high = campaign.androidHigh
        if high && Int(hpSilentCount[d]) >= rules.deprioritiseAfter {
            high = false
            counters.deprioritised += 1
        }
        var word = w
        if high { word.flags |= PushWord.flagHighPriority }
        let nowSeconds = Double(now) / 1e6
        let window = high ? nowSeconds : doze.nextWindow(atOrAfter: nowSeconds, state: a.doze, phase: a.dozePhase)
        if window > nowSeconds {
            word.flags |= PushWord.flagDeferred
            return try deferUntil(d, word, seconds: window, ttlFrom: Double(w.sendTicks) / 1e6, kernel: &kernel)
        }
        try androidHandle(d, word, attributes: a, kernel: &kernel)
    }

    /// Schedules a deferred start at `seconds`, or resolves it as expired when past the message
    /// TTL or the horizon.
    mutating func deferUntil(_ d: Int, _ w: PushWord, seconds: Double, ttlFrom: Double, kernel: inout Kernel) throws {
        let at = SimDuration.seconds(seconds).ticks
        if seconds - ttlFrom > rt[w.campaign].messageTtlSeconds || at >= horizonTicks {
            outcomes.deferredThenExpired += 1
            if w.flags & PushWord.flagHighPriority != 0 { noteHighPriority(d, shown: false) }
            return
        }
        inDeferred += 1
        try far.schedule(at: at, kind: PushKind.deferredStart, target: UInt32(d), payload: w.raw, kernel: &kernel)
    }

    /// Android: the message handler runs (now): pre-stage in it, or hand over to a WorkManager job.
    mutating func androidHandle(_ d: Int, _ w: PushWord, attributes a: DeviceAttributes, kernel: inout Kernel) throws {
        let campaign = rt[w.campaign]
        if !campaign.androidJob || !campaign.preStage || w.flags & PushWord.flagJob != 0 {
            let kind: HandlerKind = w.flags & PushWord.flagJob != 0 ? .androidWorkManagerJob : .androidFCMHandler
            return try deliver(d, w, kind: kind, attributes: a, kernel: &kernel)
        }
        // The message handler posts the notification now and hands pre-staging to a job: the
        // user may tap before the job has run (or finished) and then sees its partial state.
        let shown = showsNotification(w)
        if w.flags & PushWord.flagHighPriority != 0 { noteHighPriority(d, shown: shown) }
        if shown { try scheduleTap(d, w, attributes: a, shownAt: kernel.now.ticks, kernel: &kernel) }
        var job = w
        job.flags |= PushWord.flagJob
        job.flags &= ~PushWord.flagHighPriority
        let quota = expeditedQuota[a.standbyBucket]
        if Int(expeditedUsed[d]) < quota {
            expeditedUsed[d] &+= 1
            return try deliver(d, job, kind: .androidWorkManagerJob, attributes: a, kernel: &kernel)
        }
        // No expedited quota: a regular job, deferred by the standby bucket and Doze.
        counters.expeditedDenied += 1
        let maxDelay = regularJobDelayMaxSeconds[a.standbyBucket]
        let rng = population.stream(entity: UInt64(d) | UInt64(w.campaign) << 32 | UInt64(w.part) << 40, purpose: PushWorld.purposeJob)
        let ready = Double(kernel.now.ticks) / 1e6 + rng.uniform() * maxDelay
        let start = doze.nextWindow(atOrAfter: ready, state: a.doze, phase: a.dozePhase)
        if start <= Double(kernel.now.ticks) / 1e6 {
            return try deliver(d, job, kind: .androidWorkManagerJob, attributes: a, kernel: &kernel)
        }
        job.flags |= PushWord.flagDeferred
        try deferUntil(d, job, seconds: start, ttlFrom: start, kernel: &kernel)
    }

    mutating func onSilentRelease(_ d: Int, _ w: PushWord, kernel: inout Kernel) throws {
        if heldPush[d] != w.raw {
            // A newer silent push replaced this one while both were held (coalesced).
            outcomes.deferredThenExpired += 1
            return
        }
        heldPush[d] = 0
        try deliver(d, w, kind: .iOSSilentBackground, attributes: population.device(d), kernel: &kernel)
    }

    mutating func onDeferredStart(_ d: Int, _ w: PushWord, kernel: inout Kernel) throws {
        let a = population.device(d)
        if w.flags & PushWord.flagJob != 0 {
            return try deliver(d, w, kind: .androidWorkManagerJob, attributes: a, kernel: &kernel)
        }
        try androidHandle(d, w, attributes: a, kernel: &kernel)
    }

    /// Tracks the app's recent high-priority messages that showed no notification.
    mutating func noteHighPriority(_ d: Int, shown: Bool) {
        hpSilentCount[d] = shown ? 0 : (hpSilentCount[d] == UInt8.max ? UInt8.max : hpSilentCount[d] + 1)
    }

    /// Whether the push shows a notification when handled: alert pushes always; a carousel or
    /// silent campaign with its final part. (Android WorkManager campaigns show it from the
    /// message handler, before the job runs.)
    func showsNotification(_ w: PushWord) -> Bool {
        w.part == rt[w.campaign].pushesPerDevice - 1
    }

    /// The push reaches a handler of `kind` now: start a PreloadKit session (or, for a push without
    /// a pre-stage manifest, show the notification).
    mutating func deliver(_ d: Int, _ w: PushWord, kind: HandlerKind, attributes a: DeviceAttributes, kernel: inout Kernel) throws {
        let now = kernel.now.ticks
        series.deliveries.add(atMicroseconds: now)
        let deferred = w.flags & PushWord.flagDeferred != 0
        if !rt[w.campaign].preStage {
            outcomes.skippedByPolicy += 1
            if w.flags & PushWord.flagHighPriority != 0 { noteHighPriority(d, shown: true) }
            if showsNotification(w) { try scheduleTap(d, w, attributes: a, shownAt: now, kernel: &kernel) }
            return
        }
        if deviceSlot[d] >= 0 {
            // One handler per device at a time: a still-running session for an earlier push ends
            // (the OS replaces the extension / job for the new push).
            let s = Int(deviceSlot[d])
            counters.sessionsReplaced += 1
            try kill(s, kernel: &kernel)
        }
        let s = allocateSlot()
        deviceSlot[d] = Int32(s)
        slot[s].device = UInt32(d)
        slot[s].push = deferred ? w.raw : w.raw & ~(UInt64(PushWord.flagDeferred) << 40)
        slot[s].kind = kind
        slot[s].openFetches = 0
        let user = population.user(d, campaign: w.campaign, audienceShare: 1, isIOS: a.isIOS, segment: a.segment)
        slot[s].opens = user.opens
        slot[s].tapDelaySeconds = user.tapDelaySeconds
        slot[s].network = a.network
        slot[s].region = a.region
        slot[s].saveData = a.saveData
        slot[s].highPriority = w.flags & PushWord.flagHighPriority != 0
        slot[s].tap = -1
        slot[s].timerAt = Int64.max
        counters.sessionsStarted += 1

        // The device's store moves into the session.
        var store: PreloadStore
        // Room for the assets this push may store (a capacity hint: one allocation per push).
        if parked.hasStore(d) {
            store = parked.unpark(d, plans: plans, reserving: policy.criticalAssetsMax)
        } else {
            store = PreloadStore(capacityBytes: rules.storeCapacityBytes, entriesMax: rules.storeEntriesMax)
            store.reserveCapacity(entries: 1 + policy.criticalAssetsMax)
            if a.preexistingStoreBytes > 0 { store.insert(ParkedStores.fillerEntry(d, bytes: a.preexistingStoreBytes)) }
        }
        // The slot's session value is reused (policy validated once, in `init`; buffers keep
        // their capacity): no validation and no allocation per push.
        sessions[s].reset(store: store)
        let context = DeviceContext(handlerKind: kind, network: PushWorld.preloadNetwork(a.network), isConstrained: a.lowDataMode,
                                    isExpensive: false, saveData: a.saveData, freeStorageBytes: a.freeStorageBytes, receiptJitterUniform: 0)
        let request = plans.requests[w.campaign][w.part]

        // OS deadlines of the handler kind.
        switch kind {
        case .iOSServiceExtension:
            let budget = rules.nseBudgetTicks
            let lead = rules.nseWarningLeadTicks
            slot[s].warn = try kernel.scheduleCancellable(at: SimTime(ticks: now + budget - lead), kind: PushKind.osDeadline,
                                                      target: UInt32(s), payload: UInt64(slot[s].generation) << 8)
            slot[s].kill = try kernel.scheduleCancellable(at: SimTime(ticks: now + budget), kind: PushKind.osDeadline,
                                                      target: UInt32(s), payload: UInt64(slot[s].generation) << 8 | 1)
        case .iOSSilentBackground, .androidFCMHandler, .androidWorkManagerJob:
            let ticks = kind == .iOSSilentBackground ? rules.silentBackgroundTicks
                : kind == .androidFCMHandler ? rules.handlerTicks : rules.jobTicks
            slot[s].warn = nil
            slot[s].kill = try kernel.scheduleCancellable(at: SimTime(ticks: now + ticks), kind: PushKind.osDeadline,
                                                      target: UInt32(s), payload: UInt64(slot[s].generation) << 8 | 1)
        }
        try feed(s, .pushReceived(request, context), kernel: &kernel)
    }

    /// InfraModel class → what the device reports to PreloadKit (LTE and 4G are both 4G).
    static func preloadNetwork(_ c: InfraNetworkClass) -> PKNetworkClass { CampaignPayload.preloadNetwork(c) }

    // MARK: - Session driver

    /// A slot's row of `sFetchObject` / `sFetchRequest` (appended as one contiguous copy).
    static let fetchRowZeros = [UInt32](repeating: 0, count: 64)

    mutating func allocateSlot() -> Int {
        activeSessions += 1
        activeSessionsMax = max(activeSessionsMax, activeSessions)
        if let s = slotFree.popLast() { return Int(s) }
        sessions.append(idleSession)
        slot.append(SessionSlot())
        sFetchObject.append(contentsOf: PushWorld.fetchRowZeros)
        sFetchRequest.append(contentsOf: PushWorld.fetchRowZeros)
        return sessions.count - 1
    }

    /// Feeds one input to slot `s`'s session at the kernel's now, performs every action, then
    /// re-arms the timer or ends the session.
    mutating func feed(_ s: Int, _ input: Input, kernel: inout Kernel) throws {
        let now = kernel.now.ticks
        do {
            try sessions[s].handle(input, now: Instant(microseconds: now))
        } catch {
            throw PushModelError(path: "", reason: "PreloadKit session protocol error (driver bug): \(error)")
        }
        try drain(s, kernel: &kernel)
        if deviceSlot[Int(slot[s].device)] != Int32(s) { return } // killed while draining
        let (finished, next) = sessions[s].driverState()
        if finished {
            try endSession(s, kernel: &kernel)
            return
        }
        // Memory: the extension is killed when its buffers exceed the OS limit.
        if slot[s].kind == .iOSServiceExtension {
            let used = policy.memoryReservedBytes + Int64(slot[s].openFetches.nonzeroBitCount) * policy.fetchBufferBytes
            if used > rules.nseMemoryLimitBytes {
                counters.killedByMemory += 1
                return try kill(s, kernel: &kernel)
            }
        }
        if next != slot[s].timerAt {
            if let h = slot[s].timer { kernel.cancel(h) }
            slot[s].timer = nil
            slot[s].timerAt = next
            if next != Int64.max {
                slot[s].timer = try kernel.scheduleCancellable(at: SimTime(ticks: max(now, next)), kind: PushKind.sessionTimer,
                                                           target: UInt32(s), payload: UInt64(slot[s].generation))
            }
        }
    }

    /// Performs the session's actions.
    mutating func drain(_ s: Int, kernel: inout Kernel) throws {
        while let action = sessions[s].pollAction() {
            switch action {
            case .startFetch(let r):
                try startFetch(s, r, kernel: &kernel)
            case .cancelFetch(let id, let reason):
                try cancelTransfer(s, fetch: id.rawValue, kernel: &kernel)
                slot[s].openFetches &= ~(1 << UInt64(id.rawValue))
                counters.fetchesCancelled += 1
                switch reason {
                case .timedOut, .hardDeadline, .osExpiry: counters.fetchesTimedOut += 1
                case .rejected: break
                }
            case .storeAsset:
                counters.assetsStored += 1
            case .evict:
                bytes.storageEvictions += 1
            case .deliver(let delivery):
                try onDelivered(s, delivery, kernel: &kernel)
            case .tapAnswer(let answer):
                let t = slot[s].tap
                if t >= 0 { applyTapAnswer(Int(t), answer) }
            case .paintReady(let key):
                let t = slot[s].tap
                if t >= 0 { try assetReady(Int(t), key: key, kernel: &kernel) }
            case .scheduleReceipt, .log:
                break
            }
        }
    }

    mutating func startFetch(_ s: Int, _ r: PKFetchRequest, kernel: inout Kernel) throws {
        guard case .asset(let key) = r.purpose, let object = plans.object(for: key) else {
            preconditionFailure("the simulator only sends inline manifests of its own asset URLs")
        }
        precondition(r.id.rawValue < 64, "more than 63 fetches in one session")
        let d = Int(slot[s].device)
        let w = PushWord(slot[s].push)
        let timeout = SimDuration(ticks: min(600_000_000, max(1, r.timeoutMicroseconds)))
        let entity = UInt64(d) << 24 | UInt64(w.campaign) << 16 | UInt64(w.part) << 8 | UInt64(r.id.rawValue)
        let request = InfraFetchRequest(objectID: object, regionID: slot[s].region, networkClass: slot[s].network, entity: entity,
                                        connectionWarm: rules.backgroundWarm, saveData: slot[s].saveData,
                                        signedToken: PushWorld.token(d, w.campaign),
                                        timeout: timeout, replyKind: PushKind.fetchReply, replyTarget: UInt32(s),
                                        replyTag: (slot[s].generation & 0xFF_FFFF) << 8 | r.id.rawValue)
        let requestID = try infra.fetch(request, kernel: &kernel)
        noteRequest(requestID, region: slot[s].region, cellular: slot[s].network != .wifi, neverOpened: !slot[s].opens)
        slot[s].openFetches |= 1 << UInt64(r.id.rawValue)
        sFetchObject[s &* 64 &+ Int(r.id.rawValue)] = object
        sFetchRequest[s &* 64 &+ Int(r.id.rawValue)] = requestID
        counters.fetchesStarted += 1
    }

    /// Slot `s` gives its open fetch `id` up (PreloadKit cancelled it, or the handler ended):
    /// InfraModel stops the transfer now and the bytes received so far are counted. A fetch
    /// whose reply is already on the way is counted when the reply arrives.
    mutating func cancelTransfer(_ s: Int, fetch id: UInt32, kernel: inout Kernel) throws {
        guard slot[s].openFetches & (1 << UInt64(id)) != 0 else { return }
        let requestID = sFetchRequest[s &* 64 &+ Int(id)]
        if let result = try infra.cancel(requestID, kernel: &kernel) {
            countPrestageTransfer(result, request: Int(requestID))
        }
    }

    /// Pre-stage traffic accounting of a finished or cancelled request (every one, also those of
    /// sessions that have ended: the request's own region and flags, recorded when it was issued).
    mutating func countPrestageTransfer(_ result: FetchResult, request r: Int) {
        recordPrestage(result, region: Int(reqRegion[r]))
        if result.bytes > 0 {
            bytes.backgroundBytes += UInt64(result.bytes)
            if reqFlags[r] & PushWorld.requestCellular != 0 { bytes.cellularBytes += UInt64(result.bytes) }
            if reqFlags[r] & PushWorld.requestNeverOpened != 0 { bytes.neverOpenedBytes += UInt64(result.bytes) }
        }
    }

    static let requestCellular: UInt8 = 1
    static let requestNeverOpened: UInt8 = 2

    /// Records who issued InfraWorld request `id` (ids are dense and recycled).
    mutating func noteRequest(_ id: UInt32, region: UInt32, cellular: Bool, neverOpened: Bool) {
        let i = Int(id)
        while reqRegion.count <= i {
            reqRegion.append(0)
            reqFlags.append(0)
        }
        reqRegion[i] = region
        reqFlags[i] = (cellular ? PushWorld.requestCellular : 0) | (neverOpened ? PushWorld.requestNeverOpened : 0)
    }

    /// The per-device signed-URL token of a campaign (part of the cache key only when InfraModel's
    /// `cacheKeyIncludesSignedToken` is on).
    static func token(_ d: Int, _ c: Int) -> UInt32 {
        UInt32(truncatingIfNeeded: StreamSeed.mix(UInt64(d) << 8 | UInt64(c)))
    }

    mutating func onFetchReply(_ event: Event, kernel: inout Kernel) throws {
        let (tag, requestID) = InfraWorld.decodeReply(event.payload)
        let result = infra.result(requestID)
        infra.release(requestID)
        let s = Int(event.target)
        let now = kernel.now.ticks
        let d = Int(slot[s].device)
        let live = slot[s].generation & 0xFF_FFFF == tag >> 8 && deviceSlot[d] == Int32(s)
        let w = PushWord(slot[s].push)

        countPrestageTransfer(result, request: Int(requestID))
        let id = FetchID(rawValue: tag & 0xFF)
        guard live, slot[s].openFetches & (1 << UInt64(id.rawValue)) != 0 else { return }
        slot[s].openFetches &= ~(1 << UInt64(id.rawValue))

        let input: Input
        switch result.outcome {
        case .edgeFreshHit, .edgeStaleHit, .miss, .collapsed, .staleIfError, .placeholder:
            let tokenExpired = now - w.sendTicks > rt[w.campaign].tokenLifetimeTicks
            if tokenExpired {
                counters.backgroundTokenExpired += 1
                input = .fetchCompleted(id, FetchCompletion(headers: FetchHeaders(status: 403, contentLength: 0), bytesReceived: 0, prefix: []))
            } else if result.outcome == .placeholder {
                input = .fetchCompleted(id, placeholderResponses[w.campaign].completion)
            } else {
                input = .fetchCompleted(id, plans.responses[Int(sFetchObject[s &* 64 &+ Int(id.rawValue)])].completion)
                extensionLatency.record((result.endTime - result.startTime).ticks)
                counters.prestageFetchesOK += 1
            }
        case .origin503:
            input = .fetchCompleted(id, FetchCompletion(headers: FetchHeaders(status: 503, contentLength: 0), bytesReceived: 0, prefix: []))
        case .timeout:
            counters.fetchesTimedOut += 1
            input = .fetchFailed(id, .timedOut)
        case .networkFailure:
            input = .fetchFailed(id, .network)
        case .cancelled:
            throw PushModelError(path: "", reason: "InfraModel replied to cancelled request \(requestID) (driver bug)")
        }
        try feed(s, input, kernel: &kernel)
    }
}

/// A campaign's scalars for the hot path (a plain struct: reading it retains nothing).
struct CampaignRuntime {
    var pushesPerDevice: Int
    /// iOS pushes are silent (`content-available`): a silent campaign or a carousel.
    var silentOnIOS: Bool
    var androidHigh: Bool
    var androidJob: Bool
    var preStage: Bool
    var messageTtlSeconds: Double
    var tokenLifetimeTicks: Int64
    var audienceShare: Double

    init(_ c: CampaignConfig) {
        pushesPerDevice = c.pushesPerDevice
        silentOnIOS = c.iosPush == .silent || c.pushesPerDevice > 1
        androidHigh = c.androidPriority == .high
        androidJob = c.androidHandler == .workManager
        preStage = c.preStage
        messageTtlSeconds = c.messageTtlSeconds
        tokenLifetimeTicks = SimDuration.seconds(c.tokenLifetimeSeconds).ticks
        audienceShare = c.audienceShare
    }
}

/// OS rules in ticks for the hot path.
struct RulesRuntime {
    var nseBudgetTicks: Int64
    var nseWarningLeadTicks: Int64
    var nseMemoryLimitBytes: Int64
    var silentBackgroundTicks: Int64
    var silentIntervalSeconds: Int32
    var silentBurst: Int32
    var silentHoldProbability: Double
    var handlerTicks: Int64
    var jobTicks: Int64
    var deprioritiseAfter: Int
    var backgroundWarm: Bool
    var foregroundWarm: Bool
    var foregroundTimeout: SimDuration
    var storeCapacityBytes: Int64
    var storeEntriesMax: Int

    init(_ c: PushWorldConfig) {
        let ios = c.platforms.ios, android = c.platforms.android
        nseBudgetTicks = SimDuration.seconds(ios.serviceExtensionBudgetSeconds).ticks
        nseWarningLeadTicks = SimDuration.seconds(ios.expiryWarningLeadSeconds).ticks
        nseMemoryLimitBytes = ios.extensionMemoryLimitBytes
        silentBackgroundTicks = SimDuration.seconds(ios.silentBackgroundSeconds).ticks
        silentIntervalSeconds = Int32(clamping: Int64((3_600 / ios.silentBudgetPerHour).rounded()))
        silentBurst = Int32(ios.silentBurst)
        silentHoldProbability = ios.silentHoldProbability
        handlerTicks = SimDuration.seconds(android.messageHandlerSeconds).ticks
        jobTicks = SimDuration.seconds(android.jobSeconds).ticks
        deprioritiseAfter = android.deprioritiseAfterSilentHighPriority
        backgroundWarm = c.platforms.backgroundConnectionWarm
        foregroundWarm = c.users.foregroundConnectionWarm
        foregroundTimeout = .seconds(c.users.foregroundTimeoutSeconds)
        storeCapacityBytes = c.preloadPolicy.storeCapacityBytes
        storeEntriesMax = c.preloadPolicy.storeEntriesMax
    }
}

extension PreloadSession {
    // Reads through a mutating (in-place) access: a non-mutating read of an array element copies
    // the whole session (retaining every buffer it holds).

    /// Whether finished, and the next timer instant (Int64.max: none).
    mutating func driverState() -> (finished: Bool, nextMicroseconds: Int64) {
        (isFinished, nextDeadline()?.microseconds ?? Int64.max)
    }

    mutating func delivered() -> Bool { isDelivered }

    /// The session's store (the device's store once the session ends).
    mutating func currentStore() -> PreloadStore { store }

    mutating func storeFreshness(of key: StoreKey, at now: Instant) -> Freshness { store.freshness(of: key, at: now) }
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
    var prestageFetchesOK: UInt64 = 0
}

/// One session slot's driver state (`PushWorld.slot`); the session itself is `sessions[slot]`.
/// Fields are ordered by size, widest first (88 bytes a slot instead of 112).
struct SessionSlot {
    /// The push (`PushWord.raw`).
    var push: UInt64 = 0
    /// The instant the session timer is armed for (`Int64.max`: none).
    var timerAt: Int64 = .max
    /// Bit `id` set while fetch `id` is open.
    var openFetches: UInt64 = 0
    /// The user's tap delay for this push (drawn with `opens`, kept for the tap after delivery).
    var tapDelaySeconds: Double = 0
    /// The device being served.
    var device: UInt32 = 0
    /// Bumped when the slot is reused: events carrying an older generation are stale.
    var generation: UInt32 = 0
    var region: UInt32 = 0
    /// The tap being answered by this session, or -1.
    var tap: Int32 = -1
    /// The session timer, and the OS expiry warning and kill events.
    var timer: EventHandle?
    var warn: EventHandle?
    var kill: EventHandle?
    var kind: HandlerKind = .iOSServiceExtension
    var network: InfraNetworkClass = .wifi
    /// Whether the user opens this push.
    var opens = false
    var saveData = false
    var highPriority = false
}
