import SimKernel
import Stochastic

// APNs priority 5 (`apnsPriority: 5`, with `providers`): Apple's "Sending notification requests to
// APNs" says priority-5 notifications may be grouped and delivered in bursts, taking the device's
// power into account. Model: an iOS device takes its priority-5 pushes only at its burst instants,
// phase + m · `providers.apns.priority5BurstIntervalSeconds` (m ≥ 0), the phase uniform in
// [0, interval) drawn per (run seed, device, purpose) -- no per-device memory (0 bytes). A push
// arriving between two bursts waits for the next one (a delay < the interval); priority 10 and
// Android pushes are unchanged.
//
// With a silent (content-available) campaign the delay is counted once: the burst wait replaces,
// not adds to, iOS's hold of a low-priority silent push (`platforms.ios.silentHoldProbability`,
// `DeliveryRules.arrive`). Apple sends background notifications at priority 5 and "treats
// background notifications as low priority" ("Pushing background updates to your App"), so both
// model the same deferral; the silent-push budget (`silentBudgetPerHour`) still applies at the
// burst instant. Without `apnsPriority: 5` the hold is the model of that deferral, as before.

/// What the bursts counted (`provider.apns.priority5*`).
struct Priority5Tally: Sendable, Equatable {
    /// Priority-5 pushes to iOS devices sent (including those whose burst falls after the horizon).
    var pushes: UInt64 = 0
    /// Those that arrived between two bursts and waited for the next one.
    var delayed: UInt64 = 0
    /// Their waits added up, ticks.
    var delayTicks: UInt64 = 0
}

/// Which campaigns send at priority 5, and the burst interval.
struct Priority5Bursts: Sendable {
    /// Whether any campaign sends at priority 5.
    var any = false
    /// Per campaign: sent at priority 5.
    var isPriority5: [Bool] = []
    /// The interval between a device's bursts, ticks (≥ 1).
    var intervalTicks: Int64 = 1

    static let purposePhase = StreamPurpose("push.provider.apns.priority5Burst").rawValue

    init() {}

    init(_ apns: APNsProviderConfig, campaigns: [CampaignConfig]) {
        isPriority5 = campaigns.map { $0.apnsPriority == 5 }
        any = isPriority5.contains(true)
        intervalTicks = max(1, SimDuration.seconds(apns.priority5BurstIntervalSeconds).ticks)
    }

    /// The first of the device's burst instants at or after `arrive` (phase + m · interval).
    @inline(__always)
    func burst(after arrive: Int64, phase: Int64) -> Int64 {
        guard arrive > phase else { return phase }
        return phase + (arrive - phase + intervalTicks - 1) / intervalTicks * intervalTicks
    }
}

extension PushWorld {
    /// Whether device `d`'s pushes of campaign `c` wait for its priority-5 bursts.
    @inline(__always)
    func waitsForBurst(device d: Int, campaign c: Int) -> Bool {
        providers.priority5.any && providers.priority5.isPriority5[c] && population.isIOS(DeviceID(d))
    }

    /// When iOS device `d` takes a priority-5 push reaching APNs' side at `arrive`: its next burst
    /// instant, counted.
    mutating func priority5Arrival(device d: Int, arrive: Int64) -> Int64 {
        let bursts = providers.priority5
        let u = population.stream(entity: UInt64(d), purpose: Priority5Bursts.purposePhase).uniform()
        let phase = min(bursts.intervalTicks - 1, Int64(u * Double(bursts.intervalTicks)))
        let at = bursts.burst(after: arrive, phase: phase)
        providers.tally.priority5.pushes += 1
        if at > arrive {
            providers.tally.priority5.delayed += 1
            providers.tally.priority5.delayTicks += UInt64(at - arrive)
        }
        return at
    }
}
