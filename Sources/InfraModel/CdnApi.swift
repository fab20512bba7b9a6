import Stochastic

// The state of a CDN's purge and warm APIs during a run: token buckets, the purges in progress,
// counters and random streams (`CdnApiConfig`).

/// A token bucket in virtual time: `capacity` tokens, refilled at `perTick`, full at the start.
/// Calls are served in the order made: an instant before the last one served counts as that one.
struct CdnTokenBucket: Sendable {
    let capacity: Double
    let perTick: Double
    private(set) var tokens: Double
    private(set) var atTicks: Int64 = 0

    init(ratePerSecond: Double, capacity: Double) {
        self.capacity = capacity
        perTick = ratePerSecond / 1e6
        tokens = capacity
    }

    private func level(at t: Int64) -> Double { min(capacity, tokens + Double(t - atTicks) * perTick) }

    /// The earliest instant ≥ `t` holding `cost` tokens (`cost` ≤ `capacity`).
    func earliest(_ cost: Double, from t: Int64) -> Int64 {
        let t0 = max(t, atTicks)
        let have = level(at: t0)
        if have >= cost { return t0 }
        return min(cdnNeverTicks, t0 + cdnWaitTicks((cost - have) / perTick))
    }

    /// Take `cost` tokens at `t` (an instant `earliest` gave).
    mutating func take(_ cost: Double, at t: Int64) {
        let t0 = max(t, atTicks)
        tokens = level(at: t0) - cost
        atTicks = t0
    }
}

/// A wait of `ticks` (≥ 0) rounded up, held below 2⁶⁰ ticks (36 000 years: past any horizon) so
/// that a rate as small as the reader accepts cannot overflow the clock.
func cdnWaitTicks(_ ticks: Double) -> Int64 {
    ticks < 1.15e18 ? Int64(ticks.rounded(.up)) : 1 << 60
}

/// The latest instant a bucket or average gives (2⁶¹ ticks): waits added to it stay far from
/// overflowing.
let cdnNeverTicks: Int64 = 1 << 61

/// The purge item limit (`CdnItemPacing`): a token bucket, or a moving average of the items
/// since the call began. Calls overlapping in time share the average: a call made before the
/// items already counted have spent their budget (`windowStart` + items / rate) adds to them,
/// one made after starts a new average at its own instant (the account's one limit: judgement).
struct CdnItemLimit: Sendable {
    private(set) var bucket: CdnTokenBucket
    let isMovingAverage: Bool
    let ratePerSecond: Double
    /// Moving average: where the current average began, and the items counted since.
    private(set) var windowStartTicks: Int64 = 0
    private(set) var windowItems: Double = 0

    init(_ config: CdnApiConfig) {
        bucket = CdnTokenBucket(ratePerSecond: config.purgeItemsPerSecond,
                                capacity: Double(max(config.purgeItemsBurst, config.purgeItemsPerRequest)))
        isMovingAverage = config.purgeItemsPacing == .movingAverage
        ratePerSecond = config.purgeItemsPerSecond
    }

    /// Ticks `items` take at the rate (items × 10⁶ / rate, up: exact for whole rates).
    private func ticks(_ items: Double) -> Int64 { cdnWaitTicks(items * 1e6 / ratePerSecond) }

    /// A purge call begins at `t`: with a moving average, a new average unless the items
    /// already counted are still within their budget.
    mutating func beginCall(at t: Int64) {
        guard isMovingAverage, windowStartTicks + ticks(windowItems) <= t else { return }
        windowStartTicks = t
        windowItems = 0
    }

    /// The earliest instant ≥ `t` at which a request of `cost` items is within the limit.
    func earliest(_ cost: Double, from t: Int64) -> Int64 {
        isMovingAverage ? min(cdnNeverTicks, max(t, windowStartTicks + ticks(windowItems + cost))) : bucket.earliest(cost, from: t)
    }

    /// A request of `cost` items accepted at `t` (an instant `earliest` gave).
    mutating func take(_ cost: Double, at t: Int64) {
        if isMovingAverage { windowItems += cost } else { bucket.take(cost, at: t) }
    }
}

/// What the CDN APIs did in a run.
package struct CdnApiCounters: Sendable, Equatable {
    /// Purge calls (a creative swap makes one, for its campaign's key).
    package var purgeCalls = 0
    /// Purge API requests sent, retries included.
    package var purgeRequests = 0
    /// Items (URLs or keys) the purge calls named.
    package var purgeItems = 0
    /// The longest purge call → last cache's effect, ticks.
    package var purgeCompleteTicksMax: Int64 = 0
    /// Warm calls.
    package var warmCalls = 0
    /// URLs (objects) the warm calls named, once per call whatever the caches targeted.
    package var warmItems = 0
    /// Warm API requests (retries included), or warm lookups sent when the CDN has no warm API.
    package var warmRequests = 0
    /// The longest warm call → last warm request reaching its cache, ticks.
    package var warmCompleteTicksMax: Int64 = 0
    /// API requests that failed (each retried or, after the last attempt, abandoned).
    package var failures = 0
    /// API requests that were retries of a failed one.
    package var retries = 0
    /// Batches abandoned after `attemptsMax` failed attempts (their caches are not purged or warmed).
    package var batchesAbandoned = 0

    /// No call yet.
    package init() {}
}

/// The run's API state: one account's buckets, shared by every campaign.
struct CdnApiState {
    let config: CdnApiConfig
    var purgeRequestBucket: CdnTokenBucket
    var purgeItemLimit: CdnItemLimit
    /// Request slots of the warm API, or of the campaign service's warm lookups.
    var warmBucket: CdnTokenBucket
    /// Purge batches in progress, in order of end (from `inProgressHead`), and their items, for
    /// `purgeItemsInProgressMax`.
    var inProgress: [(endTicks: Int64, items: Int)] = []
    var inProgressHead = 0
    var inProgressItems = 0
    /// Objects tagged with each surrogate key.
    let keyObjectCount: [Int]
    /// Per node: the latest instant a purge call's batches take effect there (scratch).
    var nodeEffectTicks: [Int64]
    /// Per node: the current batch's effect there (scratch).
    var batchNodeTicks: [Int64]
    let purgeDelaySampler: Sampler
    let warmDelaySampler: Sampler
    let propagationRng: RandomStream
    let failureRng: RandomStream
    var counters = CdnApiCounters()
    /// The last purge call: ticks to its last cache's effect, and to its last batch's acceptance.
    var lastPurge: (completeTicks: Int64, lastBatchTicks: Int64)?
    /// The last warm call: ticks to its last warm request reaching its cache.
    var lastWarmTicks: Int64?

    init(_ config: CdnApiConfig, catalog: ObjectCatalog, nodeCount: Int, masterSeed: UInt64) throws {
        self.config = config
        purgeRequestBucket = CdnTokenBucket(ratePerSecond: config.purgeRequestsPerSecond, capacity: Double(config.purgeRequestBurst))
        purgeItemLimit = CdnItemLimit(config)
        warmBucket = CdnTokenBucket(ratePerSecond: config.warmRequestsPerSecond, capacity: 1)
        var counts = [Int](repeating: 0, count: catalog.surrogateKeyCount)
        // Cache entries per key: a range is no entry of its own (its object's is).
        for o in catalog.surrogateKey.indices where Int(catalog.surrogateKey[o]) < counts.count && Int(catalog.cacheObject[o]) == o {
            counts[Int(catalog.surrogateKey[o])] += 1
        }
        keyObjectCount = counts
        nodeEffectTicks = [Int64](repeating: 0, count: nodeCount)
        batchNodeTicks = [Int64](repeating: 0, count: nodeCount)
        purgeDelaySampler = try makeSampler(config.purgePropagationSeconds, "cdnApi.purgePropagationSeconds")
        warmDelaySampler = try makeSampler(config.warmPropagationSeconds, "cdnApi.warmPropagationSeconds")
        propagationRng = RandomStream(masterSeed: masterSeed, entity: 0, purpose: StreamPurpose("infra.cdnApi.propagation"))
        failureRng = RandomStream(masterSeed: masterSeed, entity: 0, purpose: StreamPurpose("infra.cdnApi.failures"))
    }

    /// Items a purge of `key` names.
    func purgeItems(key: Int) -> Int { config.purgeBy == .url ? max(1, keyObjectCount[key]) : 1 }

    /// The earliest instant ≥ `t` at which `items` more may be in progress. Batches are
    /// accepted in time order, so the batches ended by then are dropped for good.
    /// - Complexity: amortised O(1) per ended batch.
    mutating func inProgressEarliest(_ items: Int, from t: Int64) -> Int64 {
        let limit = config.purgeItemsInProgressMax
        guard limit > 0 else { return t }
        var at = t
        while inProgressHead < inProgress.count && (inProgress[inProgressHead].endTicks <= at || inProgressItems + items > limit) {
            let e = inProgress[inProgressHead]
            at = max(at, e.endTicks)
            inProgressItems -= e.items
            inProgressHead += 1
        }
        if inProgressHead > 64 && inProgressHead * 2 > inProgress.count {
            inProgress.removeFirst(inProgressHead)
            inProgressHead = 0
        }
        return at
    }

    /// A batch of `items` in progress until `endTicks` (kept in order of end).
    mutating func noteInProgress(endTicks: Int64, items: Int) {
        var lo = inProgressHead, hi = inProgress.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if inProgress[mid].endTicks <= endTicks { lo = mid + 1 } else { hi = mid }
        }
        inProgress.insert((endTicks, items), at: lo)
        inProgressItems += items
    }

    /// Sends one purge batch of `items` no earlier than `t`, retrying failures with exponential
    /// backoff and jitter; the instant the API accepted it, or nil when every attempt failed.
    /// One sender: a failed request is retried before the next batch is sent (judgement).
    mutating func sendPurgeBatch(items: Int, from t: Int64) -> Int64? { sendBatch(.purge(items: items), from: t) }

    /// Sends one warm API batch no earlier than `t` (same retries); nil when abandoned.
    mutating func sendWarmBatch(from t: Int64) -> Int64? { sendBatch(.warm, from: t) }

    /// An API call: a purge batch of `items`, or a warm batch.
    enum Batch { case purge(items: Int), warm }

    /// Sends `batch` no earlier than `t`, each attempt in the API's next slot, a failed one retried
    /// after `backoffTicks`; the instant the API accepted it, or nil when every attempt failed.
    private mutating func sendBatch(_ batch: Batch, from t: Int64) -> Int64? {
        var ready = t
        for attempt in 1...config.attemptsMax {
            let at = reserve(batch, from: ready)
            if attempt > 1 { counters.retries += 1 }
            guard failed() else { return at }
            ready = at + backoffTicks(attempt)
        }
        counters.batchesAbandoned += 1
        return nil
    }

    /// Takes `batch`'s request (and, for a purge, its items) from the buckets (or the moving average) at the earliest
    /// instant at or after `ready` they allow, counting the request; that instant.
    private mutating func reserve(_ batch: Batch, from ready: Int64) -> Int64 {
        switch batch {
        case .purge(let items):
            let cost = Double(min(items, config.purgeItemsPerRequest))
            let at = max(purgeRequestBucket.earliest(1, from: ready), purgeItemLimit.earliest(cost, from: ready),
                         inProgressEarliest(items, from: ready))
            purgeRequestBucket.take(1, at: at)
            purgeItemLimit.take(cost, at: at)
            counters.purgeRequests += 1
            return at
        case .warm:
            let at = warmBucket.earliest(1, from: ready)
            warmBucket.take(1, at: at)
            counters.warmRequests += 1
            return at
        }
    }

    /// The next warm lookup's slot at or after `t` (no warm API: the campaign service's pace).
    mutating func warmLookupSlot(from t: Int64) -> Int64 {
        let at = warmBucket.earliest(1, from: t)
        warmBucket.take(1, at: at)
        counters.warmRequests += 1
        return at
    }

    /// Whether this attempt fails (no draw when failures are off).
    private mutating func failed() -> Bool {
        guard config.failureProbability > 0, failureRng.uniform() < config.failureProbability else { return false }
        counters.failures += 1
        return true
    }

    /// The wait before retry `attempt`: base × 2^(attempt−1) × U[0.5, 1).
    private func backoffTicks(_ attempt: Int) -> Int64 {
        let factor = 0.5 + 0.5 * failureRng.uniform()
        return sampledTicks(config.retryBaseSeconds * Double(1 << min(attempt - 1, 30)) * factor)
    }

    /// Drops the batches whose purge has ended by `t`.
    mutating func pruneInProgress(at t: Int64) {
        _ = inProgressEarliest(0, from: t)
    }
}
