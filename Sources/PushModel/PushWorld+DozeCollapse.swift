// FCM holds a normal-priority message for an Android device in Doze until the device may take it
// (Firebase, "Set the lifespan of a message": if the device is connected but in Doze, a low
// priority message is stored by FCM until the device is out of Doze), and there a collapsible one
// is replaced by a newer one with the same collapse key (the same page: "if there is already a
// message with the same collapse key (and registration token) stored and waiting for delivery, the
// old message is discarded and the new message takes its place"). The simulator's Doze deferral
// (`DeliveryRules.arrive`) is that hold: with `providers`, a collapsible FCM message Doze defers
// is tracked per device, and a newer deferred one of its key replaces it (`collapsed` in the Data
// API, `deferredThenExpired` in the outcomes, as an iOS held silent push a newer one replaced).
// One message a device is tracked: a deferred message of another key while one is held is not
// tracked and is delivered when Doze lets it (judgement, one word a device, as FCM's burst
// throttle in `PushWorld+DeviceCaps.swift`). A WorkManager job Doze defers is the app's, not
// FCM's: not tracked.
// State: one word a device (8 bytes), only with `providers` and a collapsible FCM campaign when a
// device's messages can be deferred (a normal-priority campaign, or a carousel whose silent parts
// can get high priority deprioritised); otherwise nothing and one flag test.

/// The tracked Doze holds of collapsible FCM messages.
struct DozeCollapseState {
    let enabled: Bool
    let collapsible: [Bool]
    let collapseKey: [UInt8]
    /// Per device: the collapsible message Doze holds now (`PushWord.raw`; 0: none).
    var held: [UInt64] = []

    init(_ config: PushWorldConfig) {
        collapsible = config.campaigns.map(\.collapsible)
        collapseKey = config.collapseKeyIndices
        enabled = config.dozeCollapseKept
        if enabled { held = [UInt64](repeating: 0, count: config.population.devices) }
    }
}

extension PushWorldConfig {
    /// Whether a run tracks Doze-held collapsible FCM messages (`DozeCollapseState`).
    package var dozeCollapseKept: Bool {
        providers != nil && campaigns.contains { $0.collapsible && $0.provider != .apns && $0.audienceShare > 0 }
            && campaigns.contains { $0.androidPriority == .normal || $0.pushesPerDevice > 1 }
    }
}

extension PushWorld {
    /// Doze defers FCM message `w` to Android device `d` until `at`: a collapsible one is tracked,
    /// replacing the held one of its key (counted now; that one is dropped at its start).
    mutating func dozeHold(_ d: Int, until at: Int64, _ w: PushWord) -> DeliveryDecision {
        let c = w.campaign
        guard dozeCollapse.collapsible[c] && w.flags & PushWord.flagJob == 0 else { return .deferUntil(ticks: at, w) }
        let prev = dozeCollapse.held[d]
        if prev != 0 {
            guard dozeCollapse.collapseKey[PushWord(prev).campaign] == dozeCollapse.collapseKey[c] else { return .deferUntil(ticks: at, w) }
            providers.tally.dataApi.held -= 1
            providers.tally.dataApi.collapsed += 1
        }
        var tracked = w
        tracked.flags |= PushWord.flagDozeTracked
        dozeCollapse.held[d] = tracked.raw
        return .deferUntil(ticks: at, tracked)
    }

    /// A tracked Doze hold ends: false when a newer message replaced it (its outcome counted here),
    /// else the hold is released and `w` loses the tracking flag.
    mutating func dozeRelease(_ d: Int, _ w: inout PushWord) -> Bool {
        guard dozeCollapse.held[d] == w.raw else {
            metrics.countOutcome(.deferredThenExpired, campaign: w.campaign)
            return false
        }
        dozeCollapse.held[d] = 0
        w.flags &= ~PushWord.flagDozeTracked
        return true
    }
}
