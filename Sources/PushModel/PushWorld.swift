import Foundation
import InfraModel
import PreloadKit
import SimKernel
import SimStats
import Stochastic

/// The simulation: devices, OS rules, users and campaigns around InfraModel's world, running
/// PreloadKit's sessions in virtual time. It is the kernel's event handler: it routes each event
/// kind to its owner and carries out their answers in order --
/// `DeliveryRules` (what the OS does with a push), `SessionDriver` (PreloadKit sessions and their
/// fetches), `TapTracker` (taps, foreground fetches, paint) and `PushMetrics` (everything
/// counted, and the result); InfraModel's events go to `infra`. Campaign sending is its own.
struct PushWorld: EventHandler {
    let config: PushWorldConfig
    let masterSeed: UInt64
    let replication: Int
    let runSeed: UInt64
    let horizonTicks: Int64
    let population: Population
    let plans: CampaignPlans
    /// Delivery latency samplers (`ProviderLatency.swift`): campaign c's at c, the providers' after.
    let deliveryLatency: [Sampler]
    /// With `providers`: per campaign and provider (2c + p), the index of its latency sampler.
    let latencyByProvider: [Int]
    let progressSink: ProgressSink?
    let rt: [CampaignRuntime]
    var infra: InfraWorld
    var far: BucketQueue
    var delivery: DeliveryRules
    var driver: SessionDriver
    var taps: TapTracker
    var metrics: PushMetrics

    // Sending.
    var sendCursor: [Int]
    var sendCredit: [Double]
    /// The campaign calendar (waves, targeting, audience rules); per campaign, the wave sending.
    let calendars: CampaignCalendars
    var sendWave: [Int]
    /// The push-provider layer (`PushWorld+Providers.swift`); off without `providers`.
    var providers: ProviderState
    /// Offline windows and inactive devices in the provider layer (`PushWorld+Offline.swift`).
    var offline: OfflineState
    /// FCM's per-device limits (`PushWorld+DeviceCaps.swift`); off unless a device's plan can exceed one.
    var deviceCaps: DeviceCapsState
    /// Doze-held collapsible FCM messages (`PushWorld+DozeCollapse.swift`).
    var dozeCollapse: DozeCollapseState

    /// The kernel's pending-event count and the far-event buckets' size, sampled at every
    /// progress report (for the benchmark; not part of the result).
    var pendingProfile = PendingEventProfile()

    init(config: PushWorldConfig, masterSeed: UInt64, replication: Int, progressSink: ProgressSink?,
         bucketFarEvents: Bool = true) throws {
        try config.checkCampaignCount()
        self.config = config
        self.masterSeed = masterSeed
        self.replication = replication
        self.progressSink = progressSink
        runSeed = StreamSeed.derive(masterSeed: masterSeed, entity: UInt64(bitPattern: Int64(replication)),
                                    purpose: StreamPurpose("push.replication").rawValue)
        horizonTicks = SimDuration.seconds(config.horizonSeconds).ticks
        population = try Population(config: config, runSeed: runSeed)
        plans = try CampaignPlans(campaigns: config.campaigns,
                                  waveStartSeconds: config.campaigns.indices.map { CalendarRules.waves(config, campaign: $0).startSeconds },
                                  hinted: config.users.openHint != nil,
                                  hlsSegmentsToPreStage: config.preloadPolicy.hlsSegmentsToPreStage)
        var policy = config.preloadPolicy.preloadPolicy(manifestOptions: plans.payloadOptions,
                                                        clockAtStartSeconds: config.population.dozeNight.clockAtStartSeconds)
        // HLS assets served as playlists of variants: the app reads them (PreloadKit's HLS policy).
        policy.hls.isEnabled = plans.hasHLSPlaylists
        rt = config.campaigns.map(CampaignRuntime.init)
        let rules = RulesRuntime(config)
        driver = try SessionDriver(config: config, policy: policy, rules: rules, rt: rt, plans: plans)
        if policy.receiptsEnabled { driver.receiptJitter = ReceiptJitterDraw(runSeed: runSeed) }
        (deliveryLatency, latencyByProvider) = try PushWorld.deliveryLatencies(config)
        delivery = try DeliveryRules(config: config, rules: rules, rt: rt, horizonTicks: horizonTicks)
        do {
            infra = try InfraWorld(config: config.infra, catalog: plans.catalog, masterSeed: runSeed)
        } catch {
            throw PushModelError(path: "infra", reason: "\(error)")
        }
        far = BucketQueue(widthTicks: 10_000_000, horizonTicks: horizonTicks, isBucketing: bucketFarEvents)
        taps = TapTracker(plans: plans, rules: rules, users: config.users, horizonTicks: horizonTicks)
        sendCursor = [Int](repeating: 0, count: config.campaigns.count)
        sendCredit = [Double](repeating: 0, count: config.campaigns.count)
        calendars = try CampaignCalendars(config)
        sendWave = [Int](repeating: 0, count: config.campaigns.count)
        providers = ProviderState(config.providers, campaigns: config.campaigns, runSeed: runSeed)
        offline = try OfflineState(config)
        deviceCaps = DeviceCapsState(config)
        dozeCollapse = DozeCollapseState(config)
        metrics = try PushMetrics(config: config, popCount: infra.popCount, regionCount: infra.regionCount)
        if config.costs != nil { metrics.objectCampaign = plans.campaignOfObjects() }
        if config.infra.cdnApi != nil { metrics.cdnApiTally = CdnApiTally(campaigns: config.campaigns.count, enabled: true) }
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
            let timing = campaign.timing
            let start = firstSendTicks(c)
            if let target = warmTarget(campaign.warm) {
                for (wave, at) in warmCallTicks(c).enumerated() {
                    // Through a CDN API the call is made at its instant: the API serves calls in
                    // the order made, so one made now for later would hold back earlier ones.
                    if metrics.cdnApiTally.enabled {
                        if at < horizonTicks { try kernel.schedule(PushEvent.rewarm(CampaignID(c), wave: UInt32(wave)), at: SimTime(ticks: at)) }
                        continue
                    }
                    try infra.warm(objects: plans.warmObjects[c], at: SimTime(ticks: at), target: target, kernel: &kernel)
                }
            }
            for (wave, at) in swapCallTicks(c).enumerated() where at < horizonTicks {
                try kernel.schedule(PushEvent.creativeSwap(CampaignID(c), wave: UInt32(wave)), at: SimTime(ticks: at))
            }
            if start < horizonTicks {
                try kernel.schedule(PushEvent.sendBatch(CampaignID(c)), at: SimTime(ticks: start))
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
        if metrics.campaignTally.enabled {
            for (c, n) in taps.censoredAbandoned(now: kernel.now.ticks, population: population, campaigns: config.campaigns.count).enumerated() {
                metrics.noteAbandoned(campaign: c, n)
            }
        } else {
            metrics.counters.tapsAbandoned += taps.censoredAbandoned(now: kernel.now.ticks, population: population)
        }
        metrics.decisionTally = driver.decision.map(DecisionTally.init)
        if providers.enabled { metrics.providerTally = providers.tally }
        if offline.enabled { metrics.offlineTally = offline.tally }
        metrics.offlineKeyed = offline.keyed
        metrics.collapsedOutsideOffline = deviceCaps.collapsibleOn || dozeCollapse.enabled
        if deviceCaps.enabled { metrics.deviceCapsTally = deviceCaps.tally }
        metrics.collapsibleBurstKept = deviceCaps.collapsibleOn
        return metrics.makeResult(infra: infra, kernel: kernel, outcome: outcome, masterSeed: masterSeed, replication: replication,
                                  devices: config.population.devices, activeSessionsMax: driver.activeSessionsMax,
                                  parkedWholeStores: driver.parked.overflowStores)
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
        let n = Double(config.population.devices)
        var sent = 0.0
        var planned = 0.0
        for (c, campaign) in config.campaigns.enumerated() {
            let timing = campaign.timing
            let perDevice = timing.audienceShare * Double(timing.pushesPerDevice)
            // Devices the send passes by the horizon: the audience is drawn per device, so at the
            // rate r the cursor moves r / share devices a second.
            let window = max(0, config.horizonSeconds - timing.sendStartSeconds)
            let rate = config.fanOutDevicesPerSecond(campaign) ?? timing.sendRatePerSecond
            let reach = timing.audienceShare > 0 ? min(n, rate * window / timing.audienceShare) : n
            let cursor = calendarCursor(c) ?? Double(sendCursor[c])
            sent += cursor * perDevice
            planned += (cursor >= n ? n : reach) * perDevice
        }
        sink.progress(ProgressReport(virtualSeconds: p.now.seconds, horizonSeconds: config.horizonSeconds,
                                     eventsProcessed: p.eventsProcessed, pendingEvents: p.pendingCount + far.count,
                                     pushesSent: sent, pushesPlanned: planned, pushesInFlight: Double(metrics.inProvider)))
    }

    mutating func handle(_ event: Event, in kernel: inout Kernel) throws {
        if InfraEventKind.range.contains(event.kind.rawValue) {
            try infra.handle(event, in: &kernel)
            return
        }
        guard let e = PushEvent(event) else {
            throw PushModelError(path: "", reason: "event \(event.kind) is not a PushModel kind")
        }
        switch e {
        case .fetchReply(let s, let reply):
            var input = Input.timerFired
            if let s = try driver.reply(s, reply, now: kernel.now.ticks, infra: &infra, metrics: &metrics, input: &input) {
                try feed(s, consume input, kernel: &kernel)
            }
        case .sessionTimer(let s, let generation):
            if let s = driver.timerFired(s, generation: generation) { try feed(s, .timerFired, kernel: &kernel) }
        case .pushArrive(let device, var w):
            metrics.notePushInProvider(campaign: w.campaign, entering: false)
            let throttled = w.flags & PushWord.flagThrottled != 0
            w.flags &= ~PushWord.flagThrottled
            var reconnected = false
            if offline.enabled { guard try offlineArrival(device, &w, reconnected: &reconnected, kernel: &kernel) else { return } }
            let a = population.device(device)
            var decision = delivery.arrive(device, w, attributes: a, now: kernel.now.ticks, population: population,
                                           counters: &metrics.counters)
            if providers.enabled && !a.isIOS && providers.androidViaFcm(campaign: w.campaign) {
                providers.noteDataApiArrival(decision, reconnected: reconnected, throttled: throttled)
                if dozeCollapse.enabled, case .deferUntil(let at, let held) = decision { decision = dozeHold(device.index, until: at, held) }
            }
            try act(decision, device, attributes: a, campaign: w.campaign, kernel: &kernel)
        case .foregroundReply(let t, let reply): try onForegroundReply(t, reply, kernel: &kernel)
        case .osDeadline(let s, let generation, let deadline):
            guard let s = driver.osDeadline(s, generation: generation, deadline) else { return }
            switch deadline {
            case .expiryWarning:
                metrics.counters.expiryWarnings += 1
                try feed(s, .expiryWarning, kernel: &kernel)
            case .kill:
                metrics.counters.killedByTime += 1
                try kill(s, kernel: &kernel)
            }
        case .tap(let d, let c, let sendTicks): try onTap(d, campaign: c, sendTicks: sendTicks, kernel: &kernel)
        case .paint(let t, let generation): onPaint(t, generation: generation, kernel: kernel)
        case .sendBatch(let c): try onSendBatch(c, kernel: &kernel)
        case .silentRelease(let device, let w):
            metrics.notePushDeferred(campaign: w.campaign, entering: false)
            guard delivery.release(device, w) else {
                metrics.countOutcome(.deferredThenExpired, campaign: w.campaign)
                return
            }
            try deliver(device, w, kind: .iOSSilentBackground, attributes: population.device(device), kernel: &kernel)
        case .deferredStart(let device, var w):
            metrics.notePushDeferred(campaign: w.campaign, entering: false)
            if w.flags & PushWord.flagDozeTracked != 0 { guard dozeRelease(device.index, &w) else { return } }
            let a = population.device(device)
            if providers.enabled && w.flags & PushWord.flagJob == 0 && !a.isIOS && providers.androidViaFcm(campaign: w.campaign) {
                providers.noteDataApiDozeEnded()
            }
            try act(delivery.deferredStart(w), device, attributes: a, campaign: w.campaign, kernel: &kernel)
        case .bucketFlush(let b): try far.flush(bucket: b, kernel: &kernel)
        case .creativeSwap(let campaign, let wave):
            let c = campaign.index
            try purgeCampaign(c, sendTicks: waveSendTicks(c, wave: Int(wave)), kernel: &kernel)
            metrics.counters.creativeSwaps += 1
            let timing = config.campaigns[c].timing
            if timing.warms {
                let at = kernel.now.ticks + timing.rewarmDelayTicks
                if at < horizonTicks { try kernel.schedule(PushEvent.rewarm(campaign, wave: wave), at: SimTime(ticks: at)) }
            }
        case .networkChange(let s, let generation): try onNetworkChange(s, generation: generation, kernel: &kernel)
        case .deviceRetry(let device, let w): try onDeviceRetry(device.index, w, kernel: &kernel)
        case .collapsibleRelease(let device): try onCollapsibleRelease(device.index, now: kernel.now.ticks, kernel: &kernel)
        case .rewarm(let campaign, let wave):
            let c = campaign.index
            if let target = warmTarget(config.campaigns[c].warm) {
                try warmCampaign(c, at: kernel.now, target: target, sendTicks: waveSendTicks(c, wave: Int(wave)), kernel: &kernel)
            }
        }
    }

    // MARK: - Sending

    /// One second of campaign `c`'s send: the next audience devices up to the effective rate get
    /// their pushes (every carousel part), each arriving after a provider latency. With
    /// `providers`, each device's pushes first take their messages from the provider's bucket
    /// (`takeFromProvider`); a refusal pauses the campaign's send at that device until the retry
    /// instant (a single ordered sender queue: judgement). With a calendar, the pass covers the
    /// current wave's audience and, at its end, the next wave is scheduled.
    mutating func onSendBatch(_ campaignID: CampaignID, kernel: inout Kernel) throws {
        let c = campaignID.index
        if providers.fanOut.any && providers.fanOut.isTopic[c] { return try onFanOutBatch(c, kernel: &kernel) }
        let campaign = config.campaigns[c]
        let perSecond = campaign.timing.sendRatePerSecond
        sendCredit[c] += perSecond
        let now = kernel.now.ticks
        let n = population.deviceCount
        let parts = rt[c].pushesPerDevice
        let share = rt[c].audienceShare
        let interval = SimDuration.seconds(campaign.carouselIntervalSeconds ?? 0).ticks
        let viaProviders = providers.enabled
        let route = viaProviders ? Int(providers.route[c]) : -1
        let calendar = calendars.campaigns[c] != nil
        let wave = sendWave[c]
        var next = now + 1_000_000
        var k = 0.0
        var d = sendCursor[c]
        while d < n && sendCredit[c] >= 1 {
            let member = calendar ? calendars.isMember(DeviceID(d), campaign: c, wave: wave, population: population)
                : population.inAudience(DeviceID(d), campaign: campaignID, audienceShare: share)
            if member {
                let send = now + SimDuration.seconds(k / perSecond).ticks
                var latency = c
                var dataApi = false
                var throttled = false
                if viaProviders {
                    let p = provider(device: d, route: route)
                    if let retry = takeFromProvider(device: d, campaign: c, provider: p, parts: parts, at: send, every: interval) {
                        next = retry
                        sendCredit[c] = 0
                        break
                    }
                    if providers.hasStaleTokens && providers.tokenIsStale(d, provider: p, population: population) {
                        sendCredit[c] -= 1
                        k += 1
                        sendUnregistered(device: d, campaign: c, provider: p, parts: parts, from: send, every: interval)
                        d += 1
                        continue
                    }
                    latency = latencyByProvider[2 * c + p]
                    dataApi = providers.inDataApi(device: d, route: route, provider: p, population: population)
                    if dataApi && deviceCaps.enabled {
                        if deviceCaps.collapsible[c] {
                            throttled = deviceCaps.collapsibleOn
                        } else if deviceCaps.rate && !deviceCaps.takeRate(d, parts: parts, at: send) {
                            // Over the device's rate: a 429 for it, retried after the backoff.
                            try refuseForDeviceRate(device: d, campaign: c, parts: parts, attempts: 0, at: send, kernel: &kernel)
                            sendCredit[c] -= 1
                            k += 1
                            d += 1
                            continue
                        }
                    }
                    if dataApi { providers.tally.dataApi.accepted += UInt64(parts) }
                }
                sendCredit[c] -= 1
                k += 1
                try sendParts(device: d, campaign: c, parts: parts, from: send, every: interval, latency: latency, dataApi: dataApi,
                              throttled: throttled, kernel: &kernel)
            }
            d += 1
        }
        sendCursor[c] = d
        if d >= n {
            sendCredit[c] = 0
            guard calendar, let start = nextWave(c, now: now) else { return }
            next = start
        }
        if next < horizonTicks {
            try kernel.schedule(PushEvent.sendBatch(CampaignID(c)), at: SimTime(ticks: next))
        }
    }

    /// Sends device `d` its `parts` pushes of campaign `c` (carousel parts `interval` apart from
    /// `send`), each arriving after its provider latency (sampler `latency` of `deliveryLatency`)
    /// or, past the horizon, not delivered (`dataApi`: counted in the FCM Data API's categories).
    @inline(__always)
    mutating func sendParts(device d: Int, campaign c: Int, parts: Int, from send: Int64, every interval: Int64,
                            latency latencyIndex: Int, dataApi: Bool, throttled: Bool = false, kernel: inout Kernel) throws {
        for part in 0..<parts {
            metrics.countTargeted(campaign: c)
            let partSend = send + Int64(part) * interval
            metrics.series.pushesSent.add(atMicroseconds: partSend)
            let rng = population.stream(entity: UInt64(d) | UInt64(c) << 32 | UInt64(part) << 40, purpose: PushWorld.purposeLatency)
            let latency = deliveryLatency[latencyIndex].sample(rng, clampedTo: 0...SampledBounds.deliveryLatencySecondsMax)
            var word = PushWord(campaign: c, part: part, flags: 0, sendTicks: partSend)
            if throttled {
                // Under the device's collapsible burst (`PushWorld+DeviceCaps.swift`).
                try sendCollapsible(device: d, word, latencyTicks: SimDuration.seconds(latency).ticks, kernel: &kernel)
                continue
            }
            var arrive = partSend + SimDuration.seconds(latency).ticks
            if waitsForBurst(device: d, campaign: c) {
                arrive = priority5Arrival(device: d, arrive: arrive)
                word.flags |= PushWord.flagPriority5
            }
            try scheduleArrival(d, word, at: arrive, dataApi: dataApi, kernel: &kernel)
        }
    }

    /// Push `w` reaches device `d`'s provider edge at `arrive`, or, past the horizon, is not
    /// delivered (`dataApi`: counted in the FCM Data API's categories).
    @inline(__always)
    mutating func scheduleArrival(_ d: Int, _ w: PushWord, at arrive: Int64, dataApi: Bool, kernel: inout Kernel) throws {
        if arrive >= horizonTicks {
            metrics.countOutcome(.notDelivered, campaign: w.campaign)
            if dataApi { providers.tally.dataApi.pendingAtHorizon += 1 }
            return
        }
        if dataApi { providers.tally.dataApi.inFlight += 1 }
        metrics.notePushInProvider(campaign: w.campaign, entering: true)
        try far.schedule(at: arrive, .pushArrive(DeviceID(d), w), kernel: &kernel)
    }

    /// Audience devices never sent to by the horizon count as not delivered.
    mutating func finishUnsent() throws {
        for (c, campaign) in config.campaigns.enumerated() where sendCursor[c] < config.population.devices {
            var remaining: UInt64 = 0
            if calendars.campaigns[c] != nil {
                remaining = unsentCalendarPushes(c)
            } else {
                for d in sendCursor[c]..<config.population.devices
                where population.inAudience(DeviceID(d), campaign: CampaignID(c), audienceShare: campaign.audienceShare) {
                    remaining += UInt64(campaign.pushesPerDevice)
                }
            }
            metrics.countTargeted(campaign: c, remaining)
            metrics.countOutcome(.notDelivered, campaign: c, remaining)
            sendCursor[c] = config.population.devices
        }
        metrics.outcomes.notDelivered += metrics.inProvider
        metrics.outcomes.deferredThenExpired += metrics.inDeferred
        metrics.inProvider = 0
        metrics.inDeferred = 0
        if metrics.campaignTally.enabled { metrics.finishCampaigns(cut: driver.undeliveredAtHorizon(campaigns: config.campaigns.count)) }
        let cut = driver.undeliveredAtHorizon()
        metrics.outcomes.timedOutOrKilled += cut
        metrics.counters.sessionsCutByHorizon += cut
    }

    static let purposeLatency = StreamPurpose("push.provider.latency").rawValue

    /// InfraModel class → what the device reports to PreloadKit (LTE and 4G are both 4G).
    static func preloadNetwork(_ c: InfraNetworkClass) -> PKNetworkClass { CampaignPayload.preloadNetwork(c) }

    /// The per-device signed-URL token of a campaign (part of the cache key only when InfraModel's
    /// `cacheKeyIncludesSignedToken` is on).
    static func token(_ d: DeviceID, _ c: CampaignID) -> UInt32 {
        UInt32(truncatingIfNeeded: StreamSeed.mix(UInt64(d.rawValue) << 8 | UInt64(c.rawValue)))
    }
}
