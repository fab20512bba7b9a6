import Foundation
import InfraModel
import PreloadKit

/// What the simulated CDN returns for one object: response headers, size and the first body
/// bytes (so PreloadKit's MIME + magic-byte checks run on real values).
struct ObjectResponse {
    var completion: FetchCompletion
    var bytes: Int64
}

/// Everything derived once per run from the campaign configs: the InfraModel object catalogue,
/// the URL → object table, each push's parsed `PreStageRequest` (parsed ONCE from signed JSON by
/// `PayloadParser`, shared by every device) and each campaign's critical assets per network.
struct CampaignPlans {
    /// Host of every simulated asset URL.
    static let cdnHost = "cdn.example.com"
    /// HMAC key shared by the simulated campaign service and app.
    static let signingKey: [UInt8] = Array("prestage-simulated-campaign-key".utf8)

    var catalog = ObjectCatalog()
    /// Sorted store keys of every asset URL (main and variants) and their object ids.
    var keys: [StoreKey] = []
    var keyObjects: [UInt32] = []
    /// Indexed by object id: the response, the campaign (-1 for token endpoints) and the media
    /// kind PreloadKit establishes from the response.
    var responses: [ObjectResponse] = []
    var objectCampaign: [Int32] = []
    var objectKind: [MediaKind] = []
    /// `requests[c][part]`: the parsed request of campaign c's push `part`.
    var requests: [[PreStageRequest]] = []
    /// Objects of campaign c (main URLs and variants), for warming.
    var warmObjects: [[UInt32]] = []
    /// Token-refresh endpoint object of campaign c (uncacheable, served by the origin).
    var tokenObject: [UInt32] = []
    /// `critical[c]`: for each PreloadKit network class (raw value) the critical assets' keys and
    /// objects, `criticalCount[c]` per class, flattened as `class * count + i`.
    var criticalKeys: [[StoreKey]] = []
    /// Each campaign's whole payload (every asset, as one push): what the app screen a tap opens
    /// needs is PreloadKit's `PreloadStore.paintSetAnswer` over it.
    var paintRequests: [PreStageRequest] = []
    var criticalObjects: [[UInt32]] = []
    /// Laid out as `criticalKeys`: the byte range a paint-set key names (an HLS part of a
    /// single-file rendition, `CampaignPlans+HLSByteRanges.swift`), nil for a payload member.
    var criticalRanges: [[ByteRange?]] = []
    /// Per campaign: of `criticalCount[c]`, the byte-range parts, listed after the payload's members.
    var paintRangeCount: [Int] = []
    var criticalCount: [Int] = []
    var payloadOptions: PayloadOptions
    /// Per campaign: the encoded bytes of its largest push (the signed JSON the provider carries).
    var pushBytes: [Int] = []
    /// Per campaign: its referenced manifest's object (`UInt32.max`: the campaign's pushes carry
    /// no manifest reference).
    var manifestObject: [UInt32] = []
    /// Per campaign: the request whose TTL and manifest tag the stored entries carry (the push's;
    /// for a manifest by reference, the fetched manifest's).
    var entryRequests: [PreStageRequest] = []
    // decision kinds
    /// `hinted[c][part][percent]`: the push carrying open-probability hint `percent`
    /// (`CampaignPlans+Hints.swift`); empty without `users.openHint`.
    var hinted: [[[PreStageRequest]]] = []
    /// Some asset is an HLS playlist of variants (`CampaignPlans+HLS.swift`): the app reads
    /// playlists (`PreloadPolicy.hls`).
    var hasHLSPlaylists = false
    /// Indexed by object id (up to the last HLS part): what an HLS playlist's part (media
    /// playlist, initialization section, segment) is, nil for any other object; for the `hls.*`
    /// metrics (`CampaignPlans+HLS.swift`). Empty without a playlist of variants.
    var hlsParts: [HLSObjectPart?] = []

    /// Per campaign: each calendar wave's send instant, seconds, ascending (one, `sendStartSeconds`,
    /// without a calendar). Each wave's pushes are signed with that wave's `exp`.
    var waveStartSeconds: [[Double]] = []
    /// `laterWaves[c][k - 1][part]`: campaign c's push `part` as signed for its wave k ≥ 1 (its
    /// own `exp`); empty for a campaign with one wave. Only its expiry is read.
    var laterWaves: [[[PreStageRequest]]] = []

    /// `waveStartSeconds`: per campaign, its waves' send instants (`CalendarRules.waves`); nil:
    /// each campaign's one send at `sendStartSeconds`.
    init(campaigns: [CampaignConfig], waveStartSeconds waves: [[Double]]? = nil,
         hlsSegmentsToPreStage: Int = HLSPolicy().segmentsToPreStage) throws {
        waveStartSeconds = campaigns.indices.map { c in
            guard let starts = waves?[c], !starts.isEmpty else { return [campaigns[c].sendStartSeconds] }
            return starts
        }
        var hls = HLSPolicy()
        hls.isEnabled = true
        hls.segmentsToPreStage = hlsSegmentsToPreStage
        let urlPolicy = URLPolicy(allowlist: [CampaignPlans.cdnHost])
        payloadOptions = PayloadOptions(urlPolicy: urlPolicy, signingKey: CampaignPlans.signingKey, signatureRequirement: .required)
        // A whole campaign as one manifest (the paint set, a referenced manifest) is bounded by
        // PreloadKit's manifest limit, not by a push's.
        var manifestOptions = payloadOptions
        manifestOptions.limits.documentBytesMax = CampaignPlans.manifestBytesMax
        var table: [(StoreKey, UInt32)] = []
        // The object of each asset URL so far, for an asset naming an earlier campaign's URL
        // (`AssetConfig.urlCampaign`); looked up only, never iterated.
        var objectOfKey: [StoreKey: UInt32] = [:]
        for (c, campaign) in campaigns.enumerated() {
            let path = "campaigns[\(c)]"
            let policy = CachePolicy(maxAgeSeconds: Double(campaign.cacheControl.maxAgeSeconds),
                                     staleWhileRevalidateSeconds: Double(campaign.cacheControl.staleWhileRevalidateSeconds),
                                     staleIfErrorSeconds: Double(campaign.cacheControl.staleIfErrorSeconds))
            var objects: [UInt32] = []
            for (a, asset) in campaign.assets.enumerated() {
                for (variantIndex, bytes) in ([asset.bytes] + asset.variants.map(\.bytes)).enumerated() {
                    let network = variantIndex == 0 ? nil : asset.variants[variantIndex - 1].network
                    let url = CampaignPlans.url(campaign: campaign.name, asset: asset, network: network, token: nil)
                    let key = StoreKey(cacheKey: try CampaignPlans.cacheKey(url, path: "\(path).assets[\(a)]"))
                    if asset.isHLSPlaylist {
                        objects += try addHLSObjects(asset, of: campaign, c: c, key: key, policy: policy, table: &table, path: "\(path).assets[\(a)]")
                        continue
                    }
                    if asset.urlCampaign != nil, let shared = objectOfKey[key] {
                        guard catalog.bytes[Int(shared)] == bytes, objectKind[Int(shared)] == CampaignPlans.mediaKind(asset.type) else {
                            throw PushModelError(path: "\(path).assets[\(a)]", reason: "expected the type and bytes of campaign \(asset.urlCampaign ?? "")'s asset \(asset.name) whose URL it names")
                        }
                        objects.append(shared)
                        continue
                    }
                    let id: UInt32
                    do {
                        // The placeholder is an image: it stands in for image assets only.
                        id = try catalog.add(bytes: bytes, policy: policy, surrogateKey: UInt32(c), placeholderEligible: asset.type == .image)
                    } catch {
                        throw PushModelError(path: "\(path).assets[\(a)]", reason: "\(error)")
                    }
                    objects.append(id)
                    responses.append(CampaignPlans.response(type: asset.type, bytes: bytes, cacheControl: campaign.cacheControl.headerValue))
                    objectCampaign.append(Int32(c))
                    objectKind.append(CampaignPlans.mediaKind(asset.type))
                    table.append((key, id))
                    objectOfKey[key] = id
                }
            }
            warmObjects.append(objects)
            do {
                let token = try catalog.add(bytes: 512, policy: CachePolicy(maxAgeSeconds: 0, staleWhileRevalidateSeconds: 0))
                tokenObject.append(token)
                responses.append(CampaignPlans.response(type: .json, bytes: 512, cacheControl: "no-store"))
                objectCampaign.append(-1)
                objectKind.append(.json)
            } catch {
                throw PushModelError(path: path, reason: "\(error)")
            }

            // Payloads: one push with every asset, or one silent push per asset (carousel), in
            // the campaign's payload form; a manifest by reference adds its manifest object.
            try CampaignPlans.checkPayloadForm(campaign, path: path)
            var byWave: [[PreStageRequest]] = []
            var largestPushBytes = 0
            let groups: [[Int]] = campaign.carouselIntervalSeconds == nil ? [Array(campaign.assets.indices)] : campaign.assets.indices.map { [$0] }
            for send in waveStartSeconds[c] {
                var parts: [PreStageRequest] = []
                for (part, group) in groups.enumerated() {
                    let push = try CampaignPlans.parsedPush(campaign, assets: group, silent: campaign.iosPush == .silent || groups.count > 1,
                                                            expirySeconds: CampaignPlans.expirySeconds(campaign, part: part, sendSeconds: send),
                                                            options: payloadOptions, path: path)
                    parts.append(push.request)
                    largestPushBytes = max(largestPushBytes, push.bytes)
                }
                byWave.append(parts)
            }
            let parts = byWave[0]
            requests.append(parts)
            laterWaves.append(Array(byWave.dropFirst()))
            pushBytes.append(largestPushBytes)
            try addReferencedManifest(c, campaign, push: parts[0], policy: policy, path: path)

            // The paint set of a tap: every critical asset of the campaign, i.e. what the app's
            // screen needs to paint, resolved per network class by PreloadKit's own variant rule
            // (`AssetSpec.resolved(for:)`). It is deliberately not PreloadKit's pre-stage selection
            // (`criticalAssetsMax`, silent-push limit): an asset the policy did not pre-stage is
            // still needed on screen and is fetched in the foreground. Which of them are ready is
            // PreloadKit's answer (`PreloadStore.paintSetAnswer` over `paintRequests[c]`, in this
            // order); the keys and objects here map its answer to foreground fetches.
            let whole = try CampaignPlans.parsedPayload(campaign, assets: Array(campaign.assets.indices), silent: false,
                                                        expirySeconds: nil, options: manifestOptions, path: path,
                                                        extraAssets: CampaignPlans.hlsPaintParts(campaign, hls: hls))
            var ks: [StoreKey] = []
            var os: [UInt32] = []
            var rs: [ByteRange?] = []
            var rangeCount = 0
            let critical = whole.assets.filter { $0.priority == .critical }
            for n in PKNetworkClass.allCases {
                for spec in critical {
                    ks.append(spec.resolved(for: n).key)
                    os.append(0) // filled below from the key table
                    rs.append(nil)
                }
                let ranged = try CampaignPlans.hlsPaintRanges(campaign, network: n, hls: hls, path: path)
                for part in ranged {
                    ks.append(part.key)
                    os.append(0)
                    rs.append(part.range)
                }
                rangeCount = ranged.count  // the same on every network (the parts of one chosen variant)
            }
            paintRequests.append(whole)
            criticalKeys.append(ks)
            criticalObjects.append(os)
            criticalRanges.append(rs)
            paintRangeCount.append(rangeCount)
            criticalCount.append(critical.count + rangeCount)
        }
        table.sort { $0.0 < $1.0 }
        for i in 1..<max(1, table.count) where table[i].0 == table[i - 1].0 {
            throw PushModelError(path: "campaigns", reason: "two asset URLs share the store key \(table[i].0); expected distinct campaign/asset names")
        }
        keys = table.map(\.0)
        keyObjects = table.map(\.1)
        for c in criticalKeys.indices {
            for i in criticalKeys[c].indices {
                guard let o = object(for: criticalKeys[c][i]) else {
                    throw PushModelError(path: "campaigns[\(c)]", reason: "critical asset key \(criticalKeys[c][i]) has no object")
                }
                criticalObjects[c][i] = o
            }
        }
    }

    /// The index of `key` in the sorted key table.
    /// - Complexity: O(log objects); no allocation.
    @inline(__always)
    func keyIndex(of key: StoreKey) -> Int? {
        var lo = 0, hi = keys.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if keys[mid] < key { lo = mid + 1 } else { hi = mid }
        }
        return lo < keys.count && keys[lo] == key ? lo : nil
    }

    /// The object id of an asset URL's store key.
    /// - Complexity: O(log objects); no allocation.
    @inline(__always)
    func object(for key: StoreKey) -> UInt32? {
        guard let i = keyIndex(of: key) else { return nil }
        return keyObjects[i]
    }

    /// Whether campaign `c`'s push `part` may still be acted on at `now` (microseconds of virtual
    /// time): PreloadKit's `PayloadParser.checkExpiry` on its signed `exp`, as a device does at
    /// each delivery.
    /// - Complexity: O(1); no allocation unless refused.
    func payloadUsable(campaign c: Int, part: Int, wave: Int, now: Int64) -> Bool {
        let push = wave > 0 ? laterWaves[c][wave - 1][part] : requests[c][part]
        do {
            try PayloadParser.checkExpiry(of: push, now: Instant(microseconds: now), options: payloadOptions)
            return true
        } catch {
            return false
        }
    }

    // MARK: - Payload construction

    /// The `exp` the campaign service signs push `part` of `campaign` with for the send (a wave)
    /// starting at `sendSeconds`: whole seconds of virtual time, the part's first send instant in
    /// that send plus the payload lifetime. Each calendar wave is signed when it is sent, so a
    /// wave hours after the first has its own lifetime.
    static func expirySeconds(_ campaign: CampaignConfig, part: Int, sendSeconds: Double) -> Int64 {
        let send = sendSeconds + Double(part) * (campaign.carouselIntervalSeconds ?? 0)
        return Int64((send + campaign.effectivePayloadLifetimeSeconds).rounded(.down))
    }

    static func url(campaign: String, asset: AssetConfig, network: String?, token: String?) -> String {
        let query = token.map { "?token=\($0)" } ?? ""
        return "https://\(cdnHost)" + CampaignPayload.path(campaign: campaign, asset: asset, network: network) + query
    }

    static func cacheKey(_ url: String, path: String) throws -> String {
        do {
            return try AssetURL.parse(url, policy: URLPolicy(allowlist: [cdnHost])).cacheKey
        } catch {
            throw PushModelError(path: path, reason: "asset URL \(url) refused: \(error)")
        }
    }

    /// A signed inline-manifest payload for `assets` of `campaign`, parsed by `PayloadParser`,
    /// bound to the campaign (`campaign_id`) and, with `expirySeconds`, expiring then (`exp`).
    static func parsedPayload(_ campaign: CampaignConfig, assets: [Int], silent: Bool, expirySeconds: Int64?, options: PayloadOptions,
                              path: String, extraAssets: String = "") throws -> PreStageRequest {
        let document = CampaignPayload.pushDocument(campaign, form: .inline, assets: assets, silent: silent, expirySeconds: expirySeconds,
                                                    extraAssets: extraAssets, url: assetURL(campaign))
        return try parse(document, options: options, path: path)
    }

    /// `document` signed and parsed by `PayloadParser`.
    static func parse(_ document: CampaignPayload.Document, options: PayloadOptions, path: String) throws -> PreStageRequest {
        do {
            return try PayloadParser.parse(json: try CampaignPayload.signed(document, options: options), options: options)
        } catch {
            throw PushModelError(path: path, reason: "PreloadKit refused the campaign payload: \(error)")
        }
    }

    /// The URLs the campaign service puts in `campaign`'s payloads (token `t1`).
    static func assetURL(_ campaign: CampaignConfig) -> (AssetConfig, String?) -> String {
        { asset, network in url(campaign: campaign.name, asset: asset, network: network, token: "t1") }
    }

    /// The media kind of the bytes the simulated CDN serves for `type` (see `response`).
    static func mediaKind(_ t: AssetTypeConfig) -> MediaKind {
        switch t {
        case .image: return .jpeg
        case .video: return .mp4
        case .audio: return .mp3
        case .hls: return .m3u8
        case .json: return .json
        }
    }

    static func response(type: AssetTypeConfig, bytes: Int64, cacheControl: String) -> ObjectResponse {
        let (contentType, prefix) = CampaignPayload.media(type)
        let headers = FetchHeaders(status: 200, cacheControl: cacheControl, contentType: contentType, contentLength: bytes)
        return ObjectResponse(completion: FetchCompletion(headers: headers, bytesReceived: bytes, prefix: prefix), bytes: bytes)
    }
}
