import XCTest
@testable import PreloadKit

/// RFC 5861 stale-if-error in the device store: an entry past its usable lifetime but within
/// `max-age` + `stale-if-error` is kept, and used when its refetch fails.
final class SessionStaleIfErrorTests: XCTestCase {
    func article() throws -> PreStageRequest { try Sessions.request(Payloads.inline()) }

    func testLifetimeCarriesStaleIfError() {
        let at = Instant(microseconds: 0)
        let life = PreloadStore.lifetime(of: CacheControl(maxAgeSeconds: 60, staleWhileRevalidateSeconds: 0, staleIfErrorSeconds: 600),
                                         ttlSeconds: 14_400, storedAt: at)
        XCTAssertEqual(life?.staleUntil, ms(60_000))
        XCTAssertEqual(life?.errorUntil, ms(660_000))
        let capped = PreloadStore.lifetime(of: CacheControl(maxAgeSeconds: 60, staleIfErrorSeconds: 86_400), ttlSeconds: 3_600, storedAt: at)
        XCTAssertEqual(capped?.errorUntil, ms(3_600_000), "the manifest TTL bounds it")
        let none = PreloadStore.lifetime(of: CacheControl(maxAgeSeconds: 60, staleWhileRevalidateSeconds: 30), ttlSeconds: 3_600, storedAt: at)
        XCTAssertEqual(none?.errorUntil, none?.staleUntil, "no directive: no extra life")
    }

    /// Cover fresh; preview expired at 10 s (no stale-while-revalidate), kept until `errorUntil`.
    func store(_ r: PreStageRequest, errorUntil: Instant) -> PreloadStore {
        Sessions.storeWithExpiredPreview(r, staleUntil: ms(10_000), errorUntil: errorUntil)
    }

    func testFailedRefetchUsesTheCopyWithinStaleIfError() throws {
        let r = try article()
        for failure in ["network", "503"] {
            var h = try Harness(store: store(r, errorUntil: ms(100_000)))
            let starts = Sessions.starts(try h.feed(.pushReceived(r, Sessions.context()), at: ms(20_000)))
            XCTAssertEqual(starts.count, 1, "the expired preview is refetched, blocking")
            XCTAssertFalse(starts[0].isRevalidation)
            let input: Input = failure == "network"
                ? .fetchFailed(starts[0].id, .network)
                : .fetchCompleted(starts[0].id, Sessions.completion(0, nil, [], cacheControl: nil, status: 503))
            let actions = try h.feed(input, at: ms(21_000))
            XCTAssertTrue(actions.contains(.log(.storeHit(assetIndex: 1, .stale))), "\(failure): \(actions)")
            XCTAssertEqual(Sessions.deliveries(actions).map(\.readyAssets), [2], failure)
            XCTAssertEqual(h.session.store.freshness(of: r.assets[1].key, at: ms(99_999)), .stale, failure)
            XCTAssertEqual(h.session.store.freshness(of: r.assets[1].key, at: ms(100_000)), .missing, failure)
        }
    }

    func testWithoutStaleIfErrorTheExpiredCopyIsPurgedAndTheFailureLeavesItMissing() throws {
        let r = try article()
        var h = try Harness(store: store(r, errorUntil: ms(10_000)))
        let wake = try h.feed(.pushReceived(r, Sessions.context()), at: ms(20_000))
        XCTAssertTrue(wake.contains(.evict(r.assets[1].key, .expired)))
        let starts = Sessions.starts(wake)
        let actions = try h.feed(.fetchFailed(starts[0].id, .network), at: ms(21_000))
        XCTAssertEqual(Sessions.deliveries(actions).map(\.readyAssets), [1])
    }
}
