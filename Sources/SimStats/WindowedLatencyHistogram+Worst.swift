/// The worst span of a windowed histogram: the objective "tap-to-paint p95 in the worst minute".
extension WindowedLatencyHistogram {
    /// The worst span's quantile: the span of `spanWindows` consecutive windows (stepped by one
    /// window) holding at least `countMin` values whose `q`-quantile is largest.
    package struct WorstSpan: Sendable, Equatable {
        /// The span's first second of event time.
        package let startSeconds: Int
        /// Its width in seconds (`spanWindows` × the window width, cut at the last window).
        package let seconds: Int
        /// Values in the span.
        package let count: UInt64
        /// The quantile, microseconds (a bucket midpoint, within `maximumRelativeError`).
        package let quantileMicroseconds: Double
    }

    /// The largest `q`-quantile over every span of `spanWindows` consecutive windows with at least
    /// `countMin` values (the earliest such span when several tie); nil when no span has that many (or the arguments are out of range).
    /// - Complexity: O(windows · buckets): the span's counts slide by one window at a time.
    package func worstSpan(quantile q: Double, spanWindows: Int, countMin: UInt64) -> WorstSpan? {
        guard q >= 0, q <= 1, spanWindows >= 1, countMin >= 1 else { return nil }
        let span = min(spanWindows, windowCount)
        var sums = [UInt64](repeating: 0, count: bucketCount)
        var total: UInt64 = 0
        func add(_ w: Int, _ sign: Bool) {
            for b in 0..<bucketCount {
                let c = UInt64(counts[w * bucketCount + b])
                if sign { sums[b] += c; total += c } else { sums[b] -= c; total -= c }
            }
        }
        for w in 0..<span { add(w, true) }
        var worst: WorstSpan? = nil
        var first = 0
        while true {
            if total >= countMin {
                let v = Self.quantile(q, of: sums, total: total)
                if worst.map({ v > $0.quantileMicroseconds }) ?? true {
                    worst = WorstSpan(startSeconds: first * windowSeconds, seconds: span * windowSeconds, count: total, quantileMicroseconds: v)
                }
            }
            guard first + span < windowCount else { break }
            add(first, false)
            add(first + span, true)
            first += 1
        }
        return worst
    }
}
