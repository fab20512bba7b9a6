/// How a pre-stage treats an HLS asset (`type: "hls"`, a playlist). Off by default: the
/// playlist is then one object like any other asset.
///
/// On, the session reads the playlist it fetched (the driver hands it the body, see
/// `FetchRequest.returnsBody`): for a master playlist it picks the variant the network allows
/// (`HLSPlaylist.chooseVariant` with `usableBitsPerSecond(for:)`) and fetches that variant's
/// media playlist, and the media playlist of the audio rendition the variant plays with
/// (`#EXT-X-MEDIA:TYPE=AUDIO` in its `AUDIO` group, the group's `DEFAULT=YES` one, else its
/// first); for a media playlist it fetches the initialization section (`#EXT-X-MAP`), if
/// any, and the first `segmentsToPreStage` segments, in order (a part addressed by byte range,
/// `#EXT-X-BYTERANGE` or `#EXT-X-MAP` `BYTERANGE`, is fetched with `FetchRequest.range` and stored
/// under `AssetURL.storeKey(range:)`). Every derived fetch passes the
/// same gates as an asset (network, Low Data Mode, Save-Data, storage, metered budget, decision
/// kind) and the same deadline, and is one more selected part of the push: a tap paints the
/// asset instantly only when the playlist(s), the initialization section and the first segments
/// are all in the store.
public struct HLSPolicy: Sendable, Equatable {
    /// Read playlists and pre-stage their first segments. Default false (judgement: an app opts
    /// in; a playlist alone then stays one object, as before).
    public var isEnabled: Bool = false
    /// Segments pre-staged after the playlist. Default 1: Apple's HLS Authoring Specification
    /// recommends a 6-second target duration, so one segment is the first ~6 s of playback.
    /// 1...16.
    public var segmentsToPreStage: Int = 1
    /// Most variants a master playlist may list. Default 32 (judgement: Apple's authoring
    /// examples ladder 9-12 video variants; several codecs double that). 1...256.
    public var variantsMax: Int = 32
    /// Largest playlist read, bytes; a playlist fetch's byte limit. Default 256 KiB (judgement: a
    /// 2-hour video-on-demand media playlist at 6-s segments is 1 200 entries, ~200 bytes each
    /// with signed URIs). 1...4 MiB.
    public var playlistBytesMax: Int = 262_144
    /// Largest initialization section (`#EXT-X-MAP`) fetched, bytes; its fetch's byte limit, and
    /// what it reserves of a metered budget while it runs (a playlist gives no size). Default
    /// 64 KiB (judgement: an fMP4 `ftyp` + `moov` for a video and an audio track is 1-3 KB;
    /// DRM `pssh` boxes add a few more). 1...4 MiB.
    public var initSectionBytesMax: Int = 65_536
    /// The highest bit rate assumed for an audio rendition, bits per second: its segments' size
    /// bound (duration × the lower of this and the variant's `BANDWIDTH`, which RFC 8216 §4.3.4.2
    /// makes cover audio and video together), since `#EXT-X-MEDIA` states no rate of its own.
    /// Default 640 000: AC-3 5.1's highest rate (ETSI TS 102 366, as AWS MediaConvert lists it);
    /// stereo AAC and AC-3 stay below it. Without a bound a metered budget cannot admit the segments.
    public var audioBitsPerSecondMax: Int64 = 640_000
    /// The share of the throughput a variant's `BANDWIDTH` may use, percent. Default 80
    /// (judgement; players leave headroom the same way, e.g. hls.js' default
    /// `abrBandWidthFactor` 0.95 and `abrBandWidthUpFactor` 0.7). 1...100.
    public var bandwidthSharePercent: Int = 80
    /// Throughput assumed per network class when the device gives no estimate
    /// (`DeviceContext.estimatedThroughputBitsPerSecond`). 3G 700 kbit/s is the Network
    /// Information API's `effectiveType` "3g" ceiling (WICG netinfo); the Wi-Fi, 5G and 4G values
    /// are judgement (conservative medians, so the variant fits most links of the class).
    public var wifiBitsPerSecond: Int64 = 20_000_000
    public var cellular5GBitsPerSecond: Int64 = 20_000_000
    public var cellular4GBitsPerSecond: Int64 = 5_000_000
    public var cellular3GBitsPerSecond: Int64 = 700_000

    public init() {}

    /// The throughput assumed on `network` (0 where pre-staging never fetches).
    public func assumedBitsPerSecond(_ network: NetworkClass) -> Int64 {
        switch network {
        case .wifi: return wifiBitsPerSecond
        case .cellular5G: return cellular5GBitsPerSecond
        case .cellular4G: return cellular4GBitsPerSecond
        case .cellular3G: return cellular3GBitsPerSecond
        case .cellular2G, .slow2G, .offline: return 0
        }
    }

    /// The bit rate a variant may have on `context`'s link: the device's estimate (else the
    /// class's assumption) times `bandwidthSharePercent`.
    public func usableBitsPerSecond(for context: DeviceContext) -> Int64 {
        let throughput = context.estimatedThroughputBitsPerSecond ?? assumedBitsPerSecond(context.network)
        return throughput / 100 * Int64(bandwidthSharePercent)
    }

    func validate() throws(PolicyError) {
        func need(_ ok: Bool, _ field: String, _ value: Int64, _ expected: String) throws(PolicyError) {
            if !ok { throw PolicyError(field: "hls.\(field)", value: "\(value)", expected: expected, knob: .hls) }
        }
        try need(segmentsToPreStage >= 1 && segmentsToPreStage <= 16, "segmentsToPreStage", Int64(segmentsToPreStage), "1...16")
        try need(variantsMax >= 1 && variantsMax <= 256, "variantsMax", Int64(variantsMax), "1...256")
        try need(playlistBytesMax >= 1 && playlistBytesMax <= 4_194_304, "playlistBytesMax", Int64(playlistBytesMax), "1...4194304")
        try need(initSectionBytesMax >= 1 && initSectionBytesMax <= 4_194_304, "initSectionBytesMax", Int64(initSectionBytesMax), "1...4194304")
        try need(bandwidthSharePercent >= 1 && bandwidthSharePercent <= 100, "bandwidthSharePercent", Int64(bandwidthSharePercent), "1...100")
        try need(audioBitsPerSecondMax >= 1 && audioBitsPerSecondMax <= HLSPlaylist.bandwidthBitsPerSecondMax, "audioBitsPerSecondMax",
                 audioBitsPerSecondMax, "1...\(HLSPlaylist.bandwidthBitsPerSecondMax)")
        for (name, value) in [("wifiBitsPerSecond", wifiBitsPerSecond), ("cellular5GBitsPerSecond", cellular5GBitsPerSecond),
                              ("cellular4GBitsPerSecond", cellular4GBitsPerSecond), ("cellular3GBitsPerSecond", cellular3GBitsPerSecond)] {
            try need(value >= 0 && value <= HLSPlaylist.bandwidthBitsPerSecondMax, name, value, "0...\(HLSPlaylist.bandwidthBitsPerSecondMax)")
        }
    }
}
