/// Counters of one cache node (a PoP or a shield). Every lookup is one request:
///
///     requests = freshHits + staleHits + misses
///     misses   = collapsed + upstreamFetches
///
/// `revalidations` (background fetches after a stale-while-revalidate hit) are upstream fetches
/// that are not misses. Where requests come from:
///
///     PoP:    requests = deviceRequests − placeholderRedirects + warmRequests
///     shield: requests = Σ children (upstreamFetches + revalidations) arrived + warmRequests
///     origin: requests = Σ shields (or PoPs without tiering) (upstreamFetches + revalidations) arrived
package struct NodeCounters: Sendable, Equatable {
    package var requests: UInt64 = 0
    package var freshHits: UInt64 = 0
    package var staleHits: UInt64 = 0
    package var misses: UInt64 = 0
    /// Misses that joined an in-flight fetch of the same object (request collapsing).
    package var collapsed: UInt64 = 0
    /// Misses that started a fetch from the parent tier.
    package var upstreamFetches: UInt64 = 0
    package var revalidations: UInt64 = 0
    /// Lookups of device requests (PoPs only) and how many of them hit (fresh or stale).
    package var deviceRequests: UInt64 = 0
    package var deviceHits: UInt64 = 0
    /// Device requests answered with the placeholder redirect (counted in `deviceRequests` and
    /// `deviceHits`, not looked up in the cache).
    package var placeholderRedirects: UInt64 = 0
    /// Lookups caused by warm calls, and warm fetches that completed successfully.
    package var warmRequests: UInt64 = 0
    package var warmFetchesCompleted: UInt64 = 0
    /// Upstream fetches that came back failed (503), and failures answered with a stale copy.
    package var upstreamFailures: UInt64 = 0
    package var staleIfErrorServed: UInt64 = 0
    /// Requests this node answered with the upstream's error (no stale-if-error copy): device
    /// requests at a PoP, child fetches at a shield.
    package var errorsServed: UInt64 = 0
    /// Response bytes this node sent downstream (to devices for PoPs, to PoPs for shields); a
    /// 304 counts its headers only (`TierConfig.notModifiedBytes`).
    package var bytesServed: UInt64 = 0
    /// Conditional requests of child nodes this node answered 304 Not Modified (shields).
    package var notModified: UInt64 = 0
    /// Background (explicit stream) requests and hits; not part of `requests`.
    package var backgroundRequests: UInt64 = 0
    package var backgroundHits: UInt64 = 0

    package init() {}

    /// Adds another node's counters (tier totals).
    package mutating func add(_ o: NodeCounters) {
        requests += o.requests; freshHits += o.freshHits; staleHits += o.staleHits; misses += o.misses
        collapsed += o.collapsed; upstreamFetches += o.upstreamFetches; revalidations += o.revalidations
        deviceRequests += o.deviceRequests; deviceHits += o.deviceHits; warmRequests += o.warmRequests
        placeholderRedirects += o.placeholderRedirects
        warmFetchesCompleted += o.warmFetchesCompleted; upstreamFailures += o.upstreamFailures
        staleIfErrorServed += o.staleIfErrorServed; bytesServed += o.bytesServed; errorsServed += o.errorsServed
        notModified += o.notModified
        backgroundRequests += o.backgroundRequests; backgroundHits += o.backgroundHits
    }
}

/// Origin counters.
package struct OriginCounters: Sendable, Equatable {
    package var requests: UInt64 = 0
    package var served: UInt64 = 0
    package var rejected503: UInt64 = 0
    package var bytesServed: UInt64 = 0
    /// Conditional requests answered 304 Not Modified (headers only, counted in `bytesServed`).
    package var notModified: UInt64 = 0
    package var queueLengthMax: Int = 0
    package var waitedRequests: UInt64 = 0
    package var totalWaitSeconds: Double = 0
    package init() {}
}

/// Per-second time series over `[0, horizonSeconds)`, fixed-size arrays indexed by the second of
/// virtual time. Activity at or after the horizon is counted in `overflowEvents` only.
package struct TimeSeries: Sendable {
    package let horizonSeconds: Int
    /// Device requests looked up at the edge, and those that hit (fresh or stale).
    package private(set) var edgeRequests: [UInt32]
    package private(set) var edgeHits: [UInt32]
    /// Requests arriving at the origin, and those rejected with 503.
    package private(set) var originRequests: [UInt32]
    package private(set) var origin503: [UInt32]
    /// Largest origin queue length seen during the second.
    package private(set) var originQueueLengthMax: [UInt32]
    /// Bytes served by each tier (edge → devices, shield → edges, origin → shields/edges).
    package private(set) var edgeBytes: [UInt64]
    package private(set) var shieldBytes: [UInt64]
    package private(set) var originBytes: [UInt64]
    package private(set) var overflowEvents: UInt64 = 0
    /// Bytes served at or after the horizon (outside every per-second slot), per `Tier.rawValue`:
    /// with these, each tier's per-second series sums to its byte counter exactly.
    package private(set) var bytesPastHorizon: [UInt64] = [0, 0, 0]
    /// Edge bytes per PoP and per region at a coarser step (``BandwidthBins``).
    package internal(set) var bins: BandwidthBins

    init(horizonSeconds: Int, popCount: Int = 0, regionCount: Int = 0) {
        bins = BandwidthBins(horizonSeconds: horizonSeconds, popCount: popCount, regionCount: regionCount)
        self.horizonSeconds = horizonSeconds
        edgeRequests = [UInt32](repeating: 0, count: horizonSeconds)
        edgeHits = edgeRequests
        originRequests = edgeRequests
        origin503 = edgeRequests
        originQueueLengthMax = edgeRequests
        edgeBytes = [UInt64](repeating: 0, count: horizonSeconds)
        shieldBytes = edgeBytes
        originBytes = edgeBytes
    }

    /// Edge hit ratio of second `s` (nil when no request arrived).
    package func edgeHitRatio(second s: Int) -> Double? {
        edgeRequests[s] == 0 ? nil : Double(edgeHits[s]) / Double(edgeRequests[s])
    }

    @inline(__always)
    private mutating func second(_ ticks: Int64) -> Int {
        let s = Int(ticks / 1_000_000)
        if s >= horizonSeconds || s < 0 { overflowEvents += 1; return -1 }
        return s
    }

    mutating func edgeRequest(at t: Int64, hit: Bool) {
        let s = second(t); if s < 0 { return }
        edgeRequests[s] &+= 1
        if hit { edgeHits[s] &+= 1 }
    }

    mutating func originRequest(at t: Int64, rejected: Bool) {
        let s = second(t); if s < 0 { return }
        originRequests[s] &+= 1
        if rejected { origin503[s] &+= 1 }
    }

    mutating func originQueue(at t: Int64, length: Int) {
        let s = second(t); if s < 0 { return }
        originQueueLengthMax[s] = max(originQueueLengthMax[s], UInt32(clamping: length))
    }

    @inline(__always)
    mutating func bytes(at t: Int64, tier: Tier, _ n: Int64) {
        let s = second(t); if s < 0 { bytesPastHorizon[Int(tier.rawValue)] &+= UInt64(n); return }
        switch tier {
        case .edge: edgeBytes[s] &+= UInt64(n)
        case .shield: shieldBytes[s] &+= UInt64(n)
        case .origin: originBytes[s] &+= UInt64(n)
        }
    }

    /// Takes back `n` bytes counted by ``bytes(at:tier:_:)`` at `t` (a transfer cut short).
    mutating func withdrawBytes(at t: Int64, tier: Tier, _ n: Int64) {
        let s = second(t); if s < 0 { bytesPastHorizon[Int(tier.rawValue)] &-= UInt64(n); return }
        switch tier {
        case .edge: edgeBytes[s] -= UInt64(n)
        case .shield: shieldBytes[s] -= UInt64(n)
        case .origin: originBytes[s] -= UInt64(n)
        }
    }
}

/// A tier of the delivery path. Results and reports name it ("edge", "shield", "origin"): that
/// name is its JSON form and its description.
package enum Tier: UInt8, Sendable, CaseIterable, Codable, CustomStringConvertible {
    case edge, shield, origin

    /// "edge", "shield" or "origin".
    package var name: String {
        switch self {
        case .edge: "edge"
        case .shield: "shield"
        case .origin: "origin"
        }
    }

    package var description: String { name }

    /// Reads the name ("edge", "shield" or "origin").
    package init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let tier = Tier.allCases.first(where: { $0.name == text }) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "tier \"\(text)\": expected one of edge, shield, origin"))
        }
        self = tier
    }

    /// Writes the name.
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(name)
    }
}
