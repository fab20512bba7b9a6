import Foundation
import SimKernel
import Stochastic

// The push-provider layer (`providers` in a scenario): every campaign in flight sends through one
// FCM project's token bucket and APNs' connection pool. A send FCM refuses is a 429: the campaign
// pauses and retries the refused push after `Retry-After` or its backoff; a send APNs cannot take
// waits for a free stream. Off (no `providers`), `onSendBatch` sends as it always did.

/// The providers' run state: buckets, each campaign's retry state and the counts. Arrays sized once.
struct ProviderState {
    static let fcm = 0
    static let apns = 1

    let enabled: Bool
    /// FCM's project bucket, then APNs' pool.
    var buckets: [ProviderBucket] = []
    /// Per campaign: 0 FCM, 1 APNs, -1 by the device's platform.
    var route: [Int8] = []
    /// Per campaign: consecutive 429s (the backoff's exponent).
    var attempts: [Int32] = []
    /// Per campaign: its backoff-jitter stream (seed, campaign, purpose).
    var jitter: [RandomStream] = []
    let retry: ProviderRetryConfig
    var tally = ProviderTally()
    /// Per provider (FCM, APNs): its outage windows, ticks; `hasOutages` when any.
    var outages: [[Range<Int64>]] = [[], []]
    var hasOutages = false
    /// Per provider (FCM, APNs): the share of devices whose token is stale (`unregisteredShare`);
    /// `hasStaleTokens` when either is > 0 (`PushWorld+StaleTokens.swift`).
    var unregisteredShare: [Double] = [0, 0]
    var hasStaleTokens = false
    /// FCM topic fan-out (`PushWorld+FanOut.swift`) and APNs priority-5 bursts (`PushWorld+Priority5.swift`).
    var fanOut = FanOutPacer()
    var priority5 = Priority5Bursts()

    static let purposeBackoff = StreamPurpose("push.provider.backoff")

    init(_ config: ProvidersConfig?, campaigns: [CampaignConfig], runSeed: UInt64) {
        enabled = config != nil
        let p = config ?? ProvidersConfig()
        retry = p.retry
        guard enabled else { return }
        buckets = [ProviderBucket(ratePerMinute: p.fcm.projectQuotaPerMinute, capacityMessages: p.fcm.bucketMessages),
                   ProviderBucket(ratePerMinute: p.apns.throughputPerMinute, capacityMessages: p.apns.inFlightMessages)]
        route = campaigns.map { c in
            // A topic message reaches every audience device through FCM (iOS by FCM's relay to APNs).
            if c.sendAs == .topic { return Int8(ProviderState.fcm) }
            return switch c.provider {
            case .platform: -1
            case .fcm: Int8(ProviderState.fcm)
            case .apns: Int8(ProviderState.apns)
            }
        }
        attempts = [Int32](repeating: 0, count: campaigns.count)
        for o in p.outages { outages[o.provider == .fcm ? ProviderState.fcm : ProviderState.apns].append(o.windowTicks) }
        hasOutages = !p.outages.isEmpty
        unregisteredShare = [p.fcm.unregisteredShare, p.apns.unregisteredShare]
        hasStaleTokens = unregisteredShare.contains { $0 > 0 }
        fanOut = FanOutPacer(p.fcm, campaigns: campaigns)
        priority5 = Priority5Bursts(p.apns, campaigns: campaigns)
        jitter = campaigns.indices.map { RandomStream(masterSeed: runSeed, entity: UInt64($0), purpose: ProviderState.purposeBackoff) }
    }

    /// How long campaign `c` waits after a send `provider` refused (`messages` of them, at the
    /// bucket's last read), counting it: FCM answers 429 (retry after `Retry-After` or the
    /// backoff), APNs has no free stream (wait until one frees).
    mutating func refusal(_ provider: Int, campaign c: Int, messages: Int64) -> Int64 {
        let untilTokens = max(1, buckets[provider].ticksUntil(messages))
        if provider == ProviderState.apns {
            tally.apnsStreamWaits += UInt64(messages)
            return untilTokens
        }
        tally.fcmRejected429 += UInt64(messages)
        if retry.honourRetryAfter {
            // Retry-After is whole seconds (RFC 9110), at least 1.
            return max(1, (untilTokens + 999_999) / 1_000_000) * 1_000_000
        }
        return backoff(campaign: c)
    }

    /// Whether `provider` is down at `now` (a scheduled outage).
    func isDown(_ provider: Int, at now: Int64) -> Bool {
        hasOutages && outages[provider].contains { $0.contains(now) }
    }

    /// How long campaign `c` waits after `provider`, down, refused `messages` with a 5xx: its
    /// backoff (no `Retry-After` for a server error), counted.
    mutating func outageRefusal(_ provider: Int, campaign c: Int, messages: Int64) -> Int64 {
        if provider == ProviderState.fcm { tally.fcmOutageRefused += UInt64(messages) } else { tally.apnsOutageRefused += UInt64(messages) }
        return backoff(campaign: c)
    }

    /// Campaign `c`'s next exponential backoff with jitter (`providers.retry`), counting the attempt.
    mutating func backoff(campaign c: Int) -> Int64 {
        let a = Double(attempts[c])
        attempts[c] += 1
        var seconds = min(retry.maxBackoffSeconds, retry.initialBackoffSeconds * pow(retry.backoffMultiplier, min(a, 64)))
        seconds *= 1 + retry.jitterShare * jitter[c].uniform()
        return max(1, SimDuration.seconds(seconds).ticks)
    }
}

/// What the providers counted (emitted as `provider.*` metrics when `providers` is set).
struct ProviderTally: Sendable, Equatable {
    var fcmMessages: UInt64 = 0
    var fcmRejected429: UInt64 = 0
    var apnsMessages: UInt64 = 0
    var apnsStreamWaits: UInt64 = 0
    /// Messages refused with a 5xx because their provider was down (a scheduled outage).
    var fcmOutageRefused: UInt64 = 0
    var apnsOutageRefused: UInt64 = 0
    /// Messages accepted by the quota and answered 404 UNREGISTERED (FCM) / 410 Unregistered (APNs):
    /// the device's token was stale.
    var fcmUnregistered: UInt64 = 0
    var apnsUnregistered: UInt64 = 0
    /// The FCM Data API's categories (`PushWorld+DataApi.swift`).
    var dataApi = DataApiTally()
    /// FCM's topic fan-out and APNs' priority-5 bursts.
    var fanOut = FanOutTally()
    var priority5 = Priority5Tally()
    /// The last accepted send (its last carousel part), ticks; -1 before any.
    var lastSendTicks: Int64 = -1
}

extension PushWorld {
    /// The provider device `d`'s pushes go through: the campaign's `route`, or by the device's
    /// platform when -1.
    @inline(__always)
    func provider(device d: Int, route: Int) -> Int {
        route >= 0 ? route : (population.isIOS(DeviceID(d)) ? ProviderState.apns : ProviderState.fcm)
    }

    /// Takes device `d`'s `parts` pushes of campaign `c` (every carousel part, charged at the
    /// first part's instant `send`) from provider `p`'s bucket and counts them: nil when taken,
    /// else the instant to retry at.
    @inline(__always)
    mutating func takeFromProvider(device d: Int, campaign c: Int, provider p: Int, parts: Int, at send: Int64, every interval: Int64) -> Int64? {
        if providers.hasOutages && providers.isDown(p, at: send) {
            return send + providers.outageRefusal(p, campaign: c, messages: Int64(parts))
        }
        guard providers.buckets[p].take(Int64(parts), at: send) else {
            return send + providers.refusal(p, campaign: c, messages: Int64(parts))
        }
        providers.attempts[c] = 0
        if p == ProviderState.fcm { providers.tally.fcmMessages += UInt64(parts) } else { providers.tally.apnsMessages += UInt64(parts) }
        if parts > 0 {
            // The last part is the latest (parts are `interval` ≥ 0 apart).
            providers.tally.lastSendTicks = max(providers.tally.lastSendTicks, send + Int64(parts - 1) * interval)
        }
        return nil
    }
}
