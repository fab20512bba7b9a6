/// Remaining-time estimate for a progress display, from the work done so far.
///
/// The rate is work done per wall second, smoothed exponentially over updates (a burst of slow events
/// in the send window does not swing it). The shown remaining time counts down with the clock and
/// never goes up by a small amount ("runs backwards"); it is raised only when the fresh estimate
/// exceeds it by more than `raiseShare`, i.e. when the run really slowed down.
package struct ProgressEstimate: Sendable, Equatable {
    /// Weight of the newest rate sample in the smoothed rate.
    static let smoothing = 0.3
    /// How far (as a share) a fresh estimate must exceed the shown one before the shown one goes up.
    static let raiseShare = 0.5
    /// Work done below which no estimate is given (too little to extrapolate).
    static let fractionMin = 0.01

    private var lastElapsedSeconds = 0.0
    private var lastFraction = 0.0
    private var rate: Double?
    private var shown: Double?

    /// A fresh estimate with no samples.
    package init() {}

    /// Records that `fraction` (0…1) of the work is done after `elapsedSeconds` of wall time and
    /// returns the remaining seconds to show; nil until enough work is done.
    package mutating func update(elapsedSeconds: Double, fraction: Double) -> Double? {
        let f = min(max(fraction, 0), 1)
        let dt = elapsedSeconds - lastElapsedSeconds
        if dt > 0, f >= lastFraction {
            let sample = (f - lastFraction) / dt
            rate = rate.map { Self.smoothing * sample + (1 - Self.smoothing) * $0 } ?? (f / max(elapsedSeconds, 1e-9))
            lastElapsedSeconds = elapsedSeconds
            lastFraction = f
        }
        if f >= 1 { shown = 0; return 0 }
        guard f >= Self.fractionMin, let rate, rate > 0 else { return nil }
        let fresh = (1 - f) / rate
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
