// Entity tags between the tiers (RFC 9110 §8.8.3 `ETag`) and conditional revalidation
// (§13.1.2 `If-None-Match`, §15.4.5 304 Not Modified).
//
// An object's entity tag is its version: the number of purge calls of its surrogate key so far
// (a creative swap purges, and from that call on the origin serves the new creative; objects
// without a key never change). A node that starts an upstream fetch while it still stores a
// copy of the key (stale within stale-while-revalidate, or past it and kept for
// stale-if-error; purged copies are gone) sends that copy's version when the origin sends
// validators. The upstream answers 304 with headers only (``TierConfig/notModifiedBytes``) when
// the version it would serve (its own copy, or the origin's current object) is the same, and
// 200 with the body otherwise. Either way the node stores the answer, whose age restarts from
// the answering copy's.
//
// The bodies are abstract in the simulation, so a 304 refreshes the node's entry by storing it
// again; a copy evicted while its revalidation was in flight is stored again too (a real cache
// would refetch it unconditionally: one more round trip, rare).
//
// Storage: the origin's version per surrogate key is `NodeCaches.keyVersion` (a purge call bumps
// it); each fetch's condition and answer version are `UpstreamFetchTable.condition` / `.version`.

/// Conditional revalidation between the tiers.
extension InfraWorld {
    /// Fetch `f` from node `n` is conditional on the node's stored copy of `key`, if any (and if
    /// the origin sends validators).
    @inline(__always)
    mutating func setCondition(fetch f: Int, node n: Int, key: UInt64) {
        var c: UInt32 = 0
        if config.origin.sendsValidators {
            let s = nodes.caches[n].slot(of: key)
            if s >= 0 { c = nodes.caches[n].version(of: s) &+ 1 }
        }
        fetches.condition[f] = c
    }

    /// Answer fetch `f` with `version`: its bytes (headers only when the fetch's condition
    /// matches) and whether that is a 304.
    @inline(__always)
    mutating func answer(fetch f: Int, version: UInt32) -> (bytes: Int64, notModified: Bool) {
        fetches.version[f] = version
        if fetches.condition[f] == version &+ 1 { return (config.tiers.notModifiedBytes, true) }
        return (catalog.bytes[Int(fetches.object[f])], false)
    }
}
