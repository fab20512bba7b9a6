import XCTest
@testable import PreloadKit

/// The M3U8 reader: what it extracts, every refusal by name, and no trap on any input.
final class HLSPlaylistTests: XCTestCase {
    static let master = """
        #EXTM3U
        #EXT-X-VERSION:6
        #EXT-X-INDEPENDENT-SEGMENTS
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="en",URI="audio/en.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=400000,CODECS="avc1.4d401e,mp4a.40.2",RESOLUTION=640x360
        v400/index.m3u8
        #EXT-X-STREAM-INF:RESOLUTION=1280x720,CODECS="avc1.4d401f,mp4a.40.2",BANDWIDTH=1500000
        v1500/index.m3u8
        #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=90000,URI="v400/iframes.m3u8"
        #EXT-X-STREAM-INF:AVERAGE-BANDWIDTH=4000000,BANDWIDTH=5000000
        https://cdn.example.com/trailer/v5000/index.m3u8

        """

    static func media(segments: Int, map: Bool = false, duration: String = "6.006") -> String {
        var text = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:7\n#EXT-X-MEDIA-SEQUENCE:0\n"
        if map { text += "#EXT-X-MAP:URI=\"init.mp4\"\n" }
        for i in 0..<segments { text += "#EXTINF:\(duration),\nseg\(i).ts\n" }
        return text + "#EXT-X-ENDLIST\n"
    }

    func parse(_ text: String, segments: Int = 2, variantsMax: Int = 32, bytesMax: Int = 262_144) throws(HLSRejection) -> HLSPlaylist {
        try HLSPlaylist.parse(Array(text.utf8), segmentsWanted: segments, variantsMax: variantsMax, playlistBytesMax: bytesMax)
    }

    func testMasterPlaylistYieldsItsVariantsInOrderWithQuotedCommasSkipped() throws {
        XCTAssertEqual(try parse(Self.master), .master([
            HLSVariant(bandwidthBitsPerSecond: 400_000, uri: "v400/index.m3u8"),
            HLSVariant(bandwidthBitsPerSecond: 1_500_000, uri: "v1500/index.m3u8"),
            HLSVariant(bandwidthBitsPerSecond: 5_000_000, uri: "https://cdn.example.com/trailer/v5000/index.m3u8"),
        ], audio: [HLSRendition(groupID: "aud", uri: "audio/en.m3u8", isDefault: false)]),
        "BANDWIDTH anywhere in the list, not AVERAGE-BANDWIDTH; I-frame tags skipped; the audio rendition kept")
    }

    /// Audio renditions (`#EXT-X-MEDIA:TYPE=AUDIO` with a URI) and the group each variant names:
    /// the variant's rendition is its group's DEFAULT=YES one, else the group's first; none for a
    /// variant without `AUDIO`, or whose group has no playlist of its own (muxed audio).
    /// Subtitles and renditions without a URI are skipped.
    func testAudioRenditionsAndTheVariantsGroups() throws {
        let text = """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="lo",NAME="en",LANGUAGE="en",URI="audio/lo-en.m3u8"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="hi",NAME="de",URI="audio/hi-de.m3u8"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="hi",NAME="en",DEFAULT=YES,AUTOSELECT=YES,URI="audio/hi-en.m3u8"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="muxed",NAME="main",DEFAULT=YES
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="en",URI="subs/en.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=400000,AUDIO="lo",SUBTITLES="subs"
            v400.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=3000000,AUDIO="hi"
            v3000.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=800000,AUDIO="muxed"
            v800.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=200000
            v200.m3u8
            """
        guard case .master(let variants, let audio) = try parse(text) else { return XCTFail("a master playlist") }
        XCTAssertEqual(audio, [HLSRendition(groupID: "lo", uri: "audio/lo-en.m3u8", isDefault: false),
                               HLSRendition(groupID: "hi", uri: "audio/hi-de.m3u8", isDefault: false),
                               HLSRendition(groupID: "hi", uri: "audio/hi-en.m3u8", isDefault: true)])
        XCTAssertEqual(variants.map(\.audioGroup), ["lo", "hi", "muxed", nil])
        XCTAssertEqual(variants.map { HLSPlaylist.audioRendition(for: $0, in: audio) }, [0, 2, nil, nil])
        // Refused: a rendition's URI or GROUP-ID unquoted, a media tag in a media playlist, too many.
        XCTAssertThrowsError(try parse("#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",URI=a.m3u8\n")) { XCTAssertEqual($0 as? HLSRejection, .missingURI(line: 2)) }
        XCTAssertThrowsError(try parse("#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,URI=\"a.m3u8\"\n")) { XCTAssertEqual($0 as? HLSRejection, .missingGroupID(line: 2)) }
        XCTAssertThrowsError(try parse("#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",URI=\"a.m3u8\"\n#EXTINF:4,\ns.ts\n")) {
            XCTAssertEqual($0 as? HLSRejection, .mixedMasterAndMedia(line: 3))
        }
        XCTAssertThrowsError(try parse("#EXTM3U\n#EXTINF:4,\ns.ts\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",URI=\"a.m3u8\"\n")) {
            XCTAssertEqual($0 as? HLSRejection, .mixedMasterAndMedia(line: 4))
        }
        let many = "#EXTM3U\n" + (0..<3).map { "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",URI=\"a\($0).m3u8\"\n" }.joined()
        XCTAssertThrowsError(try parse(many, variantsMax: 2)) { XCTAssertEqual($0 as? HLSRejection, .tooManyRenditions(max: 2)) }
        XCTAssertThrowsError(try parse("#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",URI=\"a.m3u8\"\n")) {
            XCTAssertEqual($0 as? HLSRejection, .noVariantsOrSegments, "renditions without a variant")
        }
    }

    func testMediaPlaylistStopsAfterTheSegmentsWantedAndKeepsTheMap() throws {
        XCTAssertEqual(try parse(Self.media(segments: 100, map: true), segments: 2), .media(initURI: "init.mp4", segments: [
            HLSSegment(durationMicroseconds: 6_006_000, uri: "seg0.ts"), HLSSegment(durationMicroseconds: 6_006_000, uri: "seg1.ts"),
        ]))
        XCTAssertEqual(try parse(Self.media(segments: 1, duration: "4"), segments: 3), .media(initURI: nil, segments: [
            HLSSegment(durationMicroseconds: 4_000_000, uri: "seg0.ts"),
        ]), "fewer segments than wanted: all of them")
        // CRLF line ends, a byte-order mark, trailing blanks, durations with more than 6 decimals.
        let crlf = "\u{FEFF}#EXTM3U\r\n#EXTINF:2.0000009,title\r\nsegA.ts  \r\n"
        XCTAssertEqual(try parse(crlf), .media(initURI: nil, segments: [HLSSegment(durationMicroseconds: 2_000_000, uri: "segA.ts")]))
    }

    func testMalformedPlaylistsAreRefusedByName() {
        let cases: [(String, HLSRejection)] = [
            ("", .notM3U8),
            ("#EXTM3U8\n", .notM3U8),
            ("<html>\n", .notM3U8),
            ("#EXTM3U\n", .noVariantsOrSegments),
            ("#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-ENDLIST\n", .noSegments),
            ("#EXTM3U\n#EXT-X-STREAM-INF:RESOLUTION=1x1\nv.m3u8\n", .missingBandwidth(line: 2)),
            ("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=-5\nv.m3u8\n", .badBandwidth(line: 2)),
            ("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=0\nv.m3u8\n", .badBandwidth(line: 2)),
            ("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=99999999999\nv.m3u8\n", .badBandwidth(line: 2)),
            ("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1e6\nv.m3u8\n", .badBandwidth(line: 2)),
            ("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=100\n", .missingURI(line: 2)),
            ("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=100\n#EXT-X-STREAM-INF:BANDWIDTH=200\nv.m3u8\n", .missingURI(line: 3)),
            ("#EXTM3U\n#EXTINF:abc,\ns.ts\n", .badDuration(line: 2)),
            ("#EXTM3U\n#EXTINF:0,\ns.ts\n", .badDuration(line: 2)),
            ("#EXTM3U\n#EXTINF:-1,\ns.ts\n", .badDuration(line: 2)),
            ("#EXTM3U\n#EXTINF:3601,\ns.ts\n", .badDuration(line: 2)),
            ("#EXTM3U\n#EXTINF:6,\n", .missingURI(line: 2)),
            ("#EXTM3U\nseg.ts\n", .uriWithoutTag(line: 2)),
            ("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=100\nv.m3u8\n#EXTINF:6,\ns.ts\n", .mixedMasterAndMedia(line: 4)),
            ("#EXTM3U\n#EXTINF:6,\ns.ts\n#EXT-X-STREAM-INF:BANDWIDTH=100\nv.m3u8\n", .mixedMasterAndMedia(line: 4)),
            ("#EXTM3U\n#EXTINF:6,\n#EXT-X-BYTERANGE:1000@0\nall.ts\n", .byteRangeNotSupported(line: 3)),
            ("#EXTM3U\n#EXT-X-MAP:URI=\"init.mp4\",BYTERANGE=\"800@0\"\n", .byteRangeNotSupported(line: 2)),
            ("#EXTM3U\n#EXT-X-MAP:URI=init.mp4\n#EXTINF:6,\ns.ts\n", .missingURI(line: 2)),
            ("#EXTM3U\n#EXTINF:6,\ns\u{0}.ts\n", .controlCharacter(line: 3)),
            ("#EXTM3U\n#EXTINF:6,\n" + String(repeating: "a", count: 4_097) + "\n", .lineTooLong(line: 3, maxBytes: 4_096)),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try parse(text), text) { XCTAssertEqual($0 as? HLSRejection, expected, text) }
        }
        let three = "#EXTM3U\n" + (1...3).map { "#EXT-X-STREAM-INF:BANDWIDTH=\($0)00\nv\($0).m3u8\n" }.joined()
        XCTAssertThrowsError(try parse(three, variantsMax: 2)) { XCTAssertEqual($0 as? HLSRejection, .tooManyVariants(max: 2)) }
        XCTAssertNoThrow(try parse(three, variantsMax: 3))
        XCTAssertThrowsError(try parse(Self.master, bytesMax: 100)) {
            XCTAssertEqual($0 as? HLSRejection, .tooLarge(bytes: Self.master.utf8.count, maxBytes: 100))
        }
    }

    /// Random bytes, and random cuts and byte flips of valid playlists, never trap: every input
    /// gives a playlist or a named refusal, and a media playlist never more segments than asked.
    func testArbitraryInputNeverTraps() {
        var rng = CoreRNG(seed: 0x4853_4C21)
        let valid = [Array(Self.master.utf8), Array(Self.media(segments: 5, map: true).utf8)]
        for trial in 0..<4_000 {
            var bytes: [UInt8]
            if trial % 2 == 0 {
                bytes = Array("#EXTM3U\n".utf8) + rng.bytes(rng.below(300))
            } else {
                bytes = valid[rng.below(2)]
                bytes = Array(bytes.prefix(rng.below(bytes.count + 1)))
                for _ in 0..<rng.below(4) where !bytes.isEmpty { bytes[rng.below(bytes.count)] = UInt8(truncatingIfNeeded: rng.next()) }
            }
            do {
                let p = try HLSPlaylist.parse(bytes, segmentsWanted: 3, variantsMax: 8, playlistBytesMax: 4_096)
                if case .media(_, let segments) = p { XCTAssertLessThanOrEqual(segments.count, 3, "trial \(trial)") }
                if case .master(let variants, _) = p { XCTAssertLessThanOrEqual(variants.count, 8, "trial \(trial)") }
            } catch {
                _ = error.description
            }
        }
    }

    func testVariantChoiceIsTheHighestBandwidthThatFitsElseTheLowest() {
        let v = [HLSVariant(bandwidthBitsPerSecond: 1_500_000, uri: "b"), HLSVariant(bandwidthBitsPerSecond: 400_000, uri: "a"),
                 HLSVariant(bandwidthBitsPerSecond: 5_000_000, uri: "c"), HLSVariant(bandwidthBitsPerSecond: 1_500_000, uri: "b2")]
        XCTAssertEqual(HLSPlaylist.chooseVariant(v, usableBitsPerSecond: 16_000_000), 2)
        XCTAssertEqual(HLSPlaylist.chooseVariant(v, usableBitsPerSecond: 4_999_999), 0, "the first of equals")
        XCTAssertEqual(HLSPlaylist.chooseVariant(v, usableBitsPerSecond: 400_000), 1, "a bandwidth equal to the budget fits")
        XCTAssertEqual(HLSPlaylist.chooseVariant(v, usableBitsPerSecond: 100), 1, "none fits: the lowest")
        XCTAssertNil(HLSPlaylist.chooseVariant([], usableBitsPerSecond: 100))
    }

    func testURIsResolveAgainstThePlaylistURL() throws {
        let base = try AssetURL.parse("https://cdn.example.com/trailer/hd/master.m3u8?token=abc", policy: Fixtures.urlPolicy())
        XCTAssertEqual(HLSPlaylist.resolve("v1/index.m3u8", against: base), "https://cdn.example.com/trailer/hd/v1/index.m3u8",
                       "relative to the directory; the base query is not inherited (RFC 3986 §5.2.2)")
        XCTAssertEqual(HLSPlaylist.resolve("/other/x.ts", against: base), "https://cdn.example.com/other/x.ts")
        XCTAssertEqual(HLSPlaylist.resolve("//media.cdn.example.net/x.ts", against: base), "https://media.cdn.example.net/x.ts")
        XCTAssertEqual(HLSPlaylist.resolve("https://cdn.example.com/abs.ts?sig=1", against: base), "https://cdn.example.com/abs.ts?sig=1")
        XCTAssertEqual(HLSPlaylist.resolve("seg.ts?token=t", against: base), "https://cdn.example.com/trailer/hd/seg.ts?token=t")
        // What AssetURL then refuses: dot segments, other hosts, other schemes.
        let policy = Fixtures.urlPolicy()
        XCTAssertThrowsError(try AssetURL.parse(HLSPlaylist.resolve("../sd/x.ts", against: base), policy: policy))
        XCTAssertThrowsError(try AssetURL.parse(HLSPlaylist.resolve("https://evil.example.org/x.ts", against: base), policy: policy))
        XCTAssertThrowsError(try AssetURL.parse(HLSPlaylist.resolve("http://cdn.example.com/x.ts", against: base), policy: policy))
    }

    func testSegmentKindsAreSniffed() {
        var ts = [UInt8](repeating: 0xFF, count: 376)
        ts[0] = 0x47; ts[1] = 0x40; ts[2] = 0x00; ts[3] = 0x10; ts[188] = 0x47
        XCTAssertEqual(MediaSniffer.sniff(ts), .ts)
        XCTAssertEqual(MediaSniffer.sniff(ts.prefix(12)), .ts, "a short prefix cannot see the second packet")
        ts[188] = 0x00
        XCTAssertNil(MediaSniffer.sniff(ts), "no sync byte at the second packet")
        XCTAssertNil(MediaSniffer.sniff(Array("GIF8".utf8)), "a GIF-like start is not TS")
        XCTAssertEqual(MediaSniffer.sniff([0, 0, 0, 0x18] + Array("stypmsdh".utf8)), .mp4, "fMP4 media segment")
        XCTAssertEqual(MediaSniffer.sniff([0, 0, 0, 0x68] + Array("moof".utf8)), .mp4, "fMP4 fragment without styp")
        XCTAssertTrue(AssetType.hlsSegment.accepts(.ts) && AssetType.hlsSegment.accepts(.mp4) && !AssetType.hlsSegment.accepts(.jpeg))
        XCTAssertTrue(MediaSniffer.mimeType("video/MP2T", matches: .ts))
    }
}
