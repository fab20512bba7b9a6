import Foundation
import Stochastic

/// Declared asset types (the manifest's `type` tokens).
package enum AssetTypeConfig: String, Sendable, CaseIterable {
    case image, video, audio, hls, json
}

/// Manifest priorities.
package enum AssetPriorityConfig: String, Sendable, CaseIterable {
    case critical, high, normal, low
}

/// A smaller rendition of an asset for one network class (manifest `variants`).
package struct AssetVariantConfig: Sendable, Equatable {
    /// PreloadKit network key: `wifi`, `5g`, `4g`, `3g`, `2g`, `slow-2g`.
    package var network: String
    package var bytes: Int64

    package init(network: String, bytes: Int64) {
        self.network = network
        self.bytes = bytes
    }

    /// The PreloadKit network keys a rendition may name: those of the network classes devices are
    /// on (`CampaignPayload.variantNetworkKeys`).
    package static let networkKeys = CampaignPayload.variantNetworkKeys
}

/// One asset of a campaign.
package struct AssetConfig: Sendable, Equatable {
    /// Path segment of the asset URL (`[A-Za-z0-9._-]`, 1–64 bytes).
    package var name: String
    package var type: AssetTypeConfig
    package var priority: AssetPriorityConfig
    package var bytes: Int64
    /// Per-network renditions (at most one per network key).
    package var variants: [AssetVariantConfig]
    /// The earlier campaign whose same-named asset this is (nil: this campaign's own): the URL
    /// path is that campaign's, so both pushes name one URL, one CDN object and one store entry
    /// (a follow-up push linking the same article). The asset must match the earlier one (type,
    /// bytes, variants); its CDN object keeps the earlier campaign's cache policy and purges.
    package var urlCampaign: String? = nil
    /// An `hls` asset as a playlist of variants: each variant's `BANDWIDTH` in kbit/s, in master
    /// playlist order. Empty (the default): the asset is one object, the playlist alone.
    package var variantsKbps: [Int] = []
    /// Each segment's duration (`#EXTINF`), seconds. Default 6: Apple's HLS Authoring
    /// Specification's recommended target duration.
    package var segmentSeconds: Double = 6
    /// Segments in each variant's media playlist. Default 10 (judgement: a one-minute trailer at
    /// 6-s segments).
    package var segmentCount: Int = 10
    /// With `variantsKbps`: the audio as a separate rendition of this bit rate, kbit/s (an
    /// `#EXT-X-MEDIA:TYPE=AUDIO` playlist in every variant's `AUDIO` group, as Apple's HLS
    /// Authoring Specification packages audio), pre-staged with the chosen variant. nil (the
    /// default): the audio is in the variants' segments.
    package var audioKbps: Int? = nil
    /// With `variantsKbps`: each variant (and the audio rendition) is one fragmented-MP4 file whose
    /// initialization section and segments the media playlist addresses by byte range
    /// (`#EXT-X-MAP` `BYTERANGE`, `#EXT-X-BYTERANGE`, RFC 8216 §4.3.2.2), as Apple's
    /// `mediafilesegmenter -single-file` packages it: the CDN sees range requests against one
    /// object per variant. False (the default): one object per segment.
    package var hlsByteRanges: Bool = false

    /// True for an `hls` asset served as a master playlist, media playlists and segments.
    package var isHLSPlaylist: Bool { !variantsKbps.isEmpty }

    package init(name: String = "hero", type: AssetTypeConfig = .image, priority: AssetPriorityConfig = .critical,
                bytes: Int64 = 48_200, variants: [AssetVariantConfig] = []) {
        self.name = name
        self.type = type
        self.priority = priority
        self.bytes = bytes
        self.variants = variants
    }
}

/// Where the campaign service warms the CDN before the send.
package enum WarmModeConfig: String, Sendable, CaseIterable {
    case none, allPops, topPops, shieldsOnly
}

/// Warm-ahead: scope and lead time.
package struct WarmConfig: Sendable, Equatable {
    package var mode: WarmModeConfig
    /// The warm call is made this long before `sendStartSeconds` (5–10 min in practice).
    package var aheadSeconds: Double
    /// PoPs warmed in `topPops` mode (largest audience first).
    package var topPops: Int

    package init(mode: WarmModeConfig = .none, aheadSeconds: Double = 600, topPops: Int = 20) {
        self.mode = mode
        self.aheadSeconds = aheadSeconds
        self.topPops = topPops
    }
}

/// Edge cache policy of the campaign's assets (sent as `Cache-Control` to devices too).
///
/// Defaults: `max-age=14400, stale-while-revalidate=86400` is the reference article's header for
/// pre-stage assets. `stale-if-error` (RFC 5861 §4) defaults to 0, i.e. absent, because that
/// header carries none: a scenario sets it to serve a stored copy within max-age +
/// stale-if-error instead of an upstream error (a day, 86 400 s, is a common choice; engineering
/// judgement: it outlasts an origin incident across one campaign day).
package struct CacheControlConfig: Sendable, Equatable {
    package var maxAgeSeconds: Int64
    package var staleWhileRevalidateSeconds: Int64
    /// RFC 5861 `stale-if-error`: past max-age, a cached copy younger than max-age + this is
    /// served when the upstream answers an error, at the PoPs and shields and in the device
    /// store (0 = absent from the header, never).
    package var staleIfErrorSeconds: Int64

    package init(maxAgeSeconds: Int64 = 14_400, staleWhileRevalidateSeconds: Int64 = 86_400, staleIfErrorSeconds: Int64 = 0) {
        self.maxAgeSeconds = maxAgeSeconds
        self.staleWhileRevalidateSeconds = staleWhileRevalidateSeconds
        self.staleIfErrorSeconds = staleIfErrorSeconds
    }

    /// The header value sent with the assets (`stale-if-error` only when set).
    var headerValue: String {
        let base = "public, max-age=\(maxAgeSeconds), stale-while-revalidate=\(staleWhileRevalidateSeconds)"
        return staleIfErrorSeconds > 0 ? base + ", stale-if-error=\(staleIfErrorSeconds)" : base
    }
}

/// iOS push type.
package enum IOSPushKindConfig: String, Sendable, CaseIterable {
    /// Alert push with `mutable-content: 1`: the Notification Service Extension pre-stages.
    case alert
    /// Silent `content-available: 1` push: the app wakes in the background, pre-stages, then posts
    /// the notification itself.
    case silent
}

/// How a campaign's push carries its pre-stage content: PreloadKit's four payload forms
/// (`PayloadFormat`).
package enum PayloadFormConfig: String, Sendable, CaseIterable {
    /// `cdn_preload` with every asset listed in the push (manifest by value).
    case inline
    /// `cdn_preload` with a `manifest_url`: the handler first fetches the signed manifest, a
    /// small JSON document cached at the edge like the assets (its own round trip), then the
    /// assets it lists. Keeps the push small whatever the number of assets.
    case manifestReference
    /// Silent push with one `pre_stage_url` (iOS: `content-available`, so `iosPush` must be
    /// `silent`, or a carousel, whose pushes are silent).
    case silentURL
    /// Rich push with one attachment URL (`au`, `at`): an alert with `mutable-content` (so
    /// `iosPush` must be `alert`), the asset within PreloadKit's attachment limits.
    case richAttachment
}

/// FCM message priority.
package enum AndroidPriorityConfig: String, Sendable, CaseIterable {
    case high, normal
}

/// Which Android component pre-stages.
package enum AndroidHandlerConfig: String, Sendable, CaseIterable {
    /// Inside `onMessageReceived` (~10 s).
    case messageHandler
    /// In an expedited WorkManager job (subject to its quota; otherwise a regular job).
    case workManager
}

/// A creative swap before the send: the campaign's objects are purged by surrogate key (and
/// re-warmed when warming is configured).
package struct CreativeSwapConfig: Sendable, Equatable {
    /// The swap happens this long before `sendStartSeconds`.
    package var secondsBeforeSend: Double
    /// With warming configured, the new creative is warmed this long after the purge call (after
    /// the purge has propagated).
    package var rewarmDelaySeconds: Double

    package init(secondsBeforeSend: Double = 120, rewarmDelaySeconds: Double = 5) {
        self.secondsBeforeSend = secondsBeforeSend
        self.rewarmDelaySeconds = rewarmDelaySeconds
    }
}

/// One push campaign.
package struct CampaignConfig: Sendable, Equatable {
    /// Manifest id (`[A-Za-z0-9._:-]`, 1–64 bytes). Default `campaign`.
    package var name: String = "campaign"
    /// Share of the targeted devices (all, or those of `regions` and `segments`) in the audience,
    /// each device drawn by the `audience` rule (default: independently).
    package var audienceShare: Double = 1
    /// First send, seconds of virtual time. Default 600.
    package var sendStartSeconds: Double = 600
    /// Marketing-platform send rate, messages per minute. Default 600 000.
    package var sendRatePerMinute: Double = 600_000
    /// Push provider quota, messages per minute (FCM: 600 000 per project). The effective rate is
    /// the smaller of the two.
    package var providerQuotaPerMinute: Double = 600_000
    /// Provider → device delivery latency, seconds (lognormal, median 0.3 s by default).
    package var deliveryLatencySeconds: Distribution = .lognormal(mu: log(0.3), sigma: 1.0)
    /// Push carries a pre-stage manifest (false: a plain alert; the app fetches everything on tap).
    package var preStage: Bool = true
    package var iosPush: IOSPushKindConfig = .alert
    package var androidPriority: AndroidPriorityConfig = .high
    package var androidHandler: AndroidHandlerConfig = .messageHandler
    /// Provider message lifetime (APNs expiration / FCM time_to_live): a push still held by the OS
    /// after this long expires undelivered.
    package var messageTtlSeconds: Double = 86_400
    /// Assets (1...16). Default: a 48.2 KB critical image and a 1.8 KB critical JSON document.
    package var assets: [AssetConfig] = [AssetConfig(),
                                        AssetConfig(name: "data", type: .json, priority: .critical, bytes: 1_800)]
    /// Manifest `ttl`, seconds (60...86 400, PreloadKit's accepted range; bounds the on-device lifetime).
    package var ttlSeconds: Int64 = 14_400
    package var cacheControl = CacheControlConfig()
    /// Lifetime of the signed-URL token (5–15 min); a tap after it costs a refresh round trip.
    package var tokenLifetimeSeconds: Double = 900
    package var warm = WarmConfig()
    /// Staggered carousel: one silent push per asset, this many seconds apart (nil: one push with
    /// every asset).
    package var carouselIntervalSeconds: Double? = nil
    package var creativeSwap: CreativeSwapConfig? = nil
    /// How long a push's signed payload may be acted on, seconds: the campaign service signs
    /// `exp` = its wave's send instant + this, each calendar wave signed at its own send (nil:
    /// `messageTtlSeconds`, since a push the provider would no longer deliver is not worth acting
    /// on either). A push reaching its
    /// handler after `exp` (plus PreloadKit's clock-skew tolerance) is refused and fetches nothing.
    package var payloadLifetimeSeconds: Double? = nil
    /// The push's payload form (default `inline`). `silentURL` and `richAttachment` carry one
    /// asset: a campaign with several sends them as a carousel (`silentURL` only), else it is
    /// refused; `manifestReference` and `richAttachment` are not carousels.
    package var payloadForm: PayloadFormConfig = .inline
    /// Which push provider the campaign's pushes go through when the scenario has `providers`
    /// (default: by the device's platform, Android → FCM, iOS → APNs).
    package var provider: CampaignProviderConfig = .platform
    /// With `providers.offline`: the campaign's FCM messages carry the collapse key the app's
    /// collapsible campaigns share, so FCM keeps only the newest for an offline device (default
    /// false: non-collapsible, at most 100 stored per offline device).
    package var collapsible: Bool = false
    /// With `collapsible`: the campaign's FCM collapse key (nil: the app's default key, which every
    /// collapsible campaign without one shares). Messages of one key replace each other while FCM
    /// holds them; FCM stores at most four keys per device (`PushWorld+CollapseKeys.swift`).
    package var collapseKey: String? = nil
    /// How the campaign is sent with `providers`: per device token (default) or as one FCM topic
    /// message FCM fans out (`CampaignSendAsConfig`).
    package var sendAs: CampaignSendAsConfig = .tokens
    /// The APNs priority of the campaign's iOS pushes with `providers`: 10 (default, at once) or 5
    /// (grouped into the device's bursts, `APNsProviderConfig.priority5BurstIntervalSeconds`).
    package var apnsPriority: Int = 10
    // calendar
    /// Send at this local time, seconds after local midnight: one wave per distinct region UTC
    /// offset, each starting when the region's local clock first reads it at or after t = 0, all at
    /// the campaign's one send rate (nil: one send from `sendStartSeconds`; see `CalendarRules`).
    package var sendAtLocalSeconds: Double? = nil
    /// With `sendAtLocalSeconds`: the local day to send on, counted from the day each region's
    /// local clock is in at t = 0 (0: that day, 1: the next, …), so every region sends on the same
    /// local date (a wave before t = 0 is refused). nil: the first time the clock reads it.
    package var sendOnLocalDay: Int? = nil
    /// Region names the campaign targets (`infra.topology.regionNames`, or "region N"); empty: all.
    package var regions: [String] = []
    /// User segment names the campaign targets (`users.segments`); empty: all.
    package var segments: [String] = []
    /// How the audience is drawn relative to another campaign's (default independent).
    package var audience = CampaignAudienceConfig()

    package init() {}

    /// The lifetime `exp` is signed with (`payloadLifetimeSeconds`, else the message TTL).
    package var effectivePayloadLifetimeSeconds: Double { payloadLifetimeSeconds ?? messageTtlSeconds }

    /// Number of pushes each targeted device receives (carousel: one per asset).
    package var pushesPerDevice: Int { carouselIntervalSeconds == nil ? 1 : assets.count }
}
