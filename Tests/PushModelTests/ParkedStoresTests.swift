import Foundation
import PreloadKit
import XCTest
@testable import PushModel

/// Parking a store and unparking it gives back an equal `PreloadStore`, packed or not.
final class ParkedStoresTests: XCTestCase {
    func makePlans() throws -> (CampaignPlans, [CampaignConfig]) {
        var a = CampaignConfig()
        a.name = "a"
        a.assets = [AssetConfig(name: "hero", bytes: 48_200, variants: [AssetVariantConfig(network: "3g", bytes: 9_000)]),
                    AssetConfig(name: "doc", type: .json, priority: .critical, bytes: 1_800)]
        var b = CampaignConfig()
        b.name = "b"
        b.cacheControl = CacheControlConfig(maxAgeSeconds: 600, staleWhileRevalidateSeconds: 60)
        b.ttlSeconds = 3_600
        let campaigns = [a, b]
        return (try CampaignPlans(campaigns: campaigns), campaigns)
    }

    /// The entry a session would store for `key` of campaign `c` at `t` (PreloadKit's lifetime rule).
    func entry(_ plans: CampaignPlans, _ campaigns: [CampaignConfig], key: StoreKey, campaign c: Int, bytes: Int64, kind: MediaKind,
               storedAt t: Int64, lastUsed u: Int64) throws -> PreloadStore.Entry {
        let at = Instant(microseconds: t)
        let life = try XCTUnwrap(PreloadStore.lifetime(of: CacheControl.parse(campaigns[c].cacheControl.headerValue),
                                                       ttlSeconds: plans.requests[c][0].ttlSeconds, storedAt: at))
        return PreloadStore.Entry(key: key, bytes: bytes, storedAt: at, expiresAt: life.expiresAt, staleUntil: life.staleUntil,
                                  lastUsed: Instant(microseconds: u), manifestTag: plans.requests[c][0].manifestTag, kind: kind)
    }

    func testRoundTrips() throws {
        let (plans, campaigns) = try makePlans()
        var parked = ParkedStores(devices: 10, capacityBytes: 25_000_000, entriesMax: 64, plans: plans, campaigns: campaigns, placeholderBytes: 30_000)
        let heroKey = plans.requests[0][0].assets[0].key
        let variantKey = plans.requests[0][0].assets[0].variants[0].key
        let docKey = plans.requests[0][0].assets[1].key
        let bKey = plans.requests[1][0].assets[0].key

        var packed = PreloadStore()
        packed.insert(ParkedStores.fillerEntry(DeviceID(3), bytes: 1_234_567))
        packed.insert(try entry(plans, campaigns, key: heroKey, campaign: 0, bytes: 48_200, kind: .jpeg, storedAt: 5_000_000, lastUsed: 9_000_000))
        packed.insert(try entry(plans, campaigns, key: variantKey, campaign: 0, bytes: 30_000, kind: .jpeg, storedAt: 6_000_000, lastUsed: 6_000_000))  // placeholder
        packed.insert(try entry(plans, campaigns, key: docKey, campaign: 0, bytes: 1_800, kind: .json, storedAt: 7_000_000, lastUsed: 7_500_000))
        packed.insert(try entry(plans, campaigns, key: bKey, campaign: 1, bytes: 48_200, kind: .jpeg, storedAt: 8_000_000, lastUsed: 8_000_000))
        XCTAssertFalse(parked.hasStore(DeviceID(3)))
        parked.park(DeviceID(3), packed, plans: plans)
        XCTAssertTrue(parked.hasStore(DeviceID(3)))
        XCTAssertEqual(parked.overflowStores, 0, "every entry is derivable from its campaign")
        XCTAssertEqual(parked.unpark(DeviceID(3), plans: plans, reserving: 2), packed)
        XCTAssertFalse(parked.hasStore(DeviceID(3)))

        // An entry not derivable from any campaign (foreign key, or other lifetimes) parks whole.
        var foreign = packed
        foreign.insert(PreloadStore.Entry(key: StoreKey(hi: 1, lo: 2), bytes: 10, storedAt: .zero, expiresAt: .zero,
                                          staleUntil: Instant(microseconds: 1), lastUsed: .zero, manifestTag: 9, kind: .png))
        parked.park(DeviceID(4), foreign, plans: plans)
        XCTAssertEqual(parked.overflowStores, 1)
        var odd = PreloadStore()
        var e = try entry(plans, campaigns, key: docKey, campaign: 0, bytes: 1_800, kind: .json, storedAt: 1, lastUsed: 1)
        e.expiresAt = Instant(microseconds: 2)
        odd.insert(e)
        parked.park(DeviceID(5), odd, plans: plans)
        XCTAssertEqual(parked.overflowStores, 2)
        XCTAssertEqual(parked.unpark(DeviceID(4), plans: plans, reserving: 0), foreign)
        XCTAssertEqual(parked.unpark(DeviceID(5), plans: plans, reserving: 3), odd)

        // An emptied store stays a store (its filler is not re-created).
        parked.park(DeviceID(6), PreloadStore(capacityBytes: 25_000_000, entriesMax: 64), plans: plans)
        XCTAssertTrue(parked.hasStore(DeviceID(6)))
        XCTAssertEqual(parked.unpark(DeviceID(6), plans: plans, reserving: 1).entries.count, 0)
        // Blocks are recycled: parking again reuses freed slots.
        let slots = parked.poolSlots
        parked.park(DeviceID(3), packed, plans: plans)
        XCTAssertEqual(parked.poolSlots, slots)
    }

    /// The simulator's `ETag`s (1 + an object version, 1 … 3) are packed in the entry's URL
    /// index; a larger fingerprint (not the simulator's) keeps the store whole. Both round-trip.
    func testETagsRoundTrip() throws {
        let (plans, campaigns) = try makePlans()
        var parked = ParkedStores(devices: 4, capacityBytes: 25_000_000, entriesMax: 64, plans: plans, campaigns: campaigns, placeholderBytes: 30_000)
        let heroKey = plans.requests[0][0].assets[0].key
        let docKey = plans.requests[0][0].assets[1].key
        var store = PreloadStore()
        var hero = try entry(plans, campaigns, key: heroKey, campaign: 0, bytes: 48_200, kind: .jpeg, storedAt: 5_000_000, lastUsed: 9_000_000)
        hero.etag = EntityTag(fingerprint: 3)
        var doc = try entry(plans, campaigns, key: docKey, campaign: 0, bytes: 1_800, kind: .json, storedAt: 7_000_000, lastUsed: 7_500_000)
        doc.etag = EntityTag(fingerprint: 1)
        store.insert(hero)
        store.insert(doc)
        parked.park(DeviceID(0), store, plans: plans)
        XCTAssertEqual(parked.overflowStores, 0)
        XCTAssertEqual(parked.unpark(DeviceID(0), plans: plans, reserving: 0), store)
        var foreign = store
        doc.etag = EntityTag(fingerprint: 4)
        foreign.insert(doc)
        parked.park(DeviceID(1), foreign, plans: plans)
        XCTAssertEqual(parked.overflowStores, 1)
        XCTAssertEqual(parked.unpark(DeviceID(1), plans: plans, reserving: 0), foreign)
    }

    /// Many sessions end before the next begins: every packed store parked becomes a spare (up to
    /// `sparesMax`), and each `emptyStore` with the pool's limits hands one back empty with its
    /// entry buffer, so a warm run neither allocates nor frees store buffers.
    func testPackedStoresBecomeSparesWithTheirBuffers() throws {
        let (plans, campaigns) = try makePlans()
        var parked = ParkedStores(devices: 10, capacityBytes: 25_000_000, entriesMax: 64, plans: plans, campaigns: campaigns, placeholderBytes: 30_000)
        let heroKey = plans.requests[0][0].assets[0].key
        // Five sessions running at once, then ending.
        var stores: [PreloadStore] = []
        for d in 0..<5 {
            var store = parked.emptyStore(capacityBytes: 25_000_000, entriesMax: 64)
            store.insert(try entry(plans, campaigns, key: heroKey, campaign: 0, bytes: 48_200, kind: .jpeg,
                                   storedAt: Int64(d) * 1_000_000, lastUsed: Int64(d) * 1_000_000))
            stores.append(store)
        }
        for (d, store) in stores.enumerated() { parked.park(DeviceID(d), store, plans: plans) }
        stores = []
        XCTAssertEqual(parked.overflowStores, 0)
        XCTAssertEqual(parked.spareCount, 5, "every packed store is kept, not only the last")
        for k in 0..<5 {
            let spare = parked.emptyStore(capacityBytes: 25_000_000, entriesMax: 64)
            XCTAssertTrue(spare.entries.isEmpty, "spare \(k) is empty")
            XCTAssertEqual(spare.usedBytes, 0)
            XCTAssertGreaterThanOrEqual(spare.entries.capacity, 1, "spare \(k) keeps its entry buffer")
        }
        XCTAssertEqual(parked.spareCount, 0)
        // Other limits never take a spare; an unparked store equals the parked one.
        parked.park(DeviceID(9), parked.emptyStore(capacityBytes: 25_000_000, entriesMax: 64), plans: plans)
        XCTAssertEqual(parked.spareCount, 1)
        let other = parked.emptyStore(capacityBytes: 1_000, entriesMax: 4)
        XCTAssertEqual(other.capacityBytes, 1_000)
        XCTAssertEqual(other.entriesMax, 4)
        XCTAssertEqual(parked.spareCount, 1)
        XCTAssertEqual(parked.unpark(DeviceID(2), plans: plans, reserving: 0).entries.map(\.storedAt), [Instant(microseconds: 2_000_000)])
    }

    /// The spares are bounded: parking more packed stores than `sparesMax` keeps `sparesMax`.
    func testSparesAreBounded() throws {
        let (plans, campaigns) = try makePlans()
        let n = ParkedStores.sparesMax + 10
        var parked = ParkedStores(devices: n, capacityBytes: 25_000_000, entriesMax: 64, plans: plans, campaigns: campaigns, placeholderBytes: 30_000)
        let heroKey = plans.requests[0][0].assets[0].key
        let hero = try entry(plans, campaigns, key: heroKey, campaign: 0, bytes: 48_200, kind: .jpeg, storedAt: 0, lastUsed: 0)
        for d in 0..<n {
            var store = PreloadStore()
            store.insert(hero)
            parked.park(DeviceID(d), store, plans: plans)
        }
        XCTAssertEqual(parked.spareCount, ParkedStores.sparesMax)
    }
}
