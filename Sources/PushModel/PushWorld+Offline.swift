import SimKernel
import Stochastic

// Devices offline for a window (`providers.offline`) and FCM's inactive devices
// (`providers.fcm.inactiveShare`). A push the provider would hand to a device inside the device's
// offline window (its arrival instant) is stored by the provider and handed over when the device
// reconnects (the window's end), under the storage rules of the device's platform:
// - Android (FCM): at most 100 pending non-collapsible messages per offline device; when a 101st
//   arrives FCM drops all of them (`droppedTooManyPendingMessages`; Firebase Data API reference:
//   "each app instance can only have 100 pending messages stored on our servers for a device which
//   is disconnected", beyond that the app gets `onDeletedMessages()`). A collapsible campaign's
//   messages (`campaigns[].collapsible`) carry its collapse key (`collapseKey`, else the app's
//   default one): a newer one of the same key replaces the stored one (`collapsed`), and at most
//   four keys are stored (`PushWorld+CollapseKeys.swift`).
// - iOS (APNs): one notification per app per device; a newer one replaces the stored one
//   (`coalesced`; Apple, "Sending notification requests to APNs": "APNs stores only one
//   notification per bundle ID").
// A stored message past its TTL (`messageTtlSeconds`) at the reconnect is expired, not delivered.
// Stored messages are handed over at the reconnect instant in the order they were stored (each is
// scheduled in the kernel itself, FIFO for simultaneous events), so the per-device state is four
// counters (`OfflineSlot`, 8 bytes), allocated only when `providers.offline` is set: which stored
// message was replaced or dropped follows from how many were stored and how many were handed over.
// A device gets at most `campaignsMax` × 16 carousel parts (1 024) in a run, so the counters never
// wrap.
// A message stored for a device reconnecting at or after the horizon is counted `notDelivered`
// when stored (it stays pending in the Data API unless replaced or dropped later).

/// One device's offline store: messages stored this window and handed over so far, per rule.
struct OfflineSlot {
    /// FCM non-collapsible messages stored (including those dropped by the 100 limit).
    var kept: UInt16 = 0
    var keptHandedOver: UInt16 = 0
    /// Messages stored under a keep-the-newest rule (APNs; FCM collapsible).
    var newest: UInt16 = 0
    var newestHandedOver: UInt16 = 0
}

/// What the offline stores counted (emitted as `provider.offline.*`, `provider.apns.offline.*`).
struct OfflineTally: Sendable, Equatable {
    /// Pushes stored for an offline device (Android, iOS).
    var androidStored: UInt64 = 0
    var iosStored: UInt64 = 0
    /// iOS: stored notifications a newer one replaced (APNs coalescing).
    var iosCoalesced: UInt64 = 0
    /// iOS: stored notifications handed over at the reconnect.
    var iosDeliveredAfterReconnect: UInt64 = 0
    /// Stored messages past their TTL at the reconnect (Android, iOS).
    var expiredInStore: UInt64 = 0
    /// Android: stored collapsible messages dropped because a fifth collapse key arrived
    /// (`PushWorld+CollapseKeys.swift`; counted only with more than one key).
    var collapseKeyLimitDropped: UInt64 = 0
}

/// The offline windows' run state; off (`enabled` false) without `providers.offline` and with no
/// inactive share.
struct OfflineState {
    let enabled: Bool
    /// Offline windows are drawn (`providers.offline` set).
    let windows: Bool
    let share: Double
    let startTicks: Int64
    let spreadSeconds: Double
    let duration: Sampler?
    let inactiveShare: Double
    /// Per campaign: its FCM messages are collapsible; its TTL, ticks.
    let collapsible: [Bool]
    let ttlTicks: [Int64]
    /// Per campaign: its collapse key's index (`PushWorldConfig.collapseKeyIndices`).
    let collapseKey: [UInt8]
    /// More than one collapse key: FCM collapsible messages are stored by key (`keySlots`).
    let keyed: Bool
    /// Per device (only with windows).
    var slots: [OfflineSlot] = []
    /// Per device, with windows and `keyed`: its stored collapsible messages by key.
    var keySlots: [CollapseSlots] = []
    var tally = OfflineTally()

    /// FCM's most pending non-collapsible messages per offline device.
    static let fcmPendingMax: UInt16 = 100
    static let purposeWindow = StreamPurpose("push.provider.offline.window").rawValue
    static let purposeInactive = StreamPurpose("push.provider.fcm.inactive").rawValue

    init(_ config: PushWorldConfig) throws {
        let offline = config.providers?.offline
        inactiveShare = config.providers?.fcm.inactiveShare ?? 0
        windows = offline != nil
        enabled = windows || inactiveShare > 0
        share = offline?.deviceShare ?? 0
        startTicks = SimDuration.seconds(offline?.startSeconds ?? 0).ticks
        spreadSeconds = offline?.startSpreadSeconds ?? 0
        duration = try offline.map { try Population.sampler($0.durationSeconds, "providers.offline.durationSeconds") }
        collapsible = config.campaigns.map(\.collapsible)
        ttlTicks = config.campaigns.map { SimDuration.seconds($0.messageTtlSeconds).ticks }
        collapseKey = config.collapseKeyIndices
        keyed = config.collapseKeySlotsKept
        if windows { slots = [OfflineSlot](repeating: OfflineSlot(), count: config.population.devices) }
        if keyed { keySlots = [CollapseSlots](repeating: CollapseSlots(), count: config.population.devices) }
    }

    /// Device `d`'s offline window, ticks, [start, reconnect); nil when it stays online.
    @inline(__always)
    func window(_ d: Int, population: Population) -> Range<Int64>? {
        guard windows, share > 0, let duration else { return nil }
        let rng = population.stream(entity: UInt64(d), purpose: OfflineState.purposeWindow)
        guard rng.bernoulli(share) else { return nil }
        let start = startTicks + SimDuration.seconds(spreadSeconds * rng.uniform()).ticks
        let seconds = duration.sample(rng, clampedTo: 0...ProviderOfflineConfig.durationSecondsMax)
        return start..<(start + max(1, SimDuration.seconds(seconds).ticks))
    }

    /// Whether FCM deems Android device `d` inactive.
    @inline(__always)
    func isInactive(_ d: Int, population: Population) -> Bool {
        inactiveShare > 0 && population.stream(entity: UInt64(d), purpose: OfflineState.purposeInactive).bernoulli(inactiveShare)
    }
}

extension PushWorld {
    /// Push `w` reaches device `device`'s provider edge: false when the provider keeps it (an
    /// inactive device's drop, an offline device's store, a replaced or dropped stored message),
    /// true when it goes on to the device's OS (`reconnected`: handed over at a reconnect; the
    /// store's flag is cleared from `w`).
    @inline(__always)
    mutating func offlineArrival(_ device: DeviceID, _ w: inout PushWord, reconnected: inout Bool, kernel: inout Kernel) throws -> Bool {
        let d = device.index
        let c = w.campaign
        let ios = population.isIOS(device)
        let dataApi = !ios && providers.androidViaFcm(campaign: c)
        if w.flags & PushWord.flagStored != 0 {
            w.flags &= ~PushWord.flagStored
            reconnected = true
            return handOver(d, w, ios: ios, dataApi: dataApi, now: kernel.now.ticks)
        }
        if dataApi && offline.inactiveShare > 0 && offline.isInactive(d, population: population) {
            providers.tally.dataApi.inFlight -= 1
            providers.tally.dataApi.droppedDeviceInactive += 1
            metrics.countOutcome(.notDelivered, campaign: c)
            return false
        }
        let now = kernel.now.ticks
        guard let window = offline.window(d, population: population), window.contains(now) else { return true }
        store(d, w, ios: ios, dataApi: dataApi)
        if window.upperBound >= horizonTicks {
            metrics.countOutcome(.notDelivered, campaign: c)
            return false
        }
        var stored = w
        stored.flags |= PushWord.flagStored
        metrics.notePushInProvider(campaign: c, entering: true)
        // In the kernel itself (not a far bucket), so a device's stored messages come back in order.
        try kernel.schedule(PushEvent.pushArrive(device, stored), at: SimTime(ticks: window.upperBound))
        return false
    }

    /// Stores push `w` for offline device `d` under its platform's rule, counting replacements
    /// and drops as they happen.
    @inline(__always)
    mutating func store(_ d: Int, _ w: PushWord, ios: Bool, dataApi: Bool) {
        if dataApi {
            providers.tally.dataApi.inFlight -= 1
            providers.tally.dataApi.storedOffline += 1
        }
        if ios { offline.tally.iosStored += 1 } else { offline.tally.androidStored += 1 }
        // An Android push a campaign routes through APNs (`provider: apns`) is kept as it is, with
        // no storage limit (judgement: no provider stores Android pushes under APNs' rules).
        if !ios && !dataApi { return }
        if !ios && offline.keyed && offline.collapsible[w.campaign] { return storeKeyed(d, w, dataApi: dataApi) }
        if ios || offline.collapsible[w.campaign] {
            if offline.slots[d].newest > 0 {
                // The stored one is replaced by this newer one.
                if ios { offline.tally.iosCoalesced += 1 }
                if dataApi {
                    providers.tally.dataApi.storedOffline -= 1
                    providers.tally.dataApi.collapsed += 1
                }
            }
            offline.slots[d].newest &+= 1
            return
        }
        offline.slots[d].kept &+= 1
        if offline.slots[d].kept % (OfflineState.fcmPendingMax + 1) == 0 {
            // A 101st pending message: FCM drops every stored one, this one included.
            let n = UInt64(OfflineState.fcmPendingMax) + 1
            if dataApi {
                providers.tally.dataApi.storedOffline -= n
                providers.tally.dataApi.droppedTooManyPendingMessages += n
            }
        }
    }

    /// Stored push `w` comes back at device `d`'s reconnect: true when it is handed to the OS.
    @inline(__always)
    mutating func handOver(_ d: Int, _ w: PushWord, ios: Bool, dataApi: Bool, now: Int64) -> Bool {
        let c = w.campaign
        if !ios && !dataApi {
            // Kept as it is (see `store`).
        } else if !ios && offline.keyed && offline.collapsible[c] {
            // Replaced or dropped by the key limit: counted when it happened.
            if !handOverKeyed(d, w) {
                metrics.countOutcome(.notDelivered, campaign: c)
                return false
            }
        } else if ios || offline.collapsible[c] {
            offline.slots[d].newestHandedOver &+= 1
            // All but the last stored were replaced (counted when it happened).
            if offline.slots[d].newestHandedOver < offline.slots[d].newest {
                metrics.countOutcome(.notDelivered, campaign: c)
                return false
            }
        } else {
            offline.slots[d].keptHandedOver &+= 1
            let kept = offline.slots[d].kept
            let dropped = kept - kept % (OfflineState.fcmPendingMax + 1)
            if offline.slots[d].keptHandedOver <= dropped {
                metrics.countOutcome(.notDelivered, campaign: c)
                return false
            }
        }
        if dataApi { providers.tally.dataApi.storedOffline -= 1 }
        if now - w.sendTicks > offline.ttlTicks[c] {
            offline.tally.expiredInStore += 1
            if dataApi { providers.tally.dataApi.ttlExpired += 1 }
            metrics.countOutcome(.notDelivered, campaign: c)
            return false
        }
        if dataApi { providers.tally.dataApi.inFlight += 1 }
        if ios { offline.tally.iosDeliveredAfterReconnect += 1 }
        return true
    }
}
