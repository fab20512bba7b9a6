/// The worst span of a windowed histogram: the objective "tap-to-paint p95 in the worst minute".
extension WindowedLatencyHistogram {
    /// The worst span's quantile.
    package struct WorstSpan: Sendable, Equatable {
        /// The span's first second of event time.
        package let startSeconds: Int
        /// Its width in seconds (`spanWindows` × the window width; the last span may be cut).
        package let seconds: Int
        /// Values in the span.
        package let count: UInt64
        /// The quantile, microseconds (a bucket midpoint, within `maximumRelativeError`).
        package let quantileMicroseconds: Double
    }

    /// The largest `q`-quantile over the consecutive spans of `spanWindows` windows (windows
    /// 0..<k, k..<2k, …: for 10-s windows and k = 6, each minute of event time) that hold at least
    /// `countMin` values; the earliest when several tie; nil when no span has that many.
    /// - Complexity: O(windows) for the totals, plus O(spanWindows · buckets used) for each span
    ///   with enough values; spans with fewer are never scanned.
    package func worstSpan(quantile q: Double, spanWindows: Int, countMin: UInt64) -> WorstSpan? {
        guard q >= 0, q <= 1, spanWindows >= 1, countMin >= 1, bucketHighest >= bucketLowest else { return nil }
        let lo = bucketLowest, width = bucketHighest - bucketLowest + 1
        var sums = [UInt64](repeating: 0, count: width)
        var worst: WorstSpan? = nil
        var first = 0
        while first < windowCount {
            let end = min(first + spanWindows, windowCount)
            var total: UInt64 = 0
            for w in first..<end { total += windowTotals[w] }
            if total >= countMin {
                for b in 0..<width { sums[b] = 0 }
                for w in first..<end where windowTotals[w] > 0 {
                    let base = w * bucketCount + lo
                    for b in 0..<width { sums[b] += UInt64(counts[base + b]) }
                }
                // Nearest rank within the used buckets, reported as the bucket's midpoint.
                let rank = max(1, UInt64((q * Double(total)).rounded(.up)))
                var cumulative: UInt64 = 0, bucket = width - 1
                for b in 0..<width {
                    cumulative += sums[b]
                    if cumulative >= rank { bucket = b; break }
                }
                let v = LogBuckets.midpoint(lo + bucket, halfCountBits: Self.halfCountBits)
                if worst.map({ v > $0.quantileMicroseconds }) ?? true {
                    worst = WorstSpan(startSeconds: first * windowSeconds, seconds: (end - first) * windowSeconds, count: total, quantileMicroseconds: v)
                }
            }
            first = end
        }
        return worst
    }
}
