import ReportKitTesting
import XCTest
@testable import ReportKit

/// The colour-distance rule charts are held to (docs/report.md): every two series drawn with the same
/// mark differ by CIEDE2000 ≥ 10 in normal vision and under simulated protanopia and deuteranopia.
final class ColourVisionTests: XCTestCase {
    /// Sharma, Wu & Dalal (2005), test data pairs 1, 2 and 17.
    func testCIEDE2000MatchesThePublishedTestData() {
        XCTAssertEqual(ColourVision.ciede2000((50, 2.6772, -79.7751), (50, 0, -82.7485)), 2.0425, accuracy: 0.0001)
        XCTAssertEqual(ColourVision.ciede2000((50, 3.1571, -77.2803), (50, 0, -82.7485)), 2.8615, accuracy: 0.0001)
        XCTAssertEqual(ColourVision.ciede2000((50, 2.5, 0), (73, 25, -18)), 27.1492, accuracy: 0.0001)
    }

    func testSimulationMergesWhatDichromatsConfuse() {
        // Red and green are far apart in normal vision and close for a dichromat; white stays white.
        let normal = ColourVision.normal.distance("#D55E00", "#009E73")
        XCTAssertGreaterThan(normal, 40)
        XCTAssertLessThan(ColourVision.deuteranopia.distance("#CC79A7", "#8A8F98"), 5, "the old pink and grey, as a deuteranope sees them")
        let white = ColourVision.protanopia.lab("#FFFFFF")
        XCTAssertEqual(white.l, 100, accuracy: 0.01)
        XCTAssertEqual(white.a, 0, accuracy: 0.01)
    }

    func testEveryPaletteColourPairPassesTheRule() {
        for (i, a) in ChartColor.allCases.enumerated() {
            for b in ChartColor.allCases.dropFirst(i + 1) {
                for vision in ColourVision.allCases {
                    XCTAssertGreaterThanOrEqual(vision.distance(a.hex, b.hex), ColourVision.minimumDistance, "\(a) / \(b), \(vision)")
                }
            }
        }
    }

    func testSampleReportChartsPassTheRule() {
        let charts = SampleReport.report().sections.flatMap { $0.blocks }.compactMap { block -> Chart? in
            if case .chart(let chart) = block { return chart }
            return nil
        }
        XCTAssertFalse(charts.isEmpty)
        XCTAssertEqual(charts.flatMap(ColourVision.problems(in:)), [])
    }

    func testTwoSeriesOfOneColourAndMarkBreakTheRule() {
        let chart = Chart.breakdown(BreakdownChart(title: "t", summary: "s", countNoun: "pushes",
                                                   categories: [BreakdownCategory("a", color: .grey), BreakdownCategory("b", color: .grey)],
                                                   bars: [BreakdownBar(label: "all", counts: [1, 1])]))
        XCTAssertEqual(ColourVision.problems(in: chart).count, 3, "the same grey in all three visions")
    }
}

/// An alarm's "what to look at" line shows only when the level is crossed or the interval crosses it.
final class LookAtLineTests: XCTestCase {
    func testTheHintShowsOnlyWhenTheAlarmCallsForIt() {
        func card(_ value: Double, halfWidth: Double) -> HeadlineMetric {
            var m = HeadlineMetric(name: "Hit ratio", unit: "%", value: value, decimals: 1, ciHalfWidth: halfWidth,
                                   threshold: Threshold(value: 90, alarmWhen: .below))
            m.lookAt = "warm earlier"
            return m
        }
        XCTAssertNil(card(99, halfWidth: 1).lookAtLine, "clear: no hint")
        XCTAssertEqual(card(91, halfWidth: 3).lookAtLine, "What to look at: warm earlier.")
        XCTAssertEqual(card(50, halfWidth: 1).lookAtLine, "What to look at: warm earlier.")
        var plain = card(50, halfWidth: 1)
        plain.lookAt = ""
        XCTAssertNil(plain.lookAtLine)
        let html = HTMLRenderer().render(Report(title: "t", scenario: ScenarioSummary(name: "s", question: "q"),
                                                provenance: RunProvenance(seed: 1, replications: 2, toolVersion: "v", scenarioHash: "h"),
                                                headlines: [card(50, halfWidth: 1), card(99, halfWidth: 1)], sections: []))
        XCTAssertEqual(html.components(separatedBy: "class=\"look-at\"").count - 1, 1)
    }
}
