// The FCM Data API's view of a run (`provider.fcm.dataApi.*`, with `providers`): every message
// FCM accepted for an Android device lands in exactly one of its message outcomes -- delivered
// (without delay, delayed by Doze, delayed by the device being offline, or delayed by FCM's
// collapsible burst, `PushWorld+DeviceCaps.swift`), pending (not delivered
// by the horizon), expired (held past its TTL), or, with offline windows and inactive devices
// (`PushWorld+Offline.swift`), collapsed or dropped -- so a team can hold the simulation against
// its FCM dashboard. The Data API reports Android app instances only; iOS pushes FCM relays to
// APNs are not in it.

/// What the Data API counts. `accepted` = `deliveredNoDelay` + `delayedDeviceDoze` +
/// `delayedDeviceOffline` + `delayedMessageThrottled` + `ttlExpired` + `collapsed` + `droppedTooManyPendingMessages` +
/// `droppedDeviceInactive` + `pending`, replication by replication (the offline categories,
/// `PushWorld+Offline.swift`, stay 0 without `providers.offline` and `providers.fcm.inactiveShare`).
struct DataApiTally: Sendable, Equatable {
    /// Messages FCM accepted for an Android device (stale tokens, answered 404, are not accepted).
    var accepted: UInt64 = 0
    /// Reached the device's message handler on arrival.
    var deliveredNoDelay: UInt64 = 0
    /// Deferred by Doze, then reached the handler.
    var delayedDeviceDoze: UInt64 = 0
    /// Deferred by Doze past the message TTL.
    var ttlExpired: UInt64 = 0
    /// Deferred past the horizon, or arriving after it.
    var pendingAtHorizon: UInt64 = 0
    /// On the way to the device, or held by Doze, now.
    var inFlight: UInt64 = 0
    var held: UInt64 = 0
    /// Stored by FCM for an offline device, then reached the handler after the device reconnected.
    var delayedDeviceOffline: UInt64 = 0
    /// Stored for an offline device and replaced by a newer message of the same collapse key.
    var collapsed: UInt64 = 0
    /// Stored for an offline device and dropped with the others when a 101st was pending.
    var droppedTooManyPendingMessages: UInt64 = 0
    /// For a device FCM deems inactive, and dropped.
    var droppedDeviceInactive: UInt64 = 0
    /// Stored for an offline device now.
    var storedOffline: UInt64 = 0
    /// Held by FCM for the device's collapsible burst, then reached the handler on arrival.
    var delayedMessageThrottled: UInt64 = 0

    var delivered: UInt64 { deliveredNoDelay + delayedDeviceDoze + delayedDeviceOffline + delayedMessageThrottled }
    /// Not delivered and not dropped by the end of the run.
    var pending: UInt64 { pendingAtHorizon + inFlight + held + storedOffline }
}

extension ProviderState {
    /// Whether device `d`'s pushes through provider `p` (campaign route `route`) are in the Data API.
    @inline(__always)
    func inDataApi(device d: Int, route: Int, provider p: Int, population: Population) -> Bool {
        p == ProviderState.fcm && (route < 0 || !population.isIOS(DeviceID(d)))
    }

    /// Whether campaign `c`'s pushes to an Android device go through FCM (`providers` on).
    @inline(__always)
    func androidViaFcm(campaign c: Int) -> Bool { enabled && Int(route[c]) != ProviderState.apns }

    /// An Android push through FCM reached the device's OS, which decided `decision`
    /// (`reconnected`: FCM stored it while the device was offline; `throttled`: FCM held it for the
    /// device's collapsible burst). The last delay names a delivered one: Doze (counted when the
    /// deferral ends), then the offline store, then the throttle.
    mutating func noteDataApiArrival(_ decision: DeliveryDecision, reconnected: Bool = false, throttled: Bool = false) {
        tally.dataApi.inFlight -= 1
        switch decision {
        case .runMessageHandler, .handleNow:
            if reconnected {
                tally.dataApi.delayedDeviceOffline += 1
            } else if throttled {
                tally.dataApi.delayedMessageThrottled += 1
            } else {
                tally.dataApi.deliveredNoDelay += 1
            }
        case .deferUntil, .holdUntil: tally.dataApi.held += 1
        case .drop(.expired): tally.dataApi.ttlExpired += 1
        case .drop(.pastHorizon), .drop(.notDelivered): tally.dataApi.pendingAtHorizon += 1
        }
    }

    /// An Android push through FCM that Doze deferred reached its message handler.
    mutating func noteDataApiDozeEnded() {
        tally.dataApi.held -= 1
        tally.dataApi.delayedDeviceDoze += 1
    }
}
