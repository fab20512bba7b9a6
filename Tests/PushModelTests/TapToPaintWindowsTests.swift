import Foundation
import SimStats
import XCTest
@testable import PushModel

/// Tap to paint over time: every painted tap is counted once, in the 10-second window of its tap.
final class TapToPaintWindowsTests: XCTestCase {
    func testEveryPaintedTapIsInTheWindowOfItsTap() throws {
        let seed: UInt64 = 11
        let r = try simulate(smallWorld(devices: 3_000), seed: seed)
        let w = r.tapToPaintWindows
        XCTAssertEqual(w.windowSeconds, 10)
        XCTAssertEqual(w.windowCount, 360, "3600 s horizon")
        XCTAssertGreaterThan(r.tapToPaint.count, 100, "seed \(seed)")
        // Exactly one window per painted tap.
        XCTAssertEqual(w.totalCount, r.tapToPaint.count, "seed \(seed)")
        // Binned by the tap's instant: a window holds at most the taps of its seconds (taps that
        // failed to paint or were still loading at the horizon are in the taps series only), so a
        // window without taps is empty even when paints of earlier taps happen in it.
        var painted: UInt64 = 0
        for window in 0..<w.windowCount {
            let seconds = (window * 10)..<min(3_600, window * 10 + 10)
            let taps = seconds.reduce(UInt64(0)) { $0 + r.series.taps[$1] }
            XCTAssertLessThanOrEqual(w.count(window: window), taps, "window \(window) seed \(seed)")
            if taps == 0 { XCTAssertEqual(w.count(window: window), 0) }
            painted += w.count(window: window)
        }
        XCTAssertEqual(painted, r.series.paints.totalCount, "the paints series counts the same paints by paint time")
    }
}
