/// One replication's pace: wall seconds since it started against the events it had processed,
/// recorded at its progress reports and closed when it finishes. The time after its last event
/// (building its result) is kept apart as `resultSeconds`: it is done only when a replication
/// finishes, so a replication still running is never credited with it, whatever its events.
///
/// Events are not all equally costly: an arrival costs several taps, and a flash sale's taps come
/// after its send. Once one replication has finished, the others (same scenario, another seed) are
/// measured in its seconds: a replication at `events` has done `seconds(atEvents:)` of the
/// `totalSeconds` the finished one took, so the progress share follows time, not events, and the ETA
/// of the replications after the first no longer reads low in the taps (seen: 15 % low in the
/// second replication of a flash sale, the first one's taps having cost more per event than its send).
///
/// Bounded: at most `samplesMax` points; when full, every other point is dropped and the spacing
/// doubles, so a replication of any length keeps its whole shape at a resolution of 1/`samplesMax`
/// of its events or better.
package struct PaceProfile: Sendable, Equatable {
    /// The most points kept.
    package static let samplesMax = 512

    /// (events processed, seconds since the start), increasing in both; starts at (0, 0).
    private(set) var points: [(events: Double, seconds: Double)] = [(0, 0)]
    /// Least events between kept points (doubles when the points fill up).
    private var spacing = 1.0
    /// Set once the replication finished: its last point is then (events in all, the seconds its
    /// events took), and `resultSeconds` the rest of its time.
    private(set) var closed = false
    /// Seconds from the replication's last event to its end (building its result), once closed.
    private(set) var resultSeconds = 0.0

    package init() {}

    package static func == (a: PaceProfile, b: PaceProfile) -> Bool {
        a.closed == b.closed && a.resultSeconds == b.resultSeconds && a.spacing == b.spacing && a.points.count == b.points.count
            && zip(a.points, b.points).allSatisfy { $0.events == $1.events && $0.seconds == $1.seconds }
    }

    /// Records that `events` were processed `seconds` after the start (ignored once closed, or when
    /// it goes back in either).
    package mutating func record(events: Double, seconds: Double) {
        guard !closed, let last = points.last, events >= last.events + spacing, seconds >= last.seconds else { return }
        points.append((events, seconds))
        if points.count > Self.samplesMax {
            // Keep the first and every other point after it; the last one stays (the count is odd).
            points = points.enumerated().filter { $0.offset % 2 == 0 || $0.offset == points.count - 1 }.map(\.element)
            spacing *= 2
        }
    }

    /// Closes the profile with the replication's totals. The events after the last recorded point
    /// are taken at the pace between the last two points (the pace of its last events); what the
    /// total has beyond them is the result's time.
    package mutating func close(events: Double, seconds: Double) {
        guard !closed else { return }
        let last = points.last ?? (0, 0)
        let total = max(seconds, last.seconds), allEvents = max(events, last.events)
        var eventsEnd = total
        if points.count >= 2, allEvents > last.events {
            let before = points[points.count - 2]
            let perEvent = last.events > before.events ? (last.seconds - before.seconds) / (last.events - before.events) : 0
            eventsEnd = min(total, last.seconds + perEvent * (allEvents - last.events))
        } else if allEvents == last.events {
            eventsEnd = last.seconds
        }
        if allEvents > last.events { points.append((allEvents, eventsEnd)) }
        resultSeconds = total - eventsEnd
        closed = true
    }

    /// Seconds the whole replication took (once closed), its result's included.
    package var totalSeconds: Double { (points.last?.seconds ?? 0) + resultSeconds }

    /// Seconds of this replication's pace that `events` of a replication still running stand for:
    /// interpolated between the points; past the last one, the seconds of the last, short of the
    /// total by the result's time (or by 0.1 % without one): a replication is not done until it
    /// finishes, however many events it has processed.
    package func seconds(atEvents events: Double) -> Double {
        guard let last = points.last, last.events > 0 else { return 0 }
        let e = max(0, events)
        if e >= last.events {
            return min(last.seconds, totalSeconds * (1 - 1e-3))
        }
        // The first point at or past `e` (points are increasing in events).
        var low = 0, high = points.count - 1
        while low < high {
            let mid = (low + high) / 2
            if points[mid].events < e { low = mid + 1 } else { high = mid }
        }
        let b = points[low]
        guard low > 0 else { return b.seconds }
        let a = points[low - 1]
        let span = b.events - a.events
        return span > 0 ? a.seconds + (b.seconds - a.seconds) * (e - a.events) / span : a.seconds
    }
}
