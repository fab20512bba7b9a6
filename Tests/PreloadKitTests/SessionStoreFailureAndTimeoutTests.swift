import XCTest
@testable import PreloadKit

/// `.storeFailed` (the driver could not write a committed asset) and the timeout rule (the session
/// owns every timeout; a report at its fetch's timeout is late whatever the feeding order).
/// Explicit `now`, exact action sequences.
final class SessionStoreFailureAndTimeoutTests: XCTestCase {
    let id1 = FetchID(rawValue: 1)
    let id2 = FetchID(rawValue: 2)

    func article() throws -> PreStageRequest { try Sessions.request(Payloads.inline()) }
    func coverDone(_ bytes: Int64 = 48_200) -> FetchCompletion { Sessions.completion(bytes, "image/webp", Fixtures.webpPrefix) }
    func previewDone() -> FetchCompletion { Sessions.completion(320_000, "application/vnd.apple.mpegurl", Fixtures.m3u8Prefix) }

    // MARK: - storeFailed

    func testStoreFailedRemovesTheEntryAndLaterOutputsSeeItMissing() throws {
        let r = try article()
        let cover = r.assets[0], preview = r.assets[1]
        var h = try Harness()
        _ = try h.feed(.pushReceived(r, Sessions.context()), at: ms(0))
        let stored = try h.feed(.fetchCompleted(id1, coverDone()), at: ms(300))
        XCTAssertEqual(stored.count, 2, "\(stored)")
        XCTAssertEqual(h.session.store.usedBytes, 48_200)

        XCTAssertEqual(try h.feed(.storeFailed(id1), at: ms(310)), [.log(.storeFailed(id1, cover.key))])
        XCTAssertNil(h.session.store.index(of: cover.key))
        XCTAssertEqual(h.session.store.usedBytes, 0)
        XCTAssertEqual(h.session.phase, .fetchingAssets, "the other fetch still runs")

        let previewEntry = PreloadStore.Entry(key: preview.key, bytes: 320_000, storedAt: ms(500), expiresAt: ms(500 + 14_400_000),
                                              staleUntil: ms(500 + 14_400_000), lastUsed: ms(500), manifestTag: r.manifestTag, kind: .m3u8)
        XCTAssertEqual(try h.feed(.fetchCompleted(id2, previewDone()), at: ms(500)), [
            .storeAsset(StoreCommit(fetchID: id2, entry: previewEntry, kind: .m3u8)),
            .log(.assetStored(id2, bytes: 320_000)),
            .deliver(Delivery(reason: .assetsSettled, attachment: nil, readyAssets: 1, selectedAssets: 2, at: ms(500))),
        ])
        XCTAssertEqual(try h.feed(.userTapped, at: ms(1_000)), [
            .tapAnswer(TapAnswer(assets: [AssetReadiness(key: cover.key, freshness: .missing), AssetReadiness(key: preview.key, freshness: .fresh)],
                                 assetsKnown: true)),
        ])
    }

    func testStoreFailedIsLegalAfterTheSessionFinished() throws {
        let r = try article()
        let preview = r.assets[1]
        var h = try Harness()
        _ = try h.feed(.pushReceived(r, Sessions.context()), at: ms(0))
        _ = try h.feed(.fetchCompleted(id1, coverDone()), at: ms(300))
        _ = try h.feed(.fetchCompleted(id2, previewDone()), at: ms(500))
        XCTAssertTrue(h.session.isFinished, "the commit was the session's last action")
        XCTAssertEqual(try h.feed(.storeFailed(id2), at: ms(500)), [.log(.storeFailed(id2, preview.key))])
        XCTAssertTrue(h.session.isFinished)
        XCTAssertNil(h.session.nextDeadline())
        XCTAssertEqual(h.session.store.entries.map(\.key), [r.assets[0].key])
        XCTAssertEqual(h.session.store.usedBytes, 48_200)
    }

    func testStoreFailedIsAppliedBeforeTheDeadlineItArrivesWith() throws {
        // The failure happened before `now`: a delivery triggered by the same input does not count it.
        let r = try article()
        var policy = Fixtures.policy()
        policy.requestTimeoutMicroseconds = 60_000_000
        var h = try Harness(policy: policy)
        _ = try h.feed(.pushReceived(r, Sessions.context()), at: ms(0))
        _ = try h.feed(.fetchCompleted(id1, coverDone()), at: ms(300))
        XCTAssertEqual(try h.feed(.storeFailed(id1), at: ms(22_000)), [
            .log(.storeFailed(id1, r.assets[0].key)),
            .cancelFetch(id2, .hardDeadline),
            .deliver(Delivery(reason: .hardDeadline, attachment: nil, readyAssets: 0, selectedAssets: 2, at: ms(22_000))),
        ])
    }

    func testStoreFailedWithoutACommitIsRefusedPreciselyAndChangesNothing() throws {
        let r = try article()
        var idle = try Harness()
        XCTAssertThrowsError(try idle.feed(.storeFailed(id1), at: ms(0))) { XCTAssertEqual($0 as? SessionError, .unknownFetch(self.id1, .storeFailed)) }

        var h = try Harness()
        _ = try h.feed(.pushReceived(r, Sessions.context()), at: ms(0))
        // Running fetch: no commit yet.
        XCTAssertThrowsError(try h.feed(.storeFailed(id1), at: ms(100))) { XCTAssertEqual($0 as? SessionError, .noStoreCommit(self.id1)) }
        XCTAssertThrowsError(try h.feed(.storeFailed(FetchID(rawValue: 3)), at: ms(100))) {
            XCTAssertEqual($0 as? SessionError, .unknownFetch(FetchID(rawValue: 3), .storeFailed))
        }
        // Refused at completion (HTML instead of an image): no commit.
        _ = try h.feed(.fetchCompleted(id1, Sessions.completion(48_200, "text/html", Array("<!doctype html>".utf8))), at: ms(200))
        XCTAssertThrowsError(try h.feed(.storeFailed(id1), at: ms(210))) { XCTAssertEqual($0 as? SessionError, .noStoreCommit(self.id1)) }
        // Stored, reported failed once; the second report is refused.
        _ = try h.feed(.fetchCompleted(id2, previewDone()), at: ms(300))
        let before = h.session.store
        XCTAssertEqual(try h.feed(.storeFailed(id2), at: ms(310)), [.log(.storeFailed(id2, r.assets[1].key))])
        let after = h.session.store
        XCTAssertNotEqual(before, after)
        XCTAssertThrowsError(try h.feed(.storeFailed(id2), at: ms(320))) { XCTAssertEqual($0 as? SessionError, .storeFailureAlreadyReported(self.id2)) }
        XCTAssertEqual(h.session.store, after, "a refused input changes nothing")
        XCTAssertEqual(SessionError.noStoreCommit(id1).description, "storeFailed for fetch#1, for which the session emitted no storeAsset")
    }

    func testStoreFailedForACancelledOrManifestFetchIsRefused() throws {
        // A fetch cancelled by its timeout.
        let r = try article()
        var h = try Harness()
        _ = try h.feed(.pushReceived(r, Sessions.context()), at: ms(0))
        _ = try h.feed(.timerFired, at: ms(8_000))
        XCTAssertThrowsError(try h.feed(.storeFailed(id1), at: ms(8_000))) { XCTAssertEqual($0 as? SessionError, .noStoreCommit(self.id1)) }

        // The manifest fetch of a reference.
        let reference = try Sessions.request(Payloads.reference)
        var m = try Harness()
        _ = try m.feed(.pushReceived(reference, Sessions.context()), at: ms(0))
        XCTAssertEqual(m.session.phase, .fetchingManifest)
        XCTAssertThrowsError(try m.feed(.storeFailed(id1), at: ms(10))) { XCTAssertEqual($0 as? SessionError, .noStoreCommit(self.id1)) }
    }

    // MARK: - Timeouts

    func testATimeoutReportAtTheTimeoutInstantIsLateWhicheverIsFedFirst() throws {
        // The session's timer and a transport timeout both at 8 s (the request timeout): the
        // session's cancel wins in both orders, and the report is ignored as late.
        let r = try article()
        let expected: [Action] = [
            .cancelFetch(id1, .timedOut),
            .cancelFetch(id2, .timedOut),
            .deliver(Delivery(reason: .assetsSettled, attachment: nil, readyAssets: 0, selectedAssets: 2, at: ms(8_000))),
            .log(.lateInputIgnored(id1, .fetchFailed)),
        ]
        var timerFirst = try Harness()
        let starts = Sessions.starts(try timerFirst.feed(.pushReceived(r, Sessions.context()), at: ms(0)))
        XCTAssertEqual(starts.map(\.timeoutMicroseconds), [8_000_000, 8_000_000])
        XCTAssertEqual(timerFirst.session.nextDeadline(), ms(8_000), "the request timeouts are in the one deadline")
        var a = try timerFirst.feed(.timerFired, at: ms(8_000))
        a += try timerFirst.feed(.fetchFailed(id1, .timedOut), at: ms(8_000))

        var reportFirst = try Harness()
        _ = try reportFirst.feed(.pushReceived(r, Sessions.context()), at: ms(0))
        let b = try reportFirst.feed(.fetchFailed(id1, .timedOut), at: ms(8_000))

        XCTAssertEqual(a, expected)
        XCTAssertEqual(b, expected)
        XCTAssertEqual(timerFirst.session.store, reportFirst.session.store)
        XCTAssertEqual(timerFirst.session.delivery, reportFirst.session.delivery)
    }

    func testACompletionOneMicrosecondBeforeTheTimeoutCountsAndOneAtItDoesNot() throws {
        let r = try article()
        let timeout = Instant(microseconds: 8_000_000)
        var before = try Harness()
        _ = try before.feed(.pushReceived(r, Sessions.context()), at: .zero)
        let early = try before.feed(.fetchCompleted(id1, coverDone()), at: timeout.advanced(byMicroseconds: -1))
        XCTAssertEqual(early.first.map { if case .storeAsset = $0 { return true } else { return false } }, true, "\(early)")

        var at = try Harness()
        _ = try at.feed(.pushReceived(r, Sessions.context()), at: .zero)
        XCTAssertEqual(try at.feed(.fetchCompleted(id1, coverDone()), at: timeout), [
            .cancelFetch(id1, .timedOut),
            .cancelFetch(id2, .timedOut),
            .deliver(Delivery(reason: .assetsSettled, attachment: nil, readyAssets: 0, selectedAssets: 2, at: timeout)),
            .log(.lateInputIgnored(id1, .fetchCompleted)),
        ])
        XCTAssertEqual(at.session.store.usedBytes, 0)
    }

    func testATransportTimeoutBeforeTheRequestTimeoutIsAFailure() throws {
        // A backstop (idle) timeout that fires early is an ordinary failure of that fetch.
        let r = try article()
        var h = try Harness()
        _ = try h.feed(.pushReceived(r, Sessions.context()), at: ms(0))
        XCTAssertEqual(try h.feed(.fetchFailed(id1, .timedOut), at: ms(5_000)), [.log(.fetchFailed(id1, .timedOut))])
        XCTAssertEqual(h.session.nextDeadline(), ms(8_000), "the other fetch's timeout")
    }
}
