import Foundation
import InfraModel
import Stochastic

/// The push providers every campaign in flight sends through (`providers` in a scenario): one FCM
/// project whose quota is a token bucket shared by all campaigns, APNs with its own throughput,
/// and the campaign service's retry rule on a 429. Absent (nil in `PushWorldConfig`), each
/// campaign is paced by its own `sendRatePerMinute` and `providerQuotaPerMinute` alone, as before.
package struct ProvidersConfig: Sendable, Equatable {
    package var fcm = FCMProviderConfig()
    package var apns = APNsProviderConfig()
    package var retry = ProviderRetryConfig()
    /// Scheduled outages of a provider (at most `ProviderOutageConfig.outagesMax`); empty: none.
    package var outages: [ProviderOutageConfig] = []
    /// Devices offline for a window (`OfflineConfig.swift`); nil (default): none.
    package var offline: ProviderOfflineConfig?

    package init() {}
}

/// A provider down for a window of virtual time: every send to it in the window is answered with
/// a server error (FCM 503 UNAVAILABLE, APNs 503 ServiceUnavailable), and the campaign service
/// retries the refused push after its exponential backoff with jitter (`providers.retry`; a 5xx
/// carries no quota `Retry-After`). Firebase's error-code reference asks senders to retry 503s with
/// exponential backoff.
package struct ProviderOutageConfig: Sendable, Equatable {
    package enum Provider: String, Sendable, CaseIterable { case fcm, apns }
    package var provider: Provider = .fcm
    /// When the outage starts, seconds of virtual time.
    package var startSeconds: Double = 0
    /// How long it lasts (> 0).
    package var durationSeconds: Double = 60

    package static let outagesMax = 64

    package init(provider: Provider = .fcm, startSeconds: Double = 0, durationSeconds: Double = 60) {
        self.provider = provider
        self.startSeconds = startSeconds
        self.durationSeconds = durationSeconds
    }

    /// The window in ticks, [start, end), as an infrastructure fault's.
    var windowTicks: Range<Int64> { InfraFault.windowTicks(startSeconds: startSeconds, durationSeconds: durationSeconds) }
}

/// One FCM project (HTTP v1 API).
package struct FCMProviderConfig: Sendable, Equatable {
    /// The project's downstream quota, messages per minute, shared by every campaign in flight.
    /// Default 600 000: the HTTP v1 default per project (Firebase, "Throttling and quotas").
    package var projectQuotaPerMinute: Int64 = 600_000
    /// The token bucket's capacity, in seconds of the quota (the bucket holds
    /// `projectQuotaPerMinute × bucketSeconds / 60` messages, at least 16, a carousel's most parts;
    /// it refills continuously, since FCM's minutes are not aligned to the clock). Default 1:
    /// judgement -- FCM publishes the per-minute quota but no burst size; one second is the strict
    /// reading (a sender at the quota never meets a 429, one above it meets one within a second);
    /// 60 lets a whole minute's quota go at once.
    package var bucketSeconds: Double = 1
    /// Share of the devices whose FCM registration token is stale or expired: FCM answers the send
    /// 404 UNREGISTERED (the request still counts toward the quota), and the push is not delivered.
    /// Drawn per (seed, device, purpose), so a device's token is stale for every campaign alike.
    /// Default 0: judgement ("off unless measured"; a team reads it off its own send log, and
    /// published figures vary with token hygiene).
    package var unregisteredShare: Double = 0
    /// Share of the Android devices FCM deems inactive (not connected for over 28 days, token not
    /// yet expired): FCM accepts their messages and drops them (`droppedDeviceInactive`). Drawn per
    /// (seed, device, purpose). Default 0: judgement ("off unless measured").
    package var inactiveShare: Double = 0
    /// Delivery latency, seconds, from FCM's acceptance to the device, for pushes through FCM of a
    /// campaign that leaves its own `deliveryLatencySeconds` at the default. nil (default): the
    /// campaign's latency (`ProviderLatency.swift`).
    package var deliveryLatencySeconds: Distribution?
    /// FCM's fan-out of topic messages (`sendAs: topic`), messages a second, shared by every topic
    /// send in flight (`PushWorld+FanOut.swift`). Default 10 000: the rate Firebase's "Throttling
    /// and quotas" (fan-out throttling) calls not uncommon for one project (not guaranteed).
    package var fanOutPerSecond: Int64 = 10_000
    /// Per Android device: messages a minute FCM accepts (`PushWorld+DeviceCaps.swift`); over it a
    /// non-collapsible message is refused with a 429 for that device and the sender retries it after
    /// its backoff. Default 240: Firebase "Throttling and quotas" (maximum message rate to a single
    /// device: 240 messages a minute and 5 000 an hour on Android).
    package var deviceMessagesPerMinuteMax: Int64 = 240
    /// Per Android device: messages an hour FCM accepts, as `deviceMessagesPerMinuteMax`. Default
    /// 5 000: the same source.
    package var deviceMessagesPerHourMax: Int64 = 5_000
    /// Per Android device: collapsible messages FCM sends at once before it throttles (holds) them.
    /// Default 20: Firebase "Throttling and quotas" (collapsible messages: a burst of 20 messages
    /// per app per device, refilled 1 message every 3 minutes).
    package var collapsibleBurstMessages: Int64 = 20
    /// Seconds per collapsible message refilled into a device's burst. Default 180: the same source.
    package var collapsibleRefillSeconds: Double = 180

    package init() {}

    /// The bucket's capacity, messages.
    package var bucketMessages: Int64 {
        max(16, Int64((Double(projectQuotaPerMinute) * bucketSeconds / 60).rounded(.down)))
    }
}

/// APNs as the campaign service's HTTP/2 connection pool reaches it: throughput
/// `connections × streamsPerConnection / requestSeconds` notifications a second. APNs answers no
/// 429 for a provider's aggregate rate: a send waits for a free stream instead.
package struct APNsProviderConfig: Sendable, Equatable {
    /// HTTP/2 connections the campaign service keeps open to APNs. Default 10: judgement (Apple's
    /// "Sending notification requests to APNs" advises several connections for large volumes and
    /// states no number).
    package var connections: Int = 10
    /// Concurrent streams per connection. Default 1 000: the `SETTINGS_MAX_CONCURRENT_STREAMS`
    /// APNs is widely reported to advertise once a connection is established (judgement: Apple
    /// does not publish it; a client must read the server's setting).
    package var streamsPerConnection: Int = 1_000
    /// How long a stream is held per notification (request to response), seconds. Default 0.1:
    /// judgement (a round trip to APNs' servers).
    package var requestSeconds: Double = 0.1
    /// Share of the devices whose APNs device token is no longer valid: APNs answers 410
    /// Unregistered and the push is not delivered (the stream is still used). Default 0:
    /// judgement, as `FCMProviderConfig.unregisteredShare`.
    package var unregisteredShare: Double = 0
    /// Delivery latency, seconds, for pushes through APNs, as `FCMProviderConfig.deliveryLatencySeconds`.
    package var deliveryLatencySeconds: Distribution?
    /// Seconds between the burst instants at which an iOS device takes its priority-5 pushes
    /// (`apnsPriority: 5`; `PushWorld+Priority5.swift`). Default 900: judgement -- Apple says
    /// priority-5 notifications may be grouped and delivered in bursts and publishes no interval.
    package var priority5BurstIntervalSeconds: Double = 900

    package init() {}

    /// Notifications a minute the pool carries.
    package var throughputPerMinute: Int64 {
        max(1, Int64((Double(connections * streamsPerConnection) / requestSeconds * 60).rounded(.down)))
    }

    /// Notifications in flight at once (the bucket's capacity), at least 16.
    package var inFlightMessages: Int64 { max(16, Int64(connections * streamsPerConnection)) }
}

/// What the campaign service does with a 429 from FCM: it pauses its send and retries the refused
/// push (one push: it lands in one outcome whatever the attempts) after the `Retry-After` the
/// provider returned, or else after an exponential backoff with jitter.
package struct ProviderRetryConfig: Sendable, Equatable {
    /// Wait the `Retry-After` FCM returns (the whole seconds until the bucket holds the refused
    /// messages again, at least 1). Default true: Firebase's error-code reference asks senders to
    /// honour `Retry-After`. False: the backoff below alone.
    package var honourRetryAfter: Bool = true
    /// The first backoff, seconds. Default 60: Firebase's `QUOTA_EXCEEDED` guidance ("exponential
    /// backoff with a minimum initial delay of 1 minute").
    package var initialBackoffSeconds: Double = 60
    /// Each further consecutive 429 multiplies the backoff by this. Default 2 (exponential backoff
    /// as Firebase's guidance describes it).
    package var backoffMultiplier: Double = 2
    /// The longest backoff, seconds. Default 600: judgement.
    package var maxBackoffSeconds: Double = 600
    /// The backoff is stretched by `1 + jitterShare × u`, u uniform in [0, 1) drawn per
    /// (seed, campaign, purpose), so campaigns do not retry in step and the initial delay stays a
    /// minimum. Default 0.2: judgement (Firebase advises jitter without a figure).
    package var jitterShare: Double = 0.2

    package init() {}
}

/// Which provider a campaign's pushes go through.
package enum CampaignProviderConfig: String, Sendable, CaseIterable {
    /// The device's platform: Android through FCM, iOS through APNs.
    case platform
    /// Every push through FCM (FCM relays iOS pushes to APNs, under the FCM project's quota).
    case fcm
    /// Every push through APNs.
    case apns
}
