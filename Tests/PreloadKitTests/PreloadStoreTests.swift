import XCTest
@testable import PreloadKit

final class PreloadStoreTests: XCTestCase {
    func key(_ i: Int) -> StoreKey { StoreKey(cacheKey: "https://cdn.example.com/asset/\(i)") }
    func t(_ seconds: Int64) -> Instant { Instant(microseconds: seconds * 1_000_000) }

    func entry(_ i: Int, bytes: Int64, at s: Int64, ttl: Int64 = 14_400, tag: UInt64 = 1) -> PreloadStore.Entry {
        PreloadStore.Entry(key: key(i), bytes: bytes, storedAt: t(s), expiresAt: t(s + ttl), staleUntil: t(s + ttl), lastUsed: t(s), manifestTag: tag, kind: .jpeg)
    }

    /// Inserts with LRU eviction, returning the evicted keys in eviction order.
    func put(_ store: inout PreloadStore, _ e: PreloadStore.Entry, limit: Int64 = .max) -> [StoreKey] {
        var evicted: [StoreKey] = []
        while let v = store.evictOneForSpace(bytes: e.bytes, limitBytes: limit, replacing: e.key) { evicted.append(v.key) }
        XCTAssertTrue(store.insert(e))
        return evicted
    }

    func testLRUEvictionOrderFollowsLastUse() {
        var store = PreloadStore(capacityBytes: 1_000)
        XCTAssertEqual(put(&store, entry(1, bytes: 300, at: 1)), [])
        XCTAssertEqual(put(&store, entry(2, bytes: 300, at: 2)), [])
        XCTAssertEqual(put(&store, entry(3, bytes: 300, at: 3)), [])
        XCTAssertTrue(store.touch(key(1), at: t(4)))  // 1 is now the most recent
        XCTAssertEqual(put(&store, entry(4, bytes: 300, at: 5)), [key(2)])
        XCTAssertEqual(put(&store, entry(5, bytes: 600, at: 6)), [key(3), key(1)])
        XCTAssertEqual(store.entries.map(\.key).sorted(), [key(4), key(5)].sorted())
        XCTAssertEqual(store.usedBytes, 900)
    }

    func testLRUTiesBrokenByKeyOrder() {
        var store = PreloadStore(capacityBytes: 200)
        _ = put(&store, entry(1, bytes: 100, at: 1))
        _ = put(&store, entry(2, bytes: 100, at: 1))
        let expectedVictim = min(key(1), key(2))
        XCTAssertEqual(put(&store, entry(3, bytes: 100, at: 2)), [expectedVictim])
    }

    func testReplacingSameKeyDoesNotDuplicateOrEvictItself() {
        var store = PreloadStore(capacityBytes: 1_000)
        _ = put(&store, entry(1, bytes: 600, at: 1))
        XCTAssertEqual(put(&store, entry(1, bytes: 900, at: 2)), [], "the old version does not count against the new one")
        XCTAssertEqual(store.entries.count, 1)
        XCTAssertEqual(store.usedBytes, 900)
    }

    func testCapacityAndEntryLimit() {
        var store = PreloadStore(capacityBytes: 1_000, entriesMax: 2)
        XCTAssertFalse(store.insert(entry(1, bytes: 1_001, at: 1)), "larger than capacity")
        XCTAssertEqual(store.usedBytes, 0)
        _ = put(&store, entry(1, bytes: 10, at: 1))
        _ = put(&store, entry(2, bytes: 10, at: 2))
        XCTAssertEqual(put(&store, entry(3, bytes: 10, at: 3)), [key(1)], "entry count bound evicts too")
        XCTAssertFalse(store.insert(entry(4, bytes: 10, at: 4)), "insert refuses without room being made first")
        // A caller limit below capacity (free disk) is honoured.
        XCTAssertEqual(put(&store, entry(5, bytes: 15, at: 5), limit: 20), [key(2), key(3)])
        XCTAssertLessThanOrEqual(store.usedBytes, 20)
    }

    /// A capacity hint changes nothing observable, is capped at `entriesMax`, and lets the store
    /// fill without growing its buffer.
    /// `removeAll` empties the store and zeroes its bytes; with `keepingCapacity` the entry buffer
    /// stays (a driver recycles it for the next device), without it the buffer goes.
    func testRemoveAllKeepsTheBufferOnlyWhenAsked() {
        var store = PreloadStore(capacityBytes: 1_000, entriesMax: 8)
        for i in 1...5 { _ = put(&store, entry(i, bytes: 10, at: Int64(i))) }
        let capacity = store.entries.capacity
        var kept = store
        kept.removeAll(keepingCapacity: true)
        XCTAssertEqual(kept, PreloadStore(capacityBytes: 1_000, entriesMax: 8))
        XCTAssertEqual(kept.usedBytes, 0)
        XCTAssertEqual(kept.entries.capacity, capacity)
        XCTAssertEqual(store.entries.count, 5, "the copy it was taken from keeps its entries")
        store.removeAll()
        XCTAssertEqual(store, PreloadStore(capacityBytes: 1_000, entriesMax: 8))
        XCTAssertEqual(store.entries.capacity, 0)
        XCTAssertTrue(store.insert(entry(9, bytes: 10, at: 9)), "an emptied store takes entries again")
        XCTAssertEqual(store.usedBytes, 10)
    }

    func testReserveCapacityKeepsContentsAndCapsAtEntriesMax() {
        var store = PreloadStore(capacityBytes: 1_000, entriesMax: 4)
        _ = put(&store, entry(1, bytes: 10, at: 1))
        let before = store
        store.reserveCapacity(entries: 3)
        XCTAssertEqual(store, before)
        XCTAssertGreaterThanOrEqual(store.entries.capacity, 3)
        let capacity = store.entries.capacity
        _ = put(&store, entry(2, bytes: 10, at: 2))
        _ = put(&store, entry(3, bytes: 10, at: 3))
        XCTAssertEqual(store.entries.capacity, capacity, "two more entries fit in the reserved buffer")
        var capped = PreloadStore(capacityBytes: 1_000, entriesMax: 2)
        capped.reserveCapacity(entries: 1_000_000)
        XCTAssertLessThan(capped.entries.capacity, 1_000, "the hint is capped at entriesMax, not taken as given")
        capped.reserveCapacity(entries: -5)
        XCTAssertEqual(capped, PreloadStore(capacityBytes: 1_000, entriesMax: 2), "a negative hint is ignored")
    }

    func testFreshnessWindows() {
        // max-age 60, swr 3600, ttl 4 h: fresh < 60 s, stale < 3660 s, then missing.
        let life = PreloadStore.lifetime(of: CacheControl(maxAgeSeconds: 60, staleWhileRevalidateSeconds: 3_600), ttlSeconds: 14_400, storedAt: t(100))
        XCTAssertEqual(life?.expiresAt, t(160))
        XCTAssertEqual(life?.staleUntil, t(3_760))
        var store = PreloadStore()
        _ = put(&store, PreloadStore.Entry(key: key(1), bytes: 1, storedAt: t(100), expiresAt: t(160), staleUntil: t(3_760), lastUsed: t(100), manifestTag: 1, kind: .png))
        XCTAssertEqual(store.freshness(of: key(1), at: t(159)), .fresh)
        XCTAssertEqual(store.freshness(of: key(1), at: t(160)), .stale)
        XCTAssertEqual(store.freshness(of: key(1), at: t(3_759)), .stale)
        XCTAssertEqual(store.freshness(of: key(1), at: t(3_760)), .missing)
        XCTAssertEqual(store.freshness(of: key(2), at: t(0)), .missing)
    }

    func testLifetimeRules() {
        let at = t(0)
        // The TTL bounds everything (article: max-age=86400 with a 4 h preload TTL).
        let capped = PreloadStore.lifetime(of: CacheControl(maxAgeSeconds: 86_400, staleWhileRevalidateSeconds: 3_600), ttlSeconds: 14_400, storedAt: at)
        XCTAssertEqual(capped?.expiresAt, t(14_400))
        XCTAssertEqual(capped?.staleUntil, t(14_400))
        // No header: fresh for the TTL.
        let none = PreloadStore.lifetime(of: CacheControl(), ttlSeconds: 18_000, storedAt: at)
        XCTAssertEqual(none?.expiresAt, t(18_000))
        XCTAssertNil(PreloadStore.lifetime(of: CacheControl(noStore: true), ttlSeconds: 14_400, storedAt: at))
        XCTAssertNil(PreloadStore.lifetime(of: CacheControl(noCache: true), ttlSeconds: 14_400, storedAt: at), "no-cache without swr: no usable life")
        let revalidate = PreloadStore.lifetime(of: CacheControl(staleWhileRevalidateSeconds: 600, noCache: true), ttlSeconds: 14_400, storedAt: at)
        XCTAssertEqual(revalidate?.expiresAt, at, "no-cache: stale at once")
        XCTAssertEqual(revalidate?.staleUntil, t(600))
        XCTAssertNil(PreloadStore.lifetime(of: CacheControl(maxAgeSeconds: 0), ttlSeconds: 14_400, storedAt: at))
    }

    func testPurgeExpiredAndByManifest() {
        var store = PreloadStore()
        _ = put(&store, entry(1, bytes: 10, at: 0, ttl: 100, tag: 7))
        _ = put(&store, entry(2, bytes: 20, at: 0, ttl: 200, tag: 7))
        _ = put(&store, entry(3, bytes: 30, at: 0, ttl: 300, tag: 8))
        XCTAssertEqual(store.purgeExpired(at: t(99)), [])
        XCTAssertEqual(store.purgeExpired(at: t(100)), [key(1)])
        XCTAssertEqual(store.usedBytes, 50)
        XCTAssertEqual(store.purge(manifestTag: 7), [key(2)])
        XCTAssertEqual(store.purge(manifestTag: 7), [])
        XCTAssertEqual(store.entries.map(\.key), [key(3)])
        XCTAssertEqual(store.usedBytes, 30)
    }

    func testRandomOperationsKeepTheBookkeepingExact() {
        let seed: UInt64 = 0x5707E
        var rng = CoreRNG(seed: seed)
        var store = PreloadStore(capacityBytes: 5_000, entriesMax: 8)
        var now: Int64 = 0
        for step in 0..<5_000 {
            now += Int64(rng.below(30))
            switch rng.below(4) {
            case 0, 1:
                let e = entry(rng.below(20), bytes: Int64(rng.below(2_500)), at: now, ttl: Int64(1 + rng.below(500)), tag: UInt64(rng.below(3)))
                let before = Set(store.entries.map(\.key))
                let evicted = put(&store, e)
                XCTAssertTrue(Set(evicted).isSubset(of: before), "seed \(seed) step \(step)")
            case 2: _ = store.purgeExpired(at: t(now))
            default: _ = store.purge(manifestTag: UInt64(rng.below(3)))
            }
            XCTAssertEqual(store.usedBytes, store.entries.reduce(0) { $0 + $1.bytes }, "seed \(seed) step \(step)")
            XCTAssertLessThanOrEqual(store.usedBytes, store.capacityBytes, "seed \(seed) step \(step)")
            XCTAssertLessThanOrEqual(store.entries.count, store.entriesMax, "seed \(seed) step \(step)")
            XCTAssertEqual(Set(store.entries.map(\.key)).count, store.entries.count, "seed \(seed) step \(step)")
        }
    }

    func testEntriesFromTheFutureBeyondTheToleranceAreDropped() {
        var store = PreloadStore(capacityBytes: 10_000)
        let now = t(1_000)
        var atLimit = entry(1, bytes: 100, at: 1_002)          // storedAt = now + tolerance: kept
        atLimit.lastUsed = t(1_002)
        var storedLater = entry(2, bytes: 200, at: 1_002)
        storedLater.storedAt = Instant(microseconds: t(1_002).microseconds + 1)  // 1 us past the tolerance
        storedLater.lastUsed = storedLater.storedAt
        var usedLater = entry(3, bytes: 300, at: 900)
        usedLater.lastUsed = t(1_003)
        let past = entry(4, bytes: 400, at: 900, ttl: 1_000_000)  // expires far in the future: fine
        for e in [usedLater, storedLater, atLimit, past] { XCTAssertTrue(store.insert(e)) }

        let dropped = store.dropEntriesFromTheFuture(now: now, toleranceMicroseconds: 2_000_000)
        XCTAssertEqual(dropped.map(\.key), [key(2), key(3)].sorted())
        XCTAssertEqual(dropped.map(\.bytes).sorted(), [200, 300])
        XCTAssertEqual(store.entries.map(\.key), [atLimit.key, past.key])
        XCTAssertEqual(store.usedBytes, 500)
        XCTAssertEqual(store.dropEntriesFromTheFuture(now: now, toleranceMicroseconds: 2_000_000), [], "idempotent")
        // A negative tolerance counts as zero.
        XCTAssertEqual(store.dropEntriesFromTheFuture(now: now, toleranceMicroseconds: -5).map(\.key), [key(1)])
        XCTAssertEqual(store.usedBytes, 400)
    }
}
