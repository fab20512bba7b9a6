/// Whether payload signatures are checked.
public enum SignatureRequirement: UInt8, Sendable, CaseIterable {
    /// Refuse unsigned or wrongly signed payloads (the default).
    case required
    /// Verify a signature when present (refuse a wrong one); accept unsigned payloads.
    case ifPresent
    /// Do not look at signatures (tests, providers that cannot sign).
    case none
}

/// What the app supplies to parse and verify payloads.
public struct PayloadOptions: Sendable, Equatable {
    /// Which URLs are acceptable (https + CDN host allowlist, token parameters for cache keys).
    public var urlPolicy: URLPolicy
    /// HMAC-SHA256 key shared with the campaign service. May be empty only when signatures are
    /// not required.
    public var signingKey: [UInt8]
    public var signatureRequirement: SignatureRequirement
    public var limits: PayloadLimits
    /// TTL used when the payload carries none (silent and rich pushes), seconds. 4 h.
    public var defaultTTLSeconds: Int64
    /// Whether a signed expiry (`exp`) is required. Default `.ifPresent`: a payload without one is
    /// accepted (compatibility with senders that do not sign one yet), an expired one never is.
    public var expiryRequirement: ExpiryRequirement
    /// How long after its `exp` a payload or manifest is still accepted, seconds: room for the
    /// device's clock and the campaign service's to disagree. Default 60 s: clocks synchronised
    /// by NTP or the carrier agree within a second or two, so a minute absorbs a badly drifted
    /// phone while adding little to a replay window that is the campaign's lifetime anyway.
    /// 0...3600.
    public var expiryClockSkewToleranceSeconds: Int64

    public init(
        urlPolicy: URLPolicy,
        signingKey: [UInt8],
        signatureRequirement: SignatureRequirement = .required,
        limits: PayloadLimits = PayloadLimits(),
        defaultTTLSeconds: Int64 = 14_400,
        expiryRequirement: ExpiryRequirement = .ifPresent,
        expiryClockSkewToleranceSeconds: Int64 = 60
    ) {
        self.urlPolicy = urlPolicy
        self.signingKey = signingKey
        self.signatureRequirement = signatureRequirement
        self.limits = limits
        self.defaultTTLSeconds = defaultTTLSeconds
        self.expiryRequirement = expiryRequirement
        self.expiryClockSkewToleranceSeconds = expiryClockSkewToleranceSeconds
    }

    /// Checks the options; the error names the field.
    public func validate() throws(PolicyError) {
        if signatureRequirement == .required && signingKey.isEmpty {
            throw PolicyError(field: "signingKey", value: "empty", expected: "a key when signatureRequirement is .required")
        }
        // Plain http is for local test servers (the loopback testbed) only: an app's policy that
        // names any other host is refused, so the production policy stays https-only.
        for host in urlPolicy.plainHTTPHosts.sorted() where !URLPolicy.isLoopbackHost(host) {
            throw PolicyError(field: "urlPolicy.plainHTTPHosts", value: host,
                              expected: "loopback hosts only (localhost or 127.x.x.x): plain http is for local test servers")
        }
        let l = limits
        let checks: [(Bool, String, Int64, String)] = [
            (l.documentBytesMax > 0 && l.documentBytesMax <= 1_048_576, "limits.documentBytesMax", Int64(l.documentBytesMax), "1...1048576"),
            (l.depthMax >= 2 && l.depthMax <= 64, "limits.depthMax", Int64(l.depthMax), "2...64"),
            (l.stringBytesMax >= 16 && l.stringBytesMax <= 65_536, "limits.stringBytesMax", Int64(l.stringBytesMax), "16...65536"),
            (l.containerElementsMax >= 1 && l.containerElementsMax <= 4_096, "limits.containerElementsMax", Int64(l.containerElementsMax), "1...4096"),
            (l.valuesMax >= 1 && l.valuesMax <= 65_536, "limits.valuesMax", Int64(l.valuesMax), "1...65536"),
            (l.numberCharactersMax >= 1 && l.numberCharactersMax <= 64, "limits.numberCharactersMax", Int64(l.numberCharactersMax), "1...64"),
            (l.assetsMax >= 0 && l.assetsMax <= 256, "limits.assetsMax", Int64(l.assetsMax), "0...256"),
            (l.variantsMax >= 0 && l.variantsMax <= NetworkClass.allCases.count, "limits.variantsMax", Int64(l.variantsMax), "0...\(NetworkClass.allCases.count)"),
            (l.declaredBytesMax > 0, "limits.declaredBytesMax", l.declaredBytesMax, "> 0"),
            (l.ttlSecondsMin > 0 && l.ttlSecondsMin <= l.ttlSecondsMax, "limits.ttlSecondsMin", l.ttlSecondsMin, "1...ttlSecondsMax"),
            (l.ttlSecondsMax <= 31_536_000, "limits.ttlSecondsMax", l.ttlSecondsMax, "<= 31536000 (one year)"),
            (l.identifierBytesMax >= 1 && l.identifierBytesMax <= 1_024, "limits.identifierBytesMax", Int64(l.identifierBytesMax), "1...1024"),
            (defaultTTLSeconds >= l.ttlSecondsMin && defaultTTLSeconds <= l.ttlSecondsMax, "defaultTTLSeconds", defaultTTLSeconds, "limits.ttlSecondsMin...limits.ttlSecondsMax"),
            (expiryClockSkewToleranceSeconds >= 0 && expiryClockSkewToleranceSeconds <= 3_600, "expiryClockSkewToleranceSeconds", expiryClockSkewToleranceSeconds, "0...3600"),
        ]
        for (ok, field, value, expected) in checks where !ok {
            throw PolicyError(field: field, value: "\(value)", expected: expected)
        }
    }
}

/// Parsing and verification of push payloads: pure functions, no I/O, no clock. Run them once per
/// campaign and share the resulting `PreStageRequest` among sessions.
///
/// ## Payload formats
/// (a) inline manifest: `{"aps":{...}, "cdn_preload":{"manifest_id", "assets":[{"url","type",
///     "priority","bytes","variants"?}], "ttl"?, "signature"?}}`; `variants` maps a network key
///     (`wifi`, `5g`, `4g`, `3g`, `2g`, `slow-2g`) to `{"url", "bytes"?}`.
/// (b) manifest by reference: `{"cdn_preload":{"manifest_id", "manifest_url", "signature"?}}`;
///     the fetched document is an inline manifest object (bare, or wrapped in `cdn_preload`).
/// (c) silent push: `{"aps":{"content-available":1}, "pre_stage_url", "pre_stage_id",
///     "version"?, "pre_stage_type"? (default image), "signature"?}`.
/// (d) rich push: `{"aps":{"mutable-content":1, "alert"...}, "au", "at", "signature"?}`.
/// Exactly one form may be present. Unknown keys are ignored.
///
/// ## Replay protection
/// Every form may carry, next to its `signature` (in `cdn_preload` for (a) and (b), at the top
/// level for (c) and (d), at the manifest's level for a fetched manifest):
/// - `exp`: an integer, the last second at which the push (or manifest) may be acted on, in
///   whole seconds on the `Instant` timeline, i.e. Unix time for an app (whose `Instant` counts
///   microseconds since the Unix epoch, as `PreloadKitFoundation`'s driver does);
/// - `campaign_id`: an identifier (`[A-Za-z0-9._:-]`). A fetched manifest must carry the
///   `campaign_id` of the push that referenced it (`.campaignMismatch`), so a manifest signed for
///   one campaign cannot be served for another.
/// Both are covered by the signature. Every form may also carry `open_pct`, an integer 0...100:
/// the campaign service's estimate, in whole percent, that this user opens this push (read by
/// the `threshold` and `budgeted` decision kinds, `PreloadPolicy.decision`); signed like `exp`.
/// A payload is refused (`.expired`) when `now` is later than
/// `exp` plus `PayloadOptions.expiryClockSkewToleranceSeconds`; one without `exp` is accepted
/// unless `PayloadOptions.expiryRequirement` is `.required` (`.expiryMissing`). PreloadKit reads
/// no clock: `parse(json:options:now:)` and `parseReferencedManifest(json:for:options:now:)` take
/// the driver's `now`; a request parsed once and shared (`parse(json:options:)`) is checked per
/// delivery with `checkExpiry(of:now:options:)`. Without `signatureRequirement == .required`,
/// `exp` and `campaign_id` are only as trustworthy as the payload's transport.
///
/// ## Canonical signing form (`v1`)
/// The signature field is `v1=<64 hex digits>`, HMAC-SHA256 with the app's key over these UTF-8
/// lines, each terminated by `\n`, strings exactly as in the payload (after JSON unescaping),
/// integers in plain decimal, absent optional fields as empty text:
/// - inline manifest (also a fetched manifest): `v1`, `inline`, manifest_id, ttl, then per asset
///   in payload order `url|type|priority|bytes`, followed by one line per variant in network order
///   (wifi, 5g, 4g, 3g, 2g, slow-2g) `+net|url|bytes`;
/// - manifest reference: `v1`, `ref`, manifest_id, manifest_url;
/// - silent push: `v1`, `silent`, pre_stage_id, version, pre_stage_url, pre_stage_type;
/// - rich push: `v1`, `rich`, au, at;
/// then, for every form, `exp=<decimal>` when `exp` is present and `campaign_id=<id>` when
/// `campaign_id` is present and `open_pct=<decimal>` when `open_pct` is present (no line when
/// absent, so payloads without them sign as before).
/// Example: `v1\ninline\nmix_wk42\n14400\nhttps://cdn.example.com/a.webp|image|critical|48200\n`.
public enum PayloadParser {
    /// Parses JSON bytes (a whole push payload), received at `now`, into a verified request that
    /// has not expired (`checkExpiry(of:now:options:)`). What a device does with a push.
    public static func parse(json: [UInt8], options: PayloadOptions, now: Instant) throws(PayloadRejection) -> PreStageRequest {
        let request = try parse(json: json, options: options)
        try checkExpiry(of: request, now: now, options: options)
        return request
    }

    /// `parse(json:options:now:)` over a decoded payload.
    public static func parse(_ payload: PayloadValue, options: PayloadOptions, now: Instant) throws(PayloadRejection) -> PreStageRequest {
        let request = try parse(payload, options: options)
        try checkExpiry(of: request, now: now, options: options)
        return request
    }

    /// Parses JSON bytes (a whole push payload) into a verified request, without looking at its
    /// expiry: for a campaign's payload parsed once and shared among deliveries, each of which
    /// must then call `checkExpiry(of:now:options:)`, and for reading a push that was already
    /// accepted (a tap). A device handling a push uses `parse(json:options:now:)`.
    public static func parse(json: [UInt8], options: PayloadOptions) throws(PayloadRejection) -> PreStageRequest {
        try parse(PayloadValue.parseJSON(json, limits: options.limits), options: options)
    }

    /// `parse(json:options:)` over a decoded payload (no expiry check).
    public static func parse(_ payload: PayloadValue, options: PayloadOptions) throws(PayloadRejection) -> PreStageRequest {
        try parseForm(payload, options: options).0
    }

    /// The canonical signing bytes of a payload of any form (see the type's documentation), after
    /// validating it like `parse` does but without verifying its signature. For campaign
    /// services and tests that sign payloads.
    public static func canonicalForm(of payload: PayloadValue, options: PayloadOptions) throws(PayloadRejection) -> [UInt8] {
        var unverified = options
        unverified.signatureRequirement = .none
        return try parseForm(payload, options: unverified).1.bytes
    }

    static func parseForm(_ payload: PayloadValue, options: PayloadOptions) throws(PayloadRejection) -> (PreStageRequest, Canonical) {
        guard case .object = payload else {
            throw PayloadRejection(path: "$", reason: .wrongType(expected: "object", found: payload.typeName))
        }
        var flags = ApsFlags()
        if let aps = payload["aps"] { flags = try readAps(aps) }
        let preload = payload["cdn_preload"]
        let silentURL = payload["pre_stage_url"]
        let richURL = payload["au"]
        let present = (preload != nil ? 1 : 0) + (silentURL != nil ? 1 : 0) + (richURL != nil ? 1 : 0)
        if present > 1 {
            throw PayloadRejection(path: "$", reason: .ambiguousFormat("more than one of cdn_preload, pre_stage_url, au"))
        }
        if let preload {
            guard case .object = preload else {
                throw PayloadRejection(path: "$.cdn_preload", reason: .wrongType(expected: "object", found: preload.typeName))
            }
            let hasAssets = preload["assets"] != nil
            let hasReference = preload["manifest_url"] != nil
            if hasAssets && hasReference {
                throw PayloadRejection(path: "$.cdn_preload", reason: .ambiguousFormat("both assets and manifest_url"))
            }
            if hasReference {
                return try parseReference(preload, path: "$.cdn_preload", flags: flags, options: options)
            }
            return try parseInline(preload, path: "$.cdn_preload", format: .inlineManifest, flags: flags, manifestURL: nil, options: options)
        }
        if silentURL != nil { return try parseSilent(payload, flags: flags, options: options) }
        if richURL != nil { return try parseRich(payload, flags: flags, options: options) }
        throw PayloadRejection(path: "$", reason: .noPreStageContent)
    }

    /// Parses a manifest document fetched at `now` for a `manifestReference` request: an inline
    /// manifest (bare or wrapped in `cdn_preload`) whose `manifest_id` must equal the reference's,
    /// whose `campaign_id` must equal the reference's when the reference has one, and which has
    /// not expired (its own `exp`, see `checkExpiry(of:now:options:)`).
    /// `options.limits.documentBytesMax` bounds the document.
    public static func parseReferencedManifest(json: [UInt8], for reference: PreStageRequest, options: PayloadOptions, now: Instant) throws(PayloadRejection) -> PreStageRequest {
        let doc = try PayloadValue.parseJSON(json, limits: options.limits)
        return try parseReferencedManifest(doc, for: reference, options: options, now: now)
    }

    /// `parseReferencedManifest(json:for:options:now:)` over an already decoded document.
    public static func parseReferencedManifest(_ doc: PayloadValue, for reference: PreStageRequest, options: PayloadOptions, now: Instant) throws(PayloadRejection) -> PreStageRequest {
        let parsed = try parseReferencedManifest(doc, for: reference, options: options)
        try checkExpiry(of: parsed, now: now, options: options)
        return parsed
    }

    /// `parseReferencedManifest(json:for:options:now:)` without the expiry check: for a manifest
    /// parsed once and shared among deliveries, each of which then passes it to the session as a
    /// `.parsedManifest` body (the session checks it with `checkReferencedManifest`).
    public static func parseReferencedManifest(json: [UInt8], for reference: PreStageRequest, options: PayloadOptions) throws(PayloadRejection) -> PreStageRequest {
        try parseReferencedManifest(PayloadValue.parseJSON(json, limits: options.limits), for: reference, options: options)
    }

    /// `parseReferencedManifest(json:for:options:)` over an already decoded document (no expiry check).
    public static func parseReferencedManifest(_ doc: PayloadValue, for reference: PreStageRequest, options: PayloadOptions) throws(PayloadRejection) -> PreStageRequest {
        guard case .object = doc else {
            throw PayloadRejection(path: "$", reason: .wrongType(expected: "object", found: doc.typeName))
        }
        var manifest = doc
        var path = "$"
        if let wrapped = doc["cdn_preload"] {
            guard case .object = wrapped else {
                throw PayloadRejection(path: "$.cdn_preload", reason: .wrongType(expected: "object", found: wrapped.typeName))
            }
            manifest = wrapped
            path = "$.cdn_preload"
        }
        if manifest["assets"] == nil {
            throw PayloadRejection(path: path, reason: .missingField("assets"))
        }
        let flags = ApsFlags(hasAlert: reference.hasAlert, mutableContent: reference.mutableContent, contentAvailable: reference.contentAvailable)
        let (parsed, _) = try parseInline(manifest, path: path, format: .manifestReference, flags: flags, manifestURL: reference.manifestURL, options: options)
        if !parsed.manifestID.utf8.elementsEqual(reference.manifestID.utf8) {
            throw PayloadRejection(path: "\(path).manifest_id", reason: .manifestMismatch(expected: reference.manifestID, found: parsed.manifestID))
        }
        try checkCampaign(parsed, for: reference, path: "\(path).campaign_id")
        return parsed
    }

    // MARK: - Forms

    struct ApsFlags {
        var hasAlert = false
        var mutableContent = false
        var contentAvailable = false
    }

    static func readAps(_ aps: PayloadValue) throws(PayloadRejection) -> ApsFlags {
        guard case .object = aps else {
            throw PayloadRejection(path: "$.aps", reason: .wrongType(expected: "object", found: aps.typeName))
        }
        var flags = ApsFlags()
        if let alert = aps["alert"] {
            switch alert {
            case .string, .object: flags.hasAlert = true
            default: throw PayloadRejection(path: "$.aps.alert", reason: .wrongType(expected: "string or object", found: alert.typeName))
            }
        }
        flags.mutableContent = try readFlag(aps["mutable-content"], path: "$.aps.mutable-content")
        flags.contentAvailable = try readFlag(aps["content-available"], path: "$.aps.content-available")
        return flags
    }

    /// APNs flags are the integer 1 (0 or absent means off); booleans are accepted too.
    static func readFlag(_ value: PayloadValue?, path: String) throws(PayloadRejection) -> Bool {
        guard let value else { return false }
        switch value {
        case .integer(let i) where i == 0 || i == 1: return i == 1
        case .bool(let b): return b
        case .integer(let i): throw PayloadRejection(path: path, reason: .numberOutOfRange(value: "\(i)", min: 0, max: 1))
        default: throw PayloadRejection(path: path, reason: .wrongType(expected: "0 or 1", found: value.typeName))
        }
    }

    static func parseInline(_ m: PayloadValue, path: String, format: PayloadFormat, flags: ApsFlags, manifestURL: AssetURL?, options: PayloadOptions) throws(PayloadRejection) -> (PreStageRequest, Canonical) {
        let limits = options.limits
        let manifestID = try readIdentifier(m["manifest_id"], path: "\(path).manifest_id", name: "manifest_id", limits: limits)
        let ttlValue = try readInteger(m["ttl"], path: "\(path).ttl", min: limits.ttlSecondsMin, max: limits.ttlSecondsMax)
        guard let assetsValue = m["assets"] else {
            throw PayloadRejection(path: path, reason: .missingField("assets"))
        }
        guard case .array(let rawAssets) = assetsValue else {
            throw PayloadRejection(path: "\(path).assets", reason: .wrongType(expected: "array", found: assetsValue.typeName))
        }
        if rawAssets.count > limits.assetsMax {
            throw PayloadRejection(path: "\(path).assets", reason: .tooManyElements(count: rawAssets.count, max: limits.assetsMax))
        }
        var canonical = Canonical()
        canonical.line(PreloadKitInfo.signatureVersion)
        canonical.line(PayloadFormat.inlineManifest.canonicalToken)
        canonical.line(manifestID)
        canonical.line(ttlValue.map { "\($0)" } ?? "")
        var assets: [AssetSpec] = []
        assets.reserveCapacity(rawAssets.count)
        for (i, raw) in rawAssets.enumerated() {
            assets.append(try parseAsset(raw, path: "\(path).assets[\(i)]", options: options, canonical: &canonical))
        }
        let replay = try readReplayFields(m, path: path, limits: limits, canonical: &canonical)
        let status = try verify(m["signature"], path: "\(path).signature", canonical: canonical, options: options)
        return (PreStageRequest(
            format: format, manifestID: manifestID,
            manifestTag: tag(format: format == .manifestReference ? .manifestReference : .inlineManifest, text: manifestID),
            ttlSeconds: ttlValue ?? options.defaultTTLSeconds, assets: assets, manifestURL: manifestURL, version: nil,
            hasAlert: flags.hasAlert, mutableContent: flags.mutableContent, contentAvailable: flags.contentAvailable,
            signature: status, assetsKnown: true, replay: replay), canonical)
    }

    static func parseAsset(_ raw: PayloadValue, path: String, options: PayloadOptions, canonical: inout Canonical) throws(PayloadRejection) -> AssetSpec {
        guard case .object = raw else {
            throw PayloadRejection(path: path, reason: .wrongType(expected: "object", found: raw.typeName))
        }
        let limits = options.limits
        let urlText = try readString(raw["url"], path: "\(path).url", name: "url")
        let url = try readURL(urlText, path: "\(path).url", options: options)
        let typeText = try readString(raw["type"], path: "\(path).type", name: "type")
        guard let type = AssetType(payloadToken: typeText) else {
            throw PayloadRejection(path: "\(path).type", reason: .invalidValue(value: typeText, expected: "one of \(AssetType.payloadTokens)"))
        }
        let priorityText = try readString(raw["priority"], path: "\(path).priority", name: "priority")
        guard let priority = AssetPriority(payloadToken: priorityText) else {
            throw PayloadRejection(path: "\(path).priority", reason: .invalidValue(value: priorityText, expected: "one of critical, high, normal, low"))
        }
        let bytes = try readInteger(raw["bytes"], path: "\(path).bytes", min: 1, max: limits.declaredBytesMax)
        canonical.line("\(urlText)|\(typeText)|\(priorityText)|\(bytes.map { "\($0)" } ?? "")")
        var variants: [AssetVariant] = []
        if let rawVariants = raw["variants"] {
            guard case .object(let members) = rawVariants else {
                throw PayloadRejection(path: "\(path).variants", reason: .wrongType(expected: "object", found: rawVariants.typeName))
            }
            if members.count > limits.variantsMax {
                throw PayloadRejection(path: "\(path).variants", reason: .tooManyElements(count: members.count, max: limits.variantsMax))
            }
            var parsed: [(AssetVariant, String)] = []
            for member in members {
                let vpath = "\(path).variants.\(PayloadRejection.clip(member.key))"
                guard let network = NetworkClass(payloadKey: member.key) else {
                    throw PayloadRejection(path: vpath, reason: .invalidValue(value: member.key, expected: "a network key: wifi, 5g, 4g, 3g, 2g, slow-2g"))
                }
                guard case .object = member.value else {
                    throw PayloadRejection(path: vpath, reason: .wrongType(expected: "object", found: member.value.typeName))
                }
                let vURLText = try readString(member.value["url"], path: "\(vpath).url", name: "url")
                let vURL = try readURL(vURLText, path: "\(vpath).url", options: options)
                let vBytes = try readInteger(member.value["bytes"], path: "\(vpath).bytes", min: 1, max: limits.declaredBytesMax)
                let variant = AssetVariant(network: network, url: vURL, key: StoreKey(cacheKey: vURL.cacheKey), declaredBytes: vBytes)
                parsed.append((variant, "+\(member.key)|\(vURLText)|\(vBytes.map { "\($0)" } ?? "")"))
            }
            parsed.sort { $0.0.network.rawValue < $1.0.network.rawValue }
            for (variant, line) in parsed {
                canonical.line(line)
                variants.append(variant)
            }
        }
        return AssetSpec(url: url, key: StoreKey(cacheKey: url.cacheKey), type: type, priority: priority, declaredBytes: bytes, variants: variants)
    }

    static func parseReference(_ m: PayloadValue, path: String, flags: ApsFlags, options: PayloadOptions) throws(PayloadRejection) -> (PreStageRequest, Canonical) {
        let manifestID = try readIdentifier(m["manifest_id"], path: "\(path).manifest_id", name: "manifest_id", limits: options.limits)
        let urlText = try readString(m["manifest_url"], path: "\(path).manifest_url", name: "manifest_url")
        let url = try readURL(urlText, path: "\(path).manifest_url", options: options)
        var canonical = Canonical()
        canonical.line(PreloadKitInfo.signatureVersion)
        canonical.line(PayloadFormat.manifestReference.canonicalToken)
        canonical.line(manifestID)
        canonical.line(urlText)
        let replay = try readReplayFields(m, path: path, limits: options.limits, canonical: &canonical)
        let status = try verify(m["signature"], path: "\(path).signature", canonical: canonical, options: options)
        return (PreStageRequest(
            format: .manifestReference, manifestID: manifestID, manifestTag: tag(format: .manifestReference, text: manifestID),
            ttlSeconds: options.defaultTTLSeconds, assets: [], manifestURL: url, version: nil,
            hasAlert: flags.hasAlert, mutableContent: flags.mutableContent, contentAvailable: flags.contentAvailable,
            signature: status, assetsKnown: false, replay: replay), canonical)
    }

    static func parseSilent(_ p: PayloadValue, flags: ApsFlags, options: PayloadOptions) throws(PayloadRejection) -> (PreStageRequest, Canonical) {
        let urlText = try readString(p["pre_stage_url"], path: "$.pre_stage_url", name: "pre_stage_url")
        let url = try readURL(urlText, path: "$.pre_stage_url", options: options)
        let id = try readIdentifier(p["pre_stage_id"], path: "$.pre_stage_id", name: "pre_stage_id", limits: options.limits)
        var version: String? = nil
        if p["version"] != nil {
            version = try readIdentifier(p["version"], path: "$.version", name: "version", limits: options.limits)
        }
        var type = AssetType.image
        var typeText = ""
        if let rawType = p["pre_stage_type"] {
            typeText = try readString(rawType, path: "$.pre_stage_type", name: "pre_stage_type")
            guard let t = AssetType(payloadToken: typeText) else {
                throw PayloadRejection(path: "$.pre_stage_type", reason: .invalidValue(value: typeText, expected: "one of \(AssetType.payloadTokens)"))
            }
            type = t
        }
        var canonical = Canonical()
        canonical.line(PreloadKitInfo.signatureVersion)
        canonical.line(PayloadFormat.silentPush.canonicalToken)
        canonical.line(id)
        canonical.line(version ?? "")
        canonical.line(urlText)
        canonical.line(typeText)
        return try singleAsset(p, format: .silentPush, manifestID: id, tagText: id, version: version, url: url, type: type,
                               flags: flags, options: options, canonical: canonical)
    }

    static func parseRich(_ p: PayloadValue, flags: ApsFlags, options: PayloadOptions) throws(PayloadRejection) -> (PreStageRequest, Canonical) {
        let urlText = try readString(p["au"], path: "$.au", name: "au")
        let url = try readURL(urlText, path: "$.au", options: options)
        let typeText = try readString(p["at"], path: "$.at", name: "at")
        guard let type = AssetType(payloadToken: typeText), case .exact = type else {
            throw PayloadRejection(path: "$.at", reason: .invalidValue(value: typeText, expected: "one of jpg, jpeg, png, gif, webp, heic, mp4, mp3, m4a, m3u8"))
        }
        var canonical = Canonical()
        canonical.line(PreloadKitInfo.signatureVersion)
        canonical.line(PayloadFormat.richPush.canonicalToken)
        canonical.line(urlText)
        canonical.line(typeText)
        return try singleAsset(p, format: .richPush, manifestID: "", tagText: url.cacheKey, version: nil, url: url, type: type,
                               flags: flags, options: options, canonical: canonical)
    }

    /// The end both one-asset forms share: the replay fields and the signature over `canonical`
    /// (the form's own lines so far), then a request for the one critical asset at `url`, whose
    /// assets are known from the payload alone.
    private static func singleAsset(_ p: PayloadValue, format: PayloadFormat, manifestID: String, tagText: String, version: String?,
                                    url: AssetURL, type: AssetType, flags: ApsFlags, options: PayloadOptions,
                                    canonical: Canonical) throws(PayloadRejection) -> (PreStageRequest, Canonical) {
        var canonical = canonical
        let replay = try readReplayFields(p, path: "$", limits: options.limits, canonical: &canonical)
        let status = try verify(p["signature"], path: "$.signature", canonical: canonical, options: options)
        let asset = AssetSpec(url: url, key: StoreKey(cacheKey: url.cacheKey), type: type, priority: .critical, declaredBytes: nil, variants: [])
        return (PreStageRequest(
            format: format, manifestID: manifestID, manifestTag: tag(format: format, text: tagText),
            ttlSeconds: options.defaultTTLSeconds, assets: [asset], manifestURL: nil, version: version,
            hasAlert: flags.hasAlert, mutableContent: flags.mutableContent, contentAvailable: flags.contentAvailable,
            signature: status, assetsKnown: true, replay: replay), canonical)
    }

    // MARK: - Fields

    static func readString(_ value: PayloadValue?, path: String, name: String) throws(PayloadRejection) -> String {
        guard let value else {
            let parent = path.split(separator: ".").dropLast().joined(separator: ".")
            throw PayloadRejection(path: parent.isEmpty ? "$" : parent, reason: .missingField(name))
        }
        guard case .string(let s) = value else {
            throw PayloadRejection(path: path, reason: .wrongType(expected: "string", found: value.typeName))
        }
        return s
    }

    /// `[A-Za-z0-9._:-]`, 1...identifierBytesMax bytes.
    static func readIdentifier(_ value: PayloadValue?, path: String, name: String, limits: PayloadLimits) throws(PayloadRejection) -> String {
        let s = try readString(value, path: path, name: name)
        let expected = "1...\(limits.identifierBytesMax) characters from A-Z a-z 0-9 . _ : -"
        guard !s.isEmpty, s.utf8.count <= limits.identifierBytesMax else {
            throw PayloadRejection(path: path, reason: .invalidValue(value: s, expected: expected))
        }
        for b in s.utf8 {
            let ok = (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
                || b == UInt8(ascii: ".") || b == UInt8(ascii: "_") || b == UInt8(ascii: ":") || b == UInt8(ascii: "-")
            if !ok { throw PayloadRejection(path: path, reason: .invalidValue(value: s, expected: expected)) }
        }
        return s
    }

    /// An optional integer in `min...max`; nil when absent.
    static func readInteger(_ value: PayloadValue?, path: String, min: Int64, max: Int64) throws(PayloadRejection) -> Int64? {
        guard let value else { return nil }
        switch value {
        case .integer(let i):
            guard i >= min && i <= max else {
                throw PayloadRejection(path: path, reason: .numberOutOfRange(value: "\(i)", min: min, max: max))
            }
            return i
        case .number(let d):
            throw PayloadRejection(path: path, reason: .numberOutOfRange(value: "\(d)", min: min, max: max))
        default:
            throw PayloadRejection(path: path, reason: .wrongType(expected: "integer", found: value.typeName))
        }
    }

    static func readURL(_ text: String, path: String, options: PayloadOptions) throws(PayloadRejection) -> AssetURL {
        do {
            return try AssetURL.parse(text, policy: options.urlPolicy)
        } catch {
            throw PayloadRejection(path: path, reason: .url(error))
        }
    }

    // MARK: - Signature

    struct Canonical {
        var bytes: [UInt8] = []
        mutating func line(_ s: String) {
            bytes.append(contentsOf: s.utf8)
            bytes.append(0x0A)
        }
    }

    static func verify(_ value: PayloadValue?, path: String, canonical: Canonical, options: PayloadOptions) throws(PayloadRejection) -> SignatureStatus {
        if options.signatureRequirement == .none { return .notChecked }
        guard let value else {
            if options.signatureRequirement == .required {
                throw PayloadRejection(path: path, reason: .signatureMissing)
            }
            return .unsigned
        }
        guard case .string(let text) = value else {
            throw PayloadRejection(path: path, reason: .wrongType(expected: "string", found: value.typeName))
        }
        guard let mac = decodeSignature(text) else {
            throw PayloadRejection(path: path, reason: .signatureMalformed(text))
        }
        if options.signingKey.isEmpty {
            throw PayloadRejection(path: path, reason: .signingKeyMissing)
        }
        guard HMACSHA256.isValid(mac: mac, key: options.signingKey, message: canonical.bytes) else {
            throw PayloadRejection(path: path, reason: .signatureMismatch)
        }
        return .verified
    }

    /// `v1=` followed by exactly 64 hex digits (either case) → 32 bytes.
    static func decodeSignature(_ text: String) -> [UInt8]? {
        let u = Array(text.utf8)
        let prefix = Array((PreloadKitInfo.signatureVersion + "=").utf8)
        guard u.count == prefix.count + 64, u.starts(with: prefix) else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(32)
        var i = prefix.count
        while i < u.count {
            guard let hi = hexValue(u[i]), let lo = hexValue(u[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }

    static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return b - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// The `PreStageRequest.manifestTag` of a campaign, for `PreloadStore.purge(manifestTag:)`
    /// when a campaign is cancelled: `manifestID` is the `manifest_id` / `pre_stage_id` (for a
    /// rich push, the attachment URL's `cacheKey`).
    public static func manifestTag(format: PayloadFormat, manifestID: String) -> UInt64 {
        tag(format: format, text: manifestID)
    }

    static func tag(format: PayloadFormat, text: String) -> UInt64 {
        var input = Array(format.canonicalToken.utf8)
        input.append(0x0A)
        input.append(contentsOf: text.utf8)
        let digest = SHA256.hash(input)
        var t: UInt64 = 0
        for i in 0..<8 { t = t << 8 | UInt64(digest[i]) }
        return t
    }
}
