import ReportKitTesting
import XCTest
@testable import ReportKit

/// Sweep figures (metric against each axis with bands, a line per value of another axis) and the
/// plain-text / CSV forms of tables.
final class SweepAndTableTextTests: XCTestCase {
    /// warm ahead {0, 300, 600} s × send rate {1000, 4000}/min; p95 falls with warm-ahead, rises with rate.
    static var grid: SweepGrid {
        var points: [SweepGridPoint] = []
        for ahead in [0.0, 300, 600] {
            for rate in [1000.0, 4000] {
                let p95 = 0.3 + 0.9 * exp(-ahead / 200) * rate / 4000
                let hit = 0.5 + 0.45 * (1 - exp(-ahead / 150))
                points.append(SweepGridPoint(coordinates: [ahead, rate],
                                             estimates: [SweepEstimate(mean: p95, halfWidth: 0.02), SweepEstimate(mean: hit, halfWidth: nil)]))
            }
        }
        return SweepGrid(axes: [SweepAxis(path: "world.campaigns[0].warm.aheadSeconds", label: "Warm ahead", unit: "s"),
                                SweepAxis(path: "world.campaigns[0].sendRatePerMinute", label: "Send rate", unit: "/min")],
                         metrics: [SweepMetric(id: "tapToPaint.p95Seconds", title: "Tap to paint, p95", measured: .seconds),
                                   SweepMetric(id: "edge.prestageHitRatio", title: "Pre-stage edge hit ratio", measured: .ratio,
                                               alarm: Threshold(value: 0.9, alarmWhen: .below))],
                         points: points)
    }

    static var report: Report {
        let grid = Self.grid
        return Report(title: "Warm-ahead sweep", scenario: ScenarioSummary(name: "warm-ahead", question: "How far ahead must we warm?"),
                      provenance: RunProvenance(seed: 1, replications: 5, toolVersion: "prestage test", scenarioHash: "sha256:00",
                                                facts: [RunFact("Grid points", "6")]),
                      headlines: [],
                      sections: grid.metrics.map { metric in
                          ReportSection(title: metric.title, blocks: SweepFigures.charts(grid, level: 0.95)
                            .filter { $0.yAxis.label == metric.title }.map { .chart(.line($0)) })
                      } + [ReportSection(title: "Grid points", blocks: [.table(SweepFigures.pointsTable(grid))])])
    }

    func testOneChartPerMetricAndAxisWithALinePerValueOfTheOtherAxis() {
        let charts = SweepFigures.charts(Self.grid, level: 0.95)
        XCTAssertEqual(charts.map { $0.title }, ["Tap to paint, p95 by Warm ahead", "Tap to paint, p95 by Send rate",
                                                 "Pre-stage edge hit ratio by Warm ahead", "Pre-stage edge hit ratio by Send rate"])
        let first = charts[0]
        XCTAssertEqual(first.series.map { $0.name }, ["Send rate 1,000 /min", "Send rate 4,000 /min"])
        XCTAssertEqual(first.series[0].points.map { $0.x }, [0, 300, 600])
        // The largest mean (1.2 s) picks the unit for the whole chart, the interval included.
        XCTAssertEqual(first.yAxis.unit, "s")
        XCTAssertEqual(first.series[1].points[0].y, 1.2, accuracy: 1e-9)
        XCTAssertEqual(first.series[1].points[0].lower ?? .nan, 1.18, accuracy: 1e-9)
        XCTAssertNotEqual(first.series[0].dash, first.series[1].dash, "lines differ by dash as well as colour")
        // The hit ratio in %, with its 90 % alarm line and no bands (no interval).
        let hit = charts[2]
        XCTAssertEqual(hit.yAxis.unit, "%")
        XCTAssertEqual(hit.referenceLines, [ReferenceLine(value: 90, label: "alarm 90.0 %", kind: .alarm)])
        XCTAssertNil(hit.series[0].points[0].lower)
    }

    func testPointsTableListsCoordinatesAndEstimatesInHumanUnits() {
        let table = SweepFigures.pointsTable(Self.grid)
        XCTAssertEqual(table.columns.map { $0.title }, ["Point", "Warm ahead (s)", "Send rate (/min)", "Tap to paint, p95", "Pre-stage edge hit ratio"])
        XCTAssertEqual(table.rows[1].map { $0.text }, ["1", "0", "4,000", "1.20 s ± 0.02", "50.0 %"])
    }

    func testSweepReportLayoutAtDesktopAndPhoneWidth() throws {
        try assertReportLayout(of: Self.report, name: "sweep", expectedCharts: 4)
    }

    func testPlainTextAndCSVTables() {
        let table = Table(caption: "", columns: [Table.Column("Metric"), Table.Column("Change", alignment: .trailing)],
                          rows: [[.text("CDN egress"), .text("-75.0 %")], [.text("p95, \"tap\""), .quantity(0.5, .seconds)]])
        XCTAssertEqual(TableText.plain(table), "Metric       Change\n----------  -------\nCDN egress  -75.0 %\np95, \"tap\"   500 ms\n")
        XCTAssertEqual(TableText.csv(table), "Metric,Change\nCDN egress,-75.0 %\n\"p95, \"\"tap\"\"\",500 ms\n")
        XCTAssertTrue(TableText.markdown(table).hasPrefix("| Metric     |  Change |\n"), TableText.markdown(table))
    }
}
