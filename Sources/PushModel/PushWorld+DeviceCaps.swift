import Foundation
import SimKernel
import Stochastic

// FCM's per-device limits (`providers.fcm.deviceMessagesPerMinuteMax`, `deviceMessagesPerHourMax`,
// `collapsibleBurstMessages`, `collapsibleRefillSeconds`; Firebase "Throttling and quotas"), for
// Android devices reached through FCM by a per-token send (a topic fan-out is paced by the
// project's fan-out rate instead):
// - Non-collapsible messages: at most `deviceMessagesPerMinuteMax` in a minute and
//   `deviceMessagesPerHourMax` in an hour per device. Each limit is a window that opens at the
//   device's first message after the previous window closed (FCM's minutes are not aligned to the
//   clock). A device's messages of one campaign (every carousel part) are charged together at the
//   first part's instant; over either cap FCM answers them 429 for that device, and the campaign
//   service retries that device's messages after its exponential backoff with jitter
//   (`providers.retry`, the campaign's jitter stream; `Retry-After` is not given for a device's
//   rate; an event `deviceRetry` a refused device), again until accepted or past the horizon
//   (then not delivered). Each message takes the project quota once, at its first attempt
//   (FCM does not count 429s toward the quota; taking it at the first attempt rather than the
//   accepted one is judgement: at most 240 a minute per device against a project's 600 000), and
//   a resend is not checked against a provider outage.
// - Collapsible messages: a token bucket of `collapsibleBurstMessages` per device, refilled one
//   message every `collapsibleRefillSeconds`; a message finding it empty is accepted and held by
//   FCM until a token refills ("throttled"), then goes on to the device (a virtual-scheduling
//   bucket: the state is one instant). While it is held, the device's next collapsible message
//   with the same collapse key replaces it (`PushWorld+CollapseKeys.swift`): the held one is
//   `collapsed`, the newer one takes its place and leaves at its instant, taking no further token.
//   One message a device is held at a time: a message of another key finds the held one already
//   committed to leave (judgement, keeping the state to one word; with one key, as by default,
//   this is exactly FCM's rule). Collapsible messages count toward the burst only (judgement: at
//   one every 3 minutes they cannot reach 240 a minute). A held message that reaches its device's
//   handler is `delayedMessageThrottled` in the Data API, unless the device was offline when it
//   arrived (`delayedDeviceOffline`) or Doze deferred it (`delayedDeviceDoze`): the last delay on
//   its way names it, as for a stored message Doze then defers. The mark is a bit of the message's
//   word (`PushWord.flagThrottled`), no per-device state.
// State per device is allocated only when a device's plan can exceed a cap: the rate windows
// (`DeviceRateSlot`, 24 bytes) when the FCM non-collapsible messages a device can get in a run
// (every per-token campaign's parts) exceed the smaller cap, the collapsible bucket (one Int64 and
// the held message's word, 16 bytes) when its collapsible messages exceed the burst. Off, the send
// path reads one Bool.

/// One device's rate windows: when its current minute and hour opened, and the messages in each.
struct DeviceRateSlot {
    var minuteStartTicks: Int64 = DeviceCapsState.never
    var hourStartTicks: Int64 = DeviceCapsState.never
    var minuteCount: UInt32 = 0
    var hourCount: UInt32 = 0
}

/// What the per-device limits counted (`provider.fcm.deviceRateRejected`, `.collapsibleThrottled`, ...).
struct DeviceCapsTally: Sendable, Equatable {
    /// Messages FCM refused with a 429 for their device's rate (each refusal of each message).
    var deviceRateRejected: UInt64 = 0
    /// Messages accepted after one or more such refusals.
    var deviceRateRetriedAccepted: UInt64 = 0
    /// Collapsible messages held for a token, and the time they were held, added up (ticks).
    var collapsibleThrottled: UInt64 = 0
    var collapsibleHeldTicks: Int64 = 0
    /// Held (throttled) collapsible messages a newer one of the same collapse key replaced.
    var collapsibleCollapsedWhileHeld: UInt64 = 0
}

/// The per-device limits' run state. Arrays sized once, only when a cap can bind.
struct DeviceCapsState {
    static let never = Int64.min / 4
    /// Rate windows kept (a device's non-collapsible FCM messages can exceed a cap).
    let rate: Bool
    /// Collapsible buckets kept (a device's collapsible FCM messages can exceed the burst).
    let collapsibleOn: Bool
    let enabled: Bool
    let minuteMax: UInt32
    let hourMax: UInt32
    let burstMinusOneTicks: Int64
    let refillTicks: Int64
    /// Per campaign: its messages are collapsible; its collapse key's index.
    let collapsible: [Bool]
    let collapseKey: [UInt8]
    var slots: [DeviceRateSlot] = []
    /// Per device: the collapsible bucket's theoretical arrival instant (empty-bucket instant).
    var tat: [Int64] = []
    /// Per device: the collapsible message held now (`PushWord.raw`; 0: none). It is always the
    /// device's latest collapsible message, so it leaves at `heldRelease`.
    var held: [UInt64] = []
    var tally = DeviceCapsTally()

    static let minuteTicks: Int64 = 60_000_000
    static let hourTicks: Int64 = 3_600_000_000

    init(_ config: PushWorldConfig) {
        let fcm = config.providers?.fcm ?? FCMProviderConfig()
        minuteMax = UInt32(clamping: fcm.deviceMessagesPerMinuteMax)
        hourMax = UInt32(clamping: fcm.deviceMessagesPerHourMax)
        refillTicks = max(1, SimDuration.seconds(fcm.collapsibleRefillSeconds).ticks)
        burstMinusOneTicks = (max(1, fcm.collapsibleBurstMessages) - 1) * refillTicks
        collapsible = config.campaigns.map(\.collapsible)
        collapseKey = config.collapseKeyIndices
        (rate, collapsibleOn) = DeviceCapsState.kept(config)
        enabled = rate || collapsibleOn
        if rate { slots = [DeviceRateSlot](repeating: DeviceRateSlot(), count: config.population.devices) }
        if collapsibleOn {
            tat = [Int64](repeating: DeviceCapsState.never, count: config.population.devices)
            held = [UInt64](repeating: 0, count: config.population.devices)
        }
    }

    /// Which per-device state `config` keeps: the rate windows when a device's non-collapsible FCM
    /// messages can exceed the smaller rate cap, the collapsible bucket when its collapsible ones
    /// can exceed the burst; neither without `providers`.
    static func kept(_ config: PushWorldConfig) -> (rate: Bool, collapsible: Bool) {
        guard let fcm = config.providers?.fcm else { return (false, false) }
        let (plain, folded) = messagesPerDeviceMax(config)
        return (plain > min(fcm.deviceMessagesPerMinuteMax, fcm.deviceMessagesPerHourMax), folded > fcm.collapsibleBurstMessages)
    }

    /// The most non-collapsible and collapsible FCM messages one Android device can get in a run:
    /// every per-token campaign's parts that can go through FCM.
    static func messagesPerDeviceMax(_ config: PushWorldConfig) -> (plain: Int64, collapsible: Int64) {
        var plain: Int64 = 0
        var folded: Int64 = 0
        for c in config.campaigns where c.sendAs != .topic && c.provider != .apns {
            if c.collapsible { folded += Int64(c.pushesPerDevice) } else { plain += Int64(c.pushesPerDevice) }
        }
        return (plain, folded)
    }

    /// Charges `parts` non-collapsible messages to device `d` at `t`: true when both windows hold them.
    @inline(__always)
    mutating func takeRate(_ d: Int, parts: Int, at t: Int64) -> Bool {
        var s = slots[d]
        if t >= s.minuteStartTicks &+ DeviceCapsState.minuteTicks {
            s.minuteStartTicks = t
            s.minuteCount = 0
        }
        if t >= s.hourStartTicks &+ DeviceCapsState.hourTicks {
            s.hourStartTicks = t
            s.hourCount = 0
        }
        let n = UInt32(parts)
        guard s.minuteCount + n <= minuteMax, s.hourCount + n <= hourMax else {
            slots[d] = s
            return false
        }
        s.minuteCount += n
        s.hourCount += n
        slots[d] = s
        return true
    }

    /// When device `d`'s held message leaves FCM: the latest message was held when its release
    /// `max(t, tat − (B − 1)·R)` was after `t`, i.e. `tat_before − (B − 1)·R`, and `tat` has since
    /// moved one refill on.
    @inline(__always)
    func heldRelease(_ d: Int) -> Int64 { tat[d] - refillTicks - burstMinusOneTicks }

    /// The instant a collapsible message FCM accepted at `t` for device `d` leaves FCM: `t`, or
    /// later when the device's burst is spent (GCRA: burst B, one token each `refillTicks`).
    @inline(__always)
    mutating func collapsibleRelease(_ d: Int, at t: Int64) -> Int64 {
        let tatNow = max(tat[d], t)
        let release = max(t, tatNow - burstMinusOneTicks)
        tat[d] = tatNow + refillTicks
        if release > t {
            tally.collapsibleThrottled += 1
            tally.collapsibleHeldTicks += release - t
        }
        return release
    }
}

extension PushWorldConfig {
    /// Bytes a device FCM's per-device limits keep for this plan (`PerDeviceStateBytes`; 0: none).
    package var deviceCapsBytesPerDevice: Int {
        let (rate, collapsible) = DeviceCapsState.kept(self)
        return (rate ? PerDeviceStateBytes.deviceRateCaps : 0) + (collapsible ? PerDeviceStateBytes.collapsibleBurst : 0)
    }
}

extension PushWorld {
    /// Collapsible message `w` (sent at its `sendTicks`, through FCM to Android device `d`, taking
    /// `latencyTicks` from FCM to the device) under the device's burst: it replaces the held message
    /// of its key, or, if the burst is spent, is held until its token refills, or leaves now.
    mutating func sendCollapsible(device d: Int, _ w: PushWord, latencyTicks: Int64, kernel: inout Kernel) throws {
        let t = w.sendTicks
        if deviceCaps.held[d] != 0 {
            let p = PushWord(deviceCaps.held[d])
            if deviceCaps.heldRelease(d) > t && deviceCaps.collapseKey[p.campaign] == deviceCaps.collapseKey[w.campaign] {
                // The held one is collapsed; this one takes its place (its wait counted from `t`,
                // the replaced one's cut to `t`: the held time added up is unchanged).
                deviceCaps.held[d] = w.raw
                deviceCaps.tally.collapsibleThrottled += 1
                deviceCaps.tally.collapsibleCollapsedWhileHeld += 1
                providers.tally.dataApi.collapsed += 1
                metrics.notePushInProvider(campaign: p.campaign, entering: false)
                metrics.countOutcome(.notDelivered, campaign: p.campaign)
                metrics.notePushInProvider(campaign: w.campaign, entering: true)
                return
            }
            try releaseHeld(d, kernel: &kernel)
        }
        let release = deviceCaps.collapsibleRelease(d, at: t)
        if release > t {
            deviceCaps.held[d] = w.raw
            providers.tally.dataApi.inFlight += 1
            metrics.notePushInProvider(campaign: w.campaign, entering: true)
            // Past the horizon it stays held (pending; not delivered at the end).
            if release < horizonTicks { try far.schedule(at: release, .collapsibleRelease(DeviceID(d)), kernel: &kernel) }
            return
        }
        try scheduleArrival(d, w, at: release + latencyTicks, dataApi: true, kernel: &kernel)
    }

    /// Device `d`'s held collapsible message leaves FCM at its release instant, now or scheduled
    /// (it can no longer be replaced), after its provider latency (drawn from its own stream, as
    /// when it was sent).
    mutating func releaseHeld(_ d: Int, kernel: inout Kernel) throws {
        var w = PushWord(deviceCaps.held[d])
        // Delivered, it is `delayedMessageThrottled` in the Data API (unless a later delay names it).
        w.flags |= PushWord.flagThrottled
        deviceCaps.held[d] = 0
        let c = w.campaign
        let rng = population.stream(entity: UInt64(d) | UInt64(c) << 32 | UInt64(w.part) << 40, purpose: PushWorld.purposeLatency)
        let latency = deliveryLatency[latencyByProvider[2 * c + ProviderState.fcm]].sample(rng, clampedTo: 0...SampledBounds.deliveryLatencySecondsMax)
        providers.tally.dataApi.inFlight -= 1
        metrics.notePushInProvider(campaign: c, entering: false)
        try scheduleArrival(d, w, at: deviceCaps.heldRelease(d) + SimDuration.seconds(latency).ticks, dataApi: true, kernel: &kernel)
    }

    /// The `collapsibleRelease` event: device `d`'s held message leaves now unless it already left
    /// (a later message found it past its release) -- then another may be held, leaving later.
    mutating func onCollapsibleRelease(_ d: Int, now: Int64, kernel: inout Kernel) throws {
        guard deviceCaps.held[d] != 0 && deviceCaps.heldRelease(d) == now else { return }
        try releaseHeld(d, kernel: &kernel)
    }

    /// FCM refused device `d`'s `parts` messages of campaign `c` at `t` for the device's rate
    /// (`attempts` refusals before): counted, and retried after the sender's exponential backoff
    /// with jitter (the campaign's jitter stream), or, past the horizon, not delivered.
    mutating func refuseForDeviceRate(device d: Int, campaign c: Int, parts: Int, attempts: Int, at t: Int64, kernel: inout Kernel) throws {
        deviceCaps.tally.deviceRateRejected += UInt64(parts)
        let retry = providers.retry
        var seconds = min(retry.maxBackoffSeconds, retry.initialBackoffSeconds * pow(retry.backoffMultiplier, Double(min(attempts, 64))))
        seconds *= 1 + retry.jitterShare * providers.jitter[c].uniform()
        let at = t + max(1, SimDuration.seconds(seconds).ticks)
        guard at < horizonTicks else {
            metrics.countTargeted(campaign: c, UInt64(parts))
            metrics.countOutcome(.notDelivered, campaign: c, UInt64(parts))
            return
        }
        let word = PushWord(campaign: c, part: min(attempts + 1, 255), flags: 0, sendTicks: t)
        try kernel.schedule(PushEvent.deviceRetry(DeviceID(d), word), at: SimTime(ticks: at))
    }

    /// The campaign service resends device `d`'s messages of the campaign of `w` (its part field:
    /// the refusals so far): accepted when the device's windows hold them now, else refused again.
    /// The resend does not take the project quota again (see the file's head).
    mutating func onDeviceRetry(_ d: Int, _ w: PushWord, kernel: inout Kernel) throws {
        let c = w.campaign
        let parts = rt[c].pushesPerDevice
        let now = kernel.now.ticks
        guard deviceCaps.takeRate(d, parts: parts, at: now) else {
            return try refuseForDeviceRate(device: d, campaign: c, parts: parts, attempts: w.part, at: now, kernel: &kernel)
        }
        deviceCaps.tally.deviceRateRetriedAccepted += UInt64(parts)
        let interval = SimDuration.seconds(config.campaigns[c].carouselIntervalSeconds ?? 0).ticks
        providers.tally.lastSendTicks = max(providers.tally.lastSendTicks, now + Int64(parts - 1) * interval)
        providers.tally.dataApi.accepted += UInt64(parts)
        try sendParts(device: d, campaign: c, parts: parts, from: now, every: interval,
                      latency: latencyByProvider[2 * c + ProviderState.fcm], dataApi: true, kernel: &kernel)
    }
}
