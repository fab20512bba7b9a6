import XCTest
@testable import PreloadKit

/// `PreloadStore.paintSetAnswer(for:network:now:)`: what the screen a tap opens needs (every
/// critical asset, resolved for the network), which is not the pre-stage selection `tapAnswer`
/// reports when the policy's limits leave critical assets out.
final class PaintSetAnswerTests: XCTestCase {
    let policy = Fixtures.policy()

    func entry(_ key: StoreKey, expiresAt: Instant, staleUntil: Instant) -> PreloadStore.Entry {
        PreloadStore.Entry(key: key, bytes: 1_000, storedAt: .zero, expiresAt: expiresAt, staleUntil: staleUntil, lastUsed: .zero, manifestTag: 1, kind: .jpeg)
    }

    func manifest() throws -> PreStageRequest {
        let reference = try Sessions.request(Payloads.reference)
        return try PayloadParser.parseReferencedManifest(json: Fixtures.bytes(Payloads.referencedDocument), for: reference,
                                                         options: Fixtures.options())
    }

    func testEveryCriticalAssetResolvedForTheNetworkWhateverThePolicyLimits() throws {
        let manifest = try manifest()
        let cover3G = try XCTUnwrap(manifest.assets[0].variants.first { $0.network == .cellular3G }).key
        let tracks = manifest.assets[1].key
        var store = PreloadStore()
        store.insert(entry(cover3G, expiresAt: ms(60_000), staleUntil: ms(120_000)))
        let before = store

        // Critical assets only (the normal-priority video is not on the paint set), payload order.
        let on3G = store.paintSetAnswer(for: manifest, network: .cellular3G, now: ms(1))
        XCTAssertEqual(on3G, TapAnswer(assets: [AssetReadiness(key: cover3G, freshness: .fresh), AssetReadiness(key: tracks, freshness: .missing)],
                                       assetsKnown: true))
        XCTAssertEqual(store.paintSetAnswer(for: manifest, network: .cellular3G, now: ms(90_000)).assets.map(\.freshness), [.stale, .missing])
        // Wi-Fi resolves the cover to another variant, which is not stored.
        XCTAssertEqual(store.paintSetAnswer(for: manifest, network: .wifi, now: ms(1)).assets.map(\.freshness), [.missing, .missing])
        // The selection's limits do not shrink the paint set: with criticalAssetsMax 1 (or a silent
        // handler) a session pre-stages one asset, yet the screen needs both.
        var one = policy
        one.criticalAssetsMax = 1
        XCTAssertEqual(store.tapAnswer(for: manifest, context: Sessions.context(.iOSServiceExtension, .cellular3G), policy: one, now: ms(1)).assets.count, 1)
        XCTAssertEqual(store.tapAnswer(for: manifest, context: Sessions.context(.iOSSilentBackground, .cellular3G), policy: policy, now: ms(1)).assets.count, 1)
        XCTAssertEqual(on3G.assets.count, 2)
        XCTAssertFalse(on3G.paintsInstantly)
        XCTAssertEqual(store, before, "pure: no LRU update")
    }

    func testSameAsTheTapAnswerWhenThePolicySelectsEveryCriticalAsset() throws {
        let r = try Sessions.request(Payloads.inline())
        var store = PreloadStore()
        store.insert(entry(r.assets[0].key, expiresAt: ms(10_000), staleUntil: ms(20_000)))
        for now in [ms(1), ms(15_000), ms(30_000)] {
            XCTAssertEqual(store.paintSetAnswer(for: r, network: .wifi, now: now),
                           store.tapAnswer(for: r, context: Sessions.context(), policy: policy, now: now))
        }
    }

    func testAnUnfetchedReferenceIsUnknownAndTheBufferIsReused() throws {
        let reference = try Sessions.request(Payloads.reference)
        XCTAssertEqual(PreloadStore().paintSetAnswer(for: reference, network: .wifi, now: ms(1)), TapAnswer(assets: [], assetsKnown: false))
        let manifest = try manifest()
        var buffer: [AssetReadiness] = []
        buffer.reserveCapacity(4)
        let capacity = buffer.capacity
        XCTAssertTrue(PreloadStore().paintSetAnswer(for: manifest, network: .wifi, now: ms(1), into: &buffer))
        XCTAssertEqual(buffer.count, 2)
        XCTAssertEqual(buffer.capacity, capacity, "the buffer's storage is reused")
        XCTAssertFalse(PreloadStore().paintSetAnswer(for: reference, network: .wifi, now: ms(1), into: &buffer))
        XCTAssertEqual(buffer, [], "cleared for unknown assets")
    }
}
