import SimKernel
import Stochastic

// Stale tokens (`providers.fcm.unregisteredShare`, `providers.apns.unregisteredShare`): a share of
// the audience whose registration token the provider no longer knows. The send is made (it takes
// the quota: FCM counts the request, APNs holds the stream), the provider answers 404 UNREGISTERED
// (FCM) or 410 Unregistered (APNs), and the push lands in `notDelivered`. Whether a device's token
// is stale is drawn from a stream keyed by (run seed, device, provider's purpose): no per-device
// memory (0 bytes), the same answer for every campaign and part.

extension ProviderState {
    static let purposeStale = [StreamPurpose("push.provider.fcm.unregistered").rawValue,
                               StreamPurpose("push.provider.apns.unregistered").rawValue]

    /// Whether device `d`'s token at provider `p` is stale (false without stale tokens).
    @inline(__always)
    func tokenIsStale(_ d: Int, provider p: Int, population: Population) -> Bool {
        guard hasStaleTokens else { return false }
        let share = unregisteredShare[p]
        if share <= 0 { return false }
        return population.stream(entity: UInt64(d), purpose: ProviderState.purposeStale[p]).bernoulli(share)
    }
}

extension PushWorld {
    /// Device `d`'s `parts` pushes of campaign `c` went to provider `p`, which answered each
    /// "unregistered": each is targeted, sent and not delivered, and counted at its provider.
    mutating func sendUnregistered(device d: Int, campaign c: Int, provider p: Int, parts: Int, from send: Int64, every interval: Int64) {
        for part in 0..<parts {
            metrics.countTargeted(campaign: c)
            metrics.series.pushesSent.add(atMicroseconds: send + Int64(part) * interval)
            metrics.countOutcome(.notDelivered, campaign: c)
        }
        if p == ProviderState.fcm { providers.tally.fcmUnregistered += UInt64(parts) } else { providers.tally.apnsUnregistered += UInt64(parts) }
    }
}
