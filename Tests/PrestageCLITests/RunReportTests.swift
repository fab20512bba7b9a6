import Foundation
import ReportKitTesting
import XCTest
@testable import Experiments
@testable import PrestageCLI
import PushModel
import ReportKit
import ScenarioFormat

/// The report of a real (small) run, read as a user reads it: human titles with the id in small
/// print, units for people, the header with what actually ran, the alarm level on the hit-ratio chart,
/// charts focused on the action; and in headless Chromium at desktop and phone width.
final class RunReportTests: XCTestCase {
    func testDefaultRunReportReadsLikeAReport() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let out = t.root.appendingPathComponent("r")
        XCTAssertEqual(t.run(["run", "default", "--devices", "150", "--replications", "3", "--set", "run.seed=3", "--out", out.path]), .ok, t.err.text)
        let html = try String(contentsOf: out.appendingPathComponent("report.html"), encoding: .utf8)
        let markdown = try String(contentsOf: out.appendingPathComponent("report.md"), encoding: .utf8)
        // The title says what ran when --devices changed the population.
        XCTAssertTrue(html.contains("<h1>default — run with 150 devices (--devices)</h1>"), String(html.prefix(3000)))
        XCTAssertTrue(html.contains("<dt>Devices</dt><dd>150</dd>"))
        XCTAssertTrue(html.contains("<code>--devices 150</code> <code>--replications 3</code> <code>--set run.seed=3</code>"))
        if let revision = SourceRevision.current {
            XCTAssertTrue(html.contains("<dt>Source revision</dt><dd><code>" + revision + "</code></dd>"))
        }
        // Headline cards: the metric table's titles, ids in small print, no raw units.
        XCTAssertTrue(html.contains("<h3>Tap to paint, median</h3>\n<p class=\"metric-id\"><code>tapToPaint.<wbr>p50Seconds</code></p>"))
        XCTAssertTrue(html.contains("<h3>Origin peak requests per second</h3>"))
        XCTAssertFalse(html.contains(" 1/s"), "rates read as /s or req/s")
        XCTAssertFalse(html.contains("e+"), "no exponent notation")
        // The hit-ratio chart draws its alarm level; time charts are focused with a whole-run overview.
        XCTAssertTrue(html.contains("class=\"reference\""))
        XCTAssertTrue(html.contains("alarm below 90.0 %"))
        XCTAssertTrue(html.contains("class=\"overview-focus\""))
        XCTAssertTrue(markdown.contains("**Overrides:** `--devices 150` `--replications 3` `--set run.seed=3`"))
        XCTAssertTrue(markdown.contains("| Tap to paint, median "), "human titles in report.md")
        // The bandwidth views: the edge's and the upstream tiers' egress in bit/s, and the region table.
        XCTAssertTrue(html.contains("CDN egress (edge → devices)"))
        XCTAssertTrue(html.contains("Origin and shield egress"))
        XCTAssertTrue(html.contains("Bandwidth (Mbit/s)") || html.contains("Bandwidth (kbit/s)") || html.contains("Bandwidth (Gbit/s)"), "bit/s at a readable scale")
        XCTAssertTrue(html.contains("Regions with the highest edge bandwidth"))
        let charts = html.components(separatedBy: "<figure").count - 1
        XCTAssertGreaterThanOrEqual(charts, 8)
        try assertReportLayout(html: html, name: "run-default", expectedCharts: charts)
    }

    /// Tap to paint over time: p50 and p95 per 10 s of tap time, exactly the values of
    /// tap-to-paint-windows.csv and of the aggregate (the replications run again here), with the
    /// scenario's p95 objective drawn; laid out in Chromium like every chart.
    func testTapToPaintOverTimeChartPlotsTheWindows() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let out = t.root.appendingPathComponent("r")
        let objective = #"slo=[{"metric": "tapToPaint.p95Seconds", "op": "<=", "threshold": 1.2}]"#
        XCTAssertEqual(t.run(["run", "default", "--devices", "150", "--replications", "2", "--set", "run.seed=5", "--set", objective,
                              "--out", out.path]), .ok, t.err.text)
        let csv = try String(contentsOf: out.appendingPathComponent(MetricTable.tapToPaintWindowsFile), encoding: .utf8)
        let lines = csv.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        XCTAssertEqual(lines.first, MetricTable.tapToPaintWindowColumns.map(\.name))
        let rows = Array(lines.dropFirst())

        let scenario = try ScenarioLoader.decode(Data(contentsOf: out.appendingPathComponent("scenario.json")), label: "scenario.json")
        let results = try (0..<2).map { try PushSimulation.run(scenario.modelWorld, masterSeed: scenario.run.seed, replication: $0) }
        let aggregate = try RunAggregate(results: results, confidenceLevel: scenario.run.confidenceLevel)
        XCTAssertEqual(aggregate.tapToPaintWindows.reduce(0) { $0 + $1.count }, results.reduce(0) { $0 + $1.tapToPaint.count })
        XCTAssertEqual(rows.count, aggregate.tapToPaintWindows.count)
        let chart = ReportBuilder.tapToPaintOverTimeChart(scenario: scenario, aggregate: aggregate)
        XCTAssertEqual(chart.series.map(\.name), ["p50", "p95"])
        var plotted = 0
        for (i, line) in chart.series.enumerated() {
            XCTAssertEqual(line.points.count, rows.count)
            for (point, (row, window)) in zip(line.points, zip(rows, aggregate.tapToPaintWindows)) {
                XCTAssertEqual(point.seconds, Double(row[0]))
                XCTAssertEqual(row[2], String(window.count))
                if window.count == 0 {
                    XCTAssertTrue(point.value.isNaN, "a gap, not 0")
                    XCTAssertEqual(row[3 + i], "", "no value, not 0 or NaN")
                } else {
                    XCTAssertEqual(point.value, window.quantilesMicroseconds[i] / 1000)
                    XCTAssertEqual(point.value, try XCTUnwrap(Double(row[3 + i])) * 1000, accuracy: 0.001)
                    plotted += 1
                }
            }
        }
        XCTAssertGreaterThan(plotted, 10)
        XCTAssertEqual(chart.referenceLines, [ReferenceLine(value: 1200, label: "objective p95 <= 1.20 s", kind: .target)])
        let taps = try XCTUnwrap(ReportBuilder.timeCharts(scenario: scenario, aggregate: aggregate).first { $0.title == "Taps and paints" })
        XCTAssertEqual(chart.focus, taps.focus, "the taps chart's focus")
        let visible = chart.focus ?? TimeRange(fromSeconds: 0, toSeconds: scenario.world.horizonSeconds)
        XCTAssertTrue(chart.series[1].points.contains { visible.contains($0.seconds) && $0.value.isFinite }, "data in the visible range")

        let html = try String(contentsOf: out.appendingPathComponent("report.html"), encoding: .utf8)
        let markdown = try String(contentsOf: out.appendingPathComponent("report.md"), encoding: .utf8)
        XCTAssertTrue(html.contains("Tap to paint over time"))
        XCTAssertTrue(html.contains("objective p95 &lt;= 1.20 s"), "the objective is drawn")
        XCTAssertTrue(markdown.contains("Tap to paint over time"))
        let charts = html.components(separatedBy: "<figure").count - 1
        try assertReportLayout(html: html, name: "run-tap-to-paint-over-time", expectedCharts: charts)
    }

    /// A cold send (nothing warmed): the pre-stage misses of each region all fall in the first bin after
    /// the send, a one-point series. The region chart still shows a mark for each region (a line of one
    /// point draws nothing), and Chromium finds no chart drawn empty at either width.
    func testColdSendRegionChartIsNotDrawnEmpty() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let out = t.root.appendingPathComponent("r")
        XCTAssertEqual(t.run(["run", "default", "--devices", "150", "--replications", "2", "--set", "run.seed=4",
                              "--set", "campaigns[0].warm.mode=none", "--out", out.path]), .ok, t.err.text)
        let csv = try String(contentsOf: out.appendingPathComponent("region-misses.csv"), encoding: .utf8)
        let bins = Set(csv.split(separator: "\n").dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false)[2] })
        XCTAssertEqual(bins, ["0"], "every miss in the first bin: the case under test\n" + csv)
        let html = try String(contentsOf: out.appendingPathComponent("report.html"), encoding: .utf8)
        XCTAssertTrue(html.contains("Pre-stage misses by region"))
        XCTAssertTrue(html.contains("class=\"series-point\""), "the one-bin series drawn as marks")
        // PoPs and regions by name in the table, the chart and the CSVs.
        XCTAssertTrue(html.range(of: #"<td data-label="PoP">pop-\d+</td><td data-label="Regions">region \d+"#, options: .regularExpression) != nil,
                      "PoP codes and region names in the PoP table")
        XCTAssertTrue(csv.split(separator: "\n").dropFirst().allSatisfy { $0.contains(",region ") })
        // A cold send misses at the edge: the hit-ratio card raises its alarm and says where to look.
        let lookAt = "What to look at: warm earlier or warm the PoPs that miss: see the region chart and the PoP table (pops.csv)."
        XCTAssertTrue(html.contains("<p class=\"look-at\">" + lookAt + "</p>"), "the alarm's hint on its card")
        let markdown = try String(contentsOf: out.appendingPathComponent("report.md"), encoding: .utf8)
        XCTAssertTrue(markdown.contains("- **Pre-stage edge hit ratio**: " + lookAt), "and in report.md")
        let charts = html.components(separatedBy: "<figure").count - 1
        try assertReportLayout(html: html, name: "run-cold-send", expectedCharts: charts)
    }

    /// Every chart of a real run's report, the outcome breakdown's ten buckets included, keeps its
    /// series apart by the colour rule (CIEDE2000 ≥ 10, normal vision, protanopia and deuteranopia).
    func testRunReportChartColoursAreDistinguishable() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let out = t.root.appendingPathComponent("r")
        XCTAssertEqual(t.run(["run", "default", "--devices", "150", "--replications", "2", "--set", "campaigns[0].warm.mode=none",
                              "--out", out.path]), .ok, t.err.text)
        let scenario = try ScenarioLoader.decode(Data(contentsOf: out.appendingPathComponent("scenario.json")), label: "scenario.json")
        let results = try (0..<2).map { try PushSimulation.run(scenario.modelWorld, masterSeed: scenario.run.seed, replication: $0) }
        let aggregate = try RunAggregate(results: results, confidenceLevel: scenario.run.confidenceLevel)
        let tables = PopAndRegionTables(results: results, regionPops: scenario.world.infra.topology.effectiveRegions.map(\.popIndex),
                                        confidenceLevel: scenario.run.confidenceLevel)
        let report = ReportBuilder.build(scenario: scenario, hash: "h", aggregate: aggregate, tables: tables, results: results)
        let charts = report.sections.flatMap { $0.blocks }.compactMap { block -> Chart? in
            if case .chart(let chart) = block { return chart }
            return nil
        }
        XCTAssertTrue(charts.contains { $0.title == "Preload outcome per push" })
        XCTAssertTrue(charts.contains { $0.title == "Pre-stage misses by region" })
        XCTAssertEqual(charts.flatMap(ColourVision.problems(in:)), [])
    }

    /// The origin chart carries the origin workers' throughput (workers ÷ mean service time) as a grey
    /// line when its traffic comes near it, and says the figure when it stays far below.
    func testOriginChartShowsTheWorkersCapacity() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let out = t.root.appendingPathComponent("r")
        XCTAssertEqual(t.run(["run", "send-rate-vs-origin", "--devices", "20000", "--replications", "2", "--out", out.path]), .ok, t.err.text)
        let scenario = try ScenarioLoader.decode(Data(contentsOf: out.appendingPathComponent("scenario.json")), label: "scenario.json")
        let near = ReportBuilder.originCapacity(scenario: scenario, peak: 1_000)
        XCTAssertEqual(near.line, ReferenceLine(value: 1_600, label: "origin capacity " + HumanScale.format(1_600, unit: .perSecond(noun: "req")), kind: .capacity),
                       "32 workers at 20 ms")
        XCTAssertTrue(near.text.contains("32 worker(s) ÷ mean service time 20.0 ms"), near.text)
        let far = ReportBuilder.originCapacity(scenario: scenario, peak: 100)
        XCTAssertNil(far.line)
        XCTAssertTrue(far.text.contains("far above this chart's peak"), far.text)
        let html = try String(contentsOf: out.appendingPathComponent("report.html"), encoding: .utf8)
        XCTAssertTrue(html.contains("origin capacity " + HumanScale.format(1_600, unit: .perSecond(noun: "req"))), "the cold blast reaches the origin's capacity")
        let charts = html.components(separatedBy: "<figure").count - 1
        try assertReportLayout(html: html, name: "run-origin-capacity", expectedCharts: charts)
    }
}
