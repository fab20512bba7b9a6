import XCTest
@testable import PreloadKit

/// A session reading a media playlist whose initialization section and segments are byte ranges
/// of one file: one ranged fetch per part (`FetchRequest.range`), each stored under its own key
/// (`AssetURL.storeKey(range:)`), accepted only as the 206 naming exactly its bytes.
final class SessionHLSByteRangeTests: XCTestCase {
    /// The article's `preview.m3u8` pushed as a media playlist (no variant: no bandwidth bound).
    static let media = """
        #EXTM3U
        #EXT-X-TARGETDURATION:6
        #EXT-X-MAP:URI="main.mp4",BYTERANGE="800@0"
        #EXTINF:6.006,
        #EXT-X-BYTERANGE:3000@800
        main.mp4
        #EXTINF:6.006,
        #EXT-X-BYTERANGE:2500
        main.mp4
        #EXTINF:6.006,
        #EXT-X-BYTERANGE:2600
        main.mp4
        #EXT-X-ENDLIST

        """
    static let initPrefix: [UInt8] = [0, 0, 0, 0x18] + Array("ftypisom".utf8) + [0, 0, 0, 0]
    static let segmentPrefix: [UInt8] = [0, 0, 0, 0x18] + Array("stypmsdh".utf8) + [0, 0, 0, 0]

    func range(_ n: Int64, _ o: Int64) -> ByteRange { ByteRange(offset: o, length: n)! }

    func policy() -> PreloadPolicy {
        var p = Fixtures.policy()
        p.hls.isEnabled = true
        p.hls.segmentsToPreStage = 2
        return p
    }

    /// The 206 answer to `range` of a 10 000-byte file (`contentRange` overrides the header).
    func partial(_ range: ByteRange, prefix: [UInt8], contentRange: ContentRange?? = nil, status: Int = 206,
                 received: Int64? = nil, contentLength: Int64?? = nil) -> FetchCompletion {
        let cr = contentRange ?? ContentRange(first: range.offset, last: range.lastByte, completeLength: 10_000)
        let headers = FetchHeaders(status: status, cacheControl: Sessions.webpCC, contentType: "video/mp4",
                                   contentLength: contentLength ?? range.length, contentRange: cr)
        return FetchCompletion(headers: headers, bytesReceived: received ?? range.length, prefix: prefix)
    }

    /// The session up to the playlist's completion: the cover completed, the parts' fetches started.
    func start(_ h: inout Harness) throws -> (request: PreStageRequest, parts: [FetchRequest], playlistBytes: Int64) {
        let r = try Sessions.request(Payloads.inline())
        let first = Sessions.starts(try h.feed(.pushReceived(r, Sessions.context()), at: ms(0)))
        _ = try h.feed(.fetchCompleted(first[0].id, Sessions.completion(48_200, "image/webp", Fixtures.webpPrefix)), at: ms(100))
        let text = Array(Self.media.utf8)
        let playlist = Sessions.completion(Int64(text.count), SessionHLSTests.playlistType, Array(text.prefix(16)), body: .bytes(text))
        let parts = Sessions.starts(try h.feed(.fetchCompleted(first[1].id, playlist), at: ms(200)))
        return (r, parts, Int64(text.count))
    }

    /// The initialization section and the first two segments: three fetches of the one file with
    /// the ranges the playlist gives (the implied offset resolved), their exact lengths as limits,
    /// three distinct store keys none of which is the file's; stored, they count their own bytes.
    func testEachRangeIsFetchedAndStoredUnderItsOwnKey() throws {
        var h = try Harness(policy: policy())
        var (r, parts, playlistBytes) = try start(&h)
        XCTAssertEqual(parts.count, 2, "two at once (`fetchConcurrencyMax`)")
        let file = try AssetURL.parse("https://cdn.example.com/mix/wk42/main.mp4", policy: Fixtures.urlPolicy())
        let ranges = [range(800, 0), range(3_000, 800), range(2_500, 3_800)]
        parts += Sessions.starts(try h.feed(.fetchCompleted(parts[0].id, partial(ranges[0], prefix: Self.initPrefix)), at: ms(300)))
        XCTAssertEqual(parts.map(\.url), [file, file, file])
        XCTAssertEqual(parts.map(\.range), ranges)
        XCTAssertEqual(parts.map(\.byteLimit), [800, 3_000, 2_500], "a range declares its exact length")
        XCTAssertEqual(parts.map(\.purpose), ranges.map { .asset(file.storeKey(range: $0)) })
        XCTAssertEqual(Set(ranges.map { file.storeKey(range: $0) }).count, 3)
        XCTAssertFalse(ranges.contains { file.storeKey(range: $0) == file.storeKey })

        _ = try h.feed(.fetchCompleted(parts[1].id, partial(ranges[1], prefix: Self.segmentPrefix)), at: ms(400))
        let done = try h.feed(.fetchCompleted(parts[2].id, partial(ranges[2], prefix: Self.segmentPrefix)), at: ms(500))
        XCTAssertEqual(Sessions.deliveries(done).map(\.readyAssets), [5], "cover, playlist, initialization section, two segments")
        XCTAssertEqual(Sessions.deliveries(done).map(\.selectedAssets), [5])
        XCTAssertEqual(h.session.store.usedBytes, 48_200 + playlistBytes + 800 + 3_000 + 2_500, "the store counts the ranges stored, not the file")
        let tap = try h.feed(.userTapped, at: ms(600)).compactMap { if case .tapAnswer(let a) = $0 { return a } else { return nil } }
        XCTAssertEqual(tap.map(\.paintsInstantly), [true], "a tap finds every range by its key")
        XCTAssertNotNil(h.session.store.index(of: file.storeKey(range: ranges[1])))
        XCTAssertNil(h.session.store.index(of: file.storeKey), "the file itself is never an entry")
        XCTAssertEqual(r.assets.count, 2)
    }

    /// Each answer a ranged fetch must not accept, by name: the whole file (200, refused at its
    /// headers so the driver stops it before the body), another range, a missing `Content-Range`,
    /// a body of another length (with or without `Content-Length`), an error status.
    func testWrongAnswersToARangeAreRefusedByName() throws {
        let asked = range(3_000, 800)
        let cases: [(FetchCompletion, FetchRejection)] = [
            (partial(asked, prefix: Self.segmentPrefix, contentRange: .some(nil), status: 200, received: 10_000, contentLength: 10_000), .rangeIgnored),
            (partial(asked, prefix: Self.segmentPrefix, contentRange: ContentRange(first: 0, last: 2_999, completeLength: nil)),
             .contentRangeMismatch(expected: asked, received: ContentRange(first: 0, last: 2_999, completeLength: nil))),
            (partial(asked, prefix: Self.segmentPrefix, contentRange: .some(nil)), .contentRangeMismatch(expected: asked, received: nil)),
            (partial(asked, prefix: Self.segmentPrefix, received: 2_000, contentLength: .some(nil)), .lengthMismatch(receivedBytes: 2_000, contentLength: 3_000)),
            (partial(asked, prefix: Self.segmentPrefix, status: 416), .httpStatus(416)),
        ]
        for (answer, expected) in cases {
            var h = try Harness(policy: policy())
            let (_, parts, _) = try start(&h)
            XCTAssertEqual(parts[1].range, asked)
            let out = try h.feed(.fetchCompleted(parts[1].id, answer), at: ms(300))
            XCTAssertTrue(out.contains(.cancelFetch(parts[1].id, .rejected(expected))), "\(expected): \(out)")
            XCTAssertNil(h.session.store.index(of: parts[1].url.storeKey(range: asked)))
        }
        // At the headers: a 200 stops the transfer before any body byte.
        var h = try Harness(policy: policy())
        let (_, parts, _) = try start(&h)
        let out = try h.feed(.fetchHeaders(parts[1].id, FetchHeaders(status: 200, contentType: "video/mp4", contentLength: 10_000)), at: ms(250))
        XCTAssertTrue(out.contains(.cancelFetch(parts[1].id, .rejected(.rangeIgnored))), "\(out)")
    }

    /// The app's player fetching a missing range in the foreground keeps it as a pre-stage would:
    /// the 206 naming it, under the range's key; a 200 (the whole file) is not kept.
    func testAForegroundRangeIsKeptUnderItsKey() throws {
        let r = try Sessions.request(Payloads.inline())
        let file = try AssetURL.parse("https://cdn.example.com/mix/wk42/main.mp4", policy: Fixtures.urlPolicy())
        let asked = range(3_000, 800)
        var store = PreloadStore()
        var evicted: [StoreKey] = []
        let whole = partial(asked, prefix: Self.segmentPrefix, contentRange: .some(nil), status: 200, received: 10_000, contentLength: 10_000)
        XCTAssertEqual(store.admitForeground(whole, key: file.storeKey(range: asked), type: .hlsSegment, request: r, policy: policy(),
                                             freeStorageBytes: 10_000_000_000, now: ms(100), range: asked, evicted: &evicted), .rejected(.rangeIgnored))
        let kept = store.admitForeground(partial(asked, prefix: Self.segmentPrefix), key: file.storeKey(range: asked), type: .hlsSegment, request: r,
                                         policy: policy(), freeStorageBytes: 10_000_000_000, now: ms(100), range: asked, evicted: &evicted)
        guard case .stored(let entry) = kept else { return XCTFail("\(kept)") }
        XCTAssertEqual(entry.key, file.storeKey(range: asked))
        XCTAssertEqual(entry.bytes, 3_000)
    }

    /// A fetch of a whole resource still takes only a 200: a 206 to it is refused by status.
    func testAWholeResourceFetchRefusesA206() throws {
        var h = try Harness(policy: policy())
        let r = try Sessions.request(Payloads.inline())
        let first = Sessions.starts(try h.feed(.pushReceived(r, Sessions.context()), at: ms(0)))
        XCTAssertNil(first[0].range)
        let out = try h.feed(.fetchCompleted(first[0].id, Sessions.completion(48_200, "image/webp", Fixtures.webpPrefix, status: 206)), at: ms(100))
        XCTAssertTrue(out.contains(.cancelFetch(first[0].id, .rejected(.httpStatus(206)))))
    }
}
