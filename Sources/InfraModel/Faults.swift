/// A scheduled fault of the infrastructure (`infra.faults[]`): a window of virtual time in which
/// one part fails. Outside every window the world is as without faults.
package struct InfraFault: Sendable, Equatable {
    package enum Kind: String, Sendable, CaseIterable {
        /// The origin answers every request with an error (the tier above serves a copy within
        /// its `stale-if-error` allowance, else passes the error on, as for a 503).
        case originOutage
        /// One PoP is down: requests of its regions go to the next PoP up (by index, wrapping),
        /// whose cache holds what it holds (cold for objects only the failed PoP served); warm
        /// requests for the failed PoP are lost. Its cache is kept for when it is back (a network
        /// outage, not a restart: judgement).
        case popOutage
        /// One region's access networks degrade: every request's downlink is multiplied by
        /// `throughputFactor` and fails with at least `failureProbability` more.
        case networkDegradation
    }

    package var kind: Kind = .originOutage
    /// When the fault starts, seconds of virtual time (≥ 0).
    package var startSeconds: Double = 0
    /// How long it lasts (> 0).
    package var durationSeconds: Double = 60
    /// `popOutage`: the PoP's index.
    package var pop: Int = 0
    /// `networkDegradation`: the region's index.
    package var region: Int = 0
    /// `networkDegradation`: the downlink's factor (0 < f ≤ 1).
    package var throughputFactor: Double = 1
    /// `networkDegradation`: a request's added failure probability, combined with the class's own
    /// (p + q − p q).
    package var failureProbability: Double = 0

    package init(kind: Kind = .originOutage, startSeconds: Double = 0, durationSeconds: Double = 60, pop: Int = 0, region: Int = 0,
                 throughputFactor: Double = 1, failureProbability: Double = 0) {
        self.kind = kind
        self.startSeconds = startSeconds
        self.durationSeconds = durationSeconds
        self.pop = pop
        self.region = region
        self.throughputFactor = throughputFactor
        self.failureProbability = failureProbability
    }

    /// The window in ticks, [start, end).
    var windowTicks: Range<Int64> { Self.windowTicks(startSeconds: startSeconds, durationSeconds: durationSeconds) }

    /// A fault window of `durationSeconds` from `startSeconds`, in ticks, [start, end), at least
    /// one tick long (infrastructure faults and provider outages alike).
    package static func windowTicks(startSeconds: Double, durationSeconds: Double) -> Range<Int64> {
        let start = Int64((startSeconds * 1e6).rounded())
        return start..<(start + max(1, Int64((durationSeconds * 1e6).rounded())))
    }

    /// The most faults a scenario may schedule.
    package static let faultsMax = 64
}

/// The faults of a run, indexed for the checks on the request path: each check is one flag test
/// when the run has none of its kind, and a scan of at most `faultsMax` windows otherwise.
struct FaultSchedule: Sendable {
    let originWindows: [Range<Int64>]
    /// (pop, window) of every PoP outage.
    let popWindows: [(pop: Int, window: Range<Int64>)]
    /// (region, window, factor, added failure probability) of every degradation.
    let degradations: [(region: Int, window: Range<Int64>, factor: Double, failure: Double)]
    let hasOrigin: Bool
    let hasPop: Bool
    let hasDegradation: Bool
    /// Whether the run has any fault (the request path tests this first).
    let any: Bool

    init(_ faults: [InfraFault]) {
        originWindows = faults.filter { $0.kind == .originOutage }.map(\.windowTicks)
        popWindows = faults.filter { $0.kind == .popOutage }.map { ($0.pop, $0.windowTicks) }
        degradations = faults.filter { $0.kind == .networkDegradation }.map { ($0.region, $0.windowTicks, $0.throughputFactor, $0.failureProbability) }
        hasOrigin = !originWindows.isEmpty
        hasPop = !popWindows.isEmpty
        hasDegradation = !degradations.isEmpty
        any = hasOrigin || hasPop || hasDegradation
    }

    /// Whether the origin is down at `now`.
    func originDown(at now: Int64) -> Bool { hasOrigin && originWindows.contains { $0.contains(now) } }

    /// Whether PoP `pop` is down at `now`.
    func popDown(_ pop: Int, at now: Int64) -> Bool { hasPop && popWindows.contains { $0.pop == pop && $0.window.contains(now) } }

    /// The PoP answering a request for `pop` at `now`: `pop`, or the next one up that is not down
    /// (nil: every PoP is down).
    func servingPop(_ pop: Int, popCount: Int, at now: Int64) -> Int? {
        guard popDown(pop, at: now) else { return pop }
        for k in 1..<max(1, popCount) where !popDown((pop + k) % popCount, at: now) { return (pop + k) % popCount }
        return nil
    }

    /// The downlink factor and added failure probability of `region` at `now` ((1, 0) outside
    /// every degradation; overlapping ones compound).
    func degradation(region: Int, at now: Int64) -> (factor: Double, failure: Double) {
        var factor = 1.0, keep = 1.0
        for d in degradations where d.region == region && d.window.contains(now) {
            factor *= d.factor
            keep *= 1 - d.failure
        }
        return (factor, 1 - keep)
    }
}

/// What the faults did, counted where they acted.
package struct FaultCounters: Sendable, Equatable {
    /// Upstream fetches the origin answered with an error because it was down.
    package var originOutageErrors: UInt64 = 0
    /// Device requests sent to another PoP because theirs was down.
    package var popFailovers: UInt64 = 0
    /// Device requests that found every PoP down (failed at once).
    package var popsAllDown: UInt64 = 0
    /// Warm requests lost because their PoP was down.
    package var warmsLost: UInt64 = 0
    /// Device requests issued inside a degradation of their region.
    package var degradedRequests: UInt64 = 0
    package init() {}
}
