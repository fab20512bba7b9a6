/// HLS assets read under `PreloadPolicy.hls`: a playlist that arrived is parsed and its variant
/// chosen before it is stored (`planHLS`, a refusal names the problem); once stored, the parts it
/// leads to become slots after it (`addHLSParts`): the chosen variant's media playlist and that of
/// the audio rendition it plays with (`HLSPlaylist.audioRendition`), or a media playlist's
/// initialization section and first segments, in playback order, so the fetch queue starts them
/// in that order. The parts pass the asset gates like any selected asset (`addSlot`), and a tap
/// answer counts each one. A part addressed by byte range (`#EXT-X-BYTERANGE`, an `#EXT-X-MAP`
/// `BYTERANGE`) is fetched with that range and stored under `AssetURL.storeKey(range:)`, its
/// exact length its declared size; consecutive ranges of one file are not coalesced into one
/// request (each is its own store entry, answered and refused on its own).
extension PreloadSession {
    /// A slot's part in an HLS asset the session reads.
    enum HLSPart: UInt8 {
        /// Not read (any asset, or a playlist while `PreloadPolicy.hls` is off).
        case none
        /// The asset's playlist: a master or a media playlist.
        case playlist
        /// The media playlist of the variant chosen from a master playlist.
        case variantPlaylist
        /// An initialization section or a segment.
        case segment

        /// The session reads the body (`FetchRequest.returnsBody`).
        var readsBody: Bool { self == .playlist || self == .variantPlaylist }
    }

    /// One part a playlist leads to.
    struct HLSPlannedPart {
        let url: AssetURL
        let type: AssetType
        let declaredBytes: Int64?
        /// The byte limit's bound (playlists: `playlistBytesMax`; initialization sections: `initSectionBytesMax`).
        let limitMax: Int64
        let part: HLSPart
        let bandwidth: Int64
        /// The sub-range of `url` (nil: the whole resource).
        var range: ByteRange? = nil
    }

    /// What stored playlist slot `slotIndex` (body `body`) leads to.
    /// - Throws: `HLSRejection` for a malformed playlist, a limit, a URI that is not an acceptable
    ///   asset URL, or a master playlist where a variant's media playlist was expected.
    mutating func planHLS(_ slotIndex: Int, _ body: [UInt8]) throws(HLSRejection) -> [HLSPlannedPart] {
        let hls = policy.hls
        let part = slots[slotIndex].hls
        let playlist = try HLSPlaylist.parse(body, segmentsWanted: hls.segmentsToPreStage, variantsMax: hls.variantsMax,
                                             playlistBytesMax: hls.playlistBytesMax)
        let base = slots[slotIndex].url
        let urlPolicy = policy.manifestOptions.urlPolicy
        func url(_ uri: String) throws(HLSRejection) -> AssetURL {
            do throws(URLRejection) {
                return try AssetURL.parse(HLSPlaylist.resolve(uri, against: base), policy: urlPolicy)
            } catch {
                throw .uri(error)
            }
        }
        switch playlist {
        case .master(let variants, let audio):
            guard part == .playlist else { throw .nestedMaster }
            guard let context,
                  let chosen = HLSPlaylist.chooseVariant(variants, usableBitsPerSecond: hls.usableBitsPerSecond(for: context)) else { return [] }
            var parts = [HLSPlannedPart(url: try url(variants[chosen].uri), type: .playlist, declaredBytes: nil,
                                        limitMax: Int64(hls.playlistBytesMax), part: .variantPlaylist, bandwidth: variants[chosen].bandwidthBitsPerSecond)]
            // The audio the variant plays with, when it has a playlist of its own: playback needs
            // its first segments as much as the video's (bounded by `audioBitsPerSecondMax`).
            if let a = HLSPlaylist.audioRendition(for: variants[chosen], in: audio) {
                parts.append(HLSPlannedPart(url: try url(audio[a].uri), type: .playlist, declaredBytes: nil,
                                            limitMax: Int64(hls.playlistBytesMax), part: .variantPlaylist,
                                            bandwidth: min(variants[chosen].bandwidthBitsPerSecond, hls.audioBitsPerSecondMax)))
            }
            return parts
        case .media(let initURI, let initRange, let segments):
            let bandwidth = slots[slotIndex].hlsBandwidth
            var parts: [HLSPlannedPart] = []
            parts.reserveCapacity(segments.count + 1)
            if let initURI {
                // An initialization section (ftyp + moov) is a few kilobytes: `initSectionBytesMax` bounds it
                // (a sub-range declares its exact length; one over the bound is refused at its headers).
                parts.append(HLSPlannedPart(url: try url(initURI), type: .hlsSegment, declaredBytes: initRange?.length,
                                            limitMax: Int64(hls.initSectionBytesMax), part: .segment, bandwidth: 0, range: initRange))
            }
            for s in segments {
                let bound = Self.segmentBytesMax(bandwidth: bandwidth, durationMicroseconds: s.durationMicroseconds)
                if let range = s.range {
                    // The exact length is declared; the variant's bound still caps the fetch.
                    parts.append(HLSPlannedPart(url: try url(s.uri), type: .hlsSegment, declaredBytes: range.length,
                                                limitMax: bound ?? .max, part: .segment, bandwidth: 0, range: range))
                } else {
                    parts.append(HLSPlannedPart(url: try url(s.uri), type: .hlsSegment, declaredBytes: bound,
                                                limitMax: .max, part: .segment, bandwidth: 0))
                }
            }
            return parts
        }
    }

    /// The most bytes a segment of `durationMicroseconds` can hold in a variant of `bandwidth`
    /// bits/s (`BANDWIDTH` is the peak segment bit rate, RFC 8216 §4.3.4.2), rounded up; nil
    /// when the bandwidth is unknown (a media playlist pushed directly).
    static func segmentBytesMax(bandwidth: Int64, durationMicroseconds: Int64) -> Int64? {
        guard bandwidth > 0 else { return nil }
        // Both factors are bounded (10 Gbit/s, one hour): bits = bw × µs / 10⁶ fits in Int64 after
        // dividing first by 1 000 twice with round-up.
        let (product, overflow) = bandwidth.multipliedReportingOverflow(by: durationMicroseconds)
        if !overflow { return (product + 7_999_999) / 8_000_000 }
        return (bandwidth / 1_000 + 1) * ((durationMicroseconds + 999) / 1_000) / 8 + 1
    }

    /// Appends `parts` (from slot `slotIndex`'s playlist) as slots, each gated as an asset; a part
    /// already selected (a segment shared by two assets) is not repeated.
    mutating func addHLSParts(_ parts: [HLSPlannedPart], of slotIndex: Int) {
        let assetIndex = slots[slotIndex].assetIndex
        for p in parts {
            let key = p.url.storeKey(range: p.range)
            if hasSelected(key) { continue }
            addSlot(assetIndex, type: p.type, url: p.url, key: key, declaredBytes: p.declaredBytes, limitMax: p.limitMax, hls: p.part,
                    bandwidth: p.bandwidth, range: p.range)
        }
    }
}
