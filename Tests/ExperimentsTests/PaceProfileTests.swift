import XCTest
@testable import Experiments

/// The pace of a finished replication: interpolated exactly on a known piecewise-linear pace,
/// bounded in points whatever the replication's length, and never "done" before it is closed.
final class PaceProfileTests: XCTestCase {
    /// A pace of 1 s per 1 000 events for the first 10 000 events, then 3 s per 1 000, then a
    /// 2 s result: every event count reads the seconds of that line (reports every 100 events).
    func testInterpolatesAKnownPaceAndCountsTheResultTime() {
        var pace = PaceProfile()
        func seconds(_ e: Double) -> Double { e <= 10_000 ? e / 1_000 : 10 + (e - 10_000) * 3 / 1_000 }
        for e in stride(from: 100.0, through: 20_000, by: 100) { pace.record(events: e, seconds: seconds(e)) }
        pace.close(events: 20_000, seconds: seconds(20_000) + 2)
        XCTAssertEqual(pace.totalSeconds, 42, accuracy: 1e-12)
        for e in [0.0, 50, 4_321, 10_000, 12_345, 19_999.0 - 99] {
            XCTAssertEqual(pace.seconds(atEvents: e), seconds(e), accuracy: 1e-9, "at \(e) events")
        }
        // Between the last report and the close the result's 2 s are spread over the last events;
        // past the events of the finished replication it is not done.
        XCTAssertLessThan(pace.seconds(atEvents: 20_000 + 5), 42)
        XCTAssertGreaterThan(pace.seconds(atEvents: 20_000 + 5), 41.9)
    }

    /// A million reports keep at most `samplesMax` points, the first and last among them, and the
    /// pace is still within one spacing of the truth (a uniform pace of 1 ms per event).
    func testPointsAreBoundedAndKeepTheShape() {
        var pace = PaceProfile()
        for e in 1...1_000_000 { pace.record(events: Double(e), seconds: Double(e) / 1_000) }
        XCTAssertLessThanOrEqual(pace.points.count, PaceProfile.samplesMax)
        XCTAssertEqual(pace.points.first?.events, 0)
        pace.close(events: 1_000_000, seconds: 1_000)
        for e in stride(from: 0.0, to: 1_000_000, by: 77_777) {
            XCTAssertEqual(pace.seconds(atEvents: e), e / 1_000, accuracy: 1e-9, "a uniform pace is linear between any points")
        }
        // Going back in events or time is ignored, and nothing is recorded once closed.
        let count = pace.points.count
        pace.record(events: 2_000_000, seconds: 2_000)
        XCTAssertEqual(pace.points.count, count)
    }
}
