/// Counted cache lookups at a node: freshness, stale-while-revalidate, purges, stale-if-error.
extension InfraWorld {
    enum Lookup { case fresh, staleWhileRevalidate, miss }

    @inline(__always)
    func cacheKey(object: UInt32, token: UInt32) -> UInt64 {
        if !config.cacheKeyIncludesSignedToken { return UInt64(object) }
        return UInt64(object) | (UInt64(token % 0x7FFF_FFFE) + 1) << 32
    }

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
}
