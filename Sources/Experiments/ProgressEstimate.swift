import Foundation
import PushModel

/// Remaining-time estimate for a progress display, from the work done so far.
///
/// The rate is work done per wall second, smoothed exponentially in wall time with a time constant
/// of `smoothingSeconds` (a burst of slow events, or a forecast that wavers by a few per cent
/// between redraws 250 ms apart, does not swing it). It is the weighted mean of the samples since
/// work was first seen, normalised by their weights (no seed value: a start-up with no work shown,
/// building the population, is not a sample, and held the estimate twice the time left for the
/// first seconds of a 1 M-device release run when the first sample seeded the average). The shown remaining time counts down with the clock and
/// never goes up by a small amount ("runs backwards"); it is raised only when the fresh estimate
/// exceeds it by more than `raiseShare`, i.e. when the run really slowed down.
package struct ProgressEstimate: Sendable, Equatable {
    /// Time constant of the smoothed rate, wall seconds: a sample `dt` seconds long weighs
    /// `1 − exp(−dt / smoothingSeconds)`.
    static let smoothingSeconds = 4.0
    /// How far (as a share) a fresh estimate must exceed the shown one before the shown one goes up.
    /// Below the ETA's ±30 % target: a shown value held while the fresh one is up to 1.2 times it is
    /// at most 17 % low (at 0.5 it could be 33 % low, and was, in the taps after a flash sale's send).
    static let raiseShare = 0.2
    /// The least rate used, as a share of the run's average rate (the work done over the time so far):
    /// a real slowdown to a quarter (the last replications of a run on a quarter of its threads) is
    /// followed in full, a stall cannot make the estimate more than 4 times the average's.
    static let averageShareMin = 0.25
    /// Work done below which no estimate is given (too little to extrapolate).
    static let fractionMin = 0.01

    private var lastElapsedSeconds = 0.0
    private var lastFraction = 0.0
    /// Σ weight × sample and Σ weight, both decayed: the smoothed rate is their ratio.
    private var weightedRate = 0.0
    private var weights = 0.0
    private var shown: Double?

    /// The smoothed rate, work per second (nil before a sample).
    private var rate: Double? { weights > 0 ? weightedRate / weights : nil }

    /// A fresh estimate with no samples.
    package init() {}

    /// Starts over on a new measure of the work (the fraction given from now on is measured
    /// differently): the first rate is then the new fraction over the whole time so far, the rate
    /// learned on the old measure and the remaining time shown are forgotten.
    /// `fraction` is the new measure's share at `elapsedSeconds`.
    package mutating func restart(elapsedSeconds: Double, fraction: Double) {
        let f = min(max(fraction, 0), 1)
        shown = nil
        lastElapsedSeconds = elapsedSeconds
        lastFraction = f
        // One second's weight of the whole run's average pace on the new measure.
        weights = 1 - exp(-1 / Self.smoothingSeconds)
        weightedRate = weights * f / max(elapsedSeconds, 1e-9)
    }

    /// Records that `fraction` (0…1) of the work is done after `elapsedSeconds` of wall time and
    /// returns the remaining seconds to show; nil until enough work is done.
    package mutating func update(elapsedSeconds: Double, fraction: Double) -> Double? {
        let f = min(max(fraction, 0), 1)
        let dt = elapsedSeconds - lastElapsedSeconds
        if dt > 0, f >= lastFraction {
            // Samples start once work has been seen (the interval in which it first shows may be
            // mostly start-up).
            if lastFraction > 0 {
                let sample = (f - lastFraction) / dt
                let weight = 1 - exp(-dt / Self.smoothingSeconds)
                weightedRate = weight * sample + (1 - weight) * weightedRate
                weights = weight + (1 - weight) * weights
            }
            lastElapsedSeconds = elapsedSeconds
            lastFraction = f
        }
        if f >= 1 { shown = 0; return 0 }
        guard f >= Self.fractionMin, let rate, rate > 0 else { return nil }
        // A stall (work the events do not show, e.g. a replication building its result) drives the
        // smoothed rate towards 0 and the estimate towards hours: the rate is taken as at least
        // `averageShareMin` of the whole run's average, so the estimate stays within 1 / that of
        // the run's average pace (seen: 5 h 46 min shown with 17 s left at 98 % of a 1 M-device run).
        let average = f / max(elapsedSeconds, 1e-9)
        let fresh = (1 - f) / max(rate, Self.averageShareMin * average)
        if let previous = shown {
            let countedDown = max(0, previous - max(dt, 0))
            shown = fresh > countedDown * (1 + Self.raiseShare) ? fresh : min(fresh, countedDown)
        } else {
            shown = fresh
        }
        return shown
    }

    /// "1:05" or "1:02:03" for a number of seconds (rounded up; negative as 0).
    package static func clock(_ seconds: Double) -> String {
        let total = Int(max(0, seconds).rounded(.up))
        let (h, m, s) = (total / 3600, total / 60 % 60, total % 60)
        let mmss = (m < 10 && h > 0 ? "0" : "") + String(m) + ":" + (s < 10 ? "0" : "") + String(s)
        return h > 0 ? String(h) + ":" + mmss : mmss
    }

    /// A bar of `width` cells: "#" done, "." to do.
    package static func bar(_ fraction: Double, width: Int) -> String {
        let done = Int((min(max(fraction, 0), 1) * Double(width)).rounded(.down))
        return "[" + String(repeating: "#", count: done) + String(repeating: ".", count: width - done) + "]"
    }
}

/// The events one replication is expected to process in all, learned from its progress reports.
///
/// Virtual time is a poor measure of work: a flash sale spends most of its events in the minute of
/// the send. Events are the work, so the display counts events done against this forecast:
///
///     committed = done + perPending × (pending − in flight)
///     expected  = committed + perPush × (pushes planned − pushes arrived)
///
/// - `in flight`: pushes sent that have not reached their device (each a pending arrival). A push
///   counts as arrived (sent − in flight) once it has: until then it is forecast like a push still to
///   send, at `perPush`, since an arrival costs several times what a tap does (the session, its
///   fetches, the tap it schedules).
/// - `pending − in flight`: the other events already scheduled (the kernel's set and the far-future
///   buckets). Each leads to `perPending` events in all (itself and what it schedules: a tap its
///   fetch, reply and paint), learned from the intervals between reports before the first arrival
///   or after the last in which that set shrank (events processed over the shrinkage: a warm before
///   the send, the taps after it); 1 until such an interval is seen. An interval in which pushes
///   still arrive is not one of them: its events are mostly the arrivals' (counting them made the
///   taps look twice as costly as they are for the first seconds after a send, and the ETA read
///   several seconds high in the last tenth of a flash sale).
/// - `perPush`: the work committed since the first arrival, per push arrived: what each push has
///   cost so far, assumed for each push still to send or on its way.
///
/// Before the first arrival of a replication that will send there is no forecast (nil). Events
/// that nothing has scheduled yet and no push will cause (a background stream's next requests) are
/// not foreseen. Reports come every `ReplicationRunner.progressEveryEvents` events, so this costs
/// nothing per event.
package struct EventForecast: Sendable, Equatable {
    private var last: ProgressReport?
    /// Events processed and pending entries consumed over the intervals without an arrival.
    private var decayEvents = 0.0
    private var decayPending = 0.0
    /// Work committed before the first arrival (done and pending at the last report without one).
    private var beforePushes = 0.0

    /// A forecast with no reports.
    package init() {}

    /// Events each pending event leads to in all, as learned so far (at least 1).
    package var perPending: Double { decayPending > 0 ? max(1, decayEvents / decayPending) : 1 }

    /// Pushes that reached their device (sent, not in flight).
    static func arrived(_ r: ProgressReport) -> Double { max(0, r.pushesSent - r.pushesInFlight) }
    /// Pending events other than the arrivals of pushes in flight.
    static func others(_ r: ProgressReport) -> Double { max(0, Double(r.pendingEvents) - r.pushesInFlight) }
    /// No push has arrived yet, or every planned push has (half a push of slack: both counts are
    /// expectations over the audience draw).
    static func quiet(_ r: ProgressReport) -> Bool { arrived(r) <= 0 || arrived(r) >= r.pushesPlanned - 0.5 }

    /// Records `report` and returns the replication's expected events in all (at least the events
    /// done); nil before its first arrival.
    package mutating func expectedEvents(after report: ProgressReport) -> Double? {
        // Learned only where no push is arriving (before the first, after the last): pushes
        // arriving cost several times a tap, and their share of the pending set falls to nothing
        // by the end of the send.
        if let last, Self.quiet(report), Self.quiet(last), Self.arrived(report) == Self.arrived(last),
           Self.others(report) < Self.others(last), report.eventsProcessed > last.eventsProcessed {
            decayEvents += Double(report.eventsProcessed - last.eventsProcessed)
            decayPending += Self.others(last) - Self.others(report)
        }
        last = report
        let done = Double(report.eventsProcessed)
        let committed = done + perPending * Self.others(report)
        let arrived = Self.arrived(report)
        if arrived <= 0 {
            beforePushes = committed
            return report.pushesPlanned <= 0 ? committed : nil
        }
        let perPush = max(0, committed - beforePushes) / arrived
        return max(done, committed + perPush * max(0, report.pushesPlanned - arrived))
    }
}
