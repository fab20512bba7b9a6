import Foundation
import Stochastic

/// Declared asset types (the manifest's `type` tokens).
public enum AssetTypeConfig: String, Codable, Sendable, CaseIterable {
    case image, video, audio, hls, json
}

/// Manifest priorities.
public enum AssetPriorityConfig: String, Codable, Sendable, CaseIterable {
    case critical, high, normal, low
}

/// A smaller rendition of an asset for one network class (manifest `variants`).
public struct AssetVariantConfig: Codable, Sendable, Equatable {
    /// PreloadKit network key: `wifi`, `5g`, `4g`, `3g`, `2g`, `slow-2g`.
    public var network: String
    public var bytes: Int64

    public init(network: String, bytes: Int64) {
        self.network = network
        self.bytes = bytes
    }

    static let networkKeys = ["wifi", "5g", "4g", "3g", "2g", "slow-2g"]

    enum CodingKeys: String, CodingKey { case network, bytes }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        network = try c.decode(String.self, forKey: .network)
        bytes = try c.decode(Int64.self, forKey: .bytes)
        try c.check(Self.networkKeys.contains(network), .network, expected: "one of wifi, 5g, 4g, 3g, 2g, slow-2g", found: "\"\(network)\"")
        try c.checkRange(bytes, 1...(1 << 34), .bytes)
    }
}

/// One asset of a campaign.
public struct AssetConfig: Codable, Sendable, Equatable {
    /// Path segment of the asset URL (`[A-Za-z0-9._-]`, 1–64 bytes).
    public var name: String = "hero"
    public var type: AssetTypeConfig = .image
    public var priority: AssetPriorityConfig = .critical
    public var bytes: Int64 = 48_200
    /// Per-network renditions (at most one per network key).
    public var variants: [AssetVariantConfig] = []

    public init(name: String = "hero", type: AssetTypeConfig = .image, priority: AssetPriorityConfig = .critical,
                bytes: Int64 = 48_200, variants: [AssetVariantConfig] = []) {
        self.name = name
        self.type = type
        self.priority = priority
        self.bytes = bytes
        self.variants = variants
    }

    enum CodingKeys: String, CodingKey { case name, type, priority, bytes, variants }

    public init(from decoder: any Decoder) throws {
        let d = AssetConfig()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.field(.name, d.name)
        type = try c.field(.type, d.type)
        priority = try c.field(.priority, d.priority)
        bytes = try c.field(.bytes, d.bytes)
        variants = try c.field(.variants, d.variants)
        let ok = !name.isEmpty && name.utf8.count <= 64 && name.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2E || b == 0x5F || b == 0x2D
        }
        try c.check(ok, .name, expected: "1–64 characters from [A-Za-z0-9._-]", found: "\"\(name)\"")
        try c.checkRange(bytes, 1...(1 << 34), .bytes)
        try c.check(variants.count <= 6, .variants, expected: "at most 6 variants", found: "\(variants.count)")
        let nets = variants.map(\.network)
        try c.check(Set(nets).count == nets.count, .variants, expected: "at most one variant per network", found: "\(nets.sorted())")
    }
}

/// Where the campaign service warms the CDN before the send.
public enum WarmModeConfig: String, Codable, Sendable, CaseIterable {
    case none, allPops, topPops, shieldsOnly
}

/// Warm-ahead: scope and lead time.
public struct WarmConfig: Codable, Sendable, Equatable {
    public var mode: WarmModeConfig = .none
    /// The warm call is made this long before `sendStartSeconds` (5–10 min in practice).
    public var aheadSeconds: Double = 600
    /// PoPs warmed in `topPops` mode (largest audience first).
    public var topPops: Int = 20

    public init(mode: WarmModeConfig = .none, aheadSeconds: Double = 600, topPops: Int = 20) {
        self.mode = mode
        self.aheadSeconds = aheadSeconds
        self.topPops = topPops
    }

    enum CodingKeys: String, CodingKey { case mode, aheadSeconds, topPops }

    public init(from decoder: any Decoder) throws {
        let d = WarmConfig()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        mode = try c.field(.mode, d.mode)
        aheadSeconds = try c.field(.aheadSeconds, d.aheadSeconds)
        topPops = try c.field(.topPops, d.topPops)
        try c.checkRange(aheadSeconds, 0...604_800, .aheadSeconds, unit: "seconds")
        try c.checkRange(topPops, 1...10_000, .topPops)
    }
}

/// Edge cache policy of the campaign's assets (sent as `Cache-Control` to devices too).
public struct CacheControlConfig: Codable, Sendable, Equatable {
    public var maxAgeSeconds: Int64 = 14_400
    public var staleWhileRevalidateSeconds: Int64 = 86_400

    public init(maxAgeSeconds: Int64 = 14_400, staleWhileRevalidateSeconds: Int64 = 86_400) {
        self.maxAgeSeconds = maxAgeSeconds
        self.staleWhileRevalidateSeconds = staleWhileRevalidateSeconds
    }

    enum CodingKeys: String, CodingKey { case maxAgeSeconds, staleWhileRevalidateSeconds }

    public init(from decoder: any Decoder) throws {
        let d = CacheControlConfig()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        maxAgeSeconds = try c.field(.maxAgeSeconds, d.maxAgeSeconds)
        staleWhileRevalidateSeconds = try c.field(.staleWhileRevalidateSeconds, d.staleWhileRevalidateSeconds)
        try c.checkRange(maxAgeSeconds, 0...31_536_000, .maxAgeSeconds)
        try c.checkRange(staleWhileRevalidateSeconds, 0...31_536_000, .staleWhileRevalidateSeconds)
    }

    /// The header value sent with the assets.
    var headerValue: String { "public, max-age=\(maxAgeSeconds), stale-while-revalidate=\(staleWhileRevalidateSeconds)" }
}

/// iOS push type.
public enum IOSPushKindConfig: String, Codable, Sendable, CaseIterable {
    /// Alert push with `mutable-content: 1`: the Notification Service Extension pre-stages.
    case alert
    /// Silent `content-available: 1` push: the app wakes in the background, pre-stages, then posts
    /// the notification itself.
    case silent
}

/// FCM message priority.
public enum AndroidPriorityConfig: String, Codable, Sendable, CaseIterable {
    case high, normal
}

/// Which Android component pre-stages.
public enum AndroidHandlerConfig: String, Codable, Sendable, CaseIterable {
    /// Inside `onMessageReceived` (~10 s).
    case messageHandler
    /// In an expedited WorkManager job (subject to its quota; otherwise a regular job).
    case workManager
}

/// A creative swap before the send: the campaign's objects are purged by surrogate key (and
/// re-warmed when warming is configured).
public struct CreativeSwapConfig: Codable, Sendable, Equatable {
    /// The swap happens this long before `sendStartSeconds`.
    public var secondsBeforeSend: Double = 120
    /// With warming configured, the new creative is warmed this long after the purge call (after
    /// the purge has propagated).
    public var rewarmDelaySeconds: Double = 5

    public init(secondsBeforeSend: Double = 120, rewarmDelaySeconds: Double = 5) {
        self.secondsBeforeSend = secondsBeforeSend
        self.rewarmDelaySeconds = rewarmDelaySeconds
    }

    enum CodingKeys: String, CodingKey { case secondsBeforeSend, rewarmDelaySeconds }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        secondsBeforeSend = try c.field(.secondsBeforeSend, 120)
        rewarmDelaySeconds = try c.field(.rewarmDelaySeconds, 5)
        try c.checkRange(secondsBeforeSend, 0...604_800, .secondsBeforeSend, unit: "seconds")
        try c.checkRange(rewarmDelaySeconds, 0...3_600, .rewarmDelaySeconds, unit: "seconds")
    }
}

/// One push campaign.
public struct CampaignConfig: Codable, Sendable, Equatable {
    /// Manifest id (`[A-Za-z0-9._:-]`, 1–64 bytes). Default `campaign`.
    public var name: String = "campaign"
    /// Share of the population targeted (each device drawn independently).
    public var audienceShare: Double = 1
    /// First send, seconds of virtual time. Default 600.
    public var sendStartSeconds: Double = 600
    /// Marketing-platform send rate, messages per minute. Default 600 000.
    public var sendRatePerMinute: Double = 600_000
    /// Push provider quota, messages per minute (FCM: 600 000 per project). The effective rate is
    /// the smaller of the two.
    public var providerQuotaPerMinute: Double = 600_000
    /// Provider → device delivery latency, seconds (lognormal, median 0.3 s by default).
    public var deliveryLatencySeconds: Distribution = .lognormal(mu: log(0.3), sigma: 1.0)
    /// Push carries a pre-stage manifest (false: a plain alert; the app fetches everything on tap).
    public var preStage: Bool = true
    public var iosPush: IOSPushKindConfig = .alert
    public var androidPriority: AndroidPriorityConfig = .high
    public var androidHandler: AndroidHandlerConfig = .messageHandler
    /// Provider message lifetime (APNs expiration / FCM time_to_live): a push still held by the OS
    /// after this long expires undelivered.
    public var messageTtlSeconds: Double = 86_400
    /// Assets (1...16). Default: a 48.2 KB critical image and a 1.8 KB critical JSON document.
    public var assets: [AssetConfig] = [AssetConfig(),
                                        AssetConfig(name: "data", type: .json, priority: .critical, bytes: 1_800)]
    /// Manifest `ttl`, seconds (60...86 400, PreloadKit's accepted range; bounds the on-device lifetime).
    public var ttlSeconds: Int64 = 14_400
    public var cacheControl = CacheControlConfig()
    /// Lifetime of the signed-URL token (5–15 min); a tap after it costs a refresh round trip.
    public var tokenLifetimeSeconds: Double = 900
    public var warm = WarmConfig()
    /// Staggered carousel: one silent push per asset, this many seconds apart (nil: one push with
    /// every asset).
    public var carouselIntervalSeconds: Double? = nil
    public var creativeSwap: CreativeSwapConfig? = nil
    /// How long a push's signed payload may be acted on, seconds: the campaign service signs
    /// `exp` = the part's first send instant + this (nil: `messageTtlSeconds`, since a push the
    /// provider would no longer deliver is not worth acting on either). A push reaching its
    /// handler after `exp` (plus PreloadKit's clock-skew tolerance) is refused and fetches nothing.
    public var payloadLifetimeSeconds: Double? = nil

    public init() {}

    /// The lifetime `exp` is signed with (`payloadLifetimeSeconds`, else the message TTL).
    public var effectivePayloadLifetimeSeconds: Double { payloadLifetimeSeconds ?? messageTtlSeconds }

    enum CodingKeys: String, CodingKey {
        case name, audienceShare, sendStartSeconds, sendRatePerMinute, providerQuotaPerMinute, deliveryLatencySeconds, preStage,
             iosPush, androidPriority, androidHandler, messageTtlSeconds, assets, ttlSeconds, cacheControl, tokenLifetimeSeconds,
             warm, carouselIntervalSeconds, creativeSwap
    }

    public init(from decoder: any Decoder) throws {
        let d = CampaignConfig()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.field(.name, d.name)
        audienceShare = try c.field(.audienceShare, d.audienceShare)
        sendStartSeconds = try c.field(.sendStartSeconds, d.sendStartSeconds)
        sendRatePerMinute = try c.field(.sendRatePerMinute, d.sendRatePerMinute)
        providerQuotaPerMinute = try c.field(.providerQuotaPerMinute, d.providerQuotaPerMinute)
        deliveryLatencySeconds = try c.field(.deliveryLatencySeconds, d.deliveryLatencySeconds)
        preStage = try c.field(.preStage, d.preStage)
        iosPush = try c.field(.iosPush, d.iosPush)
        androidPriority = try c.field(.androidPriority, d.androidPriority)
        androidHandler = try c.field(.androidHandler, d.androidHandler)
        messageTtlSeconds = try c.field(.messageTtlSeconds, d.messageTtlSeconds)
        assets = try c.field(.assets, d.assets)
        ttlSeconds = try c.field(.ttlSeconds, d.ttlSeconds)
        cacheControl = try c.field(.cacheControl, d.cacheControl)
        tokenLifetimeSeconds = try c.field(.tokenLifetimeSeconds, d.tokenLifetimeSeconds)
        warm = try c.field(.warm, d.warm)
        carouselIntervalSeconds = try c.decodeIfPresent(Double.self, forKey: .carouselIntervalSeconds)
        creativeSwap = try c.decodeIfPresent(CreativeSwapConfig.self, forKey: .creativeSwap)
        try validate(c)
    }

    func validate(_ c: KeyedDecodingContainer<CodingKeys>) throws {
        let idOK = !name.isEmpty && name.utf8.count <= 64 && name.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2E || b == 0x5F || b == 0x2D || b == 0x3A
        }
        try c.check(idOK, .name, expected: "1–64 characters from [A-Za-z0-9._:-]", found: "\"\(name)\"")
        try c.checkProbability(audienceShare, .audienceShare)
        try c.checkRange(sendStartSeconds, 0...604_800, .sendStartSeconds, unit: "seconds")
        try c.checkRange(sendRatePerMinute, 1...1e9, .sendRatePerMinute)
        try c.checkRange(providerQuotaPerMinute, 1...1e9, .providerQuotaPerMinute)
        try c.checkRange(messageTtlSeconds, 0...2_419_200, .messageTtlSeconds, unit: "seconds")
        try c.check((1...16).contains(assets.count), .assets, expected: "1...16 assets", found: "\(assets.count)")
        let names = assets.map(\.name)
        try c.check(Set(names).count == names.count, .assets, expected: "distinct asset names", found: "\(names)")
        try c.checkRange(ttlSeconds, 60...86_400, .ttlSeconds)
        try c.checkRange(tokenLifetimeSeconds, 1...604_800, .tokenLifetimeSeconds, unit: "seconds")
        if warm.mode != .none {
            try c.check(warm.aheadSeconds <= sendStartSeconds, .warm,
                        expected: "warm.aheadSeconds ≤ sendStartSeconds (\(sendStartSeconds)) so the warm call is not before t = 0",
                        found: "\(warm.aheadSeconds)")
        }
        if let interval = carouselIntervalSeconds {
            try c.checkRange(interval, 0...86_400, .carouselIntervalSeconds, unit: "seconds")
        }
        if let swap = creativeSwap {
            try c.check(swap.secondsBeforeSend <= sendStartSeconds, .creativeSwap,
                        expected: "creativeSwap.secondsBeforeSend ≤ sendStartSeconds (\(sendStartSeconds))", found: "\(swap.secondsBeforeSend)")
        }
    }

    /// Number of pushes each targeted device receives (carousel: one per asset).
    public var pushesPerDevice: Int { carouselIntervalSeconds == nil ? 1 : assets.count }
}
