import XCTest
import Stochastic
@testable import SimStats

final class LatencyHistogramTests: XCTestCase {
    func testBucketsTileTheRangeWithBoundedWidth() {
        // Every bucket index round-trips through its lower bound, buckets are contiguous, and a
        // bucket's width is at most max(1, lower/1024) — the basis of the 1/2048 error bound.
        var expectedLower: UInt64 = 0
        for i in 0..<(2048 + 1024 * 34) {
            let lower = LatencyHistogram.bucketLowerBound(i), width = LatencyHistogram.bucketWidth(i)
            XCTAssertEqual(lower, expectedLower, "bucket \(i)")
            XCTAssertEqual(LatencyHistogram.bucketIndex(lower), i)
            XCTAssertEqual(LatencyHistogram.bucketIndex(lower + width - 1), i)
            XCTAssertTrue(width == 1 || width * 1024 <= lower, "bucket \(i)")
            expectedLower = lower + width
        }
    }

    func testQuantilesWithinRelativeBoundOfExactOrderStatistics() throws {
        // Lognormal latencies, median e^12.2 ≈ 200 ms, σ = 1.2. The bound 1/2048 is deterministic
        // (see LatencyHistogram), so it holds for every rank; 1e-12 absorbs the Double midpoint.
        let seed: UInt64 = 9001
        let values = try lognormalMicroseconds(seed: seed, count: 20_000, mu: 12.2, sigma: 1.2)
        var h = try LatencyHistogram(maxValueMicroseconds: 3_600_000_000)
        values.forEach { h.record($0) }
        let sorted = values.sorted()
        for q in [0.0, 0.001, 0.25, 0.5, 0.9, 0.95, 0.99, 0.999, 1.0] {
            let rank = max(1, Int((q * Double(sorted.count)).rounded(.up)))
            let exact = Double(sorted[rank - 1])
            let estimate = try XCTUnwrap(h.quantile(q).microseconds)
            XCTAssertLessThanOrEqual(abs(estimate - exact), exact * LatencyHistogram.maximumRelativeError + 1e-12,
                                     "q \(q) exact \(exact) estimate \(estimate) seed \(seed)")
        }
        XCTAssertEqual(h.count, 20_000)
        XCTAssertEqual(h.meanMicroseconds ?? 0, Double(values.reduce(0, +)) / 20_000, accuracy: 1e-6)
        // Share under 500 ms: only values in the threshold's bucket can be misclassified.
        let threshold: Int64 = 500_000
        let exactShare = Double(values.filter { $0 < threshold }.count) / 20_000
        let b = LatencyHistogram.bucketIndex(UInt64(threshold))
        let lower = Int64(LatencyHistogram.bucketLowerBound(b)), width = Int64(LatencyHistogram.bucketWidth(b))
        let inBucket = Double(values.filter { $0 >= lower && $0 < lower + width }.count) / 20_000
        XCTAssertLessThanOrEqual(abs((h.shareBelow(threshold) ?? -1) - exactShare), inBucket + 1e-15, "seed \(seed)")
        // Exact below 2048 µs.
        XCTAssertEqual(h.shareBelow(2000), Double(values.filter { $0 < 2000 }.count) / 20_000)
    }

    func testMergingShardsIsBitIdenticalToOneHistogram() throws {
        let seed: UInt64 = 31337
        let values = try lognormalMicroseconds(seed: seed, count: 10_000, mu: 11, sigma: 2)
        var single = try LatencyHistogram(maxValueMicroseconds: 60_000_000)
        values.forEach { single.record($0) }
        var shards = try [LatencyHistogram](repeating: LatencyHistogram(maxValueMicroseconds: 60_000_000), count: 4)
        for (i, v) in values.enumerated() { shards[(i * 7) % 4].record(v) }
        var forward = try LatencyHistogram(maxValueMicroseconds: 60_000_000)
        for s in shards { try forward.merge(s) }
        var backward = try LatencyHistogram(maxValueMicroseconds: 60_000_000)
        for s in shards.reversed() { try backward.merge(s) }
        XCTAssertEqual(forward, single, "seed \(seed)")
        XCTAssertEqual(backward, single, "seed \(seed)")
        XCTAssertGreaterThan(single.overflowCount, 0, "the data should reach the overflow bucket; seed \(seed)")
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        XCTAssertEqual(try encoder.encode(forward), try encoder.encode(single))
        var other = try LatencyHistogram(maxValueMicroseconds: 1000)
        XCTAssertThrowsError(try other.merge(single))
    }

    func testCodableRoundTripIsSparseSortedAndValidated() throws {
        var h = try LatencyHistogram(maxValueMicroseconds: 10_000_000)
        for v: Int64 in [5_000_000, 7, 7, 3_000, 20_000_000, -1] { h.record(v) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = try encoder.encode(h)
        let text = String(decoding: data, as: UTF8.self)
        // 3000 lies in the width-2 bucket [3000, 3001]; 5e6 in the width-4096 bucket starting at 4_997_120.
        XCTAssertEqual(text, #"{"buckets":[[7,2],[3000,1],[4997120,1]],"count":5,"maxValueMicroseconds":10000000,"#
                       + #""negativeCount":1,"overflowCount":1,"sumMicroseconds":"5003014"}"#)
        XCTAssertEqual(try JSONDecoder().decode(LatencyHistogram.self, from: data), h)

        for tampered in [
            #"{"buckets":[[3000,1],[7,2]],"count":3,"maxValueMicroseconds":10000,"negativeCount":0,"overflowCount":0,"sumMicroseconds":"3014"}"#,
            #"{"buckets":[[7,2]],"count":3,"maxValueMicroseconds":10000,"negativeCount":0,"overflowCount":0,"sumMicroseconds":"14"}"#,
            #"{"buckets":[[3001,1]],"count":1,"maxValueMicroseconds":10000,"negativeCount":0,"overflowCount":0,"sumMicroseconds":"3001"}"#,
            #"{"buckets":[[7,2]],"count":2,"maxValueMicroseconds":10000,"negativeCount":0,"overflowCount":0,"sumMicroseconds":"15"}"#,
            #"{"buckets":[],"count":0,"maxValueMicroseconds":0,"negativeCount":0,"overflowCount":0,"sumMicroseconds":"0"}"#,
        ] {
            XCTAssertThrowsError(try JSONDecoder().decode(LatencyHistogram.self, from: Data(tampered.utf8)), tampered)
        }
    }

    func testEdgeCases() throws {
        var h = try LatencyHistogram(maxValueMicroseconds: 1000)
        XCTAssertEqual(h.quantile(0.5), .empty)
        XCTAssertNil(h.meanMicroseconds)
        XCTAssertNil(h.shareBelow(10))
        for _ in 0..<10 { h.record(0) }
        XCTAssertEqual(h.quantile(0.99), .value(0))
        XCTAssertEqual(h.meanMicroseconds, 0)
        XCTAssertEqual(h.shareBelow(1), 1)
        // 10 zeros, 5 in range at 1000, 5 overflow: p50 (rank 10) = 0, p75 (rank 15) = 1000, p99 above max.
        for _ in 0..<5 { h.record(1000) }
        for _ in 0..<5 { h.record(1001) }
        XCTAssertEqual(h.count, 20)
        XCTAssertEqual(h.overflowCount, 5)
        XCTAssertEqual(h.quantile(0.5), .value(0))
        XCTAssertEqual(h.quantile(0.75), .value(1000))
        XCTAssertEqual(h.quantile(0.99), .aboveMaximum)
        XCTAssertNil(h.quantile(0.99).microseconds)
        XCTAssertEqual(h.meanMicroseconds, 5000.0 / 15)
        XCTAssertEqual(h.shareBelow(2000), 0.75)  // overflow values count as not below
        let s = h.summary(thresholdMicroseconds: 500)
        XCTAssertEqual(s.p50Microseconds, 0)
        XCTAssertNil(s.p99Microseconds)
        XCTAssertEqual(s.shareBelowThreshold, 0.5)
        XCTAssertThrowsError(try LatencyHistogram(maxValueMicroseconds: 0))
        XCTAssertThrowsError(try LatencyHistogram(maxValueMicroseconds: LatencyHistogram.maxValueLimitMicroseconds + 1))
    }
}

final class PerSecondCounterTests: XCTestCase {
    func testCountsHorizonOverflowMergeAndCodable() throws {
        var a = try PerSecondCounter(horizonSeconds: 10)
        a.add(atMicroseconds: 0)
        a.add(atMicroseconds: 999_999)
        a.add(atMicroseconds: 9_999_999, times: 3)
        a.add(atMicroseconds: 10_000_000)  // first instant past the horizon
        a.add(atMicroseconds: -1)
        XCTAssertEqual(a[0], 2)
        XCTAssertEqual(a[9], 3)
        XCTAssertEqual(a[10], 0)
        XCTAssertEqual(a.beyondHorizonCount, 1)
        XCTAssertEqual(a.beforeStartCount, 1)
        XCTAssertEqual(a.totalCount, 7)
        XCTAssertEqual(a.peak?.second, 9)

        var b = try PerSecondCounter(horizonSeconds: 10)
        b.add(atMicroseconds: 5_500_000, times: 4)
        var all = try PerSecondCounter(horizonSeconds: 10)
        for (t, n) in [(Int64(0), UInt64(1)), (999_999, 1), (9_999_999, 3), (10_000_000, 1), (-1, 1), (5_500_000, 4)] {
            all.add(atMicroseconds: t, times: n)
        }
        try a.merge(b)
        XCTAssertEqual(a, all)
        XCTAssertThrowsError(try a.merge(PerSecondCounter(horizonSeconds: 11)))

        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = try encoder.encode(a)
        XCTAssertEqual(String(decoding: data, as: UTF8.self),
                       #"{"beforeStartCount":1,"beyondHorizonCount":1,"horizonSeconds":10,"seconds":[[0,2],[5,4],[9,3]]}"#)
        XCTAssertEqual(try JSONDecoder().decode(PerSecondCounter.self, from: data), a)
        let outside = #"{"beforeStartCount":0,"beyondHorizonCount":0,"horizonSeconds":10,"seconds":[[10,1]]}"#
        XCTAssertThrowsError(try JSONDecoder().decode(PerSecondCounter.self, from: Data(outside.utf8)))
        XCTAssertThrowsError(try PerSecondCounter(horizonSeconds: 0))
    }
}
