/// The analytics endpoint's FIFO queue, replayed over the receipts' per-second arrivals once the
/// replication ends (no event per receipt; the arrivals are already counted per second).
///
/// The model, per second s of the horizon, with c = `capacityPerSecond` and q the receipts still
/// waiting from earlier seconds: the endpoint serves up to c of the q + a(s) receipts present
/// (the waiting ones first); of what is left, at most `queueMax` wait on and the rest, the
/// latest arrivals, are rejected (tail drop). The k-th receipt of second s (k = 0, 1, …) that is
/// admitted has q + k receipts ahead of it and waits the whole seconds until the endpoint has
/// served q + k + 1 from that second on: ⌊(q + k) / c⌋ for a whole c, 0 when it is served within
/// its own second. A fractional capacity carries its remainder: second s serves
/// ⌊c (s + 1)⌋ − ⌊c s⌋ at most.
package struct AnalyticsQueue: Sendable, Equatable {
    /// Receipts that arrived inside the horizon.
    package private(set) var arrived: UInt64 = 0
    /// Receipts served by the horizon.
    package private(set) var served: UInt64 = 0
    /// Receipts rejected because the queue was full.
    package private(set) var rejected: UInt64 = 0
    /// Admitted receipts not served within the second they arrived in.
    package private(set) var delayed: UInt64 = 0
    /// The most receipts waiting at the end of a second.
    package private(set) var queueLengthMax: UInt64 = 0
    /// Receipts still waiting at the horizon (admitted, not served).
    package private(set) var queuedAtHorizon: UInt64 = 0
    /// Admitted receipts by whole seconds waited (index w: waited w seconds; the last bin holds
    /// `waitBinsMax` − 1 seconds and more).
    package private(set) var waitCounts: [UInt64] = []

    /// The wait histogram's size: waits of an hour and more share its last bin.
    package static let waitBinsMax = 3_600

    /// Replays `arrivals` (receipts per second from t = 0) through the endpoint `config`.
    package init(arrivals: some Collection<UInt64>, config: AnalyticsConfig) {
        let c = config.capacityPerSecond
        precondition(c > 0 && c.isFinite, "analytics.capacityPerSecond is checked > 0 when the scenario is read")
        let queueMax = UInt64(max(0, config.queueMax))
        waitCounts = [UInt64](repeating: 0, count: Self.waitBinsMax)
        var queue: UInt64 = 0
        var second = 0
        for a in arrivals {
            arrived += a
            let capacity = UInt64((c * Double(second + 1)).rounded(.down) - (c * Double(second)).rounded(.down))
            let present = queue + a
            let servedNow = min(present, capacity)
            var left = present - servedNow
            var admitted = a
            if left > queueMax {
                let drop = left - queueMax
                rejected += drop
                admitted -= drop
                left = queueMax
            }
            if admitted > 0 { countWaits(ahead: queue, admitted: admitted, second: second, capacityPerSecond: c) }
            served += servedNow
            queue = left
            queueLengthMax = max(queueLengthMax, queue)
            second += 1
        }
        queuedAtHorizon = queue
    }

    /// Adds the waits of `admitted` receipts arriving in `second` with `ahead`, `ahead` + 1, …
    /// receipts ahead of them, a run of equal waits at a time. From the start of second s the
    /// endpoint has served ⌊c (t + 1)⌋ − ⌊c s⌋ by the end of second t, so position p (0: the
    /// first waiting) is served in the first t with that above p: t = ⌈(p + ⌊c s⌋ + 1) / c⌉ − 1,
    /// and waits t − s (⌊p / c⌋ for a whole c); positions up to ⌊c (t + 1)⌋ − ⌊c s⌋ − 1 share it.
    private mutating func countWaits(ahead: UInt64, admitted: UInt64, second s: Int, capacityPerSecond c: Double) {
        let last = Self.waitBinsMax - 1
        let served = (c * Double(s)).rounded(.down)
        var k: UInt64 = 0
        while k < admitted {
            let p = ahead + k
            let t = ((Double(p) + served + 1) / c).rounded(.up) - 1
            let w = max(0, t - Double(s))
            let bin = w >= Double(last) ? last : Int(w)
            var count = admitted - k
            if bin < last {
                let pNext = UInt64(max(0, (c * (Double(s) + w + 1)).rounded(.down) - served))
                count = min(count, max(1, pNext > p ? pNext - p : 1))
            }
            waitCounts[bin] += count
            if bin > 0 { delayed += count }
            k += count
        }
    }

    /// Admitted receipts (served or still waiting at the horizon).
    package var admitted: UInt64 { arrived - rejected }

    /// The `quantile` of the admitted receipts' waits in whole seconds (nearest rank; nil when none
    /// was admitted). A receipt still waiting at the horizon counts with the wait its place in
    /// the queue gives it.
    package func waitQuantileSeconds(_ quantile: Double) -> Double? {
        let total = waitCounts.reduce(0, +)
        guard total > 0 else { return nil }
        let rank = max(1, UInt64((quantile * Double(total)).rounded(.up)))
        var seen: UInt64 = 0
        for (w, n) in waitCounts.enumerated() {
            seen += n
            if seen >= rank { return Double(w) }
        }
        return Double(Self.waitBinsMax - 1)
    }
}
