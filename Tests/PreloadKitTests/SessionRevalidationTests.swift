import XCTest
@testable import PreloadKit

/// Conditional revalidation of stale store entries: `If-None-Match` with the entry's ETag, and
/// a 304 Not Modified that refreshes the entry without body bytes.
final class SessionRevalidationTests: XCTestCase {
    let tag = EntityTag("\"v1\"")

    func article() throws -> PreStageRequest { try Sessions.request(Payloads.inline()) }

    /// Cover fresh; preview stale (expired at 10 s, usable until 5000 s) with validator `etag`.
    func storeWithStalePreview(_ r: PreStageRequest, etag: EntityTag?) -> PreloadStore {
        Sessions.storeWithExpiredPreview(r, staleUntil: ms(5_000_000), etag: etag)
    }

    func testStaleEntryRevalidatesWithItsETagAnd304RefreshesIt() throws {
        let r = try article()
        var h = try Harness(store: storeWithStalePreview(r, etag: tag))
        let starts = Sessions.starts(try h.feed(.pushReceived(r, Sessions.context()), at: ms(20_000)))
        XCTAssertEqual(starts.count, 1)
        XCTAssertTrue(starts[0].isRevalidation)
        XCTAssertEqual(starts[0].ifNoneMatch, tag, "the stored validator goes out as If-None-Match")
        // 304: headers only (a Content-Length of the representation is allowed and ignored).
        let notModified = FetchCompletion(headers: FetchHeaders(status: 304, cacheControl: "max-age=60, stale-while-revalidate=30",
                                                                contentLength: 300_000, etag: tag),
                                          bytesReceived: 0, prefix: [])
        let actions = try h.feed(.fetchCompleted(starts[0].id, notModified), at: ms(20_500))
        let preview = r.assets[1].key
        let refreshed = PreloadStore.Entry(key: preview, bytes: 300_000, storedAt: ms(20_500), expiresAt: ms(80_500), staleUntil: ms(110_500),
                                           lastUsed: ms(20_500), manifestTag: r.manifestTag, kind: .m3u8, etag: tag)
        XCTAssertEqual(actions, [
            .storeAsset(StoreCommit(fetchID: starts[0].id, entry: refreshed, kind: .m3u8, notModified: true)),
            .log(.assetStored(starts[0].id, bytes: 0)),
        ])
        XCTAssertEqual(h.session.store.usedBytes, 348_200, "same bytes: nothing downloaded, nothing replaced")
        XCTAssertEqual(h.session.store.freshness(of: preview, at: ms(80_499)), .fresh, "lifetime restarts at the 304")
        XCTAssertEqual(h.session.store.freshness(of: preview, at: ms(110_499)), .stale)
        XCTAssertEqual(h.session.store.freshness(of: preview, at: ms(110_500)), .missing)
        XCTAssertTrue(h.session.isFinished)
    }

    func testA200ToTheConditionalRequestReplacesTheEntryAndItsValidator() throws {
        let r = try article()
        var h = try Harness(store: storeWithStalePreview(r, etag: tag))
        let starts = Sessions.starts(try h.feed(.pushReceived(r, Sessions.context()), at: ms(20_000)))
        let v2 = EntityTag("\"v2\"")
        var changed = Sessions.completion(310_000, "application/vnd.apple.mpegurl", Fixtures.m3u8Prefix, cacheControl: "max-age=60")
        changed.headers.etag = v2
        _ = try h.feed(.fetchCompleted(starts[0].id, changed), at: ms(20_500))
        let entry = try XCTUnwrap(h.session.store.entries.first { $0.key == r.assets[1].key })
        XCTAssertEqual(entry.bytes, 310_000)
        XCTAssertEqual(entry.etag, v2)
    }

    func testWithoutAValidatorTheRevalidationIsUnconditionalAndA304IsRefused() throws {
        let r = try article()
        var h = try Harness(store: storeWithStalePreview(r, etag: nil))
        let starts = Sessions.starts(try h.feed(.pushReceived(r, Sessions.context()), at: ms(20_000)))
        XCTAssertNil(starts[0].ifNoneMatch)
        let notModified = FetchCompletion(headers: FetchHeaders(status: 304, cacheControl: "max-age=60"), bytesReceived: 0, prefix: [])
        let actions = try h.feed(.fetchCompleted(starts[0].id, notModified), at: ms(20_500))
        XCTAssertEqual(actions, [
            .log(.fetchRejected(starts[0].id, .httpStatus(304))),
            .cancelFetch(starts[0].id, .rejected(.httpStatus(304))),
        ])
        XCTAssertEqual(h.session.store.freshness(of: r.assets[1].key, at: ms(20_500)), .stale, "the stale entry is kept")
    }

    func testETagFingerprintIsTheHeaderBytes() {
        XCTAssertEqual(EntityTag("\"abc\""), EntityTag("\"abc\""))
        XCTAssertNotEqual(EntityTag("\"abc\""), EntityTag("W/\"abc\""), "the fingerprint is of the bytes; the server, not PreloadKit, compares tags")
        XCTAssertNotEqual(EntityTag("\"abc\""), EntityTag("\"abd\""))
    }
}
