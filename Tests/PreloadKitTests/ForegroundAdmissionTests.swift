import XCTest
@testable import PreloadKit

/// `PreloadStore.admitForeground`: a response the app fetched after a tap is kept exactly as a
/// pre-staged one would be (same entry, same checks, same LRU eviction), so a later tap on a push
/// naming the same URL paints from the store.
final class ForegroundAdmissionTests: XCTestCase {
    let policy = Fixtures.policy()
    let free: Int64 = 10_000_000_000

    func article() throws -> PreStageRequest { try Sessions.request(Payloads.inline()) }
    func coverDone(_ bytes: Int64 = 48_200, cacheControl: String? = Sessions.webpCC) -> FetchCompletion {
        Sessions.completion(bytes, "image/webp", Fixtures.webpPrefix, cacheControl: cacheControl)
    }

    /// The entry a session stores for the cover fetched at `now` (`.storeAsset`).
    func prestagedEntry(_ r: PreStageRequest, _ completion: FetchCompletion, at now: Instant) throws -> PreloadStore.Entry? {
        var h = try Harness()
        _ = try h.feed(.pushReceived(r, Sessions.context()), at: ms(0))
        for a in try h.feed(.fetchCompleted(FetchID(rawValue: 1), completion), at: now) {
            if case .storeAsset(let commit) = a { return commit.entry }
        }
        return nil
    }

    func testKeptAsTheSessionKeepsAPreStagedResponse() throws {
        let r = try article()
        let cover = r.assets[0]
        var store = PreloadStore()
        var evicted: [StoreKey] = []
        let result = store.admitForeground(coverDone(), key: cover.key, type: cover.type, request: r, policy: policy,
                                           freeStorageBytes: free, now: ms(300), evicted: &evicted)
        let expected = try XCTUnwrap(try prestagedEntry(r, coverDone(), at: ms(300)))
        XCTAssertEqual(result, .stored(expected))
        XCTAssertEqual(store.entries, [expected])
        XCTAssertEqual(evicted, [])
        // A later tap on a push naming the same URL paints from the store.
        XCTAssertEqual(store.paintSetAnswer(for: r, network: .wifi, now: ms(1_000)).assets.map(\.freshness), [.fresh, .missing])
    }

    /// A response the app's loader reached through a redirect (a CDN's 302 to its placeholder for
    /// Save-Data or slow links) is another URL's: it passes every check a body can pass, and is
    /// still never kept under the asset's key, so a later tap cannot paint the placeholder as if
    /// the asset were pre-staged. The same response not redirected is kept.
    func testARedirectedResponseIsNeverKeptUnderTheAssetsKey() throws {
        let r = try article()
        let cover = r.assets[0]
        var store = PreloadStore()
        var evicted: [StoreKey] = []
        let redirected = store.admitForeground(coverDone(), key: cover.key, type: cover.type, request: r, policy: policy,
                                               freeStorageBytes: free, now: ms(300), redirected: true, evicted: &evicted)
        XCTAssertEqual(redirected, .rejected(.redirected))
        XCTAssertEqual(store.entries, [])
        XCTAssertEqual(store.paintSetAnswer(for: r, network: .wifi, now: ms(1_000)).assets.map(\.freshness), [.missing, .missing])
        guard case .stored = store.admitForeground(coverDone(), key: cover.key, type: cover.type, request: r, policy: policy,
                                                   freeStorageBytes: free, now: ms(300), redirected: false, evicted: &evicted) else {
            return XCTFail("the same response, not redirected, is kept")
        }
    }

    func testRejectedAsAPreStagedResponseWouldBe() throws {
        let r = try article()
        let cover = r.assets[0]
        let cases: [(FetchCompletion, FetchRejection)] = [
            (Sessions.completion(0, "image/webp", [], status: 404), .httpStatus(404)),
            (Sessions.completion(48_200, nil, Fixtures.webpPrefix), .contentTypeMissing),
            (Sessions.completion(48_200, "text/html", Fixtures.webpPrefix), .contentTypeNotAllowed("text/html")),
            (Sessions.completion(48_200, "image/webp", Array("<html>".utf8)), .magicBytesNotAllowed(nil)),
            (Sessions.completion(48_200, "image/png", Fixtures.webpPrefix), .contentTypeDisagreesWithMagic(contentType: "image/png", sniffed: .webp)),
            (Sessions.completion(48_200, "image/webp", Fixtures.webpPrefix, contentLength: 50_000), .lengthMismatch(receivedBytes: 48_200, contentLength: 50_000)),
            (coverDone(cacheControl: "no-store"), .notStorable),
            (coverDone(20_000_000), .contentLengthOverLimit(contentLength: 20_000_000, limitBytes: 10_000_000)),
        ]
        for (completion, rejection) in cases {
            var store = PreloadStore()
            var evicted: [StoreKey] = []
            XCTAssertEqual(store.admitForeground(completion, key: cover.key, type: cover.type, request: r, policy: policy,
                                                 freeStorageBytes: free, now: ms(300), evicted: &evicted), .rejected(rejection))
            XCTAssertEqual(store, PreloadStore(), "unchanged on \(rejection)")
        }
    }

    func testTheManifestTTLBoundsTheLifetime() throws {
        let r = try article()  // ttl 14 400 s
        let cover = r.assets[0]
        var store = PreloadStore()
        var evicted: [StoreKey] = []
        _ = store.admitForeground(coverDone(cacheControl: "max-age=86400"), key: cover.key, type: cover.type, request: r, policy: policy,
                                  freeStorageBytes: free, now: ms(0), evicted: &evicted)
        XCTAssertEqual(store.entries.first?.expiresAt, ms(14_400_000))
        XCTAssertEqual(store.freshness(of: cover.key, at: ms(14_400_000)), .missing)
    }

    func testLRUEvictionMakesRoomWithinCapacityAndReportsTheVictims() throws {
        let r = try article()
        let cover = r.assets[0]
        var store = PreloadStore(capacityBytes: 100_000, entriesMax: 3)
        let old = StoreKey(hi: 1, lo: 1), recent = StoreKey(hi: 2, lo: 2)
        store.insert(PreloadStore.Entry(key: old, bytes: 40_000, storedAt: .zero, expiresAt: ms(100_000), staleUntil: ms(100_000),
                                        lastUsed: ms(10), manifestTag: 9, kind: .jpeg))
        store.insert(PreloadStore.Entry(key: recent, bytes: 40_000, storedAt: .zero, expiresAt: ms(100_000), staleUntil: ms(100_000),
                                        lastUsed: ms(20), manifestTag: 9, kind: .jpeg))
        var evicted: [StoreKey] = []
        let result = store.admitForeground(coverDone(), key: cover.key, type: cover.type, request: r, policy: policy,
                                           freeStorageBytes: free, now: ms(300), evicted: &evicted)
        guard case .stored = result else { return XCTFail("\(result)") }
        XCTAssertEqual(evicted, [old], "the least recently used goes first, and only as much as needed")
        XCTAssertEqual(store.entries.map(\.key), [recent, cover.key])
        XCTAssertLessThanOrEqual(store.usedBytes, store.capacityBytes)

        // Larger than the store: rejected, nothing evicted.
        var small = PreloadStore(capacityBytes: 40_000)
        XCTAssertEqual(small.admitForeground(coverDone(), key: cover.key, type: cover.type, request: r, policy: policy,
                                             freeStorageBytes: free, now: ms(300), evicted: &evicted),
                       .rejected(.contentLengthOverLimit(contentLength: 48_200, limitBytes: 40_000)))
        XCTAssertEqual(evicted, [])
        // Free disk below the policy's floor: no room at all.
        XCTAssertEqual(small.admitForeground(coverDone(1_000), key: cover.key, type: cover.type, request: r, policy: policy,
                                             freeStorageBytes: policy.freeStorageFloorBytes, now: ms(300), evicted: &evicted),
                       .rejected(.contentLengthOverLimit(contentLength: 1_000, limitBytes: 0)))
    }
}
