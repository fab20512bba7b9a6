/// The cache nodes (PoPs first, then shields): each node's LRU cache and counters, the purge
/// tables, and the object versions that purges create (the origin's entity tags).
///
/// Invariants: `caches` and `counters` have one entry per node; `purgeCurrent` and
/// `purgePrevious` have `nodes × surrogate keys` entries (Int64.min: never purged) with
/// `purgePrevious <= purgeCurrent` for a key purged at most twice within its propagation delay;
/// `purgeIssued` and `keyVersion` have one entry per surrogate key (at least one).
struct NodeCaches {
    /// The objects looked up (sizes, freshness lifetimes, surrogate keys).
    let catalog: ObjectCatalog
    var caches: [LRUCache]
    var counters: [NodeCounters]
    /// Per (node, surrogate key): when the latest purge takes effect at the node, and the one before.
    var purgeCurrent: [Int64]
    var purgePrevious: [Int64]
    /// The latest purge call per surrogate key (Int64.min: never purged).
    var purgeIssued: [Int64]
    /// Version (purge calls so far) per surrogate key: the entity tag the origin serves.
    var keyVersion: [UInt32]

    /// Nodes with `caches` (one per node) and no purge yet.
    init(catalog: ObjectCatalog, caches: [LRUCache]) {
        self.catalog = catalog
        self.caches = caches
        counters = [NodeCounters](repeating: NodeCounters(), count: caches.count)
        let keys = max(catalog.surrogateKeyCount, 1)
        purgeCurrent = [Int64](repeating: Int64.min, count: caches.count * keys)
        purgePrevious = purgeCurrent
        purgeIssued = [Int64](repeating: Int64.min, count: keys)
        keyVersion = [UInt32](repeating: 0, count: keys)
    }

    enum Lookup { case fresh, staleWhileRevalidate, miss }

    /// Whether the entry in `slot` of node `n` was purged.
    @inline(__always)
    func purged(node n: Int, object o: UInt32, slot: Int32, now: Int64) -> Bool {
        let k = catalog.surrogateKey[Int(o)]
        if k == ObjectCatalog.noSurrogateKey { return false }
        let j = n * catalog.surrogateKeyCount + Int(k)
        let stored = caches[n].storedTicks(of: slot)
        let cur = purgeCurrent[j], prev = purgePrevious[j]
        return (cur <= now && stored < cur) || (prev <= now && stored < prev)
    }

    /// Whether a copy of object `o` generated at `originTicks` predates the latest purge call of
    /// its surrogate key (the purge superseded it, wherever it has not yet taken effect).
    @inline(__always)
    func superseded(object o: UInt32, originTicks: Int64) -> Bool {
        let k = catalog.surrogateKey[Int(o)]
        if k == ObjectCatalog.noSurrogateKey { return false }
        return originTicks < purgeIssued[Int(k)]
    }

    /// The version the origin serves of object `o` now.
    @inline(__always)
    func originVersion(object o: UInt32) -> UInt32 {
        let k = catalog.surrogateKey[Int(o)]
        return k == ObjectCatalog.noSurrogateKey ? 0 : keyVersion[Int(k)]
    }

    /// A counted lookup at node `n`. Entries past stale-while-revalidate stay stored (for
    /// stale-if-error) but count as misses; purged entries are removed.
    mutating func lookup(node n: Int, object o: UInt32, key: UInt64, now: Int64) -> (Lookup, Int32) {
        counters[n].requests += 1
        var slot = caches[n].lookup(key, nowTicks: now)
        if slot >= 0 && purged(node: n, object: o, slot: slot, now: now) {
            caches[n].remove(slot: slot)
            slot = -1
        }
        if slot >= 0 {
            let age = now - caches[n].originTicks(of: slot)
            let maxAge = catalog.maxAgeTicks[Int(o)]
            if age < maxAge {
                caches[n].touch(slot, nowTicks: now)
                counters[n].freshHits += 1
                return (.fresh, slot)
            }
            if age < maxAge + catalog.staleWhileRevalidateTicks[Int(o)] {
                caches[n].touch(slot, nowTicks: now)
                counters[n].staleHits += 1
                return (.staleWhileRevalidate, slot)
            }
        }
        counters[n].misses += 1
        return (.miss, slot)
    }

    /// The entry at node `n` usable under stale-if-error, or -1.
    mutating func staleIfErrorSlot(node n: Int, object o: UInt32, key: UInt64, now: Int64) -> Int32 {
        let slot = caches[n].lookup(key, nowTicks: now)
        if slot < 0 || purged(node: n, object: o, slot: slot, now: now) { return -1 }
        let age = now - caches[n].originTicks(of: slot)
        return age < catalog.maxAgeTicks[Int(o)] + catalog.staleIfErrorTicks[Int(o)] ? slot : -1
    }

    /// A purge call of surrogate key `key` now (`nowTicks`): a new version of its objects.
    mutating func notePurgeCall(key: Int, nowTicks: Int64) {
        purgeIssued[key] = nowTicks
        keyVersion[key] &+= 1
    }

    /// The purge of `key` takes effect at node `n` at `effectiveTicks`.
    mutating func schedulePurge(node n: Int, key: Int, effectiveTicks: Int64) {
        let j = n * catalog.surrogateKeyCount + key
        purgePrevious[j] = purgeCurrent[j]
        purgeCurrent[j] = max(effectiveTicks, purgeCurrent[j])
    }
}
