import Foundation
import XCTest
@testable import PushModel

/// The calibration world lands near the practitioner account's figures. Acceptance bounds and
/// their justification are documented on `PushWorldConfig.calibration(_:)`: ±10 % on medians and
/// means, ±15 % on the p90, ±2 points on the timeout share, the published range for edge hits,
/// 99.1 % ± 0.5 points for their success. Sampling error at this size (≈ 3 300 LTE taps,
/// 10 000 background fetches) is far inside them: ≈ 2 % for a median, ≈ 0.3 points for a share.
final class CalibrationTests: XCTestCase {
    let seed: UInt64 = 2026

    func testWithoutPreStagingTapToPaintOnLTE() throws {
        let r = try simulate(.calibration(.withoutPreStaging), seed: seed)
        let p50 = r.value("tapToPaint.lte.p50Seconds"), p90 = r.value("tapToPaint.lte.p90Seconds")
        XCTAssertEqual(p50, 2.7, accuracy: 0.27, "median tap-to-paint on LTE without pre-staging (seed \(seed))")
        XCTAssertEqual(p90, 5.8, accuracy: 0.87, "p90 tap-to-paint on LTE without pre-staging (seed \(seed))")
        XCTAssertGreaterThan(r.tapToPaint.count, 2_000, "seed \(seed)")
    }

    func testWithPreStagingUnder400ms() throws {
        let r = try simulate(.calibration(.preStaged), seed: seed)
        XCTAssertLessThan(r.value("tapToPaint.lte.p50Seconds"), 0.4, "median tap-to-paint with pre-staging (seed \(seed))")
        XCTAssertEqual(r.value("edge.prestageHitRatio"), 1, "warmed 5 min ahead (seed \(seed))")
    }

    func testBackgroundFetchFromOrigin() throws {
        let r = try simulate(.calibration(.originDirect), seed: seed)
        XCTAssertEqual(r.value("extension.downloadMeanSeconds"), 0.84, accuracy: 0.084, "mean origin fetch on LTE (seed \(seed))")
        XCTAssertEqual(r.value("extension.fetchTimeoutShare"), 0.12, accuracy: 0.02, "extension timeouts (seed \(seed))")
        XCTAssertEqual(r.value("edge.prestageHitRatio"), 0, "every signed URL misses (seed \(seed))")
    }

    func testBackgroundFetchAsEdgeHit() throws {
        let r = try simulate(.calibration(.edgeWarm), seed: seed)
        let p50 = r.value("extension.download.p50Seconds")
        XCTAssertTrue((0.045...0.110).contains(p50), "edge hit median \(p50) s outside 45–110 ms (seed \(seed))")
        XCTAssertEqual(r.value("extension.fetchSuccessRatio"), 0.991, accuracy: 0.005, "edge hit success (seed \(seed))")
    }
}
