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
        // The result's 2 s are kept apart: a running replication at or past the finished one's
        // events is credited the seconds its events took, never the result's.
        XCTAssertEqual(pace.resultSeconds, 2, accuracy: 1e-9)
        XCTAssertEqual(pace.seconds(atEvents: 20_000), 40, accuracy: 1e-9)
        XCTAssertEqual(pace.seconds(atEvents: 20_000 + 5), 40, accuracy: 1e-9)
    }

    /// Events after the last report are taken at the pace of the last reports; the rest of the
    /// total is the result's (reports every 1 000 events at 1 ms each, 400 events more, then 1.5 s).
    func testEventsAfterTheLastReportAreNotTheResultsTime() {
        var pace = PaceProfile()
        for e in stride(from: 1_000.0, through: 10_000, by: 1_000) { pace.record(events: e, seconds: e / 1_000) }
        pace.close(events: 10_400, seconds: 10.4 + 1.5)
        XCTAssertEqual(pace.totalSeconds, 11.9, accuracy: 1e-9)
        XCTAssertEqual(pace.resultSeconds, 1.5, accuracy: 1e-9)
        XCTAssertEqual(pace.seconds(atEvents: 10_200), 10.2, accuracy: 1e-9)
        XCTAssertEqual(pace.seconds(atEvents: 50_000), 10.4, accuracy: 1e-9)
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
