import XCTest
@testable import Experiments
@testable import PushModel
import SimStats

/// The memory estimate counts the per-campaign counters of a scenario with two campaigns or more:
/// per campaign one tap-to-paint histogram and its counters, and 8 bytes a second of horizon.
final class MemoryEstimateCampaignsTests: XCTestCase {
    func testEstimateRisesByThePerCampaignCountersWithTwoCampaignsOrMore() throws {
        func inputs(_ campaigns: Int) -> MemoryInputs {
            MemoryInputs(devices: 100_000, pushesTargeted: 100_000, activeSessionsPeak: 1_000, horizonSeconds: 86_400,
                         replications: 4, concurrentReplications: 2, campaigns: campaigns)
        }
        let histogram = try LatencyHistogram(maxValueMicroseconds: PushMetrics.histogramMaxMicroseconds)
        XCTAssertEqual(histogram.bucketCount * 8, 185_768, "about 181 KiB, as docs/metrics.md says")
        XCTAssertGreaterThanOrEqual(CampaignTallyBytes.fixedPerCampaign, UInt64(histogram.bucketCount * 8))
        XCTAssertLessThan(CampaignTallyBytes.fixedPerCampaign, UInt64(histogram.bucketCount * 8 + 1_024))
        let base = MemoryEstimate(inputs(1)).totalBytes
        let each = CampaignTallyBytes.fixedPerCampaign + 86_400 * 8
        XCTAssertEqual(MemoryEstimate(inputs(8)).totalBytes - base, 2 * 8 * each)
        XCTAssertEqual(MemoryEstimate(inputs(8)).parts.first { $0.name == "per-campaign counters" }?.bytes, 2 * 8 * each)
        XCTAssertFalse(MemoryEstimate(inputs(1)).parts.contains { $0.name == "per-campaign counters" })
        // One campaign: the inputs encode as before (no new key in run-info.json).
        let json = String(decoding: try JSONEncoder().encode(inputs(1)), as: UTF8.self)
        XCTAssertFalse(json.contains("campaignTallies"), json)
    }
}
