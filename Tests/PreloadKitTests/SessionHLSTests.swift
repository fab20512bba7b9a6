import XCTest
@testable import PreloadKit

/// A session reading the article's HLS asset (`preview.m3u8`) under `PreloadPolicy.hls`: the
/// variant the network allows, its first segments in order, the budget, refusals, taps.
final class SessionHLSTests: XCTestCase {
    static let playlistType = "application/vnd.apple.mpegurl"
    static let master = """
        #EXTM3U
        #EXT-X-STREAM-INF:BANDWIDTH=400000,CODECS="avc1.4d401e,mp4a.40.2"
        v400/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=1500000
        v1500/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=5000000
        /mix/wk42/v5000/index.m3u8

        """
    static func media(_ seconds: String, count: Int = 4) -> String {
        "#EXTM3U\n#EXT-X-TARGETDURATION:6\n" + (0..<count).map { "#EXTINF:\(seconds),\nseg\($0).ts\n" }.joined() + "#EXT-X-ENDLIST\n"
    }
    static let tsPrefix: [UInt8] = [0x47, 0x40, 0x00, 0x10] + [UInt8](repeating: 0xFF, count: 8)

    func policy(segments: Int = 2) -> PreloadPolicy {
        var p = Fixtures.policy()
        p.hls.isEnabled = true
        p.hls.segmentsToPreStage = segments
        return p
    }

    func article() throws -> PreStageRequest { try Sessions.request(Payloads.inline()) }

    func body(_ text: String) -> FetchCompletion {
        let bytes = Array(text.utf8)
        return Sessions.completion(Int64(bytes.count), Self.playlistType, Array(bytes.prefix(16)), body: .bytes(bytes))
    }

    func segment(_ bytes: Int64) -> FetchCompletion { Sessions.completion(bytes, "video/mp2t", Self.tsPrefix) }

    func url(_ path: String) -> String { "https://cdn.example.com/mix/wk42/" + path }

    func rejections(_ actions: [Action]) -> [FetchRejection] {
        actions.compactMap { if case .cancelFetch(_, .rejected(let r)) = $0 { return r } else { return nil } }
    }

    func skips(_ actions: [Action]) -> [SkipReason] {
        actions.compactMap { if case .log(.assetSkipped(_, let r)) = $0 { return r } else { return nil } }
    }

    func tap(_ h: inout Harness, at t: Instant) throws -> TapAnswer? {
        for a in try h.feed(.userTapped, at: t) { if case .tapAnswer(let answer) = a { return answer } }
        return nil
    }

    /// Wi-Fi (20 Mbit/s assumed, 80 %: 16 Mbit/s usable): the 5 Mbit/s variant; its media
    /// playlist, then its first two segments in playback order, each bounded by BANDWIDTH ×
    /// EXTINF / 8; delivery and an instant tap only once all of them are stored.
    func testWifiFetchesTheHighestVariantThenItsFirstSegmentsInOrder() throws {
        let r = try article()
        var h = try Harness(policy: policy())
        let first = Sessions.starts(try h.feed(.pushReceived(r, Sessions.context()), at: ms(0)))
        XCTAssertEqual(first.map(\.url.absoluteString), [r.assets[0].url.absoluteString, url("preview.m3u8")])
        XCTAssertEqual(first.map(\.returnsBody), [false, true], "only the playlist's body comes back")
        XCTAssertEqual(first[1].byteLimit, 262_144, "the playlist limit, not the payload's 320 000 for the whole pre-stage")
        _ = try h.feed(.fetchCompleted(first[0].id, Sessions.completion(48_200, "image/webp", Fixtures.webpPrefix)), at: ms(100))

        let masterDone = try h.feed(.fetchCompleted(first[1].id, body(Self.master)), at: ms(200))
        let variant = Sessions.starts(masterDone)
        XCTAssertEqual(variant.map(\.url.absoluteString), [url("v5000/index.m3u8")], "absolute-path URI on the playlist's origin")
        XCTAssertEqual(variant.map(\.returnsBody), [true])
        XCTAssertTrue(Sessions.deliveries(masterDone).isEmpty, "delivery waits for the variant")
        XCTAssertEqual(try tap(&h, at: ms(250))?.paintsInstantly, false, "playlist stored, segments missing")

        let segs = Sessions.starts(try h.feed(.fetchCompleted(variant[0].id, body(Self.media("6.006"))), at: ms(300)))
        XCTAssertEqual(segs.map(\.url.absoluteString), [url("v5000/seg0.ts"), url("v5000/seg1.ts")], "first two, in order")
        // 5 000 000 bit/s × 6.006 s / 8 = 3 753 750 bytes (BANDWIDTH is the peak segment bit rate).
        XCTAssertEqual(segs.map(\.byteLimit), [3_753_750, 3_753_750])
        XCTAssertEqual(segs.map(\.returnsBody), [false, false])

        let seg0 = try h.feed(.fetchCompleted(segs[0].id, segment(3_000_000)), at: ms(900))
        XCTAssertTrue(seg0.contains(.paintReady(segs[0].url.storeKey)), "after a tap, each part that becomes ready is announced")
        XCTAssertTrue(Sessions.deliveries(seg0).isEmpty)
        let seg1 = try h.feed(.fetchCompleted(segs[1].id, segment(2_900_000)), at: ms(1_400))
        XCTAssertEqual(Sessions.deliveries(seg1).map(\.selectedAssets), [5], "cover, master, variant playlist, two segments")
        XCTAssertEqual(Sessions.deliveries(seg1).map(\.readyAssets), [5])
        XCTAssertTrue(h.session.isFinished)
        XCTAssertEqual(try tap(&h, at: ms(2_000))?.paintsInstantly, true)
        XCTAssertEqual(h.session.store.entries.count, 5)
    }

    /// A variant with an audio group: after the master, the variant's media playlist and its
    /// group's default audio rendition's; each then leads to its first segments (the audio's
    /// bounded by `audioBitsPerSecondMax`); delivery and an instant tap need all of them.
    func testTheVariantsAudioRenditionIsPreStagedWithIt() throws {
        let master = """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="de",URI="audio/de.m3u8"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="en",DEFAULT=YES,URI="audio/en.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=400000,AUDIO="aac"
            v400/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=5000000,AUDIO="aac"
            /mix/wk42/v5000/index.m3u8

            """
        let r = try article()
        var h = try Harness(policy: policy(segments: 1))
        let first = Sessions.starts(try h.feed(.pushReceived(r, Sessions.context()), at: ms(0)))
        _ = try h.feed(.fetchCompleted(first[0].id, Sessions.completion(48_200, "image/webp", Fixtures.webpPrefix)), at: ms(100))
        let playlists = Sessions.starts(try h.feed(.fetchCompleted(first[1].id, body(master)), at: ms(200)))
        XCTAssertEqual(playlists.map(\.url.absoluteString), [url("v5000/index.m3u8"), url("audio/en.m3u8")], "the variant, then its default audio")
        XCTAssertEqual(playlists.map(\.returnsBody), [true, true])
        let video = Sessions.starts(try h.feed(.fetchCompleted(playlists[0].id, body(Self.media("6.006"))), at: ms(300)))
        XCTAssertEqual(video.map(\.url.absoluteString), [url("v5000/seg0.ts")])
        let audio = Sessions.starts(try h.feed(.fetchCompleted(playlists[1].id, body(Self.media("6.006"))), at: ms(350)))
        XCTAssertEqual(audio.map(\.url.absoluteString), [url("audio/seg0.ts")])
        // 640 000 bit/s (audioBitsPerSecondMax, below the variant's 5 Mbit/s) × 6.006 s / 8.
        XCTAssertEqual(audio.map(\.byteLimit), [480_480], "an audio segment's bound")
        XCTAssertEqual(try tap(&h, at: ms(400))?.paintsInstantly, false, "segments missing")
        _ = try h.feed(.fetchCompleted(video[0].id, segment(3_000_000)), at: ms(900))
        XCTAssertEqual(try tap(&h, at: ms(950))?.paintsInstantly, false, "the audio's segment is missing")
        let done = try h.feed(.fetchCompleted(audio[0].id, segment(96_000)), at: ms(1_000))
        XCTAssertEqual(Sessions.deliveries(done).map(\.selectedAssets), [6], "cover, master, two playlists, two segments")
        XCTAssertEqual(Sessions.deliveries(done).map(\.readyAssets), [6])
        XCTAssertEqual(try tap(&h, at: ms(1_100))?.paintsInstantly, true)
    }

    /// The variant follows the network: 3G (700 kbit/s assumed: 560 kbit/s usable) takes the
    /// 400 kbit/s one; an explicit estimate of 2 Mbit/s on Wi-Fi (1.6 usable) the 1.5 Mbit/s one.
    func testVariantFollowsTheNetworkAndAnExplicitEstimate() throws {
        let r = try article()
        for (context, expected) in [(Sessions.context(.iOSServiceExtension, .cellular3G), "v400/index.m3u8"),
                                    (Sessions.context(.iOSServiceExtension, .cellular4G), "v1500/index.m3u8"),
                                    ({ var c = Sessions.context(); c.estimatedThroughputBitsPerSecond = 2_000_000; return c }(), "v1500/index.m3u8"),
                                    ({ var c = Sessions.context(); c.estimatedThroughputBitsPerSecond = 100; return c }(), "v400/index.m3u8")] {
            var h = try Harness(policy: policy())
            let first = Sessions.starts(try h.feed(.pushReceived(r, context), at: ms(0)))
            let playlist = try XCTUnwrap(first.first { $0.returnsBody })
            let next = Sessions.starts(try h.feed(.fetchCompleted(playlist.id, body(Self.master)), at: ms(100)))
            XCTAssertEqual(next.last?.url.absoluteString, url(expected), "\(context.network) \(String(describing: context.estimatedThroughputBitsPerSecond))")
        }
    }

    /// On a metered 4G link the 500 KB push budget binds: cover 48 200 + playlists (their actual
    /// bytes, the reservations refunded) leave ~450 KB; the 1.5 Mbit/s variant's 2.002-s segments
    /// are 375 375 bytes at most, so the first fits and the second is skipped with the budget.
    func testMeteredBudgetStopsTheSegments() throws {
        let r = try article()
        var h = try Harness(policy: policy())
        let first = Sessions.starts(try h.feed(.pushReceived(r, Sessions.context(.iOSServiceExtension, .cellular4G)), at: ms(0)))
        let variant = Sessions.starts(try h.feed(.fetchCompleted(first[1].id, body(Self.master)), at: ms(100)))
        let media = body(Self.media("2.002"))
        let after = try h.feed(.fetchCompleted(variant[0].id, media), at: ms(200))
        XCTAssertEqual(Sessions.starts(after).map(\.byteLimit), [375_375])
        let remaining = 500_000 - 48_200 - Int64(Self.master.utf8.count) - media.bytesReceived - 375_375
        XCTAssertEqual(skips(after), [.meteredCapExceeded(bytes: 375_375, remainingBytes: remaining)])
        _ = try h.feed(.fetchCompleted(first[0].id, Sessions.completion(48_200, "image/webp", Fixtures.webpPrefix)), at: ms(300))
        let done = try h.feed(.fetchCompleted(Sessions.starts(after)[0].id, segment(300_000)), at: ms(900))
        XCTAssertEqual(Sessions.deliveries(done).map(\.readyAssets), [4])
        XCTAssertEqual(Sessions.deliveries(done).map(\.selectedAssets), [5], "the skipped segment is selected and missing")
        XCTAssertEqual(try tap(&h, at: ms(1_000))?.paintsInstantly, false)
    }

    /// Segments above the large-asset threshold wait for Wi-Fi, 5G or 4G (the article's 250 KB
    /// rule): on 3G a 6-s segment of the 400 kbit/s variant (300 300 bytes) is skipped.
    func testLargeSegmentsAreSkippedOnSlowNetworks() throws {
        let r = try article()
        var h = try Harness(policy: policy(segments: 1))
        let first = Sessions.starts(try h.feed(.pushReceived(r, Sessions.context(.iOSServiceExtension, .cellular3G)), at: ms(0)))
        let variant = Sessions.starts(try h.feed(.fetchCompleted(first[1].id, body(Self.master)), at: ms(100)))
        let after = try h.feed(.fetchCompleted(variant[0].id, body(Self.media("6.006"))), at: ms(200))
        XCTAssertEqual(Sessions.starts(after), [])
        XCTAssertEqual(skips(after), [.tooLargeForNetwork(bytes: 300_300, network: .cellular3G)])
    }

    /// A malformed playlist, or one naming a URI the URL policy refuses, is refused by name and
    /// not stored; the push is still delivered when the rest settles.
    func testRefusedPlaylistsNameTheReasonAndAreNotStored() throws {
        let r = try article()
        let cases: [(String, FetchRejection)] = [
            ("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=fast\nv.m3u8\n", .playlist(.badBandwidth(line: 2))),
            ("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=100\nhttps://evil.example.org/v.m3u8\n", .playlist(.uri(.hostNotAllowed("evil.example.org")))),
            ("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=100\n../v.m3u8\n", .playlist(.uri(.pathTraversal("/mix/v.m3u8")))),
        ]
        for (text, expected) in cases {
            var h = try Harness(policy: policy())
            let first = Sessions.starts(try h.feed(.pushReceived(r, Sessions.context()), at: ms(0)))
            _ = try h.feed(.fetchCompleted(first[0].id, Sessions.completion(48_200, "image/webp", Fixtures.webpPrefix)), at: ms(100))
            let out = try h.feed(.fetchCompleted(first[1].id, body(text)), at: ms(200))
            let got = rejections(out)
            XCTAssertEqual(got.count, 1, text)
            if case .playlist(.uri(.pathTraversal)) = expected, case .playlist(.uri(.pathTraversal)) = got.first {
                // The path text is AssetURL's; the reason is what matters.
            } else {
                XCTAssertEqual(got, [expected], text)
            }
            XCTAssertEqual(Sessions.deliveries(out).map(\.readyAssets), [1], text)
            XCTAssertNil(h.session.store.index(of: r.assets[1].key), "a refused playlist is not stored")
        }
        // A variant's playlist that is itself a master playlist.
        var h = try Harness(policy: policy())
        let first = Sessions.starts(try h.feed(.pushReceived(r, Sessions.context()), at: ms(0)))
        let variant = Sessions.starts(try h.feed(.fetchCompleted(first[1].id, body(Self.master)), at: ms(100)))
        XCTAssertEqual(rejections(try h.feed(.fetchCompleted(variant[0].id, body(Self.master)), at: ms(200))), [.playlist(.nestedMaster)])
    }

    /// A driver that does not return the body of a playlist it was asked for breaks the protocol
    /// (the session is unchanged); with HLS off nothing asks for a body and a body is refused.
    func testBodyIsRequiredExactlyWhenAsked() throws {
        let r = try article()
        var h = try Harness(policy: policy())
        let first = Sessions.starts(try h.feed(.pushReceived(r, Sessions.context()), at: ms(0)))
        XCTAssertThrowsError(try h.feed(.fetchCompleted(first[1].id, Sessions.completion(100, Self.playlistType, Fixtures.m3u8Prefix)), at: ms(10))) {
            XCTAssertEqual($0 as? SessionError, .bodyMismatch(first[1].id))
        }
        XCTAssertThrowsError(try h.feed(.fetchCompleted(first[0].id, Sessions.completion(48_200, "image/webp", Fixtures.webpPrefix, body: .bytes([1]))), at: ms(10)))

        var off = try Harness()
        let plain = Sessions.starts(try off.feed(.pushReceived(r, Sessions.context()), at: ms(0)))
        XCTAssertEqual(plain.map(\.returnsBody), [false, false])
        XCTAssertEqual(plain.map(\.byteLimit), [48_200, 320_000], "off: the playlist is one object of its declared size")
        XCTAssertThrowsError(try off.feed(.fetchCompleted(plain[1].id, body(Self.master)), at: ms(10)))
        let done = try off.feed(.fetchCompleted(plain[1].id, Sessions.completion(320_000, Self.playlistType, Fixtures.m3u8Prefix)), at: ms(20))
        XCTAssertTrue(Sessions.starts(done).isEmpty, "off: no variant, no segment")
    }

    /// The deadline applies to the derived fetches too: the hard deadline cancels a running
    /// segment and delivers with what is ready.
    func testDeadlineCancelsRunningSegments() throws {
        let r = try article()
        var h = try Harness(policy: policy(segments: 1))
        let first = Sessions.starts(try h.feed(.pushReceived(r, Sessions.context()), at: ms(0)))
        let variant = Sessions.starts(try h.feed(.fetchCompleted(first[1].id, body(Self.master)), at: ms(100)))
        let segs = Sessions.starts(try h.feed(.fetchCompleted(variant[0].id, body(Self.media("6"))), at: ms(200)))
        XCTAssertEqual(segs.count, 1)
        XCTAssertEqual(segs[0].timeoutMicroseconds, 8_000_000)
        let end = try h.feed(.timerFired, at: ms(22_000))
        XCTAssertTrue(end.contains(.cancelFetch(segs[0].id, .hardDeadline)))
        XCTAssertEqual(Sessions.deliveries(end).count, 1)
        XCTAssertTrue(h.session.isFinished)
    }

    func testPolicyLimitsAreValidated() {
        var p = policy()
        p.hls.segmentsToPreStage = 0
        XCTAssertThrowsError(try PreloadSession(policy: p, store: PreloadStore())) { XCTAssertEqual(($0 as? PolicyError)?.field, "hls.segmentsToPreStage") }
        p = policy()
        p.hls.playlistBytesMax = 0
        XCTAssertThrowsError(try PreloadSession(policy: p, store: PreloadStore())) { XCTAssertEqual(($0 as? PolicyError)?.knob, .hls) }
        p = policy()
        p.hls.audioBitsPerSecondMax = 0
        XCTAssertThrowsError(try PreloadSession(policy: p, store: PreloadStore())) { XCTAssertEqual(($0 as? PolicyError)?.field, "hls.audioBitsPerSecondMax") }
        var h = try? Harness(policy: policy())
        var c = Sessions.context()
        c.estimatedThroughputBitsPerSecond = -1
        XCTAssertThrowsError(try h?.feed(.pushReceived(try article(), c), at: ms(0)))
        XCTAssertEqual(PreloadSession.segmentBytesMax(bandwidth: 10_000_000_000, durationMicroseconds: 3_600_000_000).map { $0 > 4_000_000_000_000 }, true,
                       "no overflow at the bounds")
    }
}
