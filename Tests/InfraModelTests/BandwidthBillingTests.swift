import XCTest
@testable import InfraModel

/// The 95th-percentile billing rule on series whose answer follows by hand.
final class BandwidthBillingTests: XCTestCase {
    /// 20 samples: ⌈0.95 · 20⌉ = 19, so the single highest sample is discarded and the 19th of the
    /// sorted rates is billed.
    func testDiscardsTheTopFivePercentOfSamples() {
        var series = [UInt64](repeating: 0, count: 20 * 300)
        for k in 0..<20 {  // sample k carries (k + 1) · 1 000 bytes per second
            for s in 0..<300 { series[k * 300 + s] = UInt64(k + 1) * 1_000 }
        }
        XCTAssertEqual(BandwidthBilling.percentile95BitsPerSecond(bytesPerSecond: series), 19_000 * 8)
    }

    /// A one-minute burst inside a 100-minute quiet series is billed at the quiet rate: 20 samples,
    /// the burst's one sample is the discarded top 5 %.
    func testShortBurstIsNotBilled() {
        var series = [UInt64](repeating: 125, count: 6_000)  // 1 000 bit/s
        for s in 600..<660 { series[s] = 1_250_000 }          // 10 Mbit/s for 60 s
        XCTAssertEqual(BandwidthBilling.percentile95BitsPerSecond(bytesPerSecond: series), 1_000)
    }

    /// A partial last sample is a rate over its own length; one sample is its own percentile.
    func testPartialSampleAndEdges() {
        XCTAssertEqual(BandwidthBilling.percentile95BitsPerSecond(bytesPerSecond: []), 0)
        XCTAssertEqual(BandwidthBilling.percentile95BitsPerSecond(bytesPerSecond: [UInt64](repeating: 10, count: 30)), 80)
        XCTAssertEqual(BandwidthBilling.percentileOfSamples([5, 1, 3], percentile: 0.5), 3)
    }
}
