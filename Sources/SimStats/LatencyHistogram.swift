/// A fixed-memory, exactly mergeable histogram of non-negative integer latencies in microseconds,
/// log-bucketed like HdrHistogram with 3 significant decimal digits.
///
/// Layout: values 0..<2048 have a bucket each (exact). Above that, every power-of-two range
/// [2^k, 2^(k+1)) with k ≥ 11 is split into 1024 equal buckets of width w = 2^(k−10), so a bucket's
/// lower bound L satisfies L ≥ 1024·w.
///
/// **Relative error bound.** A quantile is reported as the midpoint L + (w − 1)/2 of the bucket holding
/// the order statistic of the requested rank, so |estimate − true| ≤ (w − 1)/2 < L/2048 ≤ true/2048:
/// the relative error is below `maximumRelativeError` = 1/2048 ≈ 0.049 % (and 0 below 2048 µs).
///
/// Values above `maxValueMicroseconds` are counted in `overflowCount` (they rank above every
/// in-range value); negative values are counted in `negativeCount` and otherwise ignored. Both
/// are reported in the Codable form and in `LatencySummary`.
///
/// Merging adds integer counts, so merging shards is bit-identical to recording everything into
/// one histogram, in any order.
///
/// Codable form (compact, sparse, sorted by value):
/// `{"maxValueMicroseconds": M, "count": C, "overflowCount": O, "negativeCount": N,
///   "sumMicroseconds": "decimal", "buckets": [[lowerBoundMicroseconds, count], ...]}`.
@usableFromInline package struct LatencyHistogram: Sendable, Equatable, Codable {
    /// Buckets per power of two above 2048 (half of HdrHistogram's 2048 sub-buckets).
    @usableFromInline package static let subBucketHalfCount = 1 << halfCountBits
    /// Values below this are recorded exactly.
    @usableFromInline package static let exactBelowMicroseconds: Int64 = 2048
    /// Bound on |estimate − true| / true for quantiles (see the type's documentation).
    @usableFromInline package static let maximumRelativeError = 1.0 / 2048.0
    /// Largest configurable `maxValueMicroseconds`: 2^44 µs ≈ 203 days (≈ 33.8 k buckets, 270 KiB).
    @usableFromInline package static let maxValueLimitMicroseconds: Int64 = 1 << 44

    /// Largest value counted in the buckets; larger values go to `overflowCount`.
    @usableFromInline package let maxValueMicroseconds: Int64
    /// Counts per bucket (fixed size, set at init).
    private var counts: [UInt64]
    /// Number of non-negative values recorded (in range and overflow).
    @usableFromInline package private(set) var count: UInt64 = 0
    /// Number of values above `maxValueMicroseconds`.
    @usableFromInline package private(set) var overflowCount: UInt64 = 0
    /// Number of negative values offered (not counted in `count`).
    @usableFromInline package private(set) var negativeCount: UInt64 = 0
    /// Exact sum of the in-range values.
    private var sumMicroseconds: UInt128 = 0

    /// An empty histogram for values in 0...`maxValueMicroseconds`.
    /// - Throws: `.invalidParameter` unless 1 ≤ max ≤ `maxValueLimitMicroseconds`.
    /// - Complexity: O(buckets) ≈ 1024 · (log2(max) − 10) + 2048.
    @usableFromInline package init(maxValueMicroseconds: Int64) throws(StatisticsError) {
        guard maxValueMicroseconds >= 1, maxValueMicroseconds <= Self.maxValueLimitMicroseconds else {
            throw .invalidParameter(name: "maxValueMicroseconds", value: "\(maxValueMicroseconds)",
                                    expected: "an integer in 1...\(Self.maxValueLimitMicroseconds)")
        }
        self.maxValueMicroseconds = maxValueMicroseconds
        self.counts = [UInt64](repeating: 0, count: Self.bucketIndex(UInt64(maxValueMicroseconds)) + 1)
    }

    /// Number of buckets (the fixed memory is 8 bytes per bucket).
    @usableFromInline package var bucketCount: Int { counts.count }

    /// Records one value.
    /// - Complexity: O(1); no allocation (the bucket array is uniquely owned).
    @inlinable
    package mutating func record(_ valueMicroseconds: Int64) {
        record(valueMicroseconds, times: 1)
    }

    /// Records `times` occurrences of one value.
    /// - Complexity: O(1); no allocation.
    @usableFromInline package mutating func record(_ valueMicroseconds: Int64, times: UInt64) {
        if valueMicroseconds < 0 {
            negativeCount += times
            return
        }
        count += times
        if valueMicroseconds > maxValueMicroseconds {
            overflowCount += times
            return
        }
        counts[Self.bucketIndex(UInt64(valueMicroseconds))] += times
        sumMicroseconds += UInt128(valueMicroseconds) * UInt128(times)
    }

    /// Adds every count of `other`; the result equals recording both value streams into one histogram.
    /// - Throws: `.incompatibleConfiguration` if the `maxValueMicroseconds` differ.
    /// - Complexity: O(buckets).
    @usableFromInline package mutating func merge(_ other: LatencyHistogram) throws(StatisticsError) {
        guard other.maxValueMicroseconds == maxValueMicroseconds else {
            throw .incompatibleConfiguration(
                "maxValueMicroseconds \(other.maxValueMicroseconds) differs from \(maxValueMicroseconds)")
        }
        for i in counts.indices { counts[i] += other.counts[i] }
        count += other.count
        overflowCount += other.overflowCount
        negativeCount += other.negativeCount
        sumMicroseconds += other.sumMicroseconds
    }

    /// Mean of the in-range values (exact sum / in-range count); nil if there are none.
    @usableFromInline package var meanMicroseconds: Double? {
        let inRange = count - overflowCount
        guard inRange > 0 else { return nil }
        return Double(sumMicroseconds) / Double(inRange)
    }

    /// The q-quantile by the nearest-rank definition: the value of rank max(1, ⌈q·count⌉) among
    /// the recorded values in ascending order (overflow values rank above all others).
    /// - Parameter q: in [0, 1] (programmer error otherwise).
    /// - Complexity: O(buckets).
    @usableFromInline package func quantile(_ q: Double) -> LatencyQuantile {
        precondition(q >= 0 && q <= 1, "quantile needs 0 <= q <= 1, got \(q)")
        guard count > 0 else { return .empty }
        let rank = max(1, UInt64((q * Double(count)).rounded(.up)))
        var cumulative: UInt64 = 0
        for i in counts.indices where counts[i] > 0 {
            cumulative += counts[i]
            if cumulative >= rank {
                let lower = Self.bucketLowerBound(i), width = Self.bucketWidth(i)
                return .value(Double(lower) + Double(width - 1) / 2)
            }
        }
        return .aboveMaximum
    }

    /// The share of recorded values strictly below `thresholdMicroseconds`, over `count`; nil if empty.
    ///
    /// Buckets entirely below the threshold count in full; the one bucket containing the threshold
    /// counts if its midpoint is below it. So only values within that bucket (within a relative
    /// 1/1024 of the threshold) can be misclassified; choose a threshold below 2048 µs or a bucket
    /// boundary for an exact answer. Overflow values count as not below.
    /// - Complexity: O(buckets).
    @usableFromInline package func shareBelow(_ thresholdMicroseconds: Int64) -> Double? {
        guard count > 0 else { return nil }
        var below: UInt64 = 0
        for i in counts.indices where counts[i] > 0 {
            let lower = Self.bucketLowerBound(i), width = Self.bucketWidth(i)
            if Double(lower) + Double(width - 1) / 2 < Double(thresholdMicroseconds) { below += counts[i] } else { break }
        }
        return Double(below) / Double(count)
    }

    /// p50/p90/p95/p99, mean, counts and the share below `thresholdMicroseconds`.
    /// - Complexity: O(buckets).
    @usableFromInline package func summary(thresholdMicroseconds: Int64) -> LatencySummary {
        LatencySummary(
            count: count, overflowCount: overflowCount, negativeCount: negativeCount,
            maxValueMicroseconds: maxValueMicroseconds, meanMicroseconds: meanMicroseconds,
            p50: quantile(0.50), p90: quantile(0.90), p95: quantile(0.95), p99: quantile(0.99),
            thresholdMicroseconds: thresholdMicroseconds, shareBelowThreshold: shareBelow(thresholdMicroseconds))
    }

    /// The recorded non-zero buckets in ascending order, as (lower bound, width, count).
    @usableFromInline package var nonEmptyBuckets: [(lowerBoundMicroseconds: Int64, widthMicroseconds: Int64, count: UInt64)] {
        counts.indices.filter { counts[$0] > 0 }.map {
            (Int64(Self.bucketLowerBound($0)), Int64(Self.bucketWidth($0)), counts[$0])
        }
    }

    // MARK: Bucket arithmetic

    /// Index of the bucket holding `v`.
    /// - Complexity: O(1) (one leading-zero count).
    static func bucketIndex(_ v: UInt64) -> Int { LogBuckets.index(v, halfCountBits: halfCountBits) }

    /// Smallest value of bucket `i`.
    static func bucketLowerBound(_ i: Int) -> UInt64 { LogBuckets.lowerBound(i, halfCountBits: halfCountBits) }

    /// Number of integer values in bucket `i`.
    static func bucketWidth(_ i: Int) -> UInt64 { LogBuckets.width(i, halfCountBits: halfCountBits) }

    /// log2 of `subBucketHalfCount`.
    static let halfCountBits = 10

    // MARK: Codable

    private enum CodingKeys: String, CodingKey {
        case maxValueMicroseconds, count, overflowCount, negativeCount, sumMicroseconds, buckets
    }

    @usableFromInline package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(maxValueMicroseconds, forKey: .maxValueMicroseconds)
        try c.encode(count, forKey: .count)
        try c.encode(overflowCount, forKey: .overflowCount)
        try c.encode(negativeCount, forKey: .negativeCount)
        try c.encode(String(sumMicroseconds), forKey: .sumMicroseconds)
        var buckets = c.nestedUnkeyedContainer(forKey: .buckets)
        for i in counts.indices where counts[i] > 0 {
            try buckets.encode([Self.bucketLowerBound(i), counts[i]])
        }
    }

    /// Decodes and validates: bucket bounds ascending, on bucket boundaries and ≤ max; counts
    /// positive and adding up to `count − overflowCount`; the sum consistent with the buckets.
    @usableFromInline package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let maxValue = try c.decode(Int64.self, forKey: .maxValueMicroseconds)
        do {
            try self.init(maxValueMicroseconds: maxValue)
        } catch {
            throw DecodingError.dataCorruptedError(forKey: .maxValueMicroseconds, in: c, debugDescription: error.description)
        }
        count = try c.decode(UInt64.self, forKey: .count)
        overflowCount = try c.decode(UInt64.self, forKey: .overflowCount)
        negativeCount = try c.decode(UInt64.self, forKey: .negativeCount)
        let sumText = try c.decode(String.self, forKey: .sumMicroseconds)
        guard let sum = UInt128(sumText) else {
            throw DecodingError.dataCorruptedError(forKey: .sumMicroseconds, in: c,
                                                   debugDescription: "expected a decimal integer ≥ 0 in a string, found \"\(sumText)\"")
        }
        sumMicroseconds = sum
        var buckets = try c.nestedUnkeyedContainer(forKey: .buckets)
        var previous = -1
        var inRange: UInt128 = 0, sumMin: UInt128 = 0, sumMax: UInt128 = 0
        while !buckets.isAtEnd {
            let pair = try buckets.decode([UInt64].self)
            guard pair.count == 2, pair[0] <= UInt64(maxValue), pair[1] > 0 else {
                throw DecodingError.dataCorruptedError(in: buckets, debugDescription:
                    "expected [lowerBoundMicroseconds ≤ \(maxValue), count > 0], found \(pair)")
            }
            let i = Self.bucketIndex(pair[0])
            guard Self.bucketLowerBound(i) == pair[0], i > previous else {
                throw DecodingError.dataCorruptedError(in: buckets, debugDescription:
                    "expected a bucket lower bound above the previous one, found \(pair[0])")
            }
            previous = i
            counts[i] = pair[1]
            inRange += UInt128(pair[1])
            sumMin += UInt128(pair[1]) * UInt128(pair[0])
            sumMax += UInt128(pair[1]) * UInt128(pair[0] + Self.bucketWidth(i) - 1)
        }
        guard overflowCount <= count, inRange == UInt128(count - overflowCount) else {
            throw DecodingError.dataCorruptedError(forKey: .count, in: c, debugDescription:
                "expected count = bucket counts (\(inRange)) + overflowCount (\(overflowCount)), found \(count)")
        }
        guard sum >= sumMin, sum <= sumMax else {
            throw DecodingError.dataCorruptedError(forKey: .sumMicroseconds, in: c, debugDescription:
                "expected a sum in \(sumMin)...\(sumMax) for these buckets, found \(sum)")
        }
    }
}

/// A quantile read from a `LatencyHistogram`.
@usableFromInline package enum LatencyQuantile: Sendable, Equatable {
    /// Nothing recorded.
    case empty
    /// The estimate in microseconds (within `LatencyHistogram.maximumRelativeError`).
    case value(Double)
    /// The rank falls among the overflow values: the quantile exceeds `maxValueMicroseconds`.
    case aboveMaximum

    /// The estimate, or nil when empty or above the maximum.
    @usableFromInline package var microseconds: Double? {
        if case let .value(v) = self { return v }
        return nil
    }
}

/// The figures a results file reports for one latency metric.
///
/// Quantiles are nil when nothing was recorded or when they fall above `maxValueMicroseconds`
/// (then `overflowCount` says how many values did).
@usableFromInline package struct LatencySummary: Sendable, Equatable, Encodable {
    /// Values recorded (in range and overflow).
    @usableFromInline package let count: UInt64
    /// Values above `maxValueMicroseconds`.
    @usableFromInline package let overflowCount: UInt64
    /// Negative values offered and ignored.
    @usableFromInline package let negativeCount: UInt64
    /// The histogram's configured maximum.
    @usableFromInline package let maxValueMicroseconds: Int64
    /// Exact mean of the in-range values.
    @usableFromInline package let meanMicroseconds: Double?
    /// Median (nearest rank), within `LatencyHistogram.maximumRelativeError`.
    @usableFromInline package let p50Microseconds: Double?
    /// 90th percentile.
    @usableFromInline package let p90Microseconds: Double?
    /// 95th percentile.
    @usableFromInline package let p95Microseconds: Double?
    /// 99th percentile.
    @usableFromInline package let p99Microseconds: Double?
    /// The threshold `shareBelowThreshold` refers to (e.g. 500 000 µs for "painted within 500 ms").
    @usableFromInline package let thresholdMicroseconds: Int64
    /// Share of `count` strictly below the threshold (see `LatencyHistogram.shareBelow`).
    @usableFromInline package let shareBelowThreshold: Double?

    init(count: UInt64, overflowCount: UInt64, negativeCount: UInt64, maxValueMicroseconds: Int64,
         meanMicroseconds: Double?, p50: LatencyQuantile, p90: LatencyQuantile, p95: LatencyQuantile,
         p99: LatencyQuantile, thresholdMicroseconds: Int64, shareBelowThreshold: Double?) {
        self.count = count
        self.overflowCount = overflowCount
        self.negativeCount = negativeCount
        self.maxValueMicroseconds = maxValueMicroseconds
        self.meanMicroseconds = meanMicroseconds
        self.p50Microseconds = p50.microseconds
        self.p90Microseconds = p90.microseconds
        self.p95Microseconds = p95.microseconds
        self.p99Microseconds = p99.microseconds
        self.thresholdMicroseconds = thresholdMicroseconds
        self.shareBelowThreshold = shareBelowThreshold
    }
}
