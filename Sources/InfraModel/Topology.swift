import SimKernel
import Stochastic

/// Building the world's fixed structure from a validated configuration: the regions' shared
/// links, the PoP → shield → origin wiring with its samplers, the caches and their background
/// pressure, and the PoPs ranked by audience. Samplers are built in a fixed order, so the
/// first unsamplable distribution is always the one reported.
extension InfraWorld {
    /// One shared bottleneck per (region, class) with a positive shared capacity, numbered in
    /// region-then-class order. `linkOfRegionClass[region * NetworkClass.count + class]` is its
    /// link id, or -1 when the class is not shared in the region.
    static func sharedLinks(config: InfraConfig, regions: [RegionConfig]) -> (links: SharedLinks, linkOfRegionClass: [Int32]) {
        var capacities: [Double] = []
        var linkIndex = [Int32](repeating: -1, count: regions.count * NetworkClass.count)
        for (r, region) in regions.enumerated() {
            for c in NetworkClass.allCases {
                let cap = config.networks[c].sharedCapacityBitsPerSecond * region.capacityScale
                if cap > 0 {
                    linkIndex[r * NetworkClass.count + Int(c.rawValue)] = Int32(capacities.count)
                    capacities.append(cap)
                }
            }
        }
        return (SharedLinks(capacitiesBitsPerSecond: capacities), linkIndex)
    }

    /// Each node's parent (a shield for a PoP when tiering is on, else -1 = origin) and the
    /// indices into `samplers` of its upstream hop and edge processing times, with the PoPs'
    /// cache capacities. Samplers: 0 edge processing, 1 edge→shield, 2 to origin, then one per
    /// PoP override.
    /// - Throws: ``InfraConfigError`` for an unsamplable distribution.
    static func tierWiring(config: InfraConfig) throws -> (samplers: [Sampler], parentNode: [Int32],
                                                          upstreamSamplerIndex: [Int32], processingSamplerIndex: [Int32],
                                                          edgeCapacityBytes: [Int64]) {
        let topo = config.topology
        var ss: [Sampler] = [
            try makeSampler(config.tiers.edgeProcessingSeconds, "tiers.edgeProcessingSeconds"),
            try makeSampler(config.tiers.edgeToShieldSeconds, "tiers.edgeToShieldSeconds"),
            try makeSampler(config.tiers.toOriginSeconds, "tiers.toOriginSeconds"),
        ]
        let nodes = topo.popCount + topo.shieldCount
        var parent = [Int32](repeating: -1, count: nodes)
        var upstream = [Int32](repeating: 2, count: nodes)
        var processing = [Int32](repeating: 0, count: nodes)
        var edgeCapacity = [Int64](repeating: config.edgeCache.capacityBytes, count: topo.popCount)
        for p in 0..<topo.popCount where config.tiers.tieringEnabled {
            parent[p] = Int32(topo.popCount + p % topo.shieldCount)
            upstream[p] = 1
        }
        for (i, o) in topo.popOverrides.enumerated() {
            let path = "topology.popOverrides[\(i)]"
            if let s = o.shieldIndex, config.tiers.tieringEnabled { parent[o.popIndex] = Int32(topo.popCount + s) }
            if let d = o.edgeProcessingSeconds {
                processing[o.popIndex] = Int32(ss.count)
                ss.append(try makeSampler(d, path + ".edgeProcessingSeconds"))
            }
            if let d = o.upstreamSeconds {
                upstream[o.popIndex] = Int32(ss.count)
                ss.append(try makeSampler(d, path + ".upstreamSeconds"))
            }
            if let b = o.cacheCapacityBytes { edgeCapacity[o.popIndex] = b }
        }
        return (ss, parent, upstream, processing, edgeCapacity)
    }

    /// One cache per node (PoPs first, then shields) and its background pressure: a
    /// characteristic time, or an explicit stream (rate, object size, and the index of its
    /// tier's Zipf sampler in `backgroundSamplers`: 0 edge, 1 shield; -1 = no stream).
    /// - Throws: ``InfraConfigError`` for an unsamplable background distribution.
    static func cachesAndBackground(config: InfraConfig, edgeCapacityBytes: [Int64]) throws
        -> (caches: [LRUCache], backgroundRatePerSecond: [Double], backgroundSamplerIndex: [Int32],
            backgroundBytes: [Int64], backgroundSamplers: [Sampler]) {
        let topo = config.topology
        let nodes = topo.popCount + topo.shieldCount
        var cs: [LRUCache] = []
        var bgRate = [Double](repeating: 0, count: nodes)
        var bgSampler = [Int32](repeating: -1, count: nodes)
        var bgBytes = [Int64](repeating: 0, count: nodes)
        // One Zipf sampler per tier with an explicit stream: 0 = edge, 1 = shield.
        var bgSamplers: [Sampler] = []
        for (tier, cc) in [("edgeCache", config.edgeCache), ("shieldCache", config.shieldCache)] {
            if case let .explicitStream(_, objects, alpha, _) = cc.background {
                let w = CheApproximation.zipfPopularities(count: objects, exponent: alpha)
                bgSamplers.append(try makeSampler(.categorical(values: (0..<objects).map(Double.init), weights: w),
                                                  tier + ".background"))
            } else {
                bgSamplers.append(try makeSampler(.constant(value: 0), tier + ".background"))
            }
        }
        for n in 0..<nodes {
            let cc = n < topo.popCount ? config.edgeCache : config.shieldCache
            let capacity = n < topo.popCount ? edgeCapacityBytes[n] : cc.capacityBytes
            var tc: Int64 = 0
            switch cc.background {
            case .none: break
            case let .characteristicTime(seconds): tc = SimDuration.seconds(seconds).ticks
            case let .explicitStream(rate, _, _, bytes):
                bgRate[n] = rate
                bgSampler[n] = n < topo.popCount ? 0 : 1
                bgBytes[n] = bytes
            }
            cs.append(LRUCache(capacityBytes: capacity, entriesMax: cc.entriesMax, characteristicTimeTicks: tc))
        }
        return (cs, bgRate, bgSampler, bgBytes, bgSamplers)
    }

    /// PoP indices by audience weight (summed over the regions they serve), largest first,
    /// ties by lower index.
    static func popsByAudience(popCount: Int, regions: [RegionConfig]) -> [UInt32] {
        var audience = [Double](repeating: 0, count: popCount)
        for r in regions { audience[r.popIndex] += r.audienceWeight }
        return (0..<popCount).sorted { a, b in
            audience[a] != audience[b] ? audience[a] > audience[b] : a < b
        }.map { UInt32($0) }
    }
}
