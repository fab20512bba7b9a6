import SimKernel
import Stochastic

/// Upstream fills (PoP → shield → origin): request collapsing, revalidation, the origin
/// queue's answers, the waiters on a fetch, and the fetch and waiter tables.
extension InfraWorld {
    /// Why a fetch was started (stored in `fPurpose`).
    enum Purpose: UInt8 { case miss, revalidate, warm }

    /// The origin finished serving a fetch: it answers now, half a hop before the response is
    /// back at the fetching node.
    @inline(__always)
    mutating func originServiceDone(_ fetch: FetchID, kernel: inout Kernel) throws {
        try origin.serviceDone(fetch, kernel: &kernel)
        let f = fetch.index
        let now = kernel.now.ticks
        timeSeries.originQueue(at: now, length: origin.queueLength)
        if origin.lastStartedFromQueue != nil {
            originCounters.waitedRequests += 1
            originCounters.totalWaitSeconds += Double(origin.lastStartedWaitTicks) / 1e6
        }
        let (bytes, notModified) = answer(fetch: f, version: originVersion(object: fObject[f]))
        if notModified { originCounters.notModified += 1 }
        originCounters.served += 1
        originCounters.bytesServed += UInt64(bytes)
        timeSeries.bytes(at: now, tier: .origin, bytes)
        fOK[f] = true
        fOriginTicks[f] = now
        fServedBy[f] = Tier.origin.rawValue
        try kernel.schedule(.fetchResponse(FetchID(f)), at: SimTime(ticks: now + fHopTicks[f] / 2))
    }

    /// Join the in-flight fetch of `key` at `node` (collapsing) or start a new one. Returns
    /// whether it collapsed. A miss-purpose call counts `collapsed`/`upstreamFetches`.
    mutating func startOrJoinFetch(node n: Int, object o: UInt32, key: UInt64, purpose: Purpose,
                                           waiterIsFetch: Bool, waiterID: UInt32?, kernel: inout Kernel) throws -> Bool {
        let collapsible = config.tiers.requestCollapsingEnabled && key == UInt64(o)
        let flightKey = UInt64(n) << 32 | UInt64(o)
        if collapsible {
            let f = inFlight.find(flightKey)
            if f >= 0 {
                if let w = waiterID { addWaiter(fetch: Int(f), isFetch: waiterIsFetch, id: w) }
                if purpose != .revalidate { counters[n].collapsed += 1 }
                return true
            }
        }
        let f = try allocateFetch()
        fNode[f] = Int32(n)
        fParent[f] = parentNode[n]
        fObject[f] = o
        fKey[f] = key
        let hop = max(0, samplers[Int(upstreamSamplerIndex[n])].sample(upstreamRng))
        fHopTicks[f] = sampledTicks(hop)
        fPurpose[f] = purpose.rawValue
        fOK[f] = false
        fOriginTicks[f] = 0
        fServedBy[f] = Tier.origin.rawValue
        fRegistered[f] = collapsible
        fWaiterHead[f] = -1
        fWaiterTail[f] = -1
        setCondition(fetch: f, node: n, key: key)
        if collapsible { inFlight.set(flightKey, Int32(f)) }
        if let w = waiterID { addWaiter(fetch: f, isFetch: waiterIsFetch, id: w) }
        switch purpose {
        case .miss: counters[n].upstreamFetches += 1
        case .revalidate: counters[n].revalidations += 1
        case .warm: counters[n].upstreamFetches += 1
        }
        try kernel.schedule(.fetchAtParent(FetchID(f)), at: SimTime(ticks: kernel.now.ticks + fHopTicks[f] / 2))
        return false
    }

    /// Background revalidation after a stale-while-revalidate hit (skipped when a fetch of the
    /// object is already in flight at the node).
    mutating func revalidate(node n: Int, object o: UInt32, key: UInt64, kernel: inout Kernel) throws {
        if config.tiers.requestCollapsingEnabled && key == UInt64(o) && inFlight.find(UInt64(n) << 32 | UInt64(o)) >= 0 {
            return
        }
        _ = try startOrJoinFetch(node: n, object: o, key: key, purpose: .revalidate, waiterIsFetch: false,
                                 waiterID: nil, kernel: &kernel)
    }

    mutating func fetchAtParent(_ f: Int, kernel: inout Kernel) throws {
        let now = kernel.now.ticks
        let p = Int(fParent[f])
        if p < 0 {
            originCounters.requests += 1
            let admission = try origin.submit(job: FetchID(f), kernel: &kernel)
            originCounters.queueLengthMax = max(originCounters.queueLengthMax, origin.queueLength)
            timeSeries.originQueue(at: now, length: origin.queueLength)
            timeSeries.originRequest(at: now, rejected: admission == .rejected)
            if admission == .rejected {
                originCounters.rejected503 += 1
                fOK[f] = false
                try kernel.schedule(.fetchResponse(FetchID(f)), at: SimTime(ticks: now + fHopTicks[f] / 2))
            }
            return
        }
        let o = fObject[f]
        let (state, slot) = lookup(node: p, object: o, key: fKey[f], now: now)
        switch state {
        case .fresh, .staleWhileRevalidate:
            try serveChild(f, fromNode: p, slot: slot, kernel: &kernel)
            if state == .staleWhileRevalidate { try revalidate(node: p, object: o, key: fKey[f], kernel: &kernel) }
        case .miss:
            _ = try startOrJoinFetch(node: p, object: o, key: fKey[f], purpose: .miss, waiterIsFetch: true,
                                     waiterID: UInt32(f), kernel: &kernel)
        }
    }

    /// Node `p` answers child fetch `f` from its cache entry `slot` (304 when the child's copy
    /// is the same version).
    mutating func serveChild(_ f: Int, fromNode p: Int, slot: Int32, kernel: inout Kernel) throws {
        let now = kernel.now.ticks
        let (bytes, notModified) = answer(fetch: f, version: caches[p].version(of: slot))
        if notModified { counters[p].notModified += 1 }
        fOK[f] = true
        fOriginTicks[f] = caches[p].originTicks(of: slot)
        fServedBy[f] = Tier.shield.rawValue
        counters[p].bytesServed += UInt64(bytes)
        timeSeries.bytes(at: now, tier: .shield, bytes)
        try kernel.schedule(.fetchResponse(FetchID(f)), at: SimTime(ticks: now + fHopTicks[f] / 2))
    }

    /// Fetch `f`'s response is back at its node: store, then answer every waiter.
    mutating func fetchResponse(_ f: Int, kernel: inout Kernel) throws {
        let now = kernel.now.ticks
        let n = Int(fNode[f])
        let o = fObject[f]
        let key = fKey[f]
        if fRegistered[f] { inFlight.remove(UInt64(n) << 32 | UInt64(o)) }
        let ok = fOK[f]
        if ok {
            caches[n].insert(key, bytes: catalog.bytes[Int(o)], originTicks: fOriginTicks[f], nowTicks: now,
                             version: validators.version[f])
            if fPurpose[f] == Purpose.warm.rawValue { counters[n].warmFetchesCompleted += 1 }
        } else {
            counters[n].upstreamFailures += 1
        }
        var w = fWaiterHead[f]
        while w >= 0 {
            let id = Int(wID[Int(w)])
            let isFetch = wIsFetch[Int(w)]
            let nextW = wNext[Int(w)]
            freeWaiter(w)
            w = nextW
            if isFetch {
                let c = id
                if ok {
                    fOK[c] = true
                    fOriginTicks[c] = fOriginTicks[f]
                    fServedBy[c] = fServedBy[f]
                    let (bytes, notModified) = answer(fetch: c, version: validators.version[f])
                    if notModified { counters[n].notModified += 1 }
                    counters[n].bytesServed += UInt64(bytes)
                    timeSeries.bytes(at: now, tier: .shield, bytes)
                    try kernel.schedule(.fetchResponse(FetchID(c)), at: SimTime(ticks: now + fHopTicks[c] / 2))
                } else {
                    let s = staleIfErrorSlot(node: n, object: o, key: key, now: now)
                    if s >= 0 {
                        counters[n].staleIfErrorServed += 1
                        try serveChild(c, fromNode: n, slot: s, kernel: &kernel)
                    } else {
                        counters[n].errorsServed += 1
                        fOK[c] = false
                        try kernel.schedule(.fetchResponse(FetchID(c)), at: SimTime(ticks: now + fHopTicks[c] / 2))
                    }
                }
            } else {
                let i = id
                requests[i].refs -= 1
                if requests[i].replied { freeRequestIfDone(i); continue }
                if ok {
                    requests[i].servedBy = fServedBy[f]
                    requests[i].bytes = catalog.bytes[Int(o)]
                    requests[i].superseded = superseded(object: o, originTicks: fOriginTicks[f])
                    requests[i].version = validators.version[f]
                } else if case let s = staleIfErrorSlot(node: n, object: o, key: key, now: now), s >= 0 {
                    counters[n].staleIfErrorServed += 1
                    requests[i].superseded = superseded(object: o, originTicks: caches[n].originTicks(of: s))
                    requests[i].outcome = FetchOutcome.staleIfError.rawValue
                    requests[i].servedBy = Tier.edge.rawValue
                    requests[i].bytes = catalog.bytes[Int(o)]
                    requests[i].version = caches[n].version(of: s)
                } else {
                    counters[n].errorsServed += 1
                    requests[i].outcome = FetchOutcome.origin503.rawValue
                    requests[i].servedBy = Tier.origin.rawValue
                    requests[i].bytes = 0
                }
                try respondToDevice(i, extraTicks: 0, kernel: &kernel)
            }
        }
        freeFetch(f)
    }

    // MARK: - Tables

    mutating func allocateFetch() throws -> Int {
        guard let h = fetchSlots.allocate() else {
            throw InfraError.fetchesInFlightLimit(config.fetchesInFlightMax)
        }
        let f = Int(h.index)
        if f == fNode.count {
            fNode.append(0); fParent.append(0); fObject.append(0); fKey.append(0); fHopTicks.append(0)
            fPurpose.append(0); fOK.append(false); fOriginTicks.append(0); fServedBy.append(0); fRegistered.append(false)
            fWaiterHead.append(-1); fWaiterTail.append(-1)
        }
        validators.grow(toInclude: f)
        return f
    }

    mutating func freeFetch(_ f: Int) {
        fetchSlots.release(UInt32(f))
    }

    /// Append waiter (`isFetch`, `id`) to fetch `f`'s list.
    mutating func addWaiter(fetch f: Int, isFetch: Bool, id: UInt32) {
        guard let h = waiterSlots.allocate() else { preconditionFailure("waiter table exceeds \(GenerationalPool.slotsLimit) slots") }
        let s = Int(h.index)
        if s == wNext.count {
            wNext.append(-1)
            wIsFetch.append(isFetch)
            wID.append(id)
        } else {
            wIsFetch[s] = isFetch
            wID[s] = id
            wNext[s] = -1
        }
        let w = Int32(s)
        if fWaiterTail[f] >= 0 { wNext[Int(fWaiterTail[f])] = w } else { fWaiterHead[f] = w }
        fWaiterTail[f] = w
    }

    mutating func freeWaiter(_ w: Int32) {
        waiterSlots.release(UInt32(w))
    }
}
