import PreloadKit
import SimStats

/// The app's analytics endpoint, as far as delivery receipts load it: each receipt PreloadKit
/// schedules (`Action.scheduleReceipt`) arrives at its `sendAt` and is counted in that second.
/// No event is scheduled: the arrival second is known when the receipt is scheduled. Receipts
/// due at or after the horizon are counted as such (`PerSecondCounter.beyondHorizonCount`), not
/// dropped. The flight time of the request (a few hundred milliseconds) is not modelled: it
/// moves an arrival by at most one bin and does not change how a send's receipts spread.
///
/// Only built when the scenario's policy enables receipts; costs nothing per device (one
/// `UInt64` per second of the horizon, once).
struct AnalyticsEndpoint {
    /// Receipts arriving per second of virtual time.
    var arrivals: PerSecondCounter
    /// Receipts scheduled (every one, inside the horizon or not).
    var receipts: UInt64 = 0
    /// The endpoint's capacity and queue (`analytics`); nil: an unlimited counter.
    var capacity: AnalyticsConfig?

    init(horizonSeconds: Int) throws(StatisticsError) {
        arrivals = try PerSecondCounter(horizonSeconds: horizonSeconds)
    }

    /// A session scheduled `receipt`.
    mutating func receive(_ receipt: Receipt) {
        receipts += 1
        arrivals.add(atMicroseconds: receipt.sendAt.microseconds)
    }

    /// The capacity's queue replayed over the arrivals (nil without `analytics`).
    var queue: AnalyticsQueue? {
        capacity.map { AnalyticsQueue(arrivals: (0..<arrivals.horizonSeconds).lazy.map { arrivals[$0] }, config: $0) }
    }

    /// The largest one-second arrival count inside the horizon (0 without receipts).
    var peakRequestsPerSecond: UInt64 { arrivals.peak?.count ?? 0 }

    /// The `quantile` of the per-second arrival counts over the seconds from the first to the
    /// last second with a receipt (nearest rank; nil without receipts inside the horizon). The
    /// span, not the horizon: the idle hours before and after a send would make every high
    /// quantile of a long horizon 0.
    func perSecondQuantile(_ quantile: Double) -> UInt64? {
        var first = -1, last = -1
        for s in 0..<arrivals.horizonSeconds where arrivals[s] > 0 {
            if first < 0 { first = s }
            last = s
        }
        guard first >= 0 else { return nil }
        var counts = (first...last).map { arrivals[$0] }
        counts.sort()
        let rank = max(1, Int((quantile * Double(counts.count)).rounded(.up)))
        return counts[min(rank, counts.count) - 1]
    }
}
