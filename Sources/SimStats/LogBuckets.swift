/// The bucket arithmetic of HdrHistogram-style log buckets with h = 2^`halfCountBits` sub-buckets
/// per power of two: values 0..<2h have a bucket each (exact); above that, every power-of-two range
/// [2^k, 2^(k+1)) with k ≥ log2(2h) is split into h equal buckets of width w = 2^(k − log2 h), so a
/// bucket's lower bound L satisfies L ≥ h·w and its midpoint L + (w − 1)/2 is within L/(2h) of any
/// value in it (a relative error below 1/(2h)).
///
/// `LatencyHistogram` uses h = 1024, `WindowedLatencyHistogram` h = 32.
enum LogBuckets {
    /// Index of the bucket holding `v`.
    /// - Complexity: O(1) (one leading-zero count).
    @inline(__always)
    static func index(_ v: UInt64, halfCountBits b: Int) -> Int {
        let half = 1 << b
        if v < UInt64(2 * half) { return Int(v) }
        let shift = (64 - v.leadingZeroBitCount) - (b + 1)  // v >> shift is in h..<2h
        return 2 * half + (shift - 1) * half + Int(v >> UInt64(shift)) - half
    }

    /// Smallest value of bucket `i`.
    static func lowerBound(_ i: Int, halfCountBits b: Int) -> UInt64 {
        let half = 1 << b
        if i < 2 * half { return UInt64(i) }
        let j = i - 2 * half
        return UInt64(j % half + half) << UInt64(j / half + 1)
    }

    /// Number of integer values in bucket `i`.
    static func width(_ i: Int, halfCountBits b: Int) -> UInt64 {
        let half = 1 << b
        return i < 2 * half ? 1 : 1 << UInt64((i - 2 * half) / half + 1)
    }

    /// The midpoint of bucket `i`, the value a quantile falling in it is reported as.
    static func midpoint(_ i: Int, halfCountBits b: Int) -> Double {
        Double(lowerBound(i, halfCountBits: b)) + Double(width(i, halfCountBits: b) - 1) / 2
    }
}
