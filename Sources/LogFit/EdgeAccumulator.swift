/// Streams `EdgeRecord`s into bounded state: exact counts (overall, per PoP, per minute) and
/// reservoir samples of every duration and size for the fits.
package struct EdgeAccumulator: Sendable {
    /// Values kept per overall series.
    package static let reservoirCapacity = 50_000
    /// Values kept per PoP series.
    package static let popReservoirCapacity = 2_000
    /// Distinct PoPs tracked; later ones count under "other".
    package static let popsMax = 1_000
    /// Distinct minutes counted for the hit-ratio series.
    package static let minutesMax = 200_000

    package struct PopState: Sendable {
        package var requests = 0, hits = 0, misses = 0
        package var hitFirstByte: Reservoir
        package var missFirstByte: Reservoir
    }

    /// A request at or above this many seconds is censored there (nil: only timeout statuses).
    package let timeoutSeconds: Double?
    package private(set) var requests = 0, hits = 0, misses = 0, errors = 0, others = 0
    /// Durations logged as 0 (below the log's resolution), left out of the fits.
    package private(set) var zeroDurations = 0
    /// Requests that went upstream (misses and edge errors), and of them 503s / 5xx (the origin's status when logged, else the client's).
    package private(set) var originRequests = 0, origin503 = 0, origin5xx = 0
    package private(set) var hitFirstByte = Reservoir(capacity: reservoirCapacity, seed: 11)
    package private(set) var missFirstByte = Reservoir(capacity: reservoirCapacity, seed: 12)
    package private(set) var hitTransfer = Reservoir(capacity: reservoirCapacity, seed: 13)
    package private(set) var missTransfer = Reservoir(capacity: reservoirCapacity, seed: 14)
    package private(set) var total = Reservoir(capacity: reservoirCapacity, seed: 15)
    package private(set) var origin = Reservoir(capacity: reservoirCapacity, seed: 16)
    package private(set) var objectBytes = Reservoir(capacity: reservoirCapacity, seed: 17)
    package private(set) var pops: [String: PopState] = [:]
    /// Minute (floor(t / 60)) → (hits, misses).
    package private(set) var minutes: [Int: (hits: Int, misses: Int)] = [:]
    package private(set) var timeRange: ClosedRange<Double>?
    /// The campaign's send (nil: unknown); the counts below cover requests at or after it.
    package let sendSeconds: Double?
    /// From the send on: hits, misses, upstream requests (misses and edge errors) and their 503s.
    package private(set) var hitsFromSend = 0, missesFromSend = 0, originRequestsFromSend = 0, origin503FromSend = 0

    package init(timeoutSeconds: Double?, sendSeconds: Double? = nil) {
        self.timeoutSeconds = timeoutSeconds
        self.sendSeconds = sendSeconds
    }

    package mutating func add(_ r: EdgeRecord) {
        requests += 1
        timeRange = timeRange.map { min($0.lowerBound, r.timeSeconds)...max($0.upperBound, r.timeSeconds) } ?? r.timeSeconds...r.timeSeconds
        let timedOut = r.isTimeout
        func offer(_ reservoir: inout Reservoir, _ value: Double?) {
            if value == 0 { zeroDurations += 1 }
            guard let value, value.isFinite, value > 0 else { return }
            if let limit = timeoutSeconds, value >= limit { reservoir.add(limit, censored: true); return }
            reservoir.add(value, censored: timedOut)
        }
        let popKey = pops[r.pop] != nil || pops.count < Self.popsMax ? r.pop : "other"
        var pop = pops[popKey] ?? PopState(hitFirstByte: Reservoir(capacity: Self.popReservoirCapacity, seed: 21),
                                           missFirstByte: Reservoir(capacity: Self.popReservoirCapacity, seed: 22))
        pop.requests += 1
        let transfer = r.totalSeconds.flatMap { total in r.firstByteSeconds.map { total - $0 } }
        switch r.cache {
        case .hit:
            hits += 1
            pop.hits += 1
            offer(&hitFirstByte, r.firstByteSeconds)
            offer(&pop.hitFirstByte, r.firstByteSeconds)
            offer(&hitTransfer, transfer)
        case .miss:
            misses += 1
            pop.misses += 1
            offer(&missFirstByte, r.firstByteSeconds)
            offer(&pop.missFirstByte, r.firstByteSeconds)
            offer(&missTransfer, transfer)
        case .error: errors += 1
        case .other: others += 1
        }
        pops[popKey] = pop
        if r.cache == .hit || r.cache == .miss {
            offer(&total, r.totalSeconds)
            let minute = Int((r.timeSeconds / 60).rounded(.down))
            if let m = minutes[minute] {
                minutes[minute] = r.cache == .hit ? (m.hits + 1, m.misses) : (m.hits, m.misses + 1)
            } else if minutes.count < Self.minutesMax {
                minutes[minute] = r.cache == .hit ? (1, 0) : (0, 1)
            }
        }
        if let b = r.bytes, b > 0 { objectBytes.add(b) }
        let fromSend = sendSeconds.map { r.timeSeconds >= $0 } ?? false
        if fromSend {
            if r.cache == .hit { hitsFromSend += 1 } else if r.cache == .miss { missesFromSend += 1 }
        }
        if r.cache == .miss || r.cache == .error {
            originRequests += 1
            let s = r.originStatus ?? r.status ?? 0
            if s == 503 { origin503 += 1 }
            if fromSend {
                originRequestsFromSend += 1
                if s == 503 { origin503FromSend += 1 }
            }
            if s >= 500 { origin5xx += 1 }
            offer(&origin, r.originSeconds)
        }
    }
}
