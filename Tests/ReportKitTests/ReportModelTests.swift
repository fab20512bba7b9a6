import XCTest
@testable import ReportKit

final class ReportModelTests: XCTestCase {
    func testEmpiricalCDFHasOneStepPerDistinctValue() {
        let series = CDFSeries.empirical(name: "x", samples: [3, 1, 2, 2, .nan])
        // Four finite samples: ≤1 is 1/4, ≤2 is 3/4, ≤3 is 4/4; the curve starts at (min, 0).
        XCTAssertEqual(series.points, [CDFPoint(value: 1, fraction: 0), CDFPoint(value: 1, fraction: 0.25),
                                       CDFPoint(value: 2, fraction: 0.75), CDFPoint(value: 3, fraction: 1)])
        XCTAssertEqual(series.value(atFraction: 0.5) ?? .nan, 1.5, accuracy: 1e-12)   // halfway from (1, .25) to (2, .75)
        XCTAssertEqual(series.fraction(atValue: 2.5), 0.875, accuracy: 1e-12)
        XCTAssertEqual(series.fraction(atValue: 0), 0)
        XCTAssertEqual(series.fraction(atValue: 10), 1)
        XCTAssertNil(CDFSeries(name: "half", points: [CDFPoint(value: 1, fraction: 0), CDFPoint(value: 2, fraction: 0.5)]).value(atFraction: 0.9))
        XCTAssertTrue(CDFSeries.empirical(name: "none", samples: [.nan]).points.isEmpty)
    }

    func testEmpiricalCDFThinsToTheLimitKeepingEnds() {
        let samples = (1...1000).map(Double.init)
        let series = CDFSeries.empirical(name: "x", samples: samples, pointsMax: 10)
        XCTAssertEqual(series.points.count, 11)   // the (min, 0) start plus 10 kept steps
        XCTAssertEqual(series.points.first, CDFPoint(value: 1, fraction: 0))
        XCTAssertEqual(series.points.last, CDFPoint(value: 1000, fraction: 1))
        XCTAssertEqual(series.points.map { $0.value }, series.points.map { $0.value }.sorted())
    }

    func testTimeSeriesPeakAndTimeWeightedMean() {
        // Trapezoids: 0–10 s at mean 1 (area 10), 10–30 s at mean 2 (area 40) → 50 / 30 s; the NaN breaks
        // the 30→40 s pair, and the lone point at 50 s adds no time.
        let series = TimeSeries(name: "x", points: [TimePoint(seconds: 0, value: 0), TimePoint(seconds: 10, value: 2),
                                                    TimePoint(seconds: 30, value: 2), TimePoint(seconds: 40, value: .nan),
                                                    TimePoint(seconds: 50, value: 7)])
        XCTAssertEqual(series.timeWeightedMean ?? .nan, 50.0 / 30.0, accuracy: 1e-12)
        XCTAssertEqual(series.peak, TimePoint(seconds: 50, value: 7))
        XCTAssertEqual(TimeSeries(name: "one", points: [TimePoint(seconds: 3, value: 4)]).timeWeightedMean, 4)
        XCTAssertNil(TimeSeries(name: "none", points: [TimePoint(seconds: .nan, value: 1)]).timeWeightedMean)
        XCTAssertEqual(TimeSeries(name: "tie", points: [TimePoint(seconds: 0, value: 5), TimePoint(seconds: 1, value: 5)]).peak?.seconds, 0,
                       "the first of equal peaks")
    }

    func testThresholdStatusUsesTheConfidenceInterval() {
        let above = Threshold(value: 1.2, alarmWhen: .above)
        XCTAssertEqual(above.status(value: 1.314, ciHalfWidth: 0.05), .breached)
        XCTAssertEqual(above.status(value: 1.18, ciHalfWidth: 0.05), .withinInterval)
        XCTAssertEqual(above.status(value: 1.1, ciHalfWidth: 0.05), .clear)
        XCTAssertEqual(above.status(value: 1.2, ciHalfWidth: 0), .clear, "at the level is not above it")
        XCTAssertEqual(above.status(value: .nan, ciHalfWidth: 0), .breached, "an unknown value must not look fine")
        let below = Threshold(value: 90, alarmWhen: .below)
        XCTAssertEqual(below.status(value: 93.4, ciHalfWidth: 0.6), .clear)
        XCTAssertEqual(below.status(value: 90.3, ciHalfWidth: 0.6), .withinInterval)
        XCTAssertEqual(below.status(value: 89, ciHalfWidth: 0.6), .breached)
    }

    func testBreakdownDataTableCountsAndShares() {
        let table = Chart.breakdown(SampleReport.preloadOutcomes).dataTable
        XCTAssertEqual(table.columns.map { $0.title }, ["Outcome", "iOS", "Android", "All pushes"])
        // iOS: 712,400 of 840,000 = 84.81 %; Android "deferred by Doze" 152,300 of 1,160,000 = 13.13 %.
        XCTAssertEqual(table.rows[0][1].text, "712,400 (84.8%)")
        XCTAssertEqual(table.rows[4][2].text, "152,300 (13.1%)")
        XCTAssertEqual(table.rows.last?.map { $0.text }, ["Total pushes", "840,000", "1,160,000", "2,000,000"])
    }

    func testRaggedRowsAreNormalisedAndBadCountsIgnored() {
        let table = Table(caption: "", columns: [Table.Column("a"), Table.Column("b")], rows: [[.text("1")], [.text("1"), .text("2"), .text("3")]])
        XCTAssertEqual(table.normalizedRows, [[.text("1"), .empty], [.text("1"), .text("2")]])
        let bar = BreakdownBar(label: "x", counts: [5, -3, Int.max, Int.max])
        XCTAssertEqual(bar.count(at: 1), 0)
        XCTAssertEqual(bar.count(at: 9), 0)
        XCTAssertEqual(bar.total(categories: 4), Int.max, "saturates instead of trapping")
    }
}
