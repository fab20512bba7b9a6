import SimKernel
import Stochastic

/// The device ↔ edge path of a request: issue, edge lookup, response, transfer, timeout,
/// cancel, reply and release. The records live in ``DeviceRequestTable`` (`requests`); the
/// lookups in ``NodeCaches`` (`nodes`); the shared links in ``SharedLinks`` (`links`).
extension InfraWorld {
    /// Issue a device request now. Returns its request id.
    /// - Throws: ``InfraError`` for an unknown object/region, a bad timeout or the in-flight limit.
    /// - Complexity: O(log n) kernel operations; no allocation once the request table is warm.
    package mutating func fetch(_ r: FetchRequest, kernel: inout Kernel) throws -> RequestID {
        try issue(r, radioPromotionTicks: 0, kernel: &kernel)
    }

    /// `fetch`, its connection set-up `radioPromotionTicks` later (``fetch(_:radioPromotionTicks:kernel:)``);
    /// inlined into both, so the plain fetch carries no promotion term at all.
    @inline(__always)
    mutating func issue(_ r: FetchRequest, radioPromotionTicks: Int64, kernel: inout Kernel) throws -> RequestID {
        guard r.objectID.index < catalog.count else { throw InfraError.unknownObject(r.objectID.rawValue) }
        guard r.regionID.index < regionPop.count else { throw InfraError.unknownRegion(r.regionID.rawValue) }
        guard r.timeout.ticks > 0 && r.timeout <= .seconds(600) else { throw InfraError.invalidTimeout(r.timeout) }
        guard let rid = requests.allocate() else { throw InfraError.requestsInFlightLimit(config.requestsInFlightMax) }
        let id = rid.rawValue
        let i = rid.index
        let now = kernel.now.ticks
        let c = Int(r.networkClass.rawValue)
        deviceRng.reseed(StreamSeed.derive(masterSeed: masterSeed, entity: r.entity, purpose: purposeNetwork))
        // A degradation of the request's region scales its downlink and adds to its failure
        // probability; the same draws are made, so runs with and without it share them.
        var downlinkFactor = 1.0, failureP = failureProbability[c]
        if faults.hasDegradation {
            let d = faults.degradation(region: r.regionID.index, at: now)
            if d.factor != 1 || d.failure != 0 {
                faultCounters.degradedRequests += 1
                downlinkFactor = d.factor
                failureP += d.failure - failureP * d.failure
            }
        }
        let accessRtt = max(0, rttSamplers[c].sample(deviceRng))
        let downlink = max(1, downlinkSamplers[c].sample(deviceRng) * downlinkFactor)
        var failed = deviceRng.bernoulli(failureP)
        let stalled = deviceRng.bernoulli(stallProbability[c])
        var pop = regionPop[r.regionID.index]
        if faults.hasPop {
            if let serving = faults.servingPop(Int(pop), popCount: popCount, at: now) {
                if serving != Int(pop) { faultCounters.popFailovers += 1 }
                pop = UInt32(serving)
            } else {
                faultCounters.popsAllDown += 1
                failed = true
            }
        }
        // The PoP's processing time for the response, drawn last from the same stream so that the
        // request's device-side draws cost one re-seed (a failed request never reaches the PoP).
        let processingTicks = failed ? 0 : sampledTicks(max(0, samplers[Int(processingSamplerIndex[Int(pop)])].sample(deviceRng)))
        let rtt = accessRtt + regionPathRttSeconds[r.regionID.index]
        let rttTicks = sampledTicks(rtt)

        let ect = EffectiveConnectionType.classify(rttSeconds: rtt, downlinkBitsPerSecond: downlink)
        // A range is answered from the cache entry of the object it is a range of.
        let cached = catalog.cacheObject[r.objectID.index]
        requests[i] = RequestRecord(key: cacheKey(object: cached, token: r.signedToken), entity: r.entity,
                                    rttTicks: rttTicks, downlinkBps: downlink, startTicks: now, firstByteTicks: now,
                                    endTicks: now, deviceDoneTicks: now, processingTicks: processingTicks, bytes: 0,
                                    object: cached, asked: r.objectID.rawValue, region: r.regionID.rawValue, pop: pop, replyTarget: r.replyTarget,
                                    replyTag: r.replyTag, condition: r.ifNoneMatch, replyKind: r.replyKind.rawValue, networkClass: UInt8(c),
                                    outcome: FetchOutcome.miss.rawValue, servedBy: Tier.edge.rawValue, ect: ect.rawValue,
                                    edge: EdgeLookup.notReached.rawValue, stall: stalled, followsRedirects: r.followsRedirects)

        let setupTicks = (r.connectionWarm ? 0 : Int64(setupRoundTrips) * rttTicks) &+ radioPromotionTicks
        if failed {
            requests[i].outcome = FetchOutcome.networkFailure.rawValue
            requests[i].endTicks = now + setupTicks
            requests[i].firstByteTicks = now + setupTicks
            requests[i].replied = true
            try kernel.schedule(at: SimTime(ticks: now + setupTicks), kind: r.replyKind, target: r.replyTarget,
                                payload: UInt64(r.replyTag) << 32 | UInt64(id))
            return RequestID(rawValue: id)
        }
        var placeholder = false
        if config.placeholder.enabled && catalog.placeholderEligible[r.objectID.index] {
            placeholder = (r.saveData && config.placeholder.onSaveData) || ect <= config.placeholder.maxEffectiveConnectionType
        }
        if placeholder { requests[i].outcome = FetchOutcome.placeholder.rawValue }
        requests[i].timeout = try kernel.scheduleCancellable(InfraEvent.requestTimeout(RequestID(rawValue: id)), at: SimTime(ticks: now + r.timeout.ticks))
        requests[i].refs += 2 // the timeout and requestAtEdge
        try kernel.schedule(InfraEvent.requestAtEdge(RequestID(rawValue: id)), at: SimTime(ticks: now + setupTicks + rttTicks / 2))
        return RequestID(rawValue: id)
    }

    /// The result of a replied request (valid from its reply event until ``release(_:)``).
    package func result(_ id: RequestID) -> FetchResult { requests.result(id) }

    /// Give the request id back after reading its result.
    package mutating func release(_ id: RequestID) {
        let i = id.index
        precondition(i < requests.count && requests[i].replied && !requests[i].released, "request \(id) released twice or before its reply")
        requests[i].released = true
        requests.freeIfDone(i)
    }

    /// `result(id)` then `release(id)`, in place: a reader holding the world `inout` takes the
    /// result without the copy of the whole world that calling the non-mutating `result` makes
    /// first.
    package mutating func takeResult(_ id: RequestID) -> FetchResult {
        let r = requests.result(id)
        release(id)
        return r
    }

    /// The requester gives request `id` up (the app cancelled the task, or the OS ended the
    /// process holding it). Its transfer leaves the shared link now, so the flows left there
    /// speed up; an upstream fetch it waits on carries on and fills the cache; its timeout is
    /// cancelled and it gets no reply. The id is reused once the request's pending events have
    /// fired: do not call ``release(_:)`` for it.
    /// - Returns: the result so far (outcome ``FetchOutcome/cancelled``, `bytes` the part that
    ///   reached the device), or nil when the request has already replied: its reply event is
    ///   on the way and is read and released as usual.
    /// - Precondition: `id` is a request of this world not yet released.
    /// - Complexity: O(log n).
    package mutating func cancel(_ id: RequestID, kernel: inout Kernel) throws -> FetchResult? {
        let i = id.index
        precondition(requests.isInUse(id) && !requests[i].released, "request \(id) is not in flight")
        if requests[i].replied { return nil }
        if let h = requests[i].timeout {
            kernel.cancel(h)
            requests[i].timeout = nil
            requests[i].refs -= 1
        }
        try cutTransfer(i, kernel: &kernel)
        requests[i].outcome = FetchOutcome.cancelled.rawValue
        requests[i].endTicks = kernel.now.ticks
        requests[i].replied = true
        let r = requests.result(id)
        requests[i].released = true
        requests.freeIfDone(i)
        return r
    }

    /// Split a reply payload into (replyTag, requestID).
    @inlinable
    package static func decodeReply(_ payload: UInt64) -> (tag: UInt32, requestID: RequestID) {
        (UInt32(truncatingIfNeeded: payload >> 32), RequestID(rawValue: UInt32(truncatingIfNeeded: payload)))
    }

    // MARK: - Device request path

    mutating func requestAtEdge(_ i: Int, kernel: inout Kernel) throws {
        requests[i].refs -= 1
        if requests[i].replied { requests.freeIfDone(i); return }
        let now = kernel.now.ticks
        let n = Int(requests[i].pop)
        let o = requests[i].object
        nodes.counters[n].deviceRequests += 1
        requests[i].edge = EdgeLookup.hit.rawValue
        if requests[i].outcome == FetchOutcome.placeholder.rawValue {
            // 302 to the placeholder. Followed: one extra round trip, the placeholder assumed always
            // cached. Not followed: the redirect is the answer, headers only.
            nodes.counters[n].deviceHits += 1
            nodes.counters[n].placeholderRedirects += 1
            timeSeries.edgeRequest(at: now, hit: true)
            let follows = requests[i].followsRedirects
            requests[i].bytes = follows ? config.placeholder.placeholderBytes : 0
            try respondToDevice(i, extraTicks: follows ? requests[i].rttTicks : 0, kernel: &kernel)
            return
        }
        let (state, slot) = nodes.lookup(node: n, object: o, key: requests[i].key, now: now)
        switch state {
        case .fresh, .staleWhileRevalidate:
            nodes.counters[n].deviceHits += 1
            timeSeries.edgeRequest(at: now, hit: true)
            requests[i].superseded = nodes.superseded(object: o, originTicks: nodes.caches[n].originTicks(of: slot))
            requests[i].version = nodes.caches[n].version(of: slot)
            requests[i].outcome = (state == .fresh ? FetchOutcome.edgeFreshHit : .edgeStaleHit).rawValue
            requests[i].servedBy = Tier.edge.rawValue
            requests[i].bytes = catalog.bytes[Int(requests[i].asked)]
            try respondToDevice(i, extraTicks: 0, kernel: &kernel)
            if state == .staleWhileRevalidate {
                try revalidate(node: n, object: o, key: requests[i].key, kernel: &kernel)
            }
        case .miss:
            timeSeries.edgeRequest(at: now, hit: false)
            requests[i].edge = EdgeLookup.miss.rawValue
            requests[i].refs += 1
            let collapsed = try startOrJoinFetch(node: n, object: o, key: requests[i].key, purpose: .miss,
                                                 waiterIsFetch: false, waiterID: UInt32(i), kernel: &kernel)
            requests[i].outcome = (collapsed ? FetchOutcome.collapsed : .miss).rawValue
        }
    }

    /// The PoP has the response for request `i` now: edge processing (drawn at `fetch`), then half
    /// an RTT to the device.
    mutating func respondToDevice(_ i: Int, extraTicks: Int64, kernel: inout Kernel) throws {
        if requests[i].condition != 0 { answerCondition(i) }
        let at = kernel.now.ticks + requests[i].processingTicks + extraTicks + requests[i].rttTicks / 2
        requests[i].refs += 1
        try kernel.schedule(InfraEvent.responseAtDevice(RequestID(rawValue: UInt32(i))), at: SimTime(ticks: at))
    }

    /// Conditional request `i` (`If-None-Match`) whose response carries the version the device
    /// holds: 304 Not Modified, headers only (`infra.tiers.notModifiedBytes`). Errors and the
    /// placeholder redirect are answered as they are.
    mutating func answerCondition(_ i: Int) {
        guard requests[i].bytes > 0, requests[i].outcome != FetchOutcome.placeholder.rawValue,
              requests[i].condition == requests[i].version &+ 1 else { return }
        requests[i].bytes = config.tiers.notModifiedBytes
        requests[i].notModified = true
    }

    mutating func responseAtDevice(_ i: Int, kernel: inout Kernel) throws {
        requests[i].refs -= 1
        if requests[i].replied { requests.freeIfDone(i); return }
        let now = kernel.now.ticks
        requests[i].firstByteTicks = now
        let bytes = requests[i].bytes
        if bytes == 0 { try finish(i, kernel: &kernel); return } // error response
        requests[i].transferring = true
        nodes.counters[Int(requests[i].pop)].bytesServed += UInt64(bytes)
        timeSeries.edgeResponse(at: now, pop: Int(requests[i].pop), region: Int(requests[i].region), bytes)
        if requests[i].stall { return } // the transfer never completes: the timeout ends it
        let bits = Double(bytes) * 8
        requests[i].deviceDoneTicks = now + sampledTicks(bits / requests[i].downlinkBps) + lossTicks(i, bytes: bytes)
        let link = linkOfRegionClass[Int(requests[i].region) * NetworkClass.count + Int(requests[i].networkClass)]
        if link >= 0 {
            try links.start(flow: UInt32(i), link: LinkID(rawValue: UInt32(link)), bits: bits, kernel: &kernel)
        } else {
            requests[i].refs += 1
            try kernel.schedule(InfraEvent.transferDone(RequestID(rawValue: UInt32(i))), at: SimTime(ticks: requests[i].deviceDoneTicks))
        }
    }

    /// Time request `i`'s response of `bytes` loses to segment loss: Binomial(segments, p) losses,
    /// one RTO each (``LossRecovery``). Draws nothing when the class has no loss.
    @inline(__always)
    func lossTicks(_ i: Int, bytes: Int64) -> Int64 {
        let p = segmentLossProbability[Int(requests[i].networkClass)]
        guard p > 0 else { return 0 }
        deviceRng.reseed(StreamSeed.derive(masterSeed: masterSeed, entity: requests[i].entity, purpose: purposeLoss))
        let lost = deviceRng.binomial(p, trials: LossRecovery.segments(bytes: bytes))
        guard lost > 0 else { return 0 }
        return Int64(lost) * sampledTicks(LossRecovery.timeoutSeconds(rttSeconds: Double(requests[i].rttTicks) / 1e6))
    }

    /// Link `link` finished flows: each request among them ends now, or at its own downlink
    /// cap when that is later.
    @inline(__always)
    mutating func linkCompletion(_ link: LinkID, kernel: inout Kernel) throws {
        try links.handleCompletion(link: link, kernel: &kernel)
        for k in 0..<links.completed.count {
            let i = Int(links.completed[k])
            if kernel.now.ticks < requests[i].deviceDoneTicks {
                requests[i].refs += 1
                try kernel.schedule(InfraEvent.transferDone(RequestID(rawValue: UInt32(i))), at: SimTime(ticks: requests[i].deviceDoneTicks))
            } else {
                try finish(i, kernel: &kernel)
            }
        }
    }

    /// Request `i`'s transfer reached its downlink cap.
    @inline(__always)
    mutating func transferDone(_ i: Int, kernel: inout Kernel) throws {
        requests[i].refs -= 1
        if requests[i].replied { requests.freeIfDone(i) } else { try finish(i, kernel: &kernel) }
    }

    mutating func finish(_ i: Int, kernel: inout Kernel) throws {
        requests[i].endTicks = kernel.now.ticks
        requests[i].transferring = false
        if let h = requests[i].timeout {
            kernel.cancel(h)
            requests[i].timeout = nil
            requests[i].refs -= 1
        }
        try reply(i, kernel: &kernel)
    }

    mutating func requestTimeout(_ i: Int, kernel: inout Kernel) throws {
        requests[i].refs -= 1
        requests[i].timeout = nil
        if requests[i].replied { requests.freeIfDone(i); return }
        try cutTransfer(i, kernel: &kernel)
        requests[i].outcome = FetchOutcome.timeout.rawValue
        requests[i].endTicks = kernel.now.ticks
        try reply(i, kernel: &kernel)
    }

    /// Request `i` ends now, before its response completed (timeout or cancel): its flow leaves
    /// the shared link and `bytes` becomes the part that reached the device. The rest was
    /// counted as edge egress at the first byte and is taken back. Without a first byte, the
    /// first-byte time becomes now (as for failures).
    ///
    /// Received by `now`: nothing before the first byte or on a stalled connection; otherwise
    /// the least of the response, the device's downlink × time since the first byte, and the
    /// service its link has given it (processor sharing; the whole response once the link part
    /// has finished).
    mutating func cutTransfer(_ i: Int, kernel: inout Kernel) throws {
        let remainingLinkBits = try links.remove(flow: UInt32(i), kernel: &kernel)
        guard requests[i].transferring else {
            requests[i].bytes = 0
            requests[i].firstByteTicks = kernel.now.ticks
            return
        }
        requests[i].transferring = false
        let bits = Double(requests[i].bytes) * 8
        var received = 0.0
        if !requests[i].stall {
            let elapsedSeconds = Double(kernel.now.ticks - requests[i].firstByteTicks) / 1e6
            let linkBits = remainingLinkBits.map { bits - $0 } ?? bits
            received = min(bits, requests[i].downlinkBps * elapsedSeconds, linkBits)
        }
        let delivered = min(requests[i].bytes, Int64((max(0, received) / 8).rounded(.down)))
        let unsent = requests[i].bytes - delivered
        if unsent > 0 {
            nodes.counters[Int(requests[i].pop)].bytesServed -= UInt64(unsent)
            timeSeries.withdrawEdgeResponse(at: requests[i].firstByteTicks, pop: Int(requests[i].pop), region: Int(requests[i].region), unsent)
        }
        requests[i].bytes = delivered
    }

    mutating func reply(_ i: Int, kernel: inout Kernel) throws {
        requests[i].replied = true
        try kernel.schedule(at: kernel.now, kind: EventKind(requests[i].replyKind), target: requests[i].replyTarget,
                            payload: UInt64(requests[i].replyTag) << 32 | UInt64(i))
    }
}
