import SimKernel
import Stochastic

/// Upstream fills (PoP → shield → origin): request collapsing, revalidation, the origin
/// queue's answers and the answers to a fetch's waiters. The fetches, their waiters and the
/// in-flight index live in ``UpstreamFetchTable`` (`fetches`); the caches in ``NodeCaches``.
extension InfraWorld {
    /// The origin finished serving a fetch: it answers now, half a hop before the response is
    /// back at the fetching node.
    @inline(__always)
    mutating func originServiceDone(_ fetch: FetchID, kernel: inout Kernel) throws {
        try origin.serviceDone(fetch, kernel: &kernel)
        let f = fetch.index
        let now = kernel.now.ticks
        timeSeries.originQueue(at: now, length: origin.queueLength)
        let (bytes, notModified) = answer(fetch: f, version: nodes.originVersion(object: fetches.object[f]))
        origin.noteAnswer(bytes: bytes, notModified: notModified)
        timeSeries.bytes(at: now, tier: .origin, bytes)
        upstreamBytes.add(bytes, object: fetches.object[f], tier: .origin, warm: fetches.purpose[f] == UpstreamFetchTable.Purpose.warm.rawValue)
        fetches.ok[f] = true
        fetches.originTicks[f] = now
        fetches.servedBy[f] = Tier.origin.rawValue
        try kernel.schedule(InfraEvent.fetchResponse(FetchID(f)), at: SimTime(ticks: now + fetches.hopTicks[f] / 2))
    }

    /// Join the in-flight fetch of `key` at `node` (collapsing) or start a new one. Returns
    /// whether it collapsed. A miss-purpose call counts `collapsed`/`upstreamFetches`.
    mutating func startOrJoinFetch(node n: Int, object o: UInt32, key: UInt64, purpose: UpstreamFetchTable.Purpose,
                                           waiterIsFetch: Bool, waiterID: UInt32?, kernel: inout Kernel) throws -> Bool {
        let collapsible = config.tiers.requestCollapsingEnabled && key == UInt64(o)
        let flightKey = UInt64(n) << 32 | UInt64(o)
        if collapsible {
            let f = fetches.inFlightFetch(flightKey)
            if f >= 0 {
                if let w = waiterID { fetches.addWaiter(fetch: Int(f), isFetch: waiterIsFetch, id: w) }
                if purpose != .revalidate { nodes.counters[n].collapsed += 1 }
                return true
            }
        }
        guard let id = fetches.allocate() else { throw InfraError.fetchesInFlightLimit(config.fetchesInFlightMax) }
        let f = id.index
        fetches.node[f] = Int32(n)
        fetches.parent[f] = parentNode[n]
        fetches.object[f] = o
        fetches.key[f] = key
        let hop = max(0, samplers[Int(upstreamSamplerIndex[n])].sample(upstreamRng))
        fetches.hopTicks[f] = sampledTicks(hop)
        fetches.purpose[f] = purpose.rawValue
        fetches.ok[f] = false
        fetches.originTicks[f] = 0
        fetches.servedBy[f] = Tier.origin.rawValue
        fetches.registered[f] = collapsible
        fetches.waiterHead[f] = -1
        fetches.waiterTail[f] = -1
        setCondition(fetch: f, node: n, key: key)
        if collapsible { fetches.register(flightKey, fetch: f) }
        if let w = waiterID { fetches.addWaiter(fetch: f, isFetch: waiterIsFetch, id: w) }
        switch purpose {
        case .miss: nodes.counters[n].upstreamFetches += 1
        case .revalidate: nodes.counters[n].revalidations += 1
        case .warm: nodes.counters[n].upstreamFetches += 1
        }
        try kernel.schedule(InfraEvent.fetchAtParent(FetchID(f)), at: SimTime(ticks: kernel.now.ticks + fetches.hopTicks[f] / 2))
        return false
    }

    /// Background revalidation after a stale-while-revalidate hit (skipped when a fetch of the
    /// object is already in flight at the node).
    mutating func revalidate(node n: Int, object o: UInt32, key: UInt64, kernel: inout Kernel) throws {
        if config.tiers.requestCollapsingEnabled && key == UInt64(o) && fetches.inFlightFetch(UInt64(n) << 32 | UInt64(o)) >= 0 {
            return
        }
        _ = try startOrJoinFetch(node: n, object: o, key: key, purpose: .revalidate, waiterIsFetch: false,
                                 waiterID: nil, kernel: &kernel)
    }

    mutating func fetchAtParent(_ f: Int, kernel: inout Kernel) throws {
        let now = kernel.now.ticks
        let p = Int(fetches.parent[f])
        if p < 0 {
            if faults.hasOrigin && faults.originDown(at: now) {
                // The origin is down: an error at once, as for a 503 (stale-if-error applies).
                faultCounters.originOutageErrors += 1
                timeSeries.originRequest(at: now, rejected: true)
                fetches.ok[f] = false
                try kernel.schedule(InfraEvent.fetchResponse(FetchID(f)), at: SimTime(ticks: now + fetches.hopTicks[f] / 2))
                return
            }
            let admission = try origin.submit(job: FetchID(f), kernel: &kernel)
            timeSeries.originQueue(at: now, length: origin.queueLength)
            timeSeries.originRequest(at: now, rejected: admission == .rejected)
            if admission == .rejected {
                fetches.ok[f] = false
                try kernel.schedule(InfraEvent.fetchResponse(FetchID(f)), at: SimTime(ticks: now + fetches.hopTicks[f] / 2))
            }
            return
        }
        let o = fetches.object[f]
        let (state, slot) = nodes.lookup(node: p, object: o, key: fetches.key[f], now: now)
        switch state {
        case .fresh, .staleWhileRevalidate:
            try serveChild(f, fromNode: p, slot: slot, kernel: &kernel)
            if state == .staleWhileRevalidate { try revalidate(node: p, object: o, key: fetches.key[f], kernel: &kernel) }
        case .miss:
            _ = try startOrJoinFetch(node: p, object: o, key: fetches.key[f], purpose: .miss, waiterIsFetch: true,
                                     waiterID: UInt32(f), kernel: &kernel)
        }
    }

    /// Node `p` answers child fetch `f` from its cache entry `slot` (304 when the child's copy
    /// is the same version).
    mutating func serveChild(_ f: Int, fromNode p: Int, slot: Int32, kernel: inout Kernel) throws {
        let now = kernel.now.ticks
        let (bytes, notModified) = answer(fetch: f, version: nodes.caches[p].version(of: slot))
        if notModified { nodes.counters[p].notModified += 1 }
        fetches.ok[f] = true
        fetches.originTicks[f] = nodes.caches[p].originTicks(of: slot)
        fetches.servedBy[f] = Tier.shield.rawValue
        nodes.counters[p].bytesServed += UInt64(bytes)
        timeSeries.bytes(at: now, tier: .shield, bytes)
        upstreamBytes.add(bytes, object: fetches.object[f], tier: .shield, warm: fetches.purpose[f] == UpstreamFetchTable.Purpose.warm.rawValue)
        try kernel.schedule(InfraEvent.fetchResponse(FetchID(f)), at: SimTime(ticks: now + fetches.hopTicks[f] / 2))
    }

    /// Fetch `f`'s response is back at its node: store, then answer every waiter.
    mutating func fetchResponse(_ f: Int, kernel: inout Kernel) throws {
        let now = kernel.now.ticks
        let n = Int(fetches.node[f])
        let o = fetches.object[f]
        let key = fetches.key[f]
        if fetches.registered[f] { fetches.unregister(UInt64(n) << 32 | UInt64(o)) }
        let ok = fetches.ok[f]
        if ok {
            nodes.caches[n].insert(key, bytes: catalog.bytes[Int(o)], originTicks: fetches.originTicks[f], nowTicks: now,
                             version: fetches.version[f])
            if fetches.purpose[f] == UpstreamFetchTable.Purpose.warm.rawValue { nodes.counters[n].warmFetchesCompleted += 1 }
        } else {
            nodes.counters[n].upstreamFailures += 1
        }
        var w = fetches.waiterHead[f]
        while w >= 0 {
            let (isFetch, waiter, nextW) = fetches.takeWaiter(w)
            let id = Int(waiter)
            w = nextW
            if isFetch {
                let c = id
                if ok {
                    fetches.ok[c] = true
                    fetches.originTicks[c] = fetches.originTicks[f]
                    fetches.servedBy[c] = fetches.servedBy[f]
                    let (bytes, notModified) = answer(fetch: c, version: fetches.version[f])
                    if notModified { nodes.counters[n].notModified += 1 }
                    nodes.counters[n].bytesServed += UInt64(bytes)
                    timeSeries.bytes(at: now, tier: .shield, bytes)
                    upstreamBytes.add(bytes, object: o, tier: .shield, warm: fetches.purpose[c] == UpstreamFetchTable.Purpose.warm.rawValue)
                    try kernel.schedule(InfraEvent.fetchResponse(FetchID(c)), at: SimTime(ticks: now + fetches.hopTicks[c] / 2))
                } else {
                    let s = nodes.staleIfErrorSlot(node: n, object: o, key: key, now: now)
                    if s >= 0 {
                        nodes.counters[n].staleIfErrorServed += 1
                        try serveChild(c, fromNode: n, slot: s, kernel: &kernel)
                    } else {
                        nodes.counters[n].errorsServed += 1
                        fetches.ok[c] = false
                        try kernel.schedule(InfraEvent.fetchResponse(FetchID(c)), at: SimTime(ticks: now + fetches.hopTicks[c] / 2))
                    }
                }
            } else {
                let i = id
                requests[i].refs -= 1
                if requests[i].replied { requests.freeIfDone(i); continue }
                if ok {
                    requests[i].servedBy = fetches.servedBy[f]
                    requests[i].bytes = catalog.bytes[Int(requests[i].asked)]
                    requests[i].superseded = nodes.superseded(object: o, originTicks: fetches.originTicks[f])
                    requests[i].version = fetches.version[f]
                } else if case let s = nodes.staleIfErrorSlot(node: n, object: o, key: key, now: now), s >= 0 {
                    nodes.counters[n].staleIfErrorServed += 1
                    requests[i].superseded = nodes.superseded(object: o, originTicks: nodes.caches[n].originTicks(of: s))
                    requests[i].outcome = FetchOutcome.staleIfError.rawValue
                    requests[i].servedBy = Tier.edge.rawValue
                    requests[i].bytes = catalog.bytes[Int(requests[i].asked)]
                    requests[i].version = nodes.caches[n].version(of: s)
                } else {
                    nodes.counters[n].errorsServed += 1
                    requests[i].outcome = FetchOutcome.origin503.rawValue
                    requests[i].servedBy = Tier.origin.rawValue
                    requests[i].bytes = 0
                }
                try respondToDevice(i, extraTicks: 0, kernel: &kernel)
            }
        }
        fetches.release(f)
    }
}
