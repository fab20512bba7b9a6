/// Latency histograms per fixed window of event time (e.g. tap-to-paint per 10 s of tap time, as k6
/// and Gatling show percentiles over time): one compact log-bucketed histogram per window, all
/// allocated at init, filled with one counter increment per value and no allocation.
///
/// **Buckets.** `LogBuckets` with 32 sub-buckets per power of two: values below 64 µs exact, a
/// quantile (nearest rank, reported as its bucket's midpoint as `LatencyHistogram` does) within a
/// relative `maximumRelativeError` = 1/64 ≈ 1.6 %. Values run up to the horizon (a latency of an event
/// inside the horizon cannot be longer), so a window holds `bucketCount` ≈ 32 · (log2(horizon µs) − 5)
/// 4-byte counters: 886 (3.5 KiB) for a 3600 s horizon.
///
/// **Windows.** Window w covers event times [w·W, (w+1)·W) for the window width W; the last one may
/// reach past the horizon. W is the width asked for, doubled while windows × buckets exceeds
/// `countersMax` (8 MiB of counters at most); up to 6 h of horizon, 10 s stays 10 s.
/// Times before 0 count in the first window and times after the horizon in the last (callers record
/// events inside it), so every recorded value lands in exactly one window.
///
/// Counters saturate at `UInt32.max` (2^32 − 1 values of one window in one bucket of one run).
///
/// Codable form (sparse, sorted by window, then value):
/// `{"horizonSeconds": H, "windowSeconds": W, "buckets": [[window, lowerBoundMicroseconds, count], ...]}`.
@usableFromInline package struct WindowedLatencyHistogram: Sendable, Equatable, Codable {
    /// log2 of the sub-buckets per power of two.
    static let halfCountBits = 5
    /// Bound on |estimate − true| / true for quantiles (see the type's documentation).
    @usableFromInline package static let maximumRelativeError = 1.0 / 64.0
    /// Most counters (windows × buckets) of one histogram: 8 MiB.
    @usableFromInline package static let countersMax = 1 << 21

    /// Seconds of event time covered (from 0).
    @usableFromInline package let horizonSeconds: Int
    /// Width of a window, seconds.
    @usableFromInline package let windowSeconds: Int
    /// Number of windows: ⌈horizonSeconds / windowSeconds⌉.
    @usableFromInline package let windowCount: Int
    /// Buckets per window.
    @usableFromInline package let bucketCount: Int
    /// Largest value with its own bucket (the horizon); larger values count in the last bucket.
    let maxValueMicroseconds: Int64
    let windowMicroseconds: Int64
    /// `counts[window * bucketCount + bucket]`.
    var counts: [UInt32]
    /// Values per window (`count(window:)` without the scan), kept by `record`.
    var windowTotals: [UInt64]
    /// The lowest and highest bucket holding a value in any window (`bucketCount` and -1: none
    /// yet), so a scan over a window's buckets can skip the empty ends.
    var bucketLowest: Int
    var bucketHighest: Int

    /// Empty windows of `preferredWindowSeconds` (doubled while over `countersMax`) over `horizonSeconds`.
    /// - Throws: `.invalidParameter` unless 1 ≤ horizon ≤ `PerSecondCounter.horizonLimitSeconds` and
    ///   1 ≤ window ≤ horizon.
    /// - Complexity: O(windows · buckets).
    @usableFromInline package init(horizonSeconds: Int, preferredWindowSeconds: Int) throws(StatisticsError) {
        guard horizonSeconds >= 1, horizonSeconds <= PerSecondCounter.horizonLimitSeconds else {
            throw .invalidParameter(name: "horizonSeconds", value: "\(horizonSeconds)",
                                    expected: "an integer in 1...\(PerSecondCounter.horizonLimitSeconds)")
        }
        guard preferredWindowSeconds >= 1, preferredWindowSeconds <= horizonSeconds else {
            throw .invalidParameter(name: "windowSeconds", value: "\(preferredWindowSeconds)", expected: "an integer in 1...\(horizonSeconds)")
        }
        self.horizonSeconds = horizonSeconds
        maxValueMicroseconds = Int64(horizonSeconds) * 1_000_000
        bucketCount = LogBuckets.index(UInt64(maxValueMicroseconds), halfCountBits: Self.halfCountBits) + 1
        var width = preferredWindowSeconds
        while (horizonSeconds + width - 1) / width * bucketCount > Self.countersMax { width *= 2 }
        windowSeconds = width
        windowCount = (horizonSeconds + width - 1) / width
        windowMicroseconds = Int64(width) * 1_000_000
        counts = [UInt32](repeating: 0, count: windowCount * bucketCount)
        windowTotals = [UInt64](repeating: 0, count: windowCount)
        bucketLowest = bucketCount
        bucketHighest = -1
    }

    /// Records `valueMicroseconds` (negative counts as 0) in the window of event time `atMicroseconds`.
    /// - Complexity: O(1); no allocation (the counters are uniquely owned).
    @usableFromInline package mutating func record(_ valueMicroseconds: Int64, atMicroseconds time: Int64) {
        let window = min(Int(max(0, time) / windowMicroseconds), windowCount - 1)
        let bucket = LogBuckets.index(UInt64(min(max(0, valueMicroseconds), maxValueMicroseconds)), halfCountBits: Self.halfCountBits)
        let i = window * bucketCount + bucket
        if counts[i] != UInt32.max {
            counts[i] += 1
            windowTotals[window] += 1
            if bucket < bucketLowest { bucketLowest = bucket }
            if bucket > bucketHighest { bucketHighest = bucket }
        }
    }

    /// Values recorded in window `window`.
    /// - Complexity: O(buckets).
    @usableFromInline package func count(window: Int) -> UInt64 {
        counts[window * bucketCount..<(window + 1) * bucketCount].reduce(UInt64(0)) { $0 + UInt64($1) }
    }

    /// Values recorded in all windows.
    /// - Complexity: O(windows · buckets).
    @usableFromInline package var totalCount: UInt64 { counts.reduce(UInt64(0)) { $0 + UInt64($1) } }

    /// Every window of `histograms` (same horizon and width: replications of one run) with its values
    /// pooled, and the `quantiles` (probabilities in [0, 1]) of the pooled values by nearest rank.
    /// - Throws: `.incompatibleConfiguration` if the shapes differ.
    /// - Complexity: O(histograms · windows · buckets).
    @usableFromInline package static func pooled(_ histograms: [WindowedLatencyHistogram], quantiles: [Double]) throws(StatisticsError) -> [LatencyWindow] {
        guard let first = histograms.first else { return [] }
        for h in histograms where h.horizonSeconds != first.horizonSeconds || h.windowSeconds != first.windowSeconds {
            throw .incompatibleConfiguration("windows of \(h.windowSeconds) s over \(h.horizonSeconds) s differ from \(first.windowSeconds) s over \(first.horizonSeconds) s")
        }
        var pooled = [UInt64](repeating: 0, count: first.bucketCount)
        var windows: [LatencyWindow] = []
        windows.reserveCapacity(first.windowCount)
        for w in 0..<first.windowCount {
            for b in pooled.indices { pooled[b] = 0 }
            for h in histograms {
                let base = w * h.bucketCount
                for b in pooled.indices { pooled[b] += UInt64(h.counts[base + b]) }
            }
            let total = pooled.reduce(UInt64(0), +)
            let values = total == 0 ? [] : quantiles.map { Self.quantile($0, of: pooled, total: total) }
            windows.append(LatencyWindow(startSeconds: w * first.windowSeconds, seconds: first.windowSeconds, count: total,
                                         quantilesMicroseconds: values))
        }
        return windows
    }

    /// The q-quantile by nearest rank (rank max(1, ⌈q·total⌉)) of bucket counts `counts` adding up to
    /// `total` > 0, as its bucket's midpoint.
    static func quantile(_ q: Double, of counts: [UInt64], total: UInt64) -> Double {
        let rank = max(1, UInt64((q * Double(total)).rounded(.up)))
        var cumulative: UInt64 = 0
        for b in counts.indices {
            cumulative += counts[b]
            if cumulative >= rank { return LogBuckets.midpoint(b, halfCountBits: halfCountBits) }
        }
        return LogBuckets.midpoint(counts.count - 1, halfCountBits: halfCountBits)
    }

    // MARK: Codable

    private enum CodingKeys: String, CodingKey { case horizonSeconds, windowSeconds, buckets }

    @usableFromInline package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(horizonSeconds, forKey: .horizonSeconds)
        try c.encode(windowSeconds, forKey: .windowSeconds)
        var buckets = c.nestedUnkeyedContainer(forKey: .buckets)
        for i in counts.indices where counts[i] > 0 {
            try buckets.encode([UInt64(i / bucketCount), LogBuckets.lowerBound(i % bucketCount, halfCountBits: Self.halfCountBits), UInt64(counts[i])])
        }
    }

    /// Decodes and validates: the shape `init` gives for the horizon and width, buckets ascending by
    /// (window, value) on bucket boundaries, counts in 1...2^32 − 1.
    @usableFromInline package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let horizon = try c.decode(Int.self, forKey: .horizonSeconds)
        let width = try c.decode(Int.self, forKey: .windowSeconds)
        do {
            try self.init(horizonSeconds: horizon, preferredWindowSeconds: width)
        } catch {
            throw DecodingError.dataCorruptedError(forKey: .windowSeconds, in: c, debugDescription: error.description)
        }
        guard windowSeconds == width else {
            throw DecodingError.dataCorruptedError(forKey: .windowSeconds, in: c, debugDescription:
                "expected a window of \(windowSeconds) s for a horizon of \(horizon) s, found \(width)")
        }
        var buckets = try c.nestedUnkeyedContainer(forKey: .buckets)
        var previous = -1
        while !buckets.isAtEnd {
            let triple = try buckets.decode([UInt64].self)
            guard triple.count == 3, triple[0] < UInt64(windowCount), triple[1] <= UInt64(maxValueMicroseconds),
                  triple[2] > 0, triple[2] <= UInt64(UInt32.max) else {
                throw DecodingError.dataCorruptedError(in: buckets, debugDescription:
                    "expected [window < \(windowCount), lowerBoundMicroseconds ≤ \(maxValueMicroseconds), count in 1...\(UInt32.max)], found \(triple)")
            }
            let b = LogBuckets.index(triple[1], halfCountBits: Self.halfCountBits)
            let i = Int(triple[0]) * bucketCount + b
            guard LogBuckets.lowerBound(b, halfCountBits: Self.halfCountBits) == triple[1], i > previous else {
                throw DecodingError.dataCorruptedError(in: buckets, debugDescription:
                    "expected a bucket lower bound after the previous bucket, found \(triple)")
            }
            previous = i
            counts[i] = UInt32(triple[2])
            windowTotals[Int(triple[0])] += triple[2]
            bucketLowest = min(bucketLowest, b)
            bucketHighest = max(bucketHighest, b)
        }
    }
}

/// One window of `WindowedLatencyHistogram.pooled`.
@usableFromInline package struct LatencyWindow: Sendable, Equatable {
    /// The window's first second of event time.
    @usableFromInline package let startSeconds: Int
    /// Its width.
    @usableFromInline package let seconds: Int
    /// Values whose event time fell in the window (all pooled histograms).
    @usableFromInline package let count: UInt64
    /// The requested quantiles in microseconds, in the order asked; empty when `count` is 0.
    @usableFromInline package let quantilesMicroseconds: [Double]
}
