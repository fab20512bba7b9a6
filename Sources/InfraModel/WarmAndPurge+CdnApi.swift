import SimKernel
import Stochastic

// Warm and purge through a CDN API profile (`InfraConfig.cdnApi`): paced batches, each with its
// own propagation draw per cache, failures retried with backoff.

extension InfraWorld {
    /// What the CDN APIs did (nil without `cdnApi`).
    package var cdnApiCounters: CdnApiCounters? { cdnApi?.counters }

    /// The last purge call's time until its last cache's effect, and until its last batch was
    /// accepted, ticks (nil without `cdnApi` or before any purge).
    package var cdnApiLastPurge: (completeTicks: Int64, lastBatchTicks: Int64)? { cdnApi?.lastPurge }

    /// The last warm call's time until its last warm request reached its cache, ticks.
    package var cdnApiLastWarmTicks: Int64? { cdnApi?.lastWarmTicks }

    /// `warm` through the profile: a warm API's batches, or the campaign service's lookups.
    mutating func warmThroughApi(objects: [UInt32], at: SimTime, target: WarmTarget, kernel: inout Kernel) throws {
        let targets: [Int]
        switch target {
        case .allPops: targets = Array(0..<popCount)
        case .topPops(let k): targets = popsByAudience.prefix(max(0, min(k, popCount))).map { Int($0) }
        case .shieldsOnly: targets = Array(popCount..<nodeCount)
        }
        try cdnApi!.warm(objects: objects, atTicks: at.ticks, targets: targets, kernel: &kernel)
    }

    /// `purge` through the profile (the purge calls are noted by the caller).
    mutating func purgeThroughApi(keys: [Int], kernel: inout Kernel) {
        cdnApi!.purge(keys: keys, nowTicks: kernel.now.ticks, nodeCount: nodeCount, nodes: &nodes)
    }

    /// Purge several surrogate keys in one call: through the profile, their items share batches
    /// (e.g. up to 256 keys per Fastly request); without `cdnApi`, one free purge per key.
    package mutating func purge(surrogateKeys keys: [UInt32], kernel: inout Kernel) throws {
        guard cdnApi != nil else {
            for k in keys { try purge(surrogateKey: k, kernel: &kernel) }
            return
        }
        for k in keys where Int(k) >= catalog.surrogateKeyCount { throw InfraError.unknownSurrogateKey(k) }
        for k in keys { nodes.notePurgeCall(key: Int(k), nowTicks: kernel.now.ticks) }
        purgeThroughApi(keys: keys.map { Int($0) }, kernel: &kernel)
    }
}

extension CdnApiState {
    /// Purge `keys`: their items (a key's URLs, or the key itself) in order, in batches of
    /// `purgeItemsPerRequest`, each sent when the request bucket, the item limit (a bucket or a
    /// moving average) and the in-progress limit allow and reaching each cache after its own propagation draw. A key is purged at a
    /// cache when the last accepted batch holding its items reaches it (with a key spread over
    /// several batches, its objects in the earlier ones are taken as purged with the last:
    /// judgement). A key whose every batch is abandoned is not purged.
    mutating func purge(keys: [Int], nowTicks: Int64, nodeCount: Int, nodes: inout NodeCaches) {
        counters.purgeCalls += 1
        pruneInProgress(at: nowTicks)
        purgeItemLimit.beginCall(at: nowTicks)
        guard !keys.isEmpty else { return }
        for k in keys { counters.purgeItems += purgeItems(key: k) }
        for n in 0..<nodeCount { nodeEffectTicks[n] = .min }
        var t = nowTicks
        var complete = nowTicks
        var lastBatch = nowTicks
        var keyIndex = 0
        var keyLeft = purgeItems(key: keys[0])
        /// Whether an accepted batch already held items of the open key (`keys[keyIndex]`).
        var openCovered = false
        while keyIndex < keys.count {
            // Fill one batch: keys keyIndex..<ki end in it; key ki stays open with `left` items.
            var room = config.purgeItemsPerRequest
            var batchItems = 0
            var ki = keyIndex
            var left = keyLeft
            while ki < keys.count && room > 0 {
                let take = min(left, room)
                room -= take
                left -= take
                batchItems += take
                if left == 0 {
                    ki += 1
                    if ki < keys.count { left = purgeItems(key: keys[ki]) }
                }
            }
            let accepted = sendPurgeBatch(items: batchItems, from: t)
            if let at = accepted {
                t = at
                lastBatch = at
                var end = at
                for n in 0..<nodeCount {
                    let e = at + sampledTicks(purgeDelaySampler.sample(propagationRng))
                    batchNodeTicks[n] = e
                    if e > end { end = e }
                }
                if config.purgeItemsInProgressMax > 0 { noteInProgress(endTicks: end, items: batchItems) }
                complete = max(complete, end)
            }
            for j in keyIndex..<ki {
                let spanned = j == keyIndex && openCovered
                guard accepted != nil || spanned else { continue }
                for n in 0..<nodeCount {
                    var e = accepted != nil ? batchNodeTicks[n] : Int64.min
                    if spanned { e = max(e, nodeEffectTicks[n]) }
                    nodes.schedulePurge(node: n, key: keys[j], effectiveTicks: e)
                }
            }
            if ki > keyIndex {
                openCovered = false
                for n in 0..<nodeCount { nodeEffectTicks[n] = .min }
            }
            if ki < keys.count && left < purgeItems(key: keys[ki]) && accepted != nil {
                for n in 0..<nodeCount { nodeEffectTicks[n] = max(nodeEffectTicks[n], batchNodeTicks[n]) }
                openCovered = true
            }
            keyIndex = ki
            keyLeft = left
        }
        lastPurge = (complete - nowTicks, lastBatch - nowTicks)
        counters.purgeCompleteTicksMax = max(counters.purgeCompleteTicksMax, complete - nowTicks)
    }

    /// Warm `objects` into `targets` from `atTicks`: with a warm API, batches of
    /// `warmItemsPerRequest` URLs, each reaching every target after its own propagation draw;
    /// without one, one lookup per (target, object), target by target, at `warmRequestsPerSecond`.
    mutating func warm(objects: [UInt32], atTicks: Int64, targets: [Int], kernel: inout Kernel) throws {
        counters.warmCalls += 1
        counters.warmItems += objects.count
        var last = atTicks
        switch config.warmMethod {
        case .api:
            var start = 0
            var t = atTicks
            while start < objects.count {
                let end = min(objects.count, start + config.warmItemsPerRequest)
                if let at = sendWarmBatch(from: t) {
                    t = at
                    for n in targets {
                        let arrive = at + sampledTicks(warmDelaySampler.sample(propagationRng))
                        for o in objects[start..<end] {
                            try kernel.schedule(InfraEvent.warmAtNode(NodeID(n), ObjectID(rawValue: o)), at: SimTime(ticks: arrive))
                        }
                        last = max(last, arrive)
                    }
                }
                start = end
            }
        case .requests:
            for n in targets {
                for o in objects {
                    let at = warmLookupSlot(from: atTicks)
                    try kernel.schedule(InfraEvent.warmAtNode(NodeID(n), ObjectID(rawValue: o)), at: SimTime(ticks: at))
                    last = max(last, at)
                }
            }
        }
        lastWarmTicks = last - atTicks
        counters.warmCompleteTicksMax = max(counters.warmCompleteTicksMax, last - atTicks)
    }
}
