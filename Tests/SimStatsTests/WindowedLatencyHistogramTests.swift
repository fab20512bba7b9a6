import Foundation
import XCTest
@testable import SimStats

final class WindowedLatencyHistogramTests: XCTestCase {
    func testBucketsTileTheRangeWithBoundedWidth() {
        // Every bucket index round-trips through its lower bound, buckets are contiguous, and a
        // bucket's width is at most max(1, lower/32): the basis of the 1/64 error bound.
        var expectedLower: UInt64 = 0
        for i in 0..<(64 + 32 * 40) {
            let b = WindowedLatencyHistogram.halfCountBits
            let lower = LogBuckets.lowerBound(i, halfCountBits: b), width = LogBuckets.width(i, halfCountBits: b)
            XCTAssertEqual(lower, expectedLower, "bucket \(i)")
            XCTAssertEqual(LogBuckets.index(lower, halfCountBits: b), i)
            XCTAssertEqual(LogBuckets.index(lower + width - 1, halfCountBits: b), i)
            XCTAssertTrue(width == 1 || width * 32 <= lower, "bucket \(i)")
            expectedLower = lower + width
        }
    }

    func testEveryValueLandsInTheWindowOfItsTimeAndQuantilesAreWithinTheBound() throws {
        // Lognormal latencies (median e^12.2 ≈ 200 ms) at times spread over a 3600 s horizon.
        let seed: UInt64 = 4242
        let values = try lognormalMicroseconds(seed: seed, count: 30_000, mu: 12.2, sigma: 1.2)
        var h = try WindowedLatencyHistogram(horizonSeconds: 3_600, preferredWindowSeconds: 10)
        XCTAssertEqual(h.windowSeconds, 10)
        XCTAssertEqual(h.windowCount, 360)
        XCTAssertEqual(h.bucketCount, 886, "3.5 KiB of counters per window")
        var byWindow = [[Int64]](repeating: [], count: 360)
        for (k, v) in values.enumerated() {
            let time = Int64(k) * 3_600_000_000 / Int64(values.count) + Int64(k % 7)  // ascending over [0, 3600 s)
            h.record(v, atMicroseconds: time)
            byWindow[Int(time / 10_000_000)].append(v)
        }
        XCTAssertEqual(h.totalCount, UInt64(values.count))
        let windows = try WindowedLatencyHistogram.pooled([h], quantiles: [0.5, 0.95])
        XCTAssertEqual(windows.count, 360)
        for (w, window) in windows.enumerated() {
            XCTAssertEqual(window.startSeconds, 10 * w)
            XCTAssertEqual(window.seconds, 10)
            XCTAssertEqual(window.count, UInt64(byWindow[w].count))
            XCTAssertEqual(h.count(window: w), window.count)
            let sorted = byWindow[w].sorted()
            for (q, estimate) in zip([0.5, 0.95], window.quantilesMicroseconds) {
                let exact = Double(sorted[max(1, Int((q * Double(sorted.count)).rounded(.up))) - 1])
                XCTAssertLessThanOrEqual(abs(estimate - exact), exact * WindowedLatencyHistogram.maximumRelativeError + 1e-9,
                                         "window \(w) q \(q) seed \(seed)")
            }
        }
    }

    func testPoolingAddsReplicationsAndEmptyWindowsHaveNoQuantile() throws {
        var a = try WindowedLatencyHistogram(horizonSeconds: 35, preferredWindowSeconds: 10)
        var b = a
        XCTAssertEqual(a.windowCount, 4, "the last window reaches past the horizon")
        for v in [10, 20, 30] as [Int64] { a.record(v, atMicroseconds: 1_000_000) }
        b.record(40, atMicroseconds: 9_999_999)
        b.record(7_000_000, atMicroseconds: 34_000_000)
        // Outside the horizon (never recorded by the model): the first and the last window.
        b.record(50, atMicroseconds: -1)
        b.record(60, atMicroseconds: 36_000_000)
        let windows = try WindowedLatencyHistogram.pooled([a, b], quantiles: [0.5, 0.95])
        XCTAssertEqual(windows.map(\.count), [5, 0, 0, 2])
        XCTAssertEqual(windows[0].quantilesMicroseconds, [30, 50], "nearest rank of 10, 20, 30, 40, 50 (exact below 64 µs)")
        XCTAssertEqual(windows[1].quantilesMicroseconds, [])
        XCTAssertEqual(windows[3].quantilesMicroseconds.count, 2)
        let other = try WindowedLatencyHistogram(horizonSeconds: 36, preferredWindowSeconds: 10)
        XCTAssertThrowsError(try WindowedLatencyHistogram.pooled([a, other], quantiles: [0.5]))
    }

    func testLongHorizonsWidenTheWindowToStayWithinTheCounterBudget() throws {
        let day = try WindowedLatencyHistogram(horizonSeconds: 86_400, preferredWindowSeconds: 10)
        XCTAssertLessThanOrEqual(day.windowCount * day.bucketCount, WindowedLatencyHistogram.countersMax)
        XCTAssertEqual(day.windowSeconds, 80)
        let sixHours = try WindowedLatencyHistogram(horizonSeconds: 6 * 3_600, preferredWindowSeconds: 10)
        XCTAssertEqual(sixHours.windowSeconds, 10)
        let week = try WindowedLatencyHistogram(horizonSeconds: 604_800, preferredWindowSeconds: 10)
        XCTAssertLessThanOrEqual(week.windowCount * week.bucketCount, WindowedLatencyHistogram.countersMax)
        XCTAssertThrowsError(try WindowedLatencyHistogram(horizonSeconds: 0, preferredWindowSeconds: 10))
        XCTAssertThrowsError(try WindowedLatencyHistogram(horizonSeconds: 5, preferredWindowSeconds: 10))
    }

    func testCodableRoundTripAndValidation() throws {
        var h = try WindowedLatencyHistogram(horizonSeconds: 100, preferredWindowSeconds: 10)
        for k in 0..<500 { h.record(Int64(k * 997), atMicroseconds: Int64(k) * 199_999) }
        let data = try JSONEncoder().encode(h)
        XCTAssertEqual(try JSONDecoder().decode(WindowedLatencyHistogram.self, from: data), h)
        let bad = #"{"horizonSeconds": 100, "windowSeconds": 10, "buckets": [[3, 5, 1], [3, 5, 2]]}"#
        XCTAssertThrowsError(try JSONDecoder().decode(WindowedLatencyHistogram.self, from: Data(bad.utf8)))
        let outside = #"{"horizonSeconds": 100, "windowSeconds": 10, "buckets": [[10, 5, 1]]}"#
        XCTAssertThrowsError(try JSONDecoder().decode(WindowedLatencyHistogram.self, from: Data(outside.utf8)))
    }
}
