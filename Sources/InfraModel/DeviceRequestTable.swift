import SimKernel

/// The device requests in flight: one ``RequestRecord`` per request id, and the pool that
/// recycles the ids (a released id is the next one handed out, so a warm table allocates
/// nothing).
///
/// Invariants: `records.count == pool.slotCount`; an id is in the pool's use from
/// ``allocate()`` until ``freeIfDone(_:)`` finds it released by the requester, replied and
/// named by no pending event (`refs == 0`).
///
/// The records are an array of structs (unlike the per-object and per-node tables): a request's
/// fields are read and written together by the 4-5 events of its life, so they share two cache
/// lines instead of spanning 25 arrays.
struct DeviceRequestTable {
    private(set) var records: [RequestRecord] = []
    private(set) var pool: GenerationalPool

    /// An empty table of at most `requestsMax` requests in flight.
    init(requestsMax: Int) {
        pool = GenerationalPool(slotsMax: requestsMax)
    }

    /// Requests issued and not yet freed.
    var inFlight: Int { pool.inUse }

    /// Records ever created (the table's size).
    var count: Int { records.count }

    /// The record of request index `i`.
    subscript(i: Int) -> RequestRecord {
        @inline(__always) _read { yield records[i] }
        @inline(__always) _modify { yield &records[i] }
    }

    /// Whether request `id` holds its id (issued and not yet freed).
    func isInUse(_ id: RequestID) -> Bool { id.index < records.count && pool.isInUse(id.rawValue) }

    /// A free id (the last freed first), with a record appended when the table grows; nil at
    /// the limit.
    /// - Complexity: O(1); allocates only when the table grows.
    @inline(__always)
    mutating func allocate() -> RequestID? {
        guard let h = pool.allocate() else { return nil }
        if Int(h.index) == records.count { records.append(RequestRecord()) }
        return RequestID(rawValue: h.index)
    }

    /// Frees request index `i` once it is released, replied and named by no pending event.
    @inline(__always)
    mutating func freeIfDone(_ i: Int) {
        guard records[i].released && records[i].replied && records[i].refs == 0 else { return }
        records[i].released = false
        records[i].replied = false
        pool.release(UInt32(i))
    }

    /// The result of replied request `id` (valid from its reply until it is released).
    func result(_ id: RequestID) -> FetchResult {
        let i = id.index
        precondition(i < records.count && records[i].replied && !records[i].released, "request \(id) has no result to read")
        let r = records[i]
        return FetchResult(outcome: FetchOutcome(rawValue: r.outcome) ?? .miss,
                           servedBy: Tier(rawValue: r.servedBy) ?? .edge,
                           bytes: r.bytes, popIndex: r.pop,
                           startTime: SimTime(ticks: r.startTicks),
                           firstByteTime: SimTime(ticks: r.firstByteTicks),
                           endTime: SimTime(ticks: r.endTicks),
                           effectiveConnectionType: EffectiveConnectionType(rawValue: r.ect) ?? .fourG,
                           edgeLookup: EdgeLookup(rawValue: r.edge) ?? .notReached,
                           supersededCopy: r.superseded, version: r.version,
                           notModified: r.notModified)
    }
}

/// One device request's fields (``DeviceRequestTable``, indexed by request id). Fields are ordered by size, widest first: 136 bytes a record.
struct RequestRecord {
    var key: UInt64 = 0
    var entity: UInt64 = 0
    var rttTicks: Int64 = 0
    var downlinkBps: Double = 0
    var startTicks: Int64 = 0
    var firstByteTicks: Int64 = 0
    var endTicks: Int64 = 0
    var deviceDoneTicks: Int64 = 0
    /// The PoP's processing time for the response (drawn with the request's network variates).
    var processingTicks: Int64 = 0
    var bytes: Int64 = 0
    /// The object whose cache entry serves the request (`ObjectCatalog.cacheObject` of `asked`).
    var object: UInt32 = 0
    /// The object the device asked for: `object`, or a range of it (its `bytes` are the response's).
    var asked: UInt32 = 0
    var region: UInt32 = 0
    var pop: UInt32 = 0
    var replyTarget: UInt32 = 0
    var replyTag: UInt32 = 0
    /// `FetchRequest.ifNoneMatch` (1 + the version the device holds; 0: unconditional).
    var condition: UInt32 = 0
    /// The version of the copy the response carries (`FetchResult.version`).
    var version: UInt32 = 0
    var timeout: EventHandle?
    var replyKind: UInt16 = 0
    /// Pending kernel events that name this request (its timeout, its next hop).
    var refs: UInt16 = 0
    var networkClass: UInt8 = 0
    var outcome: UInt8 = 0
    var servedBy: UInt8 = 0
    var ect: UInt8 = 0
    /// `EdgeLookup` raw value: set when the request reaches the PoP.
    var edge: UInt8 = 0
    /// The response is a copy the latest purge of its surrogate key superseded.
    var superseded = false
    var stall = false
    /// The response is streaming to the device (first byte reached, not yet complete).
    var transferring = false
    var replied = false
    var released = false
    /// Answered 304 Not Modified (`answerCondition`).
    var notModified = false
    /// The device follows a 302 to the placeholder (``FetchRequest/followsRedirects``).
    var followsRedirects = true
}
