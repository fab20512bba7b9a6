import Foundation
import SimKernel
import Stochastic

/// Longest duration a sampled variate may take (1e6 s ≈ 11.6 days): distributions come from
/// user input, and a heavy tail must never overflow the clock.
let sampledSecondsMax = 1e6

/// A sampled duration in seconds as ticks, clamped to [0, `sampledSecondsMax`]; NaN gives 0.
@inline(__always)
func sampledTicks(_ seconds: Double) -> Int64 {
    guard seconds > 0 else { return 0 }
    return Int64((min(seconds, sampledSecondsMax) * 1e6).rounded())
}

/// Event kinds of this module (raw values 0x0100–0x01FF). An outer handler routes every event
/// whose `kind.rawValue` is in ``range`` to ``InfraWorld/handle(_:in:)``.
public enum InfraEventKind {
    public static let range: ClosedRange<UInt16> = 0x0100...0x01FF
    /// A device request reaches its PoP (target = request id).
    public static let requestAtEdge = EventKind(0x0100)
    /// The response starts arriving at the device (target = request id).
    public static let responseAtDevice = EventKind(0x0101)
    /// Processor-sharing completion on a shared link (target = link id).
    public static let linkCompletion = EventKind(0x0102)
    /// Transfer finished at the device's own rate cap (target = request id).
    public static let transferDone = EventKind(0x0103)
    /// The request's timeout (target = request id).
    public static let requestTimeout = EventKind(0x0104)
    /// An upstream fetch reaches the parent tier (target = fetch id).
    public static let fetchAtParent = EventKind(0x0105)
    /// An upstream fetch's response is back at the requesting node (target = fetch id).
    public static let fetchResponse = EventKind(0x0106)
    /// An origin worker finished (payload = fetch id).
    public static let originServiceDone = EventKind(0x0107)
    /// A warm request reaches a node (target = node, payload = object id).
    public static let warmAtNode = EventKind(0x0108)
    /// One explicit background request at a node (target = node).
    public static let backgroundRequest = EventKind(0x0109)
}

/// How a device request ended.
public enum FetchOutcome: UInt8, Sendable, Codable {
    /// Served from the PoP's fresh copy.
    case edgeFreshHit
    /// Served from a stale copy within stale-while-revalidate (revalidation ran in the background).
    case edgeStaleHit
    /// The PoP missed and fetched upstream for this request.
    case miss
    /// The PoP missed and this request joined an upstream fetch already in flight.
    case collapsed
    /// Upstream failed (origin queue full) and no stale-if-error copy was available.
    case origin503
    /// Upstream failed but a copy within stale-if-error was served.
    case staleIfError
    /// The request's timeout fired first (includes stalled transfers).
    case timeout
    /// The connection failed (network failure probability).
    case networkFailure
    /// Redirected to the placeholder (Save-Data / slow effective connection type).
    case placeholder
    /// The requester cancelled it (``InfraWorld/cancel(_:kernel:)``) before its reply.
    case cancelled
}

/// A device's fetch. The reply is an event `replyKind` to `replyTarget` whose payload is
/// `UInt64(replyTag) << 32 | requestID` (decode with ``InfraWorld/decodeReply(_:)``).
public struct FetchRequest: Sendable {
    public var objectID: UInt32
    public var regionID: UInt32
    public var networkClass: NetworkClass
    /// Random-stream entity of this request (e.g. device id << 16 | asset index): every variate
    /// of the request (RTT, throughput, failure, stall, edge processing) comes from streams keyed
    /// by (seed, entity, purpose), so variants of a scenario see the same draws.
    public var entity: UInt64
    /// Reuse a warm connection (no DNS/TCP/TLS set-up round trips).
    public var connectionWarm: Bool
    /// `Save-Data: on`.
    public var saveData: Bool
    /// Signed-URL token (part of the cache key when `cacheKeyIncludesSignedToken`).
    public var signedToken: UInt32
    /// The request ends with `.timeout` at this delay if not complete (0 < timeout ≤ 600 s).
    public var timeout: SimDuration
    public var replyKind: EventKind
    public var replyTarget: UInt32
    public var replyTag: UInt32

    public init(objectID: UInt32, regionID: UInt32, networkClass: NetworkClass, entity: UInt64,
                connectionWarm: Bool = false, saveData: Bool = false, signedToken: UInt32 = 0,
                timeout: SimDuration = .seconds(30), replyKind: EventKind, replyTarget: UInt32, replyTag: UInt32 = 0) {
        self.objectID = objectID
        self.regionID = regionID
        self.networkClass = networkClass
        self.entity = entity
        self.connectionWarm = connectionWarm
        self.saveData = saveData
        self.signedToken = signedToken
        self.timeout = timeout
        self.replyKind = replyKind
        self.replyTarget = replyTarget
        self.replyTag = replyTag
    }
}

/// The outcome of a finished device request.
public struct FetchResult: Sendable, Equatable {
    public var outcome: FetchOutcome
    /// Tier that supplied the bytes (edge for hits; shield or origin for misses).
    public var servedBy: Tier
    /// Bytes that reached the device: the whole response when it completed, the part received
    /// so far when a timeout or a cancel cut the transfer, 0 before the first byte.
    public var bytes: Int64
    public var popIndex: UInt32
    public var startTime: SimTime
    /// When the first response byte reached the device (== endTime for failures and timeouts).
    public var firstByteTime: SimTime
    public var endTime: SimTime
    public var effectiveConnectionType: EffectiveConnectionType

    public var durationSeconds: Double { (endTime - startTime).seconds }
}

/// Which caches a warm call targets.
public enum WarmTarget: Sendable, Equatable {
    case allPops
    /// The `k` PoPs with the largest audience weight (ties by lower index).
    case topPops(Int)
    case shieldsOnly
}

/// Errors of requests and calls into the model (not configuration errors).
public enum InfraError: Error, Equatable, CustomStringConvertible {
    case unknownObject(UInt32)
    case unknownRegion(UInt32)
    case unknownSurrogateKey(UInt32)
    case invalidTimeout(SimDuration)
    case requestsInFlightLimit(Int)
    case fetchesInFlightLimit(Int)
    case unknownEventKind(UInt16)
    case warmInPast(now: SimTime, requested: SimTime)

    public var description: String {
        switch self {
        case .unknownObject(let o): return "objectID \(o) is not in the catalogue"
        case .unknownRegion(let r): return "regionID \(r) is not configured"
        case .unknownSurrogateKey(let k): return "surrogate key \(k) is not used by any object"
        case .invalidTimeout(let t): return "timeout \(t.seconds) s, expected 0 < timeout <= 600 s"
        case .requestsInFlightLimit(let n): return "more than requestsInFlightMax = \(n) device requests in flight"
        case .fetchesInFlightLimit(let n): return "more than fetchesInFlightMax = \(n) upstream fetches in flight"
        case .unknownEventKind(let k): return "event kind 0x\(String(k, radix: 16)) is not an InfraModel kind"
        case .warmInPast(let now, let t): return "warm at \(t) is before now (\(now))"
        }
    }
}

/// The infrastructure world: mobile access networks (per-region shared bottlenecks), CDN PoPs
/// with LRU caches, regional shields, and the origin pool. It serves ``FetchRequest``s and
/// reports each one's timing and outcome.
///
/// ## Completion protocol
/// 1. The requester calls ``fetch(_:kernel:)`` and gets a request id.
/// 2. At completion time the world schedules `Event(kind: replyKind, target: replyTarget,
///    payload: replyTag << 32 | requestID)`. Exactly one reply per request, never before the
///    request's start.
/// 3. In that event's handler the requester reads ``result(_:)`` and then calls
///    ``release(_:)``; the id may be reused afterwards. (Unreleased results stay allocated and
///    count toward `requestsInFlightMax`.)
///
/// ## Node ids
/// PoP `p` is node `p`; shield `s` is node `popCount + s`.
///
/// ## Timeline of a request
/// Set-up (DNS + TCP + TLS round trips × RTT, skipped on a warm connection; a network failure
/// replies here) → ½ RTT to the PoP → lookup (a miss waits for the upstream fetch, each tier
/// hop costing its sampled round trip, plus origin queueing and service) → edge processing →
/// ½ RTT → transfer. RTT = class RTT + region path RTT. The transfer runs on the region's
/// shared bottleneck for the class (processor sharing) and is capped by the device's own
/// downlink: it ends at max(PS completion, transfer start + bits/downlink). That cap is an
/// approximation — a capped flow still holds its full PS share — exact when either limit
/// dominates throughout. A stalled transfer never ends and the timeout replies. A 503 costs
/// edge processing + ½ RTT and carries no bytes.
///
/// ## Cost
/// A device request costs about five kernel events (arrival at the PoP, response, transfer or
/// link completion, reply; plus its cancellable timeout), O(log n) each; a miss adds two or
/// three per tier. Per-request state lives in struct-of-arrays tables recycled through free
/// lists, so a warm world allocates nothing per request. Measured: ~50 000 requests/s in a
/// debug build on the 280-PoP default world.
///
/// `InfraWorld` holds its random streams and samplers by reference: do not use two copies of
/// one world.
///
/// ## Randomness
/// Device-side variates come from streams keyed by (seed, request entity, purpose). Upstream
/// hop latencies, warm/purge propagation delays, origin service times and background streams
/// come from one sequential stream each, keyed by (seed, 0, purpose).
public struct InfraWorld: EventHandler {
    public let config: InfraConfig
    public let catalog: ObjectCatalog
    public let masterSeed: UInt64
    public let popCount: Int
    public let shieldCount: Int
    public var nodeCount: Int { popCount + shieldCount }

    // Regions
    private let regionPop: [UInt32]
    private let regionPathRttSeconds: [Double]
    /// Link id of (region, class), or -1 when the class is not shared.
    private let linkOfRegionClass: [Int32]
    private var links: SharedLinks

    // Networks (indexed by class)
    private let rttSamplers: [Sampler]
    private let downlinkSamplers: [Sampler]
    private let failureProbability: [Double]
    private let stallProbability: [Double]
    private let setupRoundTrips: Int

    // Nodes
    public private(set) var caches: [LRUCache]
    public private(set) var counters: [NodeCounters]
    private let parentNode: [Int32]
    private let upstreamSamplerIndex: [Int32]
    private let processingSamplerIndex: [Int32]
    private let samplers: [Sampler]
    private var inFlight = KeyIndex()
    private var purgeCurrent: [Int64]
    private var purgePrevious: [Int64]
    public let popsByAudience: [UInt32]

    // Background streams
    private let backgroundRatePerSecond: [Double]
    private let backgroundSamplerIndex: [Int32]
    private let backgroundBytes: [Int64]
    private var backgroundSamplers: [Sampler] = []

    // Origin
    private var origin: OriginPool
    public private(set) var originCounters = OriginCounters()

    // Streams
    private let deviceRng: RandomStream
    private let upstreamRng: RandomStream
    private let propagationRng: RandomStream
    private let backgroundRng: RandomStream
    private let purposeNetwork: UInt64
    private let purposeEdge: UInt64
    private let purgeDelaySampler: Sampler
    private let warmDelaySampler: Sampler

    // Device requests, indexed by request id: one record each (an array of structs, unlike the
    // per-object and per-device tables): a request's fields are read and written together by the
    // 4-5 events of its life, so they share two cache lines instead of spanning 25 arrays.
    private var requests: [RequestRecord] = []
    private var rqFreeHead: Int32 = -1
    public private(set) var requestsInFlight: Int = 0

    // Upstream fetches (struct of arrays, indexed by fetch id)
    private enum Purpose: UInt8 { case miss, revalidate, warm }
    private var fNode: [Int32] = []
    private var fParent: [Int32] = []
    private var fObject: [UInt32] = []
    private var fKey: [UInt64] = []
    private var fHopTicks: [Int64] = []
    private var fPurpose: [UInt8] = []
    private var fOK: [Bool] = []
    private var fOriginTicks: [Int64] = []
    private var fServedBy: [UInt8] = []
    private var fRegistered: [Bool] = []
    private var fWaiterHead: [Int32] = []
    private var fWaiterTail: [Int32] = []
    private var fFreeNext: [Int32] = []
    private var fFreeHead: Int32 = -1
    public private(set) var fetchesInFlight: Int = 0

    // Waiters on a fetch: a device request or a child fetch.
    private var wNext: [Int32] = []
    private var wIsFetch: [Bool] = []
    private var wID: [UInt32] = []
    private var wFreeHead: Int32 = -1

    public private(set) var timeSeries: TimeSeries

    private static let backgroundKeyBit: UInt64 = 1 << 63

    /// Build the world from a configuration whose ranges were checked where it was read (the
    /// scenario format). Errors name the field path.
    /// - Throws: ``InfraConfigError`` for a distribution GSL cannot sample.
    public init(config: InfraConfig, catalog: ObjectCatalog, masterSeed: UInt64) throws {
        self.config = config
        self.catalog = catalog
        self.masterSeed = masterSeed
        let topo = config.topology
        popCount = topo.popCount
        shieldCount = topo.shieldCount
        let regions = topo.effectiveRegions
        regionPop = regions.map { UInt32($0.popIndex) }
        regionPathRttSeconds = regions.map(\.pathRttSeconds)

        func sampler(_ d: Distribution, _ path: String) throws -> Sampler {
            do { return try Sampler(d) } catch {
                throw InfraConfigError(path: path, value: "\(d)", expected: "a samplable distribution (\(error))")
            }
        }

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
        linkOfRegionClass = linkIndex
        links = SharedLinks(capacitiesBitsPerSecond: capacities, completionKind: InfraEventKind.linkCompletion)

        rttSamplers = try NetworkClass.allCases.map { try sampler(config.networks[$0].rttSeconds, "networks.\($0).rttSeconds") }
        downlinkSamplers = try NetworkClass.allCases.map {
            try sampler(config.networks[$0].downlinkBitsPerSecond, "networks.\($0).downlinkBitsPerSecond")
        }
        failureProbability = NetworkClass.allCases.map { config.networks[$0].failureProbability }
        stallProbability = NetworkClass.allCases.map { config.networks[$0].stallProbability }
        setupRoundTrips = config.connectionSetup.totalRoundTrips

        // Samplers shared by nodes: 0 edge processing, 1 edge→shield, 2 to origin, then overrides.
        var ss: [Sampler] = [
            try sampler(config.tiers.edgeProcessingSeconds, "tiers.edgeProcessingSeconds"),
            try sampler(config.tiers.edgeToShieldSeconds, "tiers.edgeToShieldSeconds"),
            try sampler(config.tiers.toOriginSeconds, "tiers.toOriginSeconds"),
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
                ss.append(try sampler(d, path + ".edgeProcessingSeconds"))
            }
            if let d = o.upstreamSeconds {
                upstream[o.popIndex] = Int32(ss.count)
                ss.append(try sampler(d, path + ".upstreamSeconds"))
            }
            if let b = o.cacheCapacityBytes { edgeCapacity[o.popIndex] = b }
        }
        samplers = ss
        parentNode = parent
        upstreamSamplerIndex = upstream
        processingSamplerIndex = processing

        // Caches and background pressure.
        var cs: [LRUCache] = []
        var bgRate = [Double](repeating: 0, count: nodes)
        var bgSampler = [Int32](repeating: -1, count: nodes)
        var bgBytes = [Int64](repeating: 0, count: nodes)
        // One Zipf sampler per tier with an explicit stream: 0 = edge, 1 = shield.
        var bgSamplers: [Sampler] = []
        for (tier, cc) in [("edgeCache", config.edgeCache), ("shieldCache", config.shieldCache)] {
            if case let .explicitStream(_, objects, alpha, _) = cc.background {
                let w = CheApproximation.zipfPopularities(count: objects, exponent: alpha)
                bgSamplers.append(try sampler(.categorical(values: (0..<objects).map(Double.init), weights: w),
                                              tier + ".background"))
            } else {
                bgSamplers.append(try sampler(.constant(value: 0), tier + ".background"))
            }
        }
        for n in 0..<nodes {
            let cc = n < topo.popCount ? config.edgeCache : config.shieldCache
            let capacity = n < topo.popCount ? edgeCapacity[n] : cc.capacityBytes
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
        caches = cs
        counters = [NodeCounters](repeating: NodeCounters(), count: nodes)
        backgroundRatePerSecond = bgRate
        backgroundSamplerIndex = bgSampler
        backgroundBytes = bgBytes
        backgroundSamplers = bgSamplers

        let keys = max(catalog.surrogateKeyCount, 1)
        purgeCurrent = [Int64](repeating: Int64.min, count: nodes * keys)
        purgePrevious = purgeCurrent

        var audience = [Double](repeating: 0, count: topo.popCount)
        for r in regions { audience[r.popIndex] += r.audienceWeight }
        popsByAudience = (0..<topo.popCount).sorted { a, b in
            audience[a] != audience[b] ? audience[a] > audience[b] : a < b
        }.map { UInt32($0) }

        deviceRng = RandomStream(seed: 1)
        upstreamRng = RandomStream(masterSeed: masterSeed, entity: 0, purpose: StreamPurpose("infra.upstream"))
        propagationRng = RandomStream(masterSeed: masterSeed, entity: 0, purpose: StreamPurpose("infra.propagation"))
        backgroundRng = RandomStream(masterSeed: masterSeed, entity: 0, purpose: StreamPurpose("infra.background"))
        purposeNetwork = StreamPurpose("infra.network").rawValue
        purposeEdge = StreamPurpose("infra.edge").rawValue
        purgeDelaySampler = try sampler(config.purgePropagationSeconds, "purgePropagationSeconds")
        warmDelaySampler = try sampler(config.warmPropagationSeconds, "warmPropagationSeconds")
        origin = OriginPool(workers: config.origin.workers, queueMax: config.origin.queueMax,
                            serviceSampler: try sampler(config.origin.serviceSeconds, "origin.serviceSeconds"),
                            rng: RandomStream(masterSeed: masterSeed, entity: 0, purpose: StreamPurpose("infra.origin.service")),
                            serviceDoneKind: InfraEventKind.originServiceDone)
        timeSeries = TimeSeries(horizonSeconds: config.metricsHorizonSeconds)
    }

    // MARK: - Public API

    /// Start the explicit background streams (``BackgroundPressure/explicitStream(requestsPerSecond:catalogueObjects:zipfExponent:objectBytes:)``)
    /// at every node that has one. They run until `metricsHorizonSeconds`.
    public mutating func startBackgroundStreams(kernel: inout Kernel) throws {
        for n in 0..<nodeCount where backgroundRatePerSecond[n] > 0 {
            try scheduleNextBackground(node: n, kernel: &kernel)
        }
    }

    /// Issue a device request now. Returns its request id.
    /// - Throws: ``InfraError`` for an unknown object/region, a bad timeout or the in-flight limit.
    /// - Complexity: O(log n) kernel operations; no allocation once the request table is warm.
    public mutating func fetch(_ r: FetchRequest, kernel: inout Kernel) throws -> UInt32 {
        guard Int(r.objectID) < catalog.count else { throw InfraError.unknownObject(r.objectID) }
        guard Int(r.regionID) < regionPop.count else { throw InfraError.unknownRegion(r.regionID) }
        guard r.timeout.ticks > 0 && r.timeout <= .seconds(600) else { throw InfraError.invalidTimeout(r.timeout) }
        let id = try allocateRequest()
        let i = Int(id)
        let now = kernel.now.ticks
        let c = Int(r.networkClass.rawValue)
        deviceRng.reseed(StreamSeed.derive(masterSeed: masterSeed, entity: r.entity, purpose: purposeNetwork))
        let accessRtt = max(0, rttSamplers[c].sample(deviceRng))
        let downlink = max(1, downlinkSamplers[c].sample(deviceRng))
        let failed = deviceRng.uniform() < failureProbability[c]
        let stalled = deviceRng.uniform() < stallProbability[c]
        let rtt = accessRtt + regionPathRttSeconds[Int(r.regionID)]
        let rttTicks = sampledTicks(rtt)

        let ect = EffectiveConnectionType.classify(rttSeconds: rtt, downlinkBitsPerSecond: downlink)
        requests[i] = RequestRecord(key: cacheKey(object: r.objectID, token: r.signedToken), entity: r.entity,
                                    rttTicks: rttTicks, downlinkBps: downlink, startTicks: now, firstByteTicks: now,
                                    endTicks: now, deviceDoneTicks: now, bytes: 0, object: r.objectID,
                                    region: r.regionID, pop: regionPop[Int(r.regionID)], replyTarget: r.replyTarget,
                                    replyTag: r.replyTag, replyKind: r.replyKind.rawValue, networkClass: UInt8(c),
                                    outcome: FetchOutcome.miss.rawValue, servedBy: Tier.edge.rawValue, ect: ect.rawValue,
                                    stall: stalled)

        let setupTicks = r.connectionWarm ? 0 : Int64(setupRoundTrips) * rttTicks
        if failed {
            requests[i].outcome = FetchOutcome.networkFailure.rawValue
            requests[i].endTicks = now + setupTicks
            requests[i].firstByteTicks = now + setupTicks
            requests[i].replied = true
            try kernel.schedule(at: SimTime(ticks: now + setupTicks), kind: r.replyKind, target: r.replyTarget,
                                payload: UInt64(r.replyTag) << 32 | UInt64(id))
            return id
        }
        var placeholder = false
        if config.placeholder.enabled {
            placeholder = (r.saveData && config.placeholder.onSaveData) || ect <= config.placeholder.maxEffectiveConnectionType
        }
        if placeholder { requests[i].outcome = FetchOutcome.placeholder.rawValue }
        requests[i].timeout = try kernel.scheduleCancellable(at: SimTime(ticks: now + r.timeout.ticks),
                                                      kind: InfraEventKind.requestTimeout, target: id, payload: 0)
        requests[i].refs += 2 // the timeout and requestAtEdge
        try kernel.schedule(at: SimTime(ticks: now + setupTicks + rttTicks / 2), kind: InfraEventKind.requestAtEdge,
                            target: id, payload: 0)
        return id
    }

    /// The result of a replied request (valid from its reply event until ``release(_:)``).
    public func result(_ id: UInt32) -> FetchResult {
        let i = Int(id)
        precondition(i < requests.count && requests[i].replied && !requests[i].released, "request \(id) has no result to read")
        return FetchResult(outcome: FetchOutcome(rawValue: requests[i].outcome) ?? .miss,
                           servedBy: Tier(rawValue: requests[i].servedBy) ?? .edge,
                           bytes: requests[i].bytes, popIndex: requests[i].pop,
                           startTime: SimTime(ticks: requests[i].startTicks),
                           firstByteTime: SimTime(ticks: requests[i].firstByteTicks),
                           endTime: SimTime(ticks: requests[i].endTicks),
                           effectiveConnectionType: EffectiveConnectionType(rawValue: requests[i].ect) ?? .fourG)
    }

    /// Give the request id back after reading its result.
    public mutating func release(_ id: UInt32) {
        let i = Int(id)
        precondition(i < requests.count && requests[i].replied && !requests[i].released, "request \(id) released twice or before its reply")
        requests[i].released = true
        freeRequestIfDone(i)
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
    public mutating func cancel(_ id: UInt32, kernel: inout Kernel) throws -> FetchResult? {
        let i = Int(id)
        precondition(i < requests.count && !requests[i].released && !requests[i].isFree, "request \(id) is not in flight")
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
        let r = result(id)
        requests[i].released = true
        freeRequestIfDone(i)
        return r
    }

    /// Split a reply payload into (replyTag, requestID).
    @inlinable
    public static func decodeReply(_ payload: UInt64) -> (tag: UInt32, requestID: UInt32) {
        (UInt32(truncatingIfNeeded: payload >> 32), UInt32(truncatingIfNeeded: payload))
    }

    /// Warm `objects` into the targeted caches: each targeted node receives a warm request at
    /// `at` + a per-node delay drawn from `warmPropagationSeconds`. A warm request is a lookup
    /// that fetches on a miss (through tiers and collapsing, like any miss). Warming uses the
    /// token-free cache key, so with `cacheKeyIncludesSignedToken` warmed entries never match a
    /// device request (as on a real CDN).
    /// - Complexity: O(nodes × objects) scheduled events.
    public mutating func warm(objects: [UInt32], at: SimTime, target: WarmTarget, kernel: inout Kernel) throws {
        guard at >= kernel.now else { throw InfraError.warmInPast(now: kernel.now, requested: at) }
        for o in objects where Int(o) >= catalog.count { throw InfraError.unknownObject(o) }
        var nodes: [Int] = []
        switch target {
        case .allPops: nodes = Array(0..<popCount)
        case .topPops(let k): nodes = popsByAudience.prefix(max(0, min(k, popCount))).map { Int($0) }
        case .shieldsOnly: nodes = Array(popCount..<nodeCount)
        }
        for n in nodes {
            let delay = SimDuration(ticks: sampledTicks(warmDelaySampler.sample(propagationRng)))
            for o in objects {
                try kernel.schedule(at: at + delay, kind: InfraEventKind.warmAtNode, target: UInt32(n), payload: UInt64(o))
            }
        }
    }

    /// Purge every object tagged `surrogateKey` (hard purge: entries become absent). The purge
    /// takes effect at each node now + a delay drawn from `purgePropagationSeconds`; entries
    /// stored before that instant are invalid from then on. Two purges of the same key closer
    /// together than the propagation delay are tracked exactly; a third within that window
    /// merges with the second.
    /// - Complexity: O(nodes).
    public mutating func purge(surrogateKey key: UInt32, kernel: inout Kernel) throws {
        guard Int(key) < catalog.surrogateKeyCount else { throw InfraError.unknownSurrogateKey(key) }
        let keys = catalog.surrogateKeyCount
        for n in 0..<nodeCount {
            let effective = kernel.now.ticks + sampledTicks(purgeDelaySampler.sample(propagationRng))
            let j = n * keys + Int(key)
            purgePrevious[j] = purgeCurrent[j]
            purgeCurrent[j] = max(effective, purgeCurrent[j])
        }
    }

    /// Counters summed over the PoPs (edge tier) or the shields.
    public func tierCounters(_ tier: Tier) -> NodeCounters {
        var t = NodeCounters()
        switch tier {
        case .edge: for n in 0..<popCount { t.add(counters[n]) }
        case .shield: for n in popCount..<nodeCount { t.add(counters[n]) }
        case .origin: break
        }
        return t
    }

    /// Number of regions (valid `FetchRequest.regionID`s are `0..<regionCount`).
    public var regionCount: Int { regionPop.count }

    /// The PoP serving `region`.
    public func pop(ofRegion region: UInt32) -> UInt32 { regionPop[Int(region)] }

    /// Active flows on the shared bottleneck of (`region`, `networkClass`), or nil when that
    /// class is not shared in the region.
    public func activeFlows(region: UInt32, networkClass: NetworkClass) -> Int? {
        let l = linkOfRegionClass[Int(region) * NetworkClass.count + Int(networkClass.rawValue)]
        return l < 0 ? nil : links.activeFlows(link: UInt32(l))
    }

    /// Current origin queue length and busy workers.
    public var originQueueLength: Int { origin.queueLength }
    public var originBusyWorkers: Int { origin.busy }

    /// Whether node `node`'s cache holds `objectID` (tokenless key), ignoring freshness.
    public func cacheContains(node: Int, objectID: UInt32) -> Bool { caches[node].contains(UInt64(objectID)) }

    // MARK: - Dispatch

    /// Handle an event of this module (kind in ``InfraEventKind/range``).
    /// - Throws: ``InfraError/unknownEventKind(_:)`` for a kind outside this module's set,
    ///   ``InfraError/fetchesInFlightLimit(_:)``, or a `KernelError` from scheduling.
    /// - Complexity: O(log n) per event (kernel and link heaps), plus O(w) for a fetch
    ///   response with w waiters and O(k log n) for a link completion finishing k flows.
    public mutating func handle(_ event: Event, in kernel: inout Kernel) throws {
        switch event.kind.rawValue {
        case InfraEventKind.requestAtEdge.rawValue: try requestAtEdge(Int(event.target), kernel: &kernel)
        case InfraEventKind.responseAtDevice.rawValue: try responseAtDevice(Int(event.target), kernel: &kernel)
        case InfraEventKind.linkCompletion.rawValue:
            try links.handleCompletion(link: event.target, kernel: &kernel)
            for k in 0..<links.completed.count {
                let i = Int(links.completed[k])
                if kernel.now.ticks < requests[i].deviceDoneTicks {
                    requests[i].refs += 1
                    try kernel.schedule(at: SimTime(ticks: requests[i].deviceDoneTicks), kind: InfraEventKind.transferDone,
                                        target: UInt32(i), payload: 0)
                } else {
                    try finish(i, kernel: &kernel)
                }
            }
        case InfraEventKind.transferDone.rawValue:
            let i = Int(event.target)
            requests[i].refs -= 1
            if requests[i].replied { freeRequestIfDone(i) } else { try finish(i, kernel: &kernel) }
        case InfraEventKind.requestTimeout.rawValue: try requestTimeout(Int(event.target), kernel: &kernel)
        case InfraEventKind.fetchAtParent.rawValue: try fetchAtParent(Int(event.target), kernel: &kernel)
        case InfraEventKind.fetchResponse.rawValue: try fetchResponse(Int(event.target), kernel: &kernel)
        case InfraEventKind.originServiceDone.rawValue:
            let f = Int(try origin.serviceDone(event, kernel: &kernel))
            let now = kernel.now.ticks
            timeSeries.originQueue(at: now, length: origin.queueLength)
            if origin.lastStartedFromQueue != nil {
                originCounters.waitedRequests += 1
                originCounters.totalWaitSeconds += Double(origin.lastStartedWaitTicks) / 1e6
            }
            let bytes = catalog.bytes[Int(fObject[f])]
            originCounters.served += 1
            originCounters.bytesServed += UInt64(bytes)
            timeSeries.bytes(at: now, tier: .origin, bytes)
            fOK[f] = true
            fOriginTicks[f] = now
            fServedBy[f] = Tier.origin.rawValue
            try kernel.schedule(at: SimTime(ticks: now + fHopTicks[f] / 2), kind: InfraEventKind.fetchResponse,
                                target: UInt32(f), payload: 0)
        case InfraEventKind.warmAtNode.rawValue:
            try warmAtNode(Int(event.target), object: UInt32(truncatingIfNeeded: event.payload), kernel: &kernel)
        case InfraEventKind.backgroundRequest.rawValue: try backgroundRequest(Int(event.target), kernel: &kernel)
        default: throw InfraError.unknownEventKind(event.kind.rawValue)
        }
    }

    // MARK: - Cache lookups

    private enum Lookup { case fresh, staleWhileRevalidate, miss }

    @inline(__always)
    private func cacheKey(object: UInt32, token: UInt32) -> UInt64 {
        if !config.cacheKeyIncludesSignedToken { return UInt64(object) }
        return UInt64(object) | (UInt64(token % 0x7FFF_FFFE) + 1) << 32
    }

    /// Whether the entry in `slot` of node `n` was purged.
    @inline(__always)
    private func purged(node n: Int, object o: UInt32, slot: Int32, now: Int64) -> Bool {
        let k = catalog.surrogateKey[Int(o)]
        if k == ObjectCatalog.noSurrogateKey { return false }
        let j = n * catalog.surrogateKeyCount + Int(k)
        let stored = caches[n].storedTicks(of: slot)
        let cur = purgeCurrent[j], prev = purgePrevious[j]
        return (cur <= now && stored < cur) || (prev <= now && stored < prev)
    }

    /// A counted lookup at node `n`. Entries past stale-while-revalidate stay stored (for
    /// stale-if-error) but count as misses; purged entries are removed.
    private mutating func lookup(node n: Int, object o: UInt32, key: UInt64, now: Int64) -> (Lookup, Int32) {
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
    private mutating func staleIfErrorSlot(node n: Int, object o: UInt32, key: UInt64, now: Int64) -> Int32 {
        let slot = caches[n].lookup(key, nowTicks: now)
        if slot < 0 || purged(node: n, object: o, slot: slot, now: now) { return -1 }
        let age = now - caches[n].originTicks(of: slot)
        return age < catalog.maxAgeTicks[Int(o)] + catalog.staleIfErrorTicks[Int(o)] ? slot : -1
    }

    // MARK: - Device request path

    private mutating func requestAtEdge(_ i: Int, kernel: inout Kernel) throws {
        requests[i].refs -= 1
        if requests[i].replied { freeRequestIfDone(i); return }
        let now = kernel.now.ticks
        let n = Int(requests[i].pop)
        let o = requests[i].object
        counters[n].deviceRequests += 1
        if requests[i].outcome == FetchOutcome.placeholder.rawValue {
            // 302 to the placeholder: one extra round trip, placeholder assumed always cached.
            counters[n].deviceHits += 1
            counters[n].placeholderRedirects += 1
            timeSeries.edgeRequest(at: now, hit: true)
            requests[i].bytes = config.placeholder.placeholderBytes
            try respondToDevice(i, extraTicks: requests[i].rttTicks, kernel: &kernel)
            return
        }
        let (state, _) = lookup(node: n, object: o, key: requests[i].key, now: now)
        switch state {
        case .fresh, .staleWhileRevalidate:
            counters[n].deviceHits += 1
            timeSeries.edgeRequest(at: now, hit: true)
            requests[i].outcome = (state == .fresh ? FetchOutcome.edgeFreshHit : .edgeStaleHit).rawValue
            requests[i].servedBy = Tier.edge.rawValue
            requests[i].bytes = catalog.bytes[Int(o)]
            try respondToDevice(i, extraTicks: 0, kernel: &kernel)
            if state == .staleWhileRevalidate {
                try revalidate(node: n, object: o, key: requests[i].key, kernel: &kernel)
            }
        case .miss:
            timeSeries.edgeRequest(at: now, hit: false)
            requests[i].refs += 1
            let collapsed = try startOrJoinFetch(node: n, object: o, key: requests[i].key, purpose: .miss,
                                                 waiterIsFetch: false, waiterID: UInt32(i), kernel: &kernel)
            requests[i].outcome = (collapsed ? FetchOutcome.collapsed : .miss).rawValue
        }
    }

    /// The PoP has the response for request `i` now: edge processing, then half an RTT to the device.
    private mutating func respondToDevice(_ i: Int, extraTicks: Int64, kernel: inout Kernel) throws {
        let n = Int(requests[i].pop)
        deviceRng.reseed(StreamSeed.derive(masterSeed: masterSeed, entity: requests[i].entity, purpose: purposeEdge))
        let processing = max(0, samplers[Int(processingSamplerIndex[n])].sample(deviceRng))
        let at = kernel.now.ticks + sampledTicks(processing) + extraTicks + requests[i].rttTicks / 2
        requests[i].refs += 1
        try kernel.schedule(at: SimTime(ticks: at), kind: InfraEventKind.responseAtDevice, target: UInt32(i), payload: 0)
    }

    private mutating func responseAtDevice(_ i: Int, kernel: inout Kernel) throws {
        requests[i].refs -= 1
        if requests[i].replied { freeRequestIfDone(i); return }
        let now = kernel.now.ticks
        requests[i].firstByteTicks = now
        let bytes = requests[i].bytes
        if bytes == 0 { try finish(i, kernel: &kernel); return } // error response
        requests[i].transferring = true
        counters[Int(requests[i].pop)].bytesServed += UInt64(bytes)
        timeSeries.bytes(at: now, tier: .edge, bytes)
        if requests[i].stall { return } // the transfer never completes: the timeout ends it
        let bits = Double(bytes) * 8
        requests[i].deviceDoneTicks = now + sampledTicks(bits / requests[i].downlinkBps)
        let link = linkOfRegionClass[Int(requests[i].region) * NetworkClass.count + Int(requests[i].networkClass)]
        if link >= 0 {
            try links.start(flow: UInt32(i), link: UInt32(link), bits: bits, kernel: &kernel)
        } else {
            requests[i].refs += 1
            try kernel.schedule(at: SimTime(ticks: requests[i].deviceDoneTicks), kind: InfraEventKind.transferDone,
                                target: UInt32(i), payload: 0)
        }
    }

    private mutating func finish(_ i: Int, kernel: inout Kernel) throws {
        requests[i].endTicks = kernel.now.ticks
        requests[i].transferring = false
        if let h = requests[i].timeout {
            kernel.cancel(h)
            requests[i].timeout = nil
            requests[i].refs -= 1
        }
        try reply(i, kernel: &kernel)
    }

    private mutating func requestTimeout(_ i: Int, kernel: inout Kernel) throws {
        requests[i].refs -= 1
        requests[i].timeout = nil
        if requests[i].replied { freeRequestIfDone(i); return }
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
    private mutating func cutTransfer(_ i: Int, kernel: inout Kernel) throws {
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
            counters[Int(requests[i].pop)].bytesServed -= UInt64(unsent)
            timeSeries.withdrawBytes(at: requests[i].firstByteTicks, tier: .edge, unsent)
        }
        requests[i].bytes = delivered
    }

    private mutating func reply(_ i: Int, kernel: inout Kernel) throws {
        requests[i].replied = true
        try kernel.schedule(at: kernel.now, kind: EventKind(requests[i].replyKind), target: requests[i].replyTarget,
                            payload: UInt64(requests[i].replyTag) << 32 | UInt64(i))
    }

    // MARK: - Upstream fetches

    /// Join the in-flight fetch of `key` at `node` (collapsing) or start a new one. Returns
    /// whether it collapsed. A miss-purpose call counts `collapsed`/`upstreamFetches`.
    private mutating func startOrJoinFetch(node n: Int, object o: UInt32, key: UInt64, purpose: Purpose,
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
        if collapsible { inFlight.set(flightKey, Int32(f)) }
        if let w = waiterID { addWaiter(fetch: f, isFetch: waiterIsFetch, id: w) }
        switch purpose {
        case .miss: counters[n].upstreamFetches += 1
        case .revalidate: counters[n].revalidations += 1
        case .warm: counters[n].upstreamFetches += 1
        }
        try kernel.schedule(at: SimTime(ticks: kernel.now.ticks + fHopTicks[f] / 2), kind: InfraEventKind.fetchAtParent,
                            target: UInt32(f), payload: 0)
        return false
    }

    /// Background revalidation after a stale-while-revalidate hit (skipped when a fetch of the
    /// object is already in flight at the node).
    private mutating func revalidate(node n: Int, object o: UInt32, key: UInt64, kernel: inout Kernel) throws {
        if config.tiers.requestCollapsingEnabled && key == UInt64(o) && inFlight.find(UInt64(n) << 32 | UInt64(o)) >= 0 {
            return
        }
        _ = try startOrJoinFetch(node: n, object: o, key: key, purpose: .revalidate, waiterIsFetch: false,
                                 waiterID: nil, kernel: &kernel)
    }

    private mutating func fetchAtParent(_ f: Int, kernel: inout Kernel) throws {
        let now = kernel.now.ticks
        let p = Int(fParent[f])
        if p < 0 {
            originCounters.requests += 1
            let admission = try origin.submit(job: UInt32(f), kernel: &kernel)
            originCounters.queueLengthMax = max(originCounters.queueLengthMax, origin.queueLength)
            timeSeries.originQueue(at: now, length: origin.queueLength)
            timeSeries.originRequest(at: now, rejected: admission == .rejected)
            if admission == .rejected {
                originCounters.rejected503 += 1
                fOK[f] = false
                try kernel.schedule(at: SimTime(ticks: now + fHopTicks[f] / 2), kind: InfraEventKind.fetchResponse,
                                    target: UInt32(f), payload: 0)
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

    /// Node `p` answers child fetch `f` from its cache entry `slot`.
    private mutating func serveChild(_ f: Int, fromNode p: Int, slot: Int32, kernel: inout Kernel) throws {
        let now = kernel.now.ticks
        let bytes = catalog.bytes[Int(fObject[f])]
        fOK[f] = true
        fOriginTicks[f] = caches[p].originTicks(of: slot)
        fServedBy[f] = Tier.shield.rawValue
        counters[p].bytesServed += UInt64(bytes)
        timeSeries.bytes(at: now, tier: .shield, bytes)
        try kernel.schedule(at: SimTime(ticks: now + fHopTicks[f] / 2), kind: InfraEventKind.fetchResponse,
                            target: UInt32(f), payload: 0)
    }

    /// Fetch `f`'s response is back at its node: store, then answer every waiter.
    private mutating func fetchResponse(_ f: Int, kernel: inout Kernel) throws {
        let now = kernel.now.ticks
        let n = Int(fNode[f])
        let o = fObject[f]
        let key = fKey[f]
        if fRegistered[f] { inFlight.remove(UInt64(n) << 32 | UInt64(o)) }
        let ok = fOK[f]
        if ok {
            caches[n].insert(key, bytes: catalog.bytes[Int(o)], originTicks: fOriginTicks[f], nowTicks: now)
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
                    let bytes = catalog.bytes[Int(o)]
                    counters[n].bytesServed += UInt64(bytes)
                    timeSeries.bytes(at: now, tier: .shield, bytes)
                    try kernel.schedule(at: SimTime(ticks: now + fHopTicks[c] / 2), kind: InfraEventKind.fetchResponse,
                                        target: UInt32(c), payload: 0)
                } else {
                    let s = staleIfErrorSlot(node: n, object: o, key: key, now: now)
                    if s >= 0 {
                        counters[n].staleIfErrorServed += 1
                        try serveChild(c, fromNode: n, slot: s, kernel: &kernel)
                    } else {
                        fOK[c] = false
                        try kernel.schedule(at: SimTime(ticks: now + fHopTicks[c] / 2), kind: InfraEventKind.fetchResponse,
                                            target: UInt32(c), payload: 0)
                    }
                }
            } else {
                let i = id
                requests[i].refs -= 1
                if requests[i].replied { freeRequestIfDone(i); continue }
                if ok {
                    requests[i].servedBy = fServedBy[f]
                    requests[i].bytes = catalog.bytes[Int(o)]
                } else if staleIfErrorSlot(node: n, object: o, key: key, now: now) >= 0 {
                    counters[n].staleIfErrorServed += 1
                    requests[i].outcome = FetchOutcome.staleIfError.rawValue
                    requests[i].servedBy = Tier.edge.rawValue
                    requests[i].bytes = catalog.bytes[Int(o)]
                } else {
                    requests[i].outcome = FetchOutcome.origin503.rawValue
                    requests[i].servedBy = Tier.origin.rawValue
                    requests[i].bytes = 0
                }
                try respondToDevice(i, extraTicks: 0, kernel: &kernel)
            }
        }
        freeFetch(f)
    }

    private mutating func warmAtNode(_ n: Int, object o: UInt32, kernel: inout Kernel) throws {
        counters[n].warmRequests += 1
        let (state, _) = lookup(node: n, object: o, key: UInt64(o), now: kernel.now.ticks)
        if state == .miss {
            _ = try startOrJoinFetch(node: n, object: o, key: UInt64(o), purpose: .warm, waiterIsFetch: false,
                                     waiterID: nil, kernel: &kernel)
        } else if state == .staleWhileRevalidate {
            try revalidate(node: n, object: o, key: UInt64(o), kernel: &kernel)
        }
    }

    // MARK: - Background stream

    private mutating func scheduleNextBackground(node n: Int, kernel: inout Kernel) throws {
        let u = backgroundRng.uniformPositive()
        let gap = -log(u) / backgroundRatePerSecond[n]
        let at = kernel.now.ticks + max(1, sampledTicks(gap))
        if at < Int64(config.metricsHorizonSeconds) * 1_000_000 {
            try kernel.schedule(at: SimTime(ticks: at), kind: InfraEventKind.backgroundRequest, target: UInt32(n), payload: 0)
        }
    }

    private mutating func backgroundRequest(_ n: Int, kernel: inout Kernel) throws {
        let now = kernel.now.ticks
        let rank = UInt64(backgroundSamplers[Int(backgroundSamplerIndex[n])].sample(backgroundRng))
        let key = InfraWorld.backgroundKeyBit | rank
        counters[n].backgroundRequests += 1
        let slot = caches[n].lookup(key, nowTicks: now)
        if slot >= 0 {
            counters[n].backgroundHits += 1
            caches[n].touch(slot, nowTicks: now)
        } else {
            caches[n].insert(key, bytes: backgroundBytes[n], originTicks: now, nowTicks: now)
        }
        try scheduleNextBackground(node: n, kernel: &kernel)
    }

    // MARK: - Tables

    private mutating func allocateRequest() throws -> UInt32 {
        if rqFreeHead >= 0 {
            let id = rqFreeHead
            rqFreeHead = requests[Int(id)].freeNext
            requests[Int(id)].isFree = false
            requestsInFlight += 1
            return UInt32(id)
        }
        guard requests.count < config.requestsInFlightMax else {
            throw InfraError.requestsInFlightLimit(config.requestsInFlightMax)
        }
        requests.append(RequestRecord())
        requestsInFlight += 1
        return UInt32(requests.count - 1)
    }

    private mutating func freeRequestIfDone(_ i: Int) {
        guard requests[i].released && requests[i].replied && requests[i].refs == 0 else { return }
        requests[i].released = false
        requests[i].replied = false
        requests[i].isFree = true
        requests[i].freeNext = rqFreeHead
        rqFreeHead = Int32(i)
        requestsInFlight -= 1
    }

    private mutating func allocateFetch() throws -> Int {
        fetchesInFlight += 1
        if fFreeHead >= 0 {
            let f = Int(fFreeHead)
            fFreeHead = fFreeNext[f]
            return f
        }
        guard fNode.count < config.fetchesInFlightMax else {
            fetchesInFlight -= 1
            throw InfraError.fetchesInFlightLimit(config.fetchesInFlightMax)
        }
        fNode.append(0); fParent.append(0); fObject.append(0); fKey.append(0); fHopTicks.append(0)
        fPurpose.append(0); fOK.append(false); fOriginTicks.append(0); fServedBy.append(0); fRegistered.append(false)
        fWaiterHead.append(-1); fWaiterTail.append(-1); fFreeNext.append(-1)
        return fNode.count - 1
    }

    private mutating func freeFetch(_ f: Int) {
        fFreeNext[f] = fFreeHead
        fFreeHead = Int32(f)
        fetchesInFlight -= 1
    }

    private mutating func addWaiter(fetch f: Int, isFetch: Bool, id: UInt32) {
        let w: Int32
        if wFreeHead >= 0 {
            w = wFreeHead
            wFreeHead = wNext[Int(w)]
            wIsFetch[Int(w)] = isFetch
            wID[Int(w)] = id
            wNext[Int(w)] = -1
        } else {
            w = Int32(wNext.count)
            wNext.append(-1)
            wIsFetch.append(isFetch)
            wID.append(id)
        }
        if fWaiterTail[f] >= 0 { wNext[Int(fWaiterTail[f])] = w } else { fWaiterHead[f] = w }
        fWaiterTail[f] = w
    }

    private mutating func freeWaiter(_ w: Int32) {
        wNext[Int(w)] = wFreeHead
        wFreeHead = w
    }
}

/// One device request's fields (`InfraWorld.requests`, indexed by request id). Free records are
/// chained through `freeNext`. Fields are ordered by size, widest first: 120 bytes a record
/// instead of 136 in the order they are written.
private struct RequestRecord {
    var key: UInt64 = 0
    var entity: UInt64 = 0
    var rttTicks: Int64 = 0
    var downlinkBps: Double = 0
    var startTicks: Int64 = 0
    var firstByteTicks: Int64 = 0
    var endTicks: Int64 = 0
    var deviceDoneTicks: Int64 = 0
    var bytes: Int64 = 0
    var object: UInt32 = 0
    var region: UInt32 = 0
    var pop: UInt32 = 0
    var replyTarget: UInt32 = 0
    var replyTag: UInt32 = 0
    var freeNext: Int32 = -1
    var timeout: EventHandle?
    var replyKind: UInt16 = 0
    /// Pending kernel events that name this request (its timeout, its next hop).
    var refs: UInt16 = 0
    var networkClass: UInt8 = 0
    var outcome: UInt8 = 0
    var servedBy: UInt8 = 0
    var ect: UInt8 = 0
    var stall = false
    /// The response is streaming to the device (first byte reached, not yet complete).
    var transferring = false
    var replied = false
    var released = false
    /// On the free list.
    var isFree = false
}
