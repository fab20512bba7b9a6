/// Which of the four payload shapes a request came from.
public enum PayloadFormat: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    /// `cdn_preload` with an `assets` array (manifest by value).
    case inlineManifest
    /// `cdn_preload` with a `manifest_url`: a small JSON manifest is fetched first.
    case manifestReference
    /// Silent push: `pre_stage_url`, `pre_stage_id`, `version` (with `aps.content-available`).
    case silentPush
    /// Rich push: `au` (attachment URL) and `at` (attachment type).
    case richPush

    /// The token used in the canonical signing form.
    public var canonicalToken: String {
        switch self {
        case .inlineManifest: return "inline"
        case .manifestReference: return "ref"
        case .silentPush: return "silent"
        case .richPush: return "rich"
        }
    }

    public var description: String { canonicalToken }
}

/// Asset priority from the manifest. Only `critical` assets are pre-staged.
public enum AssetPriority: UInt8, Sendable, Comparable, CaseIterable, CustomStringConvertible {
    case critical
    case high
    case normal
    case low

    public init?(payloadToken: String) {
        switch payloadToken {
        case "critical": self = .critical
        case "high": self = .high
        case "normal": self = .normal
        case "low": self = .low
        default: return nil
        }
    }

    public static func < (lhs: AssetPriority, rhs: AssetPriority) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String {
        switch self {
        case .critical: return "critical"
        case .high: return "high"
        case .normal: return "normal"
        case .low: return "low"
        }
    }
}

/// The declared type of an asset: which media kinds its bytes may be. The actual kind is decided
/// by MIME type AND magic bytes at download time, never by a file extension.
public enum AssetType: Sendable, Equatable, CustomStringConvertible {
    /// `image`: JPEG, PNG, GIF, WebP or HEIC.
    case image
    /// `video`: MP4.
    case video
    /// `audio`: MP3 or M4A.
    case audio
    /// `hls`: an M3U8 playlist.
    case playlist
    /// `json`: a JSON document.
    case data
    /// A specific kind (`jpg`, `png`, `gif`, `mp4`, ... as in a rich push's `at`).
    case exact(MediaKind)
    /// An HLS initialization section or media segment the session found in a playlist
    /// (`PreloadPolicy.hls`): MPEG-2 TS or (fragmented) MP4. Never a payload token.
    case hlsSegment

    /// Tokens accepted in a payload's `type` / `at` field.
    public static let payloadTokens = "image, video, audio, hls, json, jpg, jpeg, png, gif, webp, heic, mp4, mp3, m4a, m3u8"

    public init?(payloadToken: String) {
        switch payloadToken {
        case "image": self = .image
        case "video": self = .video
        case "audio": self = .audio
        case "hls": self = .playlist
        case "json": self = .data
        case "jpg", "jpeg": self = .exact(.jpeg)
        case "png": self = .exact(.png)
        case "gif": self = .exact(.gif)
        case "webp": self = .exact(.webp)
        case "heic": self = .exact(.heic)
        case "mp4": self = .exact(.mp4)
        case "mp3": self = .exact(.mp3)
        case "m4a": self = .exact(.m4a)
        case "m3u8": self = .exact(.m3u8)
        default: return nil
        }
    }

    /// Whether content of `kind` is acceptable for this declared type.
    public func accepts(_ kind: MediaKind) -> Bool {
        switch self {
        case .image: return kind == .jpeg || kind == .png || kind == .gif || kind == .webp || kind == .heic
        case .video: return kind == .mp4
        case .audio: return kind == .mp3 || kind == .m4a
        case .playlist: return kind == .m3u8
        case .data: return kind == .json
        case .exact(let k): return kind == k
        case .hlsSegment: return kind == .ts || kind == .mp4
        }
    }

    public var description: String {
        switch self {
        case .image: return "image"
        case .video: return "video"
        case .audio: return "audio"
        case .playlist: return "hls"
        case .data: return "json"
        case .exact(let k): return k.rawValue
        case .hlsSegment: return "hls segment"
        }
    }
}

/// iOS notification attachment category of a media kind (UNNotificationAttachment accepts JPEG,
/// PNG, GIF images; MP3/M4A audio; MP4 video). Nil when the kind cannot be attached.
public enum AttachmentCategory: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    case image
    case audio
    case video

    public init?(kind: MediaKind) {
        if kind == .jpeg || kind == .png || kind == .gif {
            self = .image
        } else if kind == .mp3 || kind == .m4a {
            self = .audio
        } else if kind == .mp4 {
            self = .video
        } else {
            return nil
        }
    }

    public var description: String {
        switch self {
        case .image: return "image"
        case .audio: return "audio"
        case .video: return "video"
        }
    }
}

/// An alternative URL for an asset, chosen when the device is on `network`.
public struct AssetVariant: Sendable, Equatable {
    public let network: NetworkClass
    public let url: AssetURL
    public let key: StoreKey
    public let declaredBytes: Int64?
}

/// One asset of a request, validated: allowlisted https URL, its store key, declared type,
/// priority and size.
public struct AssetSpec: Sendable, Equatable {
    public let url: AssetURL
    /// `StoreKey(cacheKey: url.cacheKey)`.
    public let key: StoreKey
    public let type: AssetType
    public let priority: AssetPriority
    /// `bytes` from the manifest; nil when the format does not declare sizes (silent, rich).
    public let declaredBytes: Int64?
    /// Per-network-class alternatives, sorted by network class, at most one per class.
    public let variants: [AssetVariant]

    /// The URL, key and declared size to use on `network`: the variant for exactly that class if
    /// the manifest offers one, else the asset's own URL.
    @inlinable
    public func resolved(for network: NetworkClass) -> (url: AssetURL, key: StoreKey, declaredBytes: Int64?) {
        // An index loop: iterating by value would retain and release each variant's URL.
        for i in variants.indices where variants[i].network == network { return (variants[i].url, variants[i].key, variants[i].declaredBytes) }
        return (url, key, declaredBytes)
    }

    /// `assets[index].resolved(for: network)`, reading the fields in place: calling the method
    /// on `assets[index]` copied the whole asset first (retaining and releasing its URL, key and
    /// variants), twice per push in the session's selection.
    @inlinable
    static func resolved(_ assets: [AssetSpec], _ index: Int, for network: NetworkClass) -> (url: AssetURL, key: StoreKey, declaredBytes: Int64?) {
        for v in assets[index].variants.indices where assets[index].variants[v].network == network {
            return (assets[index].variants[v].url, assets[index].variants[v].key, assets[index].variants[v].declaredBytes)
        }
        return (assets[index].url, assets[index].key, assets[index].declaredBytes)
    }
}

/// Outcome of signature checking at parse time.
public enum SignatureStatus: UInt8, Sendable, CustomStringConvertible {
    /// A `v1=` HMAC-SHA256 signature matched the canonical form under the app's key.
    case verified
    /// No signature, and the options did not require one.
    case unsigned
    /// Verification was switched off (`SignatureRequirement.none`).
    case notChecked

    public var description: String {
        switch self {
        case .verified: return "verified"
        case .unsigned: return "unsigned"
        case .notChecked: return "not checked"
        }
    }
}

/// A parsed, validated and (if required) verified pre-stage request: the one model all four
/// payload formats map to. Built only by `PayloadParser`, so holding one proves validation.
/// Parse once per campaign and share: it is an immutable value.
public struct PreStageRequest: Sendable, Equatable {
    /// The fields, in one immutable object: a request travels by value through every
    /// `.pushReceived` input (and a fetched manifest through its `.fetchCompleted`), so a copy is
    /// one retain instead of a copy of its strings, array and URL.
    final class Storage: Sendable {
        let format: PayloadFormat
        let manifestID: String
        let manifestTag: UInt64
        let ttlSeconds: Int64
        let assets: [AssetSpec]
        let manifestURL: AssetURL?
        let version: String?
        let hasAlert: Bool
        let mutableContent: Bool
        let contentAvailable: Bool
        let signature: SignatureStatus
        let assetsKnown: Bool
        let expiresAt: Instant?
        let campaignID: String?
        /// Path of the `exp` field, for expiry rejections.
        let expiryPath: String
        let openProbabilityHint: Double?

        init(format: PayloadFormat, manifestID: String, manifestTag: UInt64, ttlSeconds: Int64, assets: [AssetSpec],
             manifestURL: AssetURL?, version: String?, hasAlert: Bool, mutableContent: Bool, contentAvailable: Bool,
             signature: SignatureStatus, assetsKnown: Bool, replay: ReplayFields) {
            self.format = format
            self.manifestID = manifestID
            self.manifestTag = manifestTag
            self.ttlSeconds = ttlSeconds
            self.assets = assets
            self.manifestURL = manifestURL
            self.version = version
            self.hasAlert = hasAlert
            self.mutableContent = mutableContent
            self.contentAvailable = contentAvailable
            self.signature = signature
            self.assetsKnown = assetsKnown
            self.expiresAt = replay.expiresAt
            self.campaignID = replay.campaignID
            self.expiryPath = replay.expiryPath
            self.openProbabilityHint = replay.openPercent.map { Double($0) / 100 }
        }
    }

    let storage: Storage

    /// Built by `PayloadParser` only.
    init(format: PayloadFormat, manifestID: String, manifestTag: UInt64, ttlSeconds: Int64, assets: [AssetSpec],
         manifestURL: AssetURL?, version: String?, hasAlert: Bool, mutableContent: Bool, contentAvailable: Bool,
         signature: SignatureStatus, assetsKnown: Bool, replay: ReplayFields) {
        storage = Storage(format: format, manifestID: manifestID, manifestTag: manifestTag, ttlSeconds: ttlSeconds,
                          assets: assets, manifestURL: manifestURL, version: version, hasAlert: hasAlert,
                          mutableContent: mutableContent, contentAvailable: contentAvailable, signature: signature,
                          assetsKnown: assetsKnown, replay: replay)
    }

    public var format: PayloadFormat { storage.format }
    /// `manifest_id` / `pre_stage_id`; empty for a rich push. Restricted to `[A-Za-z0-9._:-]`,
    /// used for logs and `manifestTag` only, never for file names.
    public var manifestID: String { storage.manifestID }
    /// First 8 bytes (big-endian) of SHA-256 over `format token + "\n" + manifestID` (rich push:
    /// over the attachment URL's cache key), used to tag store entries for purge by campaign.
    public var manifestTag: UInt64 { storage.manifestTag }
    /// Lifetime bound for stored assets, seconds (manifest `ttl`, else the options' default).
    public var ttlSeconds: Int64 { storage.ttlSeconds }
    /// The assets in payload order (empty for a manifest reference until its manifest is fetched).
    public var assets: [AssetSpec] { storage.assets }
    /// The manifest to fetch first (`manifestReference` only).
    public var manifestURL: AssetURL? { storage.manifestURL }
    /// `version` of a silent push, if given.
    public var version: String? { storage.version }
    /// `aps.alert` present (a visible notification).
    public var hasAlert: Bool { storage.hasAlert }
    /// `aps.mutable-content` is 1.
    public var mutableContent: Bool { storage.mutableContent }
    /// `aps.content-available` is 1.
    public var contentAvailable: Bool { storage.contentAvailable }
    /// How the signature was checked.
    public var signature: SignatureStatus { storage.signature }
    /// False for a manifest reference as pushed (its `assets` are empty because the manifest has
    /// not been fetched yet, not because it has none); true for every other request, including a
    /// fetched referenced manifest (`PayloadParser.parseReferencedManifest`).
    public var assetsKnown: Bool { storage.assetsKnown }
    /// The signed expiry (`exp`, whole seconds on the `Instant` timeline), if the payload carries
    /// one; enforced by `PayloadParser.checkExpiry(of:now:options:)`.
    public var expiresAt: Instant? { storage.expiresAt }
    /// The signed `campaign_id`, if the payload carries one. A fetched manifest must name the
    /// same campaign as the push that referenced it.
    public var campaignID: String? { storage.campaignID }
    /// The campaign service's estimate that this user opens this push, from the signed
    /// `open_pct` (whole percent, 0...100) as a probability; nil when the payload has none (the
    /// decision kinds then behave as `PrestageDecision.decide` documents).
    public var openProbabilityHint: Double? { storage.openProbabilityHint }

    /// Equal when every field is equal.
    public static func == (a: PreStageRequest, b: PreStageRequest) -> Bool {
        if a.storage === b.storage { return true }
        return a.format == b.format && a.manifestID == b.manifestID && a.manifestTag == b.manifestTag
            && a.ttlSeconds == b.ttlSeconds && a.assets == b.assets && a.manifestURL == b.manifestURL
            && a.version == b.version && a.hasAlert == b.hasAlert && a.mutableContent == b.mutableContent
            && a.contentAvailable == b.contentAvailable && a.signature == b.signature && a.assetsKnown == b.assetsKnown
            && a.expiresAt == b.expiresAt && a.campaignID == b.campaignID && a.openProbabilityHint == b.openProbabilityHint
    }
}
