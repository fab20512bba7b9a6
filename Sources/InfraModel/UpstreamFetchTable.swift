import SimKernel

/// The upstream fetches in flight (a PoP or shield filling its cache from its parent tier) and
/// who waits on each: a struct of arrays indexed by fetch id, the waiter chains, the index of
/// collapsible fetches in flight, and the pools that recycle fetch and waiter ids.
///
/// Invariants: every per-fetch array has `pool.slotCount` entries; a fetch id is in use from
/// ``allocate()`` until ``release(_:)`` (after its response was handled); `inFlight` maps
/// (node, object) to the one registered fetch of that key, and only while it is in use; a
/// fetch's waiters form a chain from `waiterHead` to `waiterTail` through `waiterNext` (-1 ends
/// it), each waiter in the waiter pool's use until ``takeWaiter(_:)``.
struct UpstreamFetchTable {
    /// Why a fetch was started (stored in `purpose`).
    enum Purpose: UInt8 { case miss, revalidate, warm }

    /// The node that fetches.
    var node: [Int32] = []
    /// The node it fetches from (-1: the origin).
    var parent: [Int32] = []
    var object: [UInt32] = []
    /// The cache key (object, and the signed token when it is part of the key).
    var key: [UInt64] = []
    /// The sampled round trip of the hop to `parent`.
    var hopTicks: [Int64] = []
    /// `Purpose` raw value.
    var purpose: [UInt8] = []
    /// The answer is a success (else a 503 from the origin queue).
    var ok: [Bool] = []
    /// When the origin generated the copy the answer carries.
    var originTicks: [Int64] = []
    /// `Tier` raw value of the answering tier.
    var servedBy: [UInt8] = []
    /// The fetch is in `inFlight` (collapsible).
    var registered: [Bool] = []
    /// First and last waiter (-1: none).
    var waiterHead: [Int32] = []
    var waiterTail: [Int32] = []
    /// Entity tags (conditional revalidation, Validators.swift): 1 + the version the node sent in `If-None-Match`, or 0.
    var condition: [UInt32] = []
    /// The version of the answer.
    var version: [UInt32] = []

    /// Waiters (a device request or a child fetch), chained through `waiterNext`.
    private(set) var waiterNext: [Int32] = []
    private(set) var waiterIsFetch: [Bool] = []
    private(set) var waiterID: [UInt32] = []
    private var waiterPool = GenerationalPool(slotsMax: .max)

    /// The registered fetch per (node << 32 | object).
    private var inFlight = KeyIndex()
    private var pool: GenerationalPool

    /// An empty table of at most `fetchesMax` fetches in flight.
    init(fetchesMax: Int) {
        pool = GenerationalPool(slotsMax: fetchesMax)
    }

    /// Fetches started and not yet answered.
    var inUse: Int { pool.inUse }

    /// A free fetch id (the last released first), its arrays grown when the table grows; nil at
    /// the limit. The caller sets every field.
    mutating func allocate() -> FetchID? {
        guard let h = pool.allocate() else { return nil }
        let f = Int(h.index)
        if f == node.count {
            node.append(0); parent.append(0); object.append(0); key.append(0); hopTicks.append(0)
            purpose.append(0); ok.append(false); originTicks.append(0); servedBy.append(0); registered.append(false)
            waiterHead.append(-1); waiterTail.append(-1)
            condition.append(0); version.append(0)
        }
        return FetchID(rawValue: h.index)
    }

    /// Gives fetch `f`'s id back (its waiters already taken).
    mutating func release(_ f: Int) {
        pool.release(UInt32(f))
    }

    /// The registered fetch of `flightKey` (node << 32 | object), or -1.
    @inline(__always)
    func inFlightFetch(_ flightKey: UInt64) -> Int32 { inFlight.find(flightKey) }

    /// Registers fetch `f` as the one in flight for `flightKey`.
    mutating func register(_ flightKey: UInt64, fetch f: Int) { inFlight.set(flightKey, Int32(f)) }

    /// Removes the registration of `flightKey`.
    mutating func unregister(_ flightKey: UInt64) { inFlight.remove(flightKey) }

    /// Appends waiter (`isFetch`, `id`) to fetch `f`'s chain.
    mutating func addWaiter(fetch f: Int, isFetch: Bool, id: UInt32) {
        guard let h = waiterPool.allocate() else { preconditionFailure("waiter table exceeds \(GenerationalPool.slotsLimit) slots") }
        let s = Int(h.index)
        if s == waiterNext.count {
            waiterNext.append(-1)
            waiterIsFetch.append(isFetch)
            waiterID.append(id)
        } else {
            waiterIsFetch[s] = isFetch
            waiterID[s] = id
            waiterNext[s] = -1
        }
        let w = Int32(s)
        if waiterTail[f] >= 0 { waiterNext[Int(waiterTail[f])] = w } else { waiterHead[f] = w }
        waiterTail[f] = w
    }

    /// Frees waiter `w` and returns what it was and the next waiter of its chain (-1: none).
    @inline(__always)
    mutating func takeWaiter(_ w: Int32) -> (isFetch: Bool, id: UInt32, next: Int32) {
        let i = Int(w)
        let taken = (waiterIsFetch[i], waiterID[i], waiterNext[i])
        waiterPool.release(UInt32(w))
        return taken
    }
}
