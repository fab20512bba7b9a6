import InfraModel
import PreloadKit
import SimKernel
import Stochastic

/// What the OS does with a push now: `DeliveryRules`' answer, which `PushWorld` acts on (it
/// schedules, starts handlers and counts outcomes; the rules only decide).
enum DeliveryDecision {
    /// A handler of this kind runs the push now.
    case handleNow(HandlerKind, PushWord)
    /// Android: the app's message handler runs now (`DeliveryRules.messageHandlerKind`).
    case runMessageHandler(PushWord)
    /// iOS holds the silent push until `ticks` (a `PushEvent.silentRelease` event).
    case holdUntil(ticks: Int64, PushWord)
    /// Android defers the push, or its job, until `ticks` (a `PushEvent.deferredStart` event).
    case deferUntil(ticks: Int64, PushWord)
    /// The push is resolved without a handler.
    case drop(DropReason)
}

/// How a dropped push is counted.
enum DropReason {
    /// `OutcomeCounts.notDelivered`: never reached a handler (force-quit app, silent budget).
    case notDelivered
    /// `OutcomeCounts.deferredThenExpired`: held or deferred past its TTL or the horizon, or
    /// replaced by a newer held push.
    case expired
    /// `OutcomeCounts.deferredThenExpired` as `expired`: Android deferred within its TTL but past
    /// the horizon (still pending at the provider when the run ends; the FCM Data API's "pending").
    case pastHorizon
}

/// The OS delivery rules of iOS and Android: silent-push budget and holds, Doze windows,
/// deprioritisation of high-priority messages that show nothing, expedited-job quotas and standby
/// buckets. Owns the per-device OS state (struct of arrays, indexed by device id). Decides only:
/// every scheduling and outcome count is `PushWorld`'s, in the order the decisions come.
struct DeliveryRules {
    let rules: RulesRuntime
    let rt: [CampaignRuntime]
    let doze: DozeSchedule
    let silentHold: Sampler
    let expeditedQuota: [Int]
    let regularJobDelayMaxSeconds: [Double]
    let horizonTicks: Int64

    // Per device.
    /// iOS silent-push budget: the theoretical arrival time (generic cell rate), seconds.
    var silentTAT: [Int32]
    /// iOS: the silent push held now (`PushWord.raw`, 0: none); a newer one replaces it.
    var heldPush: [UInt64]
    /// Android: recent high-priority messages that showed no notification.
    var hpSilentCount: [UInt8]
    /// Android: expedited jobs used.
    var expeditedUsed: [UInt8]

    static let purposeHold = StreamPurpose("push.ios.hold").rawValue
    static let purposeJob = StreamPurpose("push.android.job").rawValue

    init(config: PushWorldConfig, rules: RulesRuntime, rt: [CampaignRuntime], horizonTicks: Int64) throws {
        self.rules = rules
        self.rt = rt
        self.horizonTicks = horizonTicks
        doze = DozeSchedule(config.platforms.android)
        silentHold = try Population.sampler(config.platforms.ios.silentHoldSeconds, "platforms.ios.silentHoldSeconds")
        expeditedQuota = config.platforms.android.standbyBuckets.expeditedJobs
        regularJobDelayMaxSeconds = config.platforms.android.standbyBuckets.regularJobDelayMaxSeconds
        let n = config.population.devices
        silentTAT = [Int32](repeating: 0, count: n)
        heldPush = [UInt64](repeating: 0, count: n)
        hpSilentCount = [UInt8](repeating: 0, count: n)
        expeditedUsed = [UInt8](repeating: 0, count: n)
    }

    /// The provider delivered push `w` to device `d`'s OS at `now`.
    mutating func arrive(_ device: DeviceID, _ w: PushWord, attributes a: DeviceAttributes, now: Int64, population: Population,
                         counters: inout DriverCounters) -> DeliveryDecision {
        let d = device.index
        let campaign = rt[w.campaign]
        if a.isIOS {
            if !campaign.silentOnIOS { return .handleNow(.iOSServiceExtension, w) }
            if a.forceQuit {
                counters.silentForceQuit += 1
                return .drop(.notDelivered)
            }
            // Silent-push budget (generic cell rate: `silentBudgetPerHour`, burst `silentBurst`).
            let nowSeconds = Int32(clamping: now / 1_000_000)
            let intervalSeconds = rules.silentIntervalSeconds
            let tat = max(silentTAT[d], nowSeconds)
            if tat - nowSeconds > (rules.silentBurst - 1) * intervalSeconds {
                counters.silentOverBudget += 1
                return .drop(.notDelivered)
            }
            silentTAT[d] = tat + intervalSeconds
            let rng = population.stream(entity: UInt64(d) | UInt64(w.campaign) << 32 | UInt64(w.part) << 40, purpose: DeliveryRules.purposeHold)
            // A priority-5 push already waited for its APNs burst: that wait is the low-priority
            // deferral iOS's hold stands for (background pushes are priority 5), not a second one.
            if w.flags & PushWord.flagPriority5 == 0 && rng.bernoulli(rules.silentHoldProbability) {
                let hold = SimDuration.seconds(silentHold.sample(rng, clampedTo: 0...SampledBounds.silentHoldSecondsMax)).ticks
                let release = now + hold
                var held = w
                held.flags |= PushWord.flagDeferred
                if heldPush[d] != 0 { counters.silentCoalesced += 1 }
                heldPush[d] = held.raw
                if Double(hold) / 1e6 > campaign.messageTtlSeconds || release >= horizonTicks { return .drop(.expired) }
                return .holdUntil(ticks: release, held)
            }
            return .handleNow(.iOSSilentBackground, w)
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
        let window = high ? nowSeconds : doze.nextWindow(atOrAfter: nowSeconds, device: a)
        if window > nowSeconds {
            counters.dozeDeferred += 1
            counters.dozeDeferralMicroseconds &+= UInt64(SimDuration.seconds(window - nowSeconds).ticks)
            word.flags |= PushWord.flagDeferred
            return deferral(device, word, seconds: window, ttlFrom: Double(w.sendTicks) / 1e6)
        }
        return .runMessageHandler(word)
    }

    /// A deferred start at `seconds`, or expired when past the message TTL or the horizon.
    mutating func deferral(_ d: DeviceID, _ w: PushWord, seconds: Double, ttlFrom: Double) -> DeliveryDecision {
        let at = SimDuration.seconds(seconds).ticks
        let pastTtl = seconds - ttlFrom > rt[w.campaign].messageTtlSeconds
        if pastTtl || at >= horizonTicks {
            if w.flags & PushWord.flagHighPriority != 0 { noteHighPriority(d, shown: false) }
            return .drop(pastTtl ? .expired : .pastHorizon)
        }
        return .deferUntil(ticks: at, w)
    }

    /// Android, the message handler runs push `w`: the handler kind that pre-stages it, or nil
    /// when the handler posts the notification now and hands pre-staging to a WorkManager job
    /// (`startJob`): the user may tap before the job has run (or finished) and sees its partial state.
    func messageHandlerKind(_ w: PushWord) -> HandlerKind? {
        let campaign = rt[w.campaign]
        if !campaign.androidJob || !campaign.preStage || w.flags & PushWord.flagJob != 0 {
            return w.flags & PushWord.flagJob != 0 ? .androidWorkManagerJob : .androidFCMHandler
        }
        return nil
    }

    /// Android: the WorkManager job of push `w` (its handler has posted the notification):
    /// expedited while the standby bucket's quota lasts, else a regular job deferred by the bucket
    /// and Doze.
    mutating func startJob(_ device: DeviceID, _ w: PushWord, attributes a: DeviceAttributes, now: Int64, population: Population,
                           counters: inout DriverCounters) -> DeliveryDecision {
        let d = device.index
        var job = w
        job.flags |= PushWord.flagJob
        job.flags &= ~PushWord.flagHighPriority
        let quota = expeditedQuota[a.standbyBucket]
        if Int(expeditedUsed[d]) < quota {
            expeditedUsed[d] &+= 1
            return .handleNow(.androidWorkManagerJob, job)
        }
        counters.expeditedDenied += 1
        let maxDelay = regularJobDelayMaxSeconds[a.standbyBucket]
        let rng = population.stream(entity: UInt64(d) | UInt64(w.campaign) << 32 | UInt64(w.part) << 40, purpose: DeliveryRules.purposeJob)
        let ready = Double(now) / 1e6 + rng.flat(0, maxDelay)
        let start = doze.nextWindow(atOrAfter: ready, device: a)
        if start <= Double(now) / 1e6 { return .handleNow(.androidWorkManagerJob, job) }
        job.flags |= PushWord.flagDeferred
        return deferral(device, job, seconds: start, ttlFrom: start)
    }

    /// iOS releases held silent push `w`: false when a newer silent push replaced it while both
    /// were held (coalesced; it expires).
    mutating func release(_ device: DeviceID, _ w: PushWord) -> Bool {
        if heldPush[device.index] != w.raw { return false }
        heldPush[device.index] = 0
        return true
    }

    /// Android: a deferred push or job may run now.
    func deferredStart(_ w: PushWord) -> DeliveryDecision {
        w.flags & PushWord.flagJob != 0 ? .handleNow(.androidWorkManagerJob, w) : .runMessageHandler(w)
    }

    /// Tracks the app's recent high-priority messages that showed no notification.
    mutating func noteHighPriority(_ device: DeviceID, shown: Bool) {
        let d = device.index
        hpSilentCount[d] = shown ? 0 : (hpSilentCount[d] == UInt8.max ? UInt8.max : hpSilentCount[d] + 1)
    }

    /// Whether the push shows a notification when handled: alert pushes always; a carousel or
    /// silent campaign with its final part. (Android WorkManager campaigns show it from the
    /// message handler, before the job runs.)
    func showsNotification(_ w: PushWord) -> Bool {
        w.part == rt[w.campaign].pushesPerDevice - 1
    }
}
