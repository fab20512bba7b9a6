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
            ("#EXTM3U\n#EXTINF:6,\n#EXT-X-BYTERANGE:1000\nall.ts\n", .byteRangeWithoutOffset(line: 3)),
            ("#EXTM3U\n#EXTINF:6,\n#EXT-X-BYTERANGE:-1000@0\nall.ts\n", .badByteRange(line: 3)),
            ("#EXTM3U\n#EXTINF:6,\n#EXT-X-BYTERANGE:1000@-1\nall.ts\n", .badByteRange(line: 3)),
            ("#EXTM3U\n#EXTINF:6,\n#EXT-X-BYTERANGE:0@0\nall.ts\n", .badByteRange(line: 3)),
            ("#EXTM3U\n#EXTINF:6,\n#EXT-X-BYTERANGE:@0\nall.ts\n", .badByteRange(line: 3)),
            ("#EXTM3U\n#EXTINF:6,\n#EXT-X-BYTERANGE:1000@\nall.ts\n", .badByteRange(line: 3)),
            ("#EXTM3U\n#EXTINF:6,\n#EXT-X-BYTERANGE:10@1125899906842625\nall.ts\n", .badByteRange(line: 3)),
            ("#EXTM3U\n#EXTINF:6,\n#EXT-X-BYTERANGE:9999999999999999999@0\nall.ts\n", .badByteRange(line: 3)),
            ("#EXTM3U\n#EXTINF:6,\n#EXT-X-BYTERANGE:1@0\n#EXT-X-BYTERANGE:1@1\nall.ts\n", .badByteRange(line: 4)),
            ("#EXTM3U\n#EXT-X-BYTERANGE:1000@0\n", .missingURI(line: 2)),
            ("#EXTM3U\n#EXTINF:6,\na.ts\n#EXTINF:6,\n#EXT-X-BYTERANGE:1000\na.ts\n", .byteRangeWithoutOffset(line: 5)),
            ("#EXTM3U\n#EXTINF:6,\n#EXT-X-BYTERANGE:9@0\na.ts\n#EXTINF:6,\n#EXT-X-BYTERANGE:9\nb.ts\n", .byteRangeWithoutOffset(line: 6)),
            ("#EXTM3U\n#EXTINF:6,\n#EXT-X-BYTERANGE:100@0\na.ts\n#EXTINF:6,\n#EXT-X-BYTERANGE:100@99\na.ts\n", .byteRangeOverlap(line: 7)),
            ("#EXTM3U\n#EXTINF:6,\n#EXT-X-BYTERANGE:100@0\na.ts\n#EXTINF:6,\na.ts\n", .byteRangeOverlap(line: 6)),
            ("#EXTM3U\n#EXT-X-MAP:URI=\"a.mp4\",BYTERANGE=\"800@0\"\n#EXTINF:6,\n#EXT-X-BYTERANGE:100@799\na.mp4\n", .byteRangeOverlap(line: 5)),
            ("#EXTM3U\n#EXT-X-MAP:URI=\"init.mp4\",BYTERANGE=\"800\"\n#EXTINF:6,\ns.ts\n", .byteRangeWithoutOffset(line: 2)),
            ("#EXTM3U\n#EXT-X-MAP:URI=\"init.mp4\",BYTERANGE=800@0\n#EXTINF:6,\ns.ts\n", .badByteRange(line: 2)),
            ("#EXTM3U\n#EXT-X-MAP:URI=\"init.mp4\",BYTERANGE=\"0@0\"\n#EXTINF:6,\ns.ts\n", .badByteRange(line: 2)),
            ("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=100\nv.m3u8\n#EXT-X-BYTERANGE:1@0\n", .mixedMasterAndMedia(line: 4)),
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

    /// A media playlist of byte ranges of one file, as Apple's `mediafilesegmenter -single-file`
    /// and Bento4 write them: the initialization section's range, then segments whose offsets
    /// after the first are implied.
    static let byteRangeMedia = """
        #EXTM3U
        #EXT-X-VERSION:7
        #EXT-X-TARGETDURATION:6
        #EXT-X-MAP:URI="main.mp4",BYTERANGE="812@0"
        #EXTINF:6.006,
        #EXT-X-BYTERANGE:500000@812
        main.mp4
        #EXT-X-BYTERANGE:420000
        #EXTINF:6.006,
        main.mp4
        #EXTINF:6.006,
        #EXT-X-BYTERANGE:430000
        main.mp4
        #EXT-X-ENDLIST

        """

    /// RFC 8216 §4.3.2.2: `<n>@<o>` is the sub-range; an omitted `o` starts at the byte after the
    /// previous segment's sub-range (the tag may come before or after `#EXTINF`); §4.3.2.5: the
    /// initialization section's `BYTERANGE`. A whole-resource segment next to ranges of another
    /// URI, and a segment of another URI with its own offset, are fine.
    func testByteRangesYieldURIAndRangeWithImpliedOffsets() throws {
        func r(_ n: Int64, _ o: Int64) -> ByteRange { ByteRange(offset: o, length: n)! }
        XCTAssertEqual(try parse(Self.byteRangeMedia, segments: 3), .media(initURI: "main.mp4", initRange: r(812, 0), segments: [
            HLSSegment(durationMicroseconds: 6_006_000, uri: "main.mp4", range: r(500_000, 812)),
            HLSSegment(durationMicroseconds: 6_006_000, uri: "main.mp4", range: r(420_000, 500_812)),
            HLSSegment(durationMicroseconds: 6_006_000, uri: "main.mp4", range: r(430_000, 920_812)),
        ]))
        XCTAssertEqual(try parse(Self.byteRangeMedia, segments: 1), .media(initURI: "main.mp4", initRange: r(812, 0), segments: [
            HLSSegment(durationMicroseconds: 6_006_000, uri: "main.mp4", range: r(500_000, 812)),
        ]), "reading stops after the segments asked for")
        let mixed = "#EXTM3U\n#EXTINF:6,\nwhole.ts\n#EXTINF:6,\n#EXT-X-BYTERANGE:100@0\na.ts\n#EXTINF:6,\n#EXT-X-BYTERANGE:50@10\nb.ts\n"
        XCTAssertEqual(try parse(mixed, segments: 3), .media(initURI: nil, segments: [
            HLSSegment(durationMicroseconds: 6_000_000, uri: "whole.ts"),
            HLSSegment(durationMicroseconds: 6_000_000, uri: "a.ts", range: r(100, 0)),
            HLSSegment(durationMicroseconds: 6_000_000, uri: "b.ts", range: r(50, 10)),
        ]))
        XCTAssertEqual(ByteRange(offset: 812, length: 500_000)?.headerValue, "bytes=812-500811")
        XCTAssertNil(ByteRange(offset: 0, length: 0))
        XCTAssertNil(ByteRange(offset: -1, length: 1))
        XCTAssertNil(ByteRange(offset: ByteRange.bytesMax + 1, length: 1))
    }

    /// `Content-Range` (RFC 9110 §14.4) as PreloadKit reads a 206's header.
    func testContentRangeParsing() {
        XCTAssertEqual(ContentRange.parse("bytes 812-500811/2000000"), ContentRange(first: 812, last: 500_811, completeLength: 2_000_000))
        XCTAssertEqual(ContentRange.parse(" Bytes 0-0/*"), ContentRange(first: 0, last: 0, completeLength: nil))
        XCTAssertEqual(ContentRange.parse("bytes 812-500811/2000000")?.range, ByteRange(offset: 812, length: 500_000))
        for bad in ["", "bytes", "bytes */1000", "bytes 5-4/10", "bytes 0-10/10", "bytes 0-9", "items 0-9/10", "bytes -1-9/10",
                    "bytes 0-9/10x", "bytes 0-9/1 0", "bytes 0-9999999999999999999/*", "bytes 0 -9/10"] {
            XCTAssertNil(ContentRange.parse(bad), bad)
        }
    }

    /// Seeded: random media playlists of byte ranges over two URIs (stated, omitted, zero,
    /// overlapping, whole-resource segments, an initialization range) against a model of the
    /// RFC's rule: the parse succeeds exactly when the model does, with the same ranges, and
    /// otherwise names the model's refusal; nothing traps.
    func testSeededByteRangePlaylistsMatchTheModel() throws {
        var rng = CoreRNG(seed: 0x4252_414E_4745)
        var seen: Set<String> = []
        for trial in 0..<3_000 {
            let uris = ["a.mp4", "b.mp4"]
            var text = "#EXTM3U\n#EXT-X-TARGETDURATION:6\n"
            var line = 2
            var expected: Result<[HLSSegment], HLSRejection>?
            var kept: [HLSSegment] = []
            var initRange: ByteRange?
            var initURI: String?
            func fail(_ r: HLSRejection) { if expected == nil { expected = .failure(r) } }
            if rng.chance(0.5) {
                let uri = uris[rng.below(2)], n = Int64(rng.below(3) == 0 ? 0 : 1 + rng.below(500))
                text += "#EXT-X-MAP:URI=\"\(uri)\",BYTERANGE=\"\(n)@0\"\n"
                line += 1
                if n == 0 { fail(.badByteRange(line: line)) } else { initURI = uri; initRange = ByteRange(offset: 0, length: n) }
            }
            let count = 1 + rng.below(5)
            let wanted = 1 + rng.below(5)
            for _ in 0..<count {
                // The parser stops reading once it has the segments asked for, and at the first refusal.
                let modelled = expected == nil && kept.count < wanted
                let uri = uris[rng.below(2)]
                text += "#EXTINF:6,\n"
                line += 1
                var range: ByteRange?
                if rng.below(5) > 0 {
                    let n = Int64(rng.below(10) == 0 ? 0 : 1 + rng.below(500))
                    let o: Int64? = rng.chance(0.5) ? nil : Int64(rng.below(2_000))
                    text += o.map { "#EXT-X-BYTERANGE:\(n)@\($0)\n" } ?? "#EXT-X-BYTERANGE:\(n)\n"
                    line += 1
                    if modelled {
                        if let o {
                            range = ByteRange(offset: o, length: n)
                        } else if let p = kept.last, p.uri == uri, let pr = p.range {
                            range = ByteRange(offset: pr.end, length: n)
                        } else {
                            fail(.byteRangeWithoutOffset(line: line))
                        }
                        if expected == nil && range == nil { fail(.badByteRange(line: line)) }
                    }
                }
                text += uri + "\n"
                line += 1
                if modelled && expected == nil {
                    let clash = (initURI == uri && HLSPlaylist.overlap(initRange, range))
                        || kept.contains { $0.uri == uri && HLSPlaylist.overlap($0.range, range) }
                    if clash { fail(.byteRangeOverlap(line: line)) } else { kept.append(HLSSegment(durationMicroseconds: 6_000_000, uri: uri, range: range)) }
                }
            }
            let model: Result<HLSPlaylist, HLSRejection>
            switch expected {
            case .failure(let r)?: model = .failure(r)
            default: model = .success(.media(initURI: initURI, initRange: initRange, segments: kept))
            }
            let got: Result<HLSPlaylist, HLSRejection>
            do { got = .success(try parse(text, segments: wanted)) } catch { got = .failure(error) }
            XCTAssertEqual(got, model, "trial \(trial):\n\(text)")
            switch got {
            case .success(.media(_, let r, let segments)): seen.insert(r != nil || segments.contains { $0.range != nil } ? "ranges" : "whole")
            case .success: break
            case .failure(.badByteRange): seen.insert("badByteRange")
            case .failure(.byteRangeWithoutOffset): seen.insert("byteRangeWithoutOffset")
            case .failure(.byteRangeOverlap): seen.insert("byteRangeOverlap")
            case .failure(let e): seen.insert("\(e)")
            }
        }
        // The generator reaches every outcome the rule has (a check of the test, not of the parser).
        XCTAssertEqual(seen, ["ranges", "whole", "badByteRange", "byteRangeWithoutOffset", "byteRangeOverlap"])
    }

    /// Random bytes, and random cuts and byte flips of valid playlists, never trap: every input
    /// gives a playlist or a named refusal, and a media playlist never more segments than asked.
    func testArbitraryInputNeverTraps() {
        var rng = CoreRNG(seed: 0x4853_4C21)
        let valid = [Array(Self.master.utf8), Array(Self.media(segments: 5, map: true).utf8), Array(Self.byteRangeMedia.utf8)]
        for trial in 0..<4_000 {
            var bytes: [UInt8]
            if trial % 2 == 0 {
                bytes = Array("#EXTM3U\n".utf8) + rng.bytes(rng.below(300))
            } else {
                bytes = valid[rng.below(valid.count)]
                bytes = Array(bytes.prefix(rng.below(bytes.count + 1)))
                for _ in 0..<rng.below(4) where !bytes.isEmpty { bytes[rng.below(bytes.count)] = UInt8(truncatingIfNeeded: rng.next()) }
            }
            do {
                let p = try HLSPlaylist.parse(bytes, segmentsWanted: 3, variantsMax: 8, playlistBytesMax: 4_096)
                if case .media(_, _, let segments) = p { XCTAssertLessThanOrEqual(segments.count, 3, "trial \(trial)") }
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
