import XCTest
@testable import PreloadKit

/// `PreloadStore.tapAnswer(for:context:policy:now:)`: a tap answered without a session, with the
/// session's selection. (`SessionPropertyTests` also checks, for thousands of random sessions,
/// that every `.tapAnswer` a session emits equals this function over the session's store.)
final class TapAnswerTests: XCTestCase {
    let policy = Fixtures.policy()

    func entry(_ key: StoreKey, expiresAt: Instant, staleUntil: Instant) -> PreloadStore.Entry {
        PreloadStore.Entry(key: key, bytes: 1_000, storedAt: .zero, expiresAt: expiresAt, staleUntil: staleUntil, lastUsed: .zero, manifestTag: 1, kind: .jpeg)
    }

    func testFreshStaleAndMissingForTheCriticalAssetsInSelectionOrder() throws {
        let r = try Sessions.request(Payloads.inline())
        var store = PreloadStore()
        store.insert(entry(r.assets[0].key, expiresAt: ms(10_000), staleUntil: ms(20_000)))
        store.insert(entry(r.assets[1].key, expiresAt: ms(5_000), staleUntil: ms(20_000)))
        let before = store
        func answer(at now: Instant) -> [Freshness] { store.tapAnswer(for: r, context: Sessions.context(), policy: policy, now: now).assets.map(\.freshness) }
        XCTAssertEqual(answer(at: ms(1_000)), [.fresh, .fresh])
        XCTAssertEqual(answer(at: ms(5_000)), [.fresh, .stale])
        XCTAssertEqual(answer(at: ms(10_000)), [.stale, .stale])
        XCTAssertEqual(answer(at: ms(20_000)), [.missing, .missing])
        let full = store.tapAnswer(for: r, context: Sessions.context(), policy: policy, now: ms(5_000))
        XCTAssertEqual(full.assets.map(\.key), [r.assets[0].key, r.assets[1].key])
        XCTAssertTrue(full.assetsKnown)
        XCTAssertTrue(full.paintsInstantly)
        XCTAssertFalse(store.tapAnswer(for: r, context: Sessions.context(), policy: policy, now: ms(20_000)).paintsInstantly)
        XCTAssertEqual(store, before, "pure: no LRU update")
    }

    func testVariantsPriorityAndTheLimitFollowTheContextAndPolicy() throws {
        let reference = try Sessions.request(Payloads.reference)
        let manifest = try PayloadParser.parseReferencedManifest(json: Fixtures.bytes(Payloads.referencedDocument), for: reference,
                                                                 options: Fixtures.options())
        let cover3G = try XCTUnwrap(manifest.assets[0].variants.first { $0.network == .cellular3G }).key
        let tracks = manifest.assets[1].key
        var store = PreloadStore()
        store.insert(entry(cover3G, expiresAt: ms(60_000), staleUntil: ms(60_000)))

        // 3G resolves the cover to its 3G variant (stored); the normal-priority video is not selected.
        let on3G = store.tapAnswer(for: manifest, context: Sessions.context(.iOSServiceExtension, .cellular3G), policy: policy, now: ms(1))
        XCTAssertEqual(on3G.assets, [AssetReadiness(key: cover3G, freshness: .fresh), AssetReadiness(key: tracks, freshness: .missing)])
        // Wi-Fi resolves it to the 1600 px variant, which is not stored.
        let onWifi = store.tapAnswer(for: manifest, context: Sessions.context(), policy: policy, now: ms(1))
        XCTAssertEqual(onWifi.assets.map(\.freshness), [.missing, .missing])
        XCTAssertNotEqual(onWifi.assets[0].key, cover3G)
        // A silent handler selects one asset; criticalAssetsMax 1 likewise.
        XCTAssertEqual(store.tapAnswer(for: manifest, context: Sessions.context(.iOSSilentBackground, .cellular3G), policy: policy, now: ms(1)).assets,
                       [AssetReadiness(key: cover3G, freshness: .fresh)])
        var one = policy
        one.criticalAssetsMax = 1
        XCTAssertEqual(store.tapAnswer(for: manifest, context: Sessions.context(.iOSServiceExtension, .cellular3G), policy: one, now: ms(1)).assets.count, 1)
        // eligiblePriority .normal brings the video in, after the critical ones.
        var wide = policy
        wide.eligiblePriority = .normal
        wide.criticalAssetsMax = 3
        XCTAssertEqual(store.tapAnswer(for: manifest, context: Sessions.context(), policy: wide, now: ms(1)).assets.map(\.key).last,
                       manifest.assets[2].key)
    }

    func testAReferenceWhoseManifestIsNotFetchedHasUnknownAssets() throws {
        let reference = try Sessions.request(Payloads.reference)
        XCTAssertFalse(reference.assetsKnown)
        XCTAssertEqual(PreloadStore().tapAnswer(for: reference, context: Sessions.context(), policy: policy, now: ms(1)),
                       TapAnswer(assets: [], assetsKnown: false))
        // A fetched manifest without assets is known (and paints at once), as in a session.
        let empty = try PayloadParser.parseReferencedManifest(json: Fixtures.bytes(#"{"manifest_id":"mix_wk43_ab12","assets":[]}"#), for: reference,
                                                              options: Fixtures.options(.none))
        XCTAssertTrue(empty.assetsKnown)
        let answer = PreloadStore().tapAnswer(for: empty, context: Sessions.context(), policy: policy, now: ms(1))
        XCTAssertEqual(answer, TapAnswer(assets: [], assetsKnown: true))
        XCTAssertTrue(answer.paintsInstantly)
    }

    func testTheSessionAndTheFunctionAgreeAfterTheExtensionEnded() throws {
        // A session stores one asset and fails the other; the app later answers from the store alone.
        let r = try Sessions.request(Payloads.inline())
        var h = try Harness()
        _ = try h.feed(.pushReceived(r, Sessions.context()), at: ms(0))
        _ = try h.feed(.fetchCompleted(FetchID(rawValue: 1), Sessions.completion(48_200, "image/webp", Fixtures.webpPrefix)), at: ms(300))
        _ = try h.feed(.fetchFailed(FetchID(rawValue: 2), .network), at: ms(400))
        XCTAssertTrue(h.session.isFinished)
        let store = h.session.store
        let sessionAnswer = try h.feed(.userTapped, at: ms(60_000))
        let answer = store.tapAnswer(for: r, context: Sessions.context(), policy: policy, now: ms(60_000))
        XCTAssertEqual(sessionAnswer, [.tapAnswer(answer)])
        XCTAssertEqual(answer.assets.map(\.freshness), [.fresh, .missing])
    }

    func testTheBufferVariantGivesTheSameAnswerAndKeepsItsStorage() throws {
        let r = try Sessions.request(Payloads.inline())
        let reference = try Sessions.request(Payloads.reference)
        var store = PreloadStore()
        store.insert(entry(r.assets[1].key, expiresAt: ms(10_000), staleUntil: ms(20_000)))
        var buffer: [AssetReadiness] = []
        buffer.reserveCapacity(policy.criticalAssetsMax)
        let capacity = buffer.capacity
        for now in [ms(1), ms(15_000), ms(30_000)] {
            let known = store.tapAnswer(for: r, context: Sessions.context(), policy: policy, now: now, into: &buffer)
            XCTAssertEqual(TapAnswer(assets: buffer, assetsKnown: known), store.tapAnswer(for: r, context: Sessions.context(), policy: policy, now: now))
            XCTAssertEqual(buffer.capacity, capacity, "the buffer's storage is reused")
        }
        XCTAssertFalse(store.tapAnswer(for: reference, context: Sessions.context(), policy: policy, now: ms(1), into: &buffer))
        XCTAssertEqual(buffer, [], "cleared for an unknown selection")
    }
}
