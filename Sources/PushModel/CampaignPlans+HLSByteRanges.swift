import InfraModel
import PreloadKit

/// An HLS asset with `hlsByteRanges`: each rendition (variant, audio) is one fragmented-MP4 file,
/// `NAME-vKBPS/main.mp4`, of the initialization section then `segmentCount` segments, and its
/// media playlist addresses the parts by byte range (`#EXT-X-MAP` `BYTERANGE`, the first segment's
/// `#EXT-X-BYTERANGE:<n>@<o>`, the next ones' `<n>` with the offset implied, RFC 8216 §4.3.2.2), as
/// Apple's `mediafilesegmenter -single-file` writes it. The file is one CDN object; each part is a
/// range of it (`ObjectCatalog.add(rangeOf:bytes:)`), answered 206 with its `Content-Range`, and
/// stored by PreloadKit under `StoreKey(cacheKey:range:)`.
extension CampaignPlans {
    /// The file each rendition's parts are ranges of.
    static let hlsFileName = "main.mp4"

    /// Part `part`'s range of the rendition at `kbps` (0: the initialization section; i + 1: segment i).
    static func hlsPartRange(_ asset: AssetConfig, kbps: Int, part: Int) -> ByteRange {
        let segment = hlsSegmentBytes(asset, kbps: kbps)
        let range = part == 0 ? ByteRange(offset: 0, length: hlsInitBytes)
            : ByteRange(offset: hlsInitBytes + Int64(part - 1) * segment, length: segment)
        // Bounded by the decoder: 1 000 segments of at most 100 Mbit/s × 60 s / 8 are far below 2^50.
        guard let range else { preconditionFailure("an HLS part's range is within ByteRange's bounds") }
        return range
    }

    /// The rendition's file: its initialization section and every segment.
    static func hlsFileBytes(_ asset: AssetConfig, kbps: Int) -> Int64 {
        hlsInitBytes + Int64(asset.segmentCount) * hlsSegmentBytes(asset, kbps: kbps)
    }

    /// The rendition's media playlist text with byte ranges (its sizes make it differ per rendition).
    static func hlsByteRangeMedia(_ asset: AssetConfig, kbps: Int) -> String {
        let micros = hlsSegmentMicroseconds(asset)
        let fraction = String(micros % 1_000_000)
        let duration = "\(micros / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
        let segment = hlsSegmentBytes(asset, kbps: kbps)
        var s = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:\((micros + 999_999) / 1_000_000)\n#EXT-X-MEDIA-SEQUENCE:0\n"
        s += "#EXT-X-MAP:URI=\"\(hlsFileName)\",BYTERANGE=\"\(hlsInitBytes)@0\"\n"
        for i in 0..<asset.segmentCount {
            s += "#EXTINF:\(duration),\n#EXT-X-BYTERANGE:\(segment)" + (i == 0 ? "@\(hlsInitBytes)" : "") + "\n\(hlsFileName)\n"
        }
        return s + "#EXT-X-ENDLIST\n"
    }

    /// `response` (a part's 200) as the 206 answering `range` of a file of `fileBytes`.
    static func rangeResponse(_ response: ObjectResponse, _ range: ByteRange, fileBytes: Int64) -> ObjectResponse {
        var completion = response.completion
        completion.headers.status = 206
        completion.headers.contentRange = ContentRange(first: range.offset, last: range.lastByte, completeLength: fileBytes)
        return ObjectResponse(completion: completion, bytes: response.bytes)
    }

    /// The paint set's byte-range parts of `campaign` on `network`: the keys and ranges of the initialization section and first `segmentsToPreStage` segments of the
    /// variant chosen on that network, then the audio rendition's. The app's player asks the store
    /// for these ranges of the files its playlists name (the paint set's payload form can name URLs
    /// only, so they are listed here, after its members).
    static func hlsPaintRanges(_ campaign: CampaignConfig, network: PKNetworkClass, hls: HLSPolicy,
                               path: String) throws -> [(key: StoreKey, range: ByteRange)] {
            var keys: [(key: StoreKey, range: ByteRange)] = []
            for asset in campaign.assets where asset.isHLSPlaylist && asset.hlsByteRanges && asset.priority == .critical {
                let parts = 0...min(hls.segmentsToPreStage, asset.segmentCount)
                var renditions = [("\(asset.name)-v\(hlsChosenKbps(asset, network: network, hls: hls))", hlsChosenKbps(asset, network: network, hls: hls))]
                if let audio = asset.audioKbps { renditions.append(("\(asset.name)-audio", audio)) }
                for (rendition, kbps) in renditions {
                    let cacheKey = try Self.cacheKey(hlsPartURL(campaign: campaign, asset: asset, rendition: rendition, part: 0), path: path)
                    for part in parts {
                        let range = hlsPartRange(asset, kbps: kbps, part: part)
                        keys.append((StoreKey(cacheKey: cacheKey, range: range), range))
                    }
                }
            }
            return keys
    }
}
