import Foundation
import InfraModel
import PreloadKit

/// An `hls` asset with `variantsKbps`, as the simulated CDN serves it: its URL is a master
/// playlist naming one media playlist per variant (`NAME-vKBPS/index.m3u8`, relative), each
/// listing an initialization section (`#EXT-X-MAP`, `init.mp4`) and `segmentCount` fragmented-MP4
/// segments (`segI.m4s`) of `segmentSeconds`, sized variant bit rate × duration / 8 (the
/// variant's `BANDWIDTH` is its peak rate, so no segment exceeds PreloadKit's bound for it). The
/// playlists are served with their text as the body (`FetchBody.bytes`): PreloadKit reads them and
/// decides, as in an app. With `audioKbps`, the master also names an audio rendition
/// (`NAME-audio/index.m3u8`, the same layout at the audio's bit rate) in every variant's `AUDIO`
/// group. Deterministic: the text is a function of the asset's fields.
extension CampaignPlans {
    /// An initialization section's bytes (ftyp + moov of one H.264/AAC track pair: about a
    /// kilobyte; judgement).
    static let hlsInitBytes: Int64 = 1_000

    /// The master playlist's text for `asset`.
    static func hlsMaster(_ asset: AssetConfig) -> String {
        var s = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-INDEPENDENT-SEGMENTS\n"
        let group = asset.audioKbps == nil ? "" : ",AUDIO=\"audio\""
        if asset.audioKbps != nil {
            s += "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"audio\",NAME=\"main\",DEFAULT=YES,AUTOSELECT=YES,URI=\"\(asset.name)-audio/index.m3u8\"\n"
        }
        for kbps in asset.variantsKbps { s += "#EXT-X-STREAM-INF:BANDWIDTH=\(kbps * 1_000)\(group)\n\(asset.name)-v\(kbps)/index.m3u8\n" }
        return s
    }

    /// A segment's duration, microseconds.
    static func hlsSegmentMicroseconds(_ asset: AssetConfig) -> Int64 { Int64((asset.segmentSeconds * 1e6).rounded()) }

    /// Each variant's media playlist text (the same for every variant: relative URIs).
    static func hlsMedia(_ asset: AssetConfig) -> String {
        let micros = hlsSegmentMicroseconds(asset)
        let fraction = String(micros % 1_000_000)
        let duration = "\(micros / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
        var s = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:\((micros + 999_999) / 1_000_000)\n#EXT-X-MEDIA-SEQUENCE:0\n"
        s += "#EXT-X-MAP:URI=\"init.mp4\"\n"
        for i in 0..<asset.segmentCount { s += "#EXTINF:\(duration),\nseg\(i).m4s\n" }
        return s + "#EXT-X-ENDLIST\n"
    }

    /// A segment's bytes at `kbps`.
    static func hlsSegmentBytes(_ asset: AssetConfig, kbps: Int) -> Int64 {
        max(1, Int64(kbps) * 1_000 * hlsSegmentMicroseconds(asset) / 8_000_000)
    }

    /// The URL of a variant's part (`nil`: its media playlist; 0: the initialization section;
    /// i + 1: segment i) for asset `asset` of `campaign`.
    static func hlsPartURL(campaign: CampaignConfig, asset: AssetConfig, kbps: Int, part: Int?) -> String {
        hlsPartURL(campaign: campaign, asset: asset, rendition: "\(asset.name)-v\(kbps)", part: part)
    }

    /// The URL of the audio rendition's part (as `hlsPartURL(campaign:asset:kbps:part:)`).
    static func hlsAudioPartURL(campaign: CampaignConfig, asset: AssetConfig, part: Int?) -> String {
        hlsPartURL(campaign: campaign, asset: asset, rendition: "\(asset.name)-audio", part: part)
    }

    /// The URL of `rendition`'s part (as `hlsPartURL(campaign:asset:kbps:part:)`); with
    /// `hlsByteRanges` every part but the playlist is the one file `main.mp4`.
    static func hlsPartURL(campaign: CampaignConfig, asset: AssetConfig, rendition: String, part: Int?) -> String {
        let master = url(campaign: campaign.name, asset: asset, network: nil, token: nil)
        let directory = master[..<(master.lastIndex(of: "/").map { master.index(after: $0) } ?? master.endIndex)]
        let file = part.map { asset.hlsByteRanges ? hlsFileName : $0 == 0 ? "init.mp4" : "seg\($0 - 1).m4s" } ?? "index.m3u8"
        return "\(directory)\(rendition)/\(file)"
    }

    /// The response of a playlist: its text as the body.
    static func playlistResponse(_ text: String, cacheControl: String) -> ObjectResponse {
        let body = Array(text.utf8)
        let bytes = Int64(body.count)
        let headers = FetchHeaders(status: 200, cacheControl: cacheControl, contentType: "application/vnd.apple.mpegurl", contentLength: bytes)
        return ObjectResponse(completion: FetchCompletion(headers: headers, bytesReceived: bytes, prefix: Array(body.prefix(16)), body: .bytes(body)),
                              bytes: bytes)
    }

    /// The response of an initialization section (`ftyp`) or a media segment (`styp`).
    static func fragmentResponse(bytes: Int64, initSection: Bool, cacheControl: String) -> ObjectResponse {
        let prefix: [UInt8] = [0x00, 0x00, 0x00, 0x18] + Array((initSection ? "ftypisom" : "stypmsdh").utf8)
        let headers = FetchHeaders(status: 200, cacheControl: cacheControl, contentType: "video/mp4", contentLength: bytes)
        return ObjectResponse(completion: FetchCompletion(headers: headers, bytesReceived: bytes, prefix: prefix), bytes: bytes)
    }

    /// Adds `asset`'s master playlist (its URL's object, `key`), media playlists, initialization
    /// sections and segments to the catalogue and key table; returns their object ids (with
    /// `hlsByteRanges`, each rendition's file instead of its ranges: what a warm call names).
    mutating func addHLSObjects(_ asset: AssetConfig, of campaign: CampaignConfig, c: Int, key: StoreKey, policy: CachePolicy,
                                table: inout [(StoreKey, UInt32)], path: String) throws -> [UInt32] {
        let cacheControl = campaign.cacheControl.headerValue
        var ids: [UInt32] = []
        /// Adds one object (`rangeOf`: a byte range of that file object) under `key` (nil: the
        /// file itself, which no store entry names); returns its id.
        @discardableResult
        func add(_ response: ObjectResponse, kind: MediaKind, key: StoreKey?, rangeOf file: UInt32? = nil) throws -> UInt32 {
            let id: UInt32
            do {
                if let file {
                    id = try catalog.add(rangeOf: file, bytes: response.bytes)
                } else {
                    id = try catalog.add(bytes: response.bytes, policy: policy, surrogateKey: UInt32(c), placeholderEligible: false)
                }
            } catch {
                throw PushModelError(path: path, reason: "\(error)")
            }
            responses.append(response)
            objectCampaign.append(Int32(c))
            objectKind.append(kind)
            if let key { table.append((key, id)) }
            if file == nil { ids.append(id) }
            return id
        }
        /// One rendition (a variant at `kbps`, or the audio): its media playlist, initialization
        /// section and segments, as objects of their own or as byte ranges of one file; `role`
        /// notes each part for the hls.* metrics (nil: not counted).
        func addRendition(_ rendition: String, kbps: Int, role: ((HLSObjectPart.Role) -> HLSObjectPart)?) throws {
            func partKey(_ part: Int?) throws -> StoreKey {
                let cacheKey = try Self.cacheKey(Self.hlsPartURL(campaign: campaign, asset: asset, rendition: rendition, part: part), path: path)
                guard asset.hlsByteRanges, let part else { return StoreKey(cacheKey: cacheKey) }
                return StoreKey(cacheKey: cacheKey, range: Self.hlsPartRange(asset, kbps: kbps, part: part))
            }
            let media = asset.hlsByteRanges ? Self.hlsByteRangeMedia(asset, kbps: kbps) : Self.hlsMedia(asset)
            let playlist = try add(Self.playlistResponse(media, cacheControl: cacheControl), kind: .m3u8, key: try partKey(nil))
            if let role { noteHLSPart(playlist, role(.mediaPlaylist)) }
            var file: UInt32?
            if asset.hlsByteRanges {
                let total = Self.hlsFileBytes(asset, kbps: kbps)
                file = try add(Self.fragmentResponse(bytes: total, initSection: true, cacheControl: cacheControl), kind: .mp4, key: nil)
            }
            for part in 0...asset.segmentCount {
                let bytes = part == 0 ? Self.hlsInitBytes : Self.hlsSegmentBytes(asset, kbps: kbps)
                var response = Self.fragmentResponse(bytes: bytes, initSection: part == 0, cacheControl: cacheControl)
                if file != nil { response = Self.rangeResponse(response, Self.hlsPartRange(asset, kbps: kbps, part: part), fileBytes: Self.hlsFileBytes(asset, kbps: kbps)) }
                let id = try add(response, kind: .mp4, key: try partKey(part), rangeOf: file)
                if let role { noteHLSPart(id, role(part == 0 ? .initSection : .segment)) }
            }
        }
        try add(Self.playlistResponse(Self.hlsMaster(asset), cacheControl: cacheControl), kind: .m3u8, key: key)
        let topKbps = asset.variantsKbps.max()
        for kbps in asset.variantsKbps {
            try addRendition("\(asset.name)-v\(kbps)", kbps: kbps) { HLSObjectPart(role: $0, kbps: Int32(kbps), topVariant: kbps == topKbps) }
        }
        if let audio = asset.audioKbps {
            // The audio rendition: the same layout at its rate (not in `hlsParts`: the hls.* metrics
            // count the video variant's parts).
            try addRendition("\(asset.name)-audio", kbps: audio, role: nil)
        }
        hasHLSPlaylists = true
        return ids
    }

    /// Records object `id` as HLS part `part` (`hlsParts`, grown to hold it).
    mutating func noteHLSPart(_ id: UInt32, _ part: HLSObjectPart) {
        let i = Int(id)
        if hlsParts.count <= i { hlsParts.append(contentsOf: repeatElement(nil, count: i + 1 - hlsParts.count)) }
        hlsParts[i] = part
    }

    /// The HLS part object `id` is, nil for any other object.
    @inline(__always)
    func hlsPart(_ id: UInt32) -> HLSObjectPart? { Int(id) < hlsParts.count ? hlsParts[Int(id)] : nil }

    /// The variant PreloadKit pre-stages on `network` (`HLSPlaylist.chooseVariant` with the HLS
    /// policy's usable rate for the class, the device giving no estimate of its own).
    static func hlsChosenKbps(_ asset: AssetConfig, network: PreloadKit.NetworkClass, hls: HLSPolicy) -> Int {
        let variants = asset.variantsKbps.map { HLSVariant(bandwidthBitsPerSecond: Int64($0) * 1_000, uri: "") }
        let context = DeviceContext(handlerKind: .iOSServiceExtension, network: network, freeStorageBytes: 0, receiptJitterUniform: 0)
        let chosen = HLSPlaylist.chooseVariant(variants, usableBitsPerSecond: hls.usableBitsPerSecond(for: context)) ?? 0
        return asset.variantsKbps[chosen]
    }

    /// The paint set's HLS parts for `campaign`, as inline-manifest asset members: per HLS asset,
    /// the chosen variant's media playlist, initialization section and first `segmentsToPreStage`
    /// segments, each an asset whose per-network `variants` name the part of the variant PreloadKit
    /// chooses on that network (its own URL: the variant chosen on Wi-Fi). A tap paints the video
    /// instantly only when these, and the master playlist, are in the store.
    static func hlsPaintParts(_ campaign: CampaignConfig, hls: HLSPolicy) -> String {
        var members: [String] = []
        for asset in campaign.assets where asset.isHLSPlaylist && asset.priority == .critical {
            // With byte ranges the parts are ranges of one file, which a payload member cannot name
            // (`hlsPaintRanges` lists them): the media playlists only.
            let parts: [Int?] = asset.hlsByteRanges ? [nil] : [nil, 0] + (0..<min(hls.segmentsToPreStage, asset.segmentCount)).map { $0 + 1 }
            let wifi = hlsChosenKbps(asset, network: .wifi, hls: hls)
            for part in parts {
                func bytes(_ kbps: Int) -> Int64 {
                    switch part {
                    case nil: return Int64((asset.hlsByteRanges ? hlsByteRangeMedia(asset, kbps: kbps) : hlsMedia(asset)).utf8.count)
                    case 0: return hlsInitBytes
                    default: return hlsSegmentBytes(asset, kbps: kbps)
                    }
                }
                let type = part == nil ? "hls" : "video"
                var s = #"{"url":"\#(hlsPartURL(campaign: campaign, asset: asset, kbps: wifi, part: part))","type":"\#(type)","#
                s += #""priority":"critical","bytes":\#(bytes(wifi))"#
                var variants: [String] = []
                for key in CampaignPayload.variantNetworkKeys {
                    guard let network = PreloadKit.NetworkClass(payloadKey: key) else { continue }
                    let kbps = hlsChosenKbps(asset, network: network, hls: hls)
                    if kbps == wifi { continue }
                    variants.append(#""\#(key)":{"url":"\#(hlsPartURL(campaign: campaign, asset: asset, kbps: kbps, part: part))","bytes":\#(bytes(kbps))}"#)
                }
                if !variants.isEmpty { s += #","variants":{"# + variants.joined(separator: ",") + "}" }
                members.append(s + "}")
            }
            // The audio rendition's parts: the same on every network.
            if let audio = asset.audioKbps {
                for part in parts {
                    let media = asset.hlsByteRanges ? hlsByteRangeMedia(asset, kbps: audio) : hlsMedia(asset)
                    let bytes = part == nil ? Int64(media.utf8.count) : part == 0 ? hlsInitBytes : hlsSegmentBytes(asset, kbps: audio)
                    members.append(#"{"url":"\#(hlsAudioPartURL(campaign: campaign, asset: asset, part: part))","type":"\#(part == nil ? "hls" : "video")","#
                                   + #""priority":"critical","bytes":\#(bytes)}"#)
                }
            }
        }
        return members.joined(separator: ",")
    }
}

/// What an object of an HLS playlist is: a variant's media playlist, initialization section or
/// segment, at the variant's bit rate.
struct HLSObjectPart: Sendable, Equatable {
    enum Role: UInt8, Sendable { case mediaPlaylist, initSection, segment }
    let role: Role
    /// The variant's `BANDWIDTH`, kbit/s.
    let kbps: Int32
    /// The variant is the master playlist's highest.
    let topVariant: Bool
}
