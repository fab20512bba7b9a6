import SimKernel
import Stochastic

/// The infrastructure world: mobile access networks (per-region shared bottlenecks), CDN PoPs
/// with LRU caches, regional shields, and the origin pool. It serves ``FetchRequest``s and
/// reports each one's timing and outcome.
///
/// ## Completion protocol
/// 1. The requester calls ``fetch(_:kernel:)`` and gets a ``RequestID``.
/// 2. At completion time the world schedules `Event(kind: replyKind, target: replyTarget,
///    payload: replyTag << 32 | requestID)`. Exactly one reply per request, never before the
///    request's start.
/// 3. In that event's handler the requester reads ``result(_:)`` and then calls
///    ``release(_:)``; the id may be reused afterwards. (Unreleased results stay allocated and
///    count toward `requestsInFlightMax`.)
///
/// ## Node ids
/// PoP `p` is node `p`; shield `s` is node `popCount + s` (``NodeID``).
///
/// ## Timeline of a request
/// Set-up (DNS + TCP + TLS round trips × RTT, skipped on a warm connection; a network failure
/// replies here) → ½ RTT to the PoP → lookup (a miss waits for the upstream fetch, each tier
/// hop costing its sampled round trip, plus origin queueing and service) → edge processing →
/// ½ RTT → transfer. RTT = class RTT + region path RTT. The transfer runs on the region's
/// shared bottleneck for the class (processor sharing) and is capped by the device's own
/// downlink: it ends at max(PS completion, transfer start + bits/downlink). That cap is an
/// approximation — a capped flow still holds its full PS share — exact when either limit
/// dominates throughout. Segment loss (``LossRecovery``) adds lost segments × RTO to the device's
/// own time (bits/downlink + losses × RTO), drawn as one binomial variate per response from a
/// stream of its own; on a shared link the PS completion still bounds the end from below. A
/// stalled transfer never ends and the timeout replies. A 503 costs
/// edge processing + ½ RTT and carries no bytes.
///
/// ## Structure
/// The world routes its events (``InfraEvent``) and runs the flows that cross its parts; each
/// part owns its state and keeps its own invariants:
/// - ``DeviceRequestTable`` (`requests`): the device requests in flight and their ids;
/// - ``UpstreamFetchTable`` (`fetches`): the upstream fetches in flight, their waiters, the
///   index of collapsible fetches and the entity tags each fetch sent and received;
/// - ``NodeCaches`` (`nodes`): every node's cache and counters, the purge tables and the
///   origin's object versions, and the counted lookups;
/// - ``OriginPool`` (`origin`): the origin's workers, queue and counters;
/// - ``BackgroundStreams`` (`background`): the explicit background request streams;
/// - ``SharedLinks`` (`links`): the regions' shared bottlenecks.
/// The world itself keeps the fixed wiring (regions, network classes' samplers, each node's
/// parent and hop samplers) and the random streams of the flows it runs.
///
/// ## Cost
/// A device request costs about five kernel events (arrival at the PoP, response, transfer or
/// link completion, reply; plus its cancellable timeout), O(log n) each; a miss adds two or
/// three per tier. Request, fetch and waiter ids are recycled by a `GenerationalPool` each, so a
/// warm world allocates nothing per request. Measured: ~50 000 requests/s in a debug build on
/// the 280-PoP default world.
///
/// `InfraWorld` holds its random streams and samplers by reference: do not use two copies of
/// one world.
///
/// ## Randomness
/// Device-side variates come from streams keyed by (seed, request entity, purpose). Upstream
/// hop latencies, warm/purge propagation delays, origin service times and background streams
/// come from one sequential stream each, keyed by (seed, 0, purpose).
package struct InfraWorld: EventHandler {
    package let config: InfraConfig
    package let catalog: ObjectCatalog
    package let masterSeed: UInt64
    package let popCount: Int
    package let shieldCount: Int
    package var nodeCount: Int { popCount + shieldCount }

    // Regions
    let regionPop: [UInt32]
    let regionPathRttSeconds: [Double]
    /// Link id of (region, class), or -1 when the class is not shared.
    let linkOfRegionClass: [Int32]
    var links: SharedLinks

    // Networks (indexed by class)
    let rttSamplers: [Sampler]
    let downlinkSamplers: [Sampler]
    let failureProbability: [Double]
    let stallProbability: [Double]
    let segmentLossProbability: [Double]
    let setupRoundTrips: Int

    // Tier wiring (indexed by node)
    let parentNode: [Int32]
    let upstreamSamplerIndex: [Int32]
    let processingSamplerIndex: [Int32]
    let samplers: [Sampler]
    package let popsByAudience: [UInt32]

    // The parts (see "Structure")
    var nodes: NodeCaches
    var fetches: UpstreamFetchTable
    var requests: DeviceRequestTable
    var origin: OriginPool
    var background: BackgroundStreams

    // Streams
    let deviceRng: RandomStream
    let upstreamRng: RandomStream
    let propagationRng: RandomStream
    let purposeNetwork: UInt64
    let purposeLoss: UInt64
    let purgeDelaySampler: Sampler
    let warmDelaySampler: Sampler

    // Faults
    let faults: FaultSchedule
    /// What the scheduled faults did.
    package internal(set) var faultCounters = FaultCounters()

    /// The CDN APIs' buckets and counters (nil without `config.cdnApi`).
    var cdnApi: CdnApiState?

    package internal(set) var timeSeries: TimeSeries
    /// Upstream bytes per object, purpose and tier (`UpstreamBytes`, for cost attribution).
    package internal(set) var upstreamBytes: UpstreamBytes

    /// Build the world from a configuration whose ranges were checked where it was read (the
    /// scenario format). Errors name the field path.
    /// - Throws: ``InfraConfigError`` for a distribution GSL cannot sample.
    package init(config: InfraConfig, catalog: ObjectCatalog, masterSeed: UInt64) throws {
        self.config = config
        self.catalog = catalog
        self.masterSeed = masterSeed
        let topo = config.topology
        popCount = topo.popCount
        shieldCount = topo.shieldCount
        let regions = topo.effectiveRegions
        regionPop = regions.map { UInt32($0.popIndex) }
        regionPathRttSeconds = regions.map(\.pathRttSeconds)
        (links, linkOfRegionClass) = InfraWorld.sharedLinks(config: config, regions: regions)

        rttSamplers = try NetworkClass.allCases.map { try makeSampler(config.networks[$0].rttSeconds, "networks.\($0).rttSeconds") }
        downlinkSamplers = try NetworkClass.allCases.map {
            try makeSampler(config.networks[$0].downlinkBitsPerSecond, "networks.\($0).downlinkBitsPerSecond")
        }
        failureProbability = NetworkClass.allCases.map { config.networks[$0].failureProbability }
        stallProbability = NetworkClass.allCases.map { config.networks[$0].stallProbability }
        segmentLossProbability = NetworkClass.allCases.map { config.networks[$0].segmentLossProbability }
        setupRoundTrips = config.connectionSetup.totalRoundTrips

        let wiring = try InfraWorld.tierWiring(config: config)
        samplers = wiring.samplers
        parentNode = wiring.parentNode
        upstreamSamplerIndex = wiring.upstreamSamplerIndex
        processingSamplerIndex = wiring.processingSamplerIndex
        let (caches, backgroundRate, backgroundSamplerIndex, backgroundBytes, backgroundSamplers) =
            try InfraWorld.cachesAndBackground(config: config, edgeCapacityBytes: wiring.edgeCapacityBytes)
        nodes = NodeCaches(catalog: catalog, caches: caches)
        popsByAudience = InfraWorld.popsByAudience(popCount: popCount, regions: regions)

        deviceRng = RandomStream(seed: 1)
        upstreamRng = RandomStream(masterSeed: masterSeed, entity: 0, purpose: StreamPurpose("infra.upstream"))
        propagationRng = RandomStream(masterSeed: masterSeed, entity: 0, purpose: StreamPurpose("infra.propagation"))
        background = BackgroundStreams(ratePerSecond: backgroundRate, samplerIndex: backgroundSamplerIndex,
                                       bytes: backgroundBytes, samplers: backgroundSamplers,
                                       rng: RandomStream(masterSeed: masterSeed, entity: 0, purpose: StreamPurpose("infra.background")),
                                       horizonTicks: Int64(config.metricsHorizonSeconds) * 1_000_000)
        purposeNetwork = StreamPurpose("infra.network").rawValue
        purposeLoss = StreamPurpose("infra.loss").rawValue
        purgeDelaySampler = try makeSampler(config.purgePropagationSeconds, "purgePropagationSeconds")
        warmDelaySampler = try makeSampler(config.warmPropagationSeconds, "warmPropagationSeconds")
        origin = OriginPool(workers: config.origin.workers, queueMax: config.origin.queueMax,
                            serviceSampler: try makeSampler(config.origin.serviceSeconds, "origin.serviceSeconds"),
                            rng: RandomStream(masterSeed: masterSeed, entity: 0, purpose: StreamPurpose("infra.origin.service")))
        requests = DeviceRequestTable(requestsMax: config.requestsInFlightMax)
        faults = FaultSchedule(config.faults)
        fetches = UpstreamFetchTable(fetchesMax: config.fetchesInFlightMax)
        timeSeries = TimeSeries(horizonSeconds: config.metricsHorizonSeconds, popCount: topo.popCount, regionCount: regions.count)
        upstreamBytes = UpstreamBytes(objectCount: catalog.count)
        cdnApi = try config.cdnApi.map {
            try CdnApiState($0, catalog: catalog, nodeCount: topo.popCount + topo.shieldCount, masterSeed: masterSeed)
        }
    }

    // MARK: - Queries

    /// Each node's cache (PoPs first, then shields).
    package var caches: [LRUCache] { nodes.caches }

    /// Each node's counters (PoPs first, then shields).
    package var counters: [NodeCounters] { nodes.counters }

    /// The origin's counters.
    package var originCounters: OriginCounters { origin.counters }

    /// Device requests issued and not yet released.
    package var requestsInFlight: Int { requests.inFlight }

    /// Upstream fetches started and not yet answered.
    package var fetchesInFlight: Int { fetches.inUse }

    /// Counters summed over the PoPs (edge tier) or the shields.
    package func tierCounters(_ tier: Tier) -> NodeCounters {
        var t = NodeCounters()
        switch tier {
        case .edge: for n in 0..<popCount { t.add(nodes.counters[n]) }
        case .shield: for n in popCount..<nodeCount { t.add(nodes.counters[n]) }
        case .origin: break
        }
        return t
    }
    /// Number of regions (valid `FetchRequest.regionID`s are `0..<regionCount`).
    package var regionCount: Int { regionPop.count }

    /// The PoP serving `region`.
    package func pop(ofRegion region: RegionID) -> NodeID { NodeID(rawValue: regionPop[region.index]) }

    /// Active flows on the shared bottleneck of (`region`, `networkClass`), or nil when that
    /// class is not shared in the region.
    package func activeFlows(region: RegionID, networkClass: NetworkClass) -> Int? {
        let l = linkOfRegionClass[region.index * NetworkClass.count + Int(networkClass.rawValue)]
        return l < 0 ? nil : links.activeFlows(link: LinkID(rawValue: UInt32(l)))
    }

    /// Current origin queue length and busy workers.
    package var originQueueLength: Int { origin.queueLength }
    package var originBusyWorkers: Int { origin.busy }

    /// Whether node `node`'s cache holds `objectID` (tokenless key), ignoring freshness.
    package func cacheContains(node: NodeID, objectID: ObjectID) -> Bool { nodes.caches[node.index].contains(UInt64(objectID.rawValue)) }

    // MARK: - Dispatch

    /// Handle an event of this module (kind in ``InfraEventKind/range``): decoded once into an
    /// ``InfraEvent``, then dispatched.
    /// - Throws: ``InfraError/unknownEventKind(_:)`` for a kind outside this module's set,
    ///   ``InfraError/fetchesInFlightLimit(_:)``, or a `KernelError` from scheduling.
    /// - Complexity: O(log n) per event (kernel and link heaps), plus O(w) for a fetch
    ///   response with w waiters and O(k log n) for a link completion finishing k flows.
    package mutating func handle(_ event: Event, in kernel: inout Kernel) throws {
        guard let e = InfraEvent(event) else { throw InfraError.unknownEventKind(event.kind.rawValue) }
        try handle(e, in: &kernel)
    }

    /// Dispatch one decoded event.
    @inline(__always)
    mutating func handle(_ event: InfraEvent, in kernel: inout Kernel) throws {
        switch event {
        case .requestAtEdge(let r): try requestAtEdge(r.index, kernel: &kernel)
        case .responseAtDevice(let r): try responseAtDevice(r.index, kernel: &kernel)
        case .linkCompletion(let l): try linkCompletion(l, kernel: &kernel)
        case .transferDone(let r): try transferDone(r.index, kernel: &kernel)
        case .requestTimeout(let r): try requestTimeout(r.index, kernel: &kernel)
        case .fetchAtParent(let f): try fetchAtParent(f.index, kernel: &kernel)
        case .fetchResponse(let f): try fetchResponse(f.index, kernel: &kernel)
        case .originServiceDone(let f): try originServiceDone(f, kernel: &kernel)
        case .warmAtNode(let n, let o): try warmAtNode(n.index, object: o.rawValue, kernel: &kernel)
        case .backgroundRequest(let n): try backgroundRequest(n.index, kernel: &kernel)
        }
    }
}
