import SimKernel
import Stochastic

/// Which caches a warm call targets.
package enum WarmTarget: Sendable, Equatable {
    case allPops
    /// The `k` PoPs with the largest audience weight (ties by lower index).
    case topPops(Int)
    case shieldsOnly
}

/// Pre-warming caches and purging by surrogate key.
extension InfraWorld {
    /// Warm `objects` into the targeted caches: each targeted node receives a warm request at
    /// `at` + a per-node delay drawn from `warmPropagationSeconds`. A warm request is a lookup
    /// that fetches on a miss (through tiers and collapsing, like any miss). Warming uses the
    /// token-free cache key, so with `cacheKeyIncludesSignedToken` warmed entries never match a
    /// device request (as on a real CDN). With `config.cdnApi`, the warm goes through its profile
    /// instead (a warm API's paced batches, or paced lookups without one).
    /// - Complexity: O(nodes × objects) scheduled events.
    package mutating func warm(objects: [UInt32], at: SimTime, target: WarmTarget, kernel: inout Kernel) throws {
        guard at >= kernel.now else { throw InfraError.warmInPast(now: kernel.now, requested: at) }
        for o in objects where Int(o) >= catalog.count { throw InfraError.unknownObject(o) }
        if cdnApi != nil { return try warmThroughApi(objects: objects, at: at, target: target, kernel: &kernel) }
        var nodes: [Int] = []
        switch target {
        case .allPops: nodes = Array(0..<popCount)
        case .topPops(let k): nodes = popsByAudience.prefix(max(0, min(k, popCount))).map { Int($0) }
        case .shieldsOnly: nodes = Array(popCount..<nodeCount)
        }
        for n in nodes {
            let delay = SimDuration(ticks: sampledTicks(warmDelaySampler.sample(propagationRng)))
            for o in objects {
                try kernel.schedule(InfraEvent.warmAtNode(NodeID(n), ObjectID(rawValue: o)), at: at + delay)
            }
        }
    }

    /// Purge every object tagged `surrogateKey` (hard purge: entries become absent). The purge
    /// takes effect at each node now + a delay drawn from `purgePropagationSeconds`; entries
    /// stored before that instant are invalid from then on. Two purges of the same key closer
    /// together than the propagation delay are tracked exactly; a third within that window
    /// merges with the second. With `config.cdnApi`, the purge goes through its profile instead
    /// (`WarmAndPurge+CdnApi.swift`: paced batches, their own propagation, failures).
    /// - Complexity: O(nodes).
    package mutating func purge(surrogateKey key: UInt32, kernel: inout Kernel) throws {
        guard Int(key) < catalog.surrogateKeyCount else { throw InfraError.unknownSurrogateKey(key) }
        nodes.notePurgeCall(key: Int(key), nowTicks: kernel.now.ticks)
        if cdnApi != nil { return purgeThroughApi(keys: [Int(key)], kernel: &kernel) }
        for n in 0..<nodeCount {
            let effective = kernel.now.ticks + sampledTicks(purgeDelaySampler.sample(propagationRng))
            nodes.schedulePurge(node: n, key: Int(key), effectiveTicks: effective)
        }
    }

    mutating func warmAtNode(_ n: Int, object asked: UInt32, kernel: inout Kernel) throws {
        let o = catalog.cacheObject[Int(asked)]  // a range warms the object it is a range of
        if faults.hasPop && n < popCount && faults.popDown(n, at: kernel.now.ticks) {
            faultCounters.warmsLost += 1
            return
        }
        nodes.counters[n].warmRequests += 1
        let (state, _) = nodes.lookup(node: n, object: o, key: UInt64(o), now: kernel.now.ticks)
        if state == .miss {
            _ = try startOrJoinFetch(node: n, object: o, key: UInt64(o), purpose: .warm, waiterIsFetch: false,
                                     waiterID: nil, kernel: &kernel)
        } else if state == .staleWhileRevalidate {
            try revalidate(node: n, object: o, key: UInt64(o), kernel: &kernel)
        }
    }
}
