import Foundation
@testable import ReportKit

/// A realistic report built from closed-form curves (no randomness), used by the renderer tests and the
/// browser test. Numbers are plausible for a 2 M-push flash sale, not results of a simulation.
enum SampleReport {
    /// Charts in the sample, in document order (the browser test counts `<svg` elements against this).
    static var chartCount: Int {
        report().sections.flatMap { $0.blocks }.filter { if case .chart = $0 { return true } else { return false } }.count
    }

    static func report(title: String = "Flash sale, 2 M pushes, warm 10 min ahead",
                       scenarioName: String = "flash-sale-2m") -> Report {
        Report(
            title: title,
            scenario: ScenarioSummary(name: scenarioName,
                                      question: "Does warming the CDN 10 minutes ahead keep 90 % of taps under 500 ms?"),
            provenance: RunProvenance(seed: 20_261_129, replications: 20, toolVersion: "prestage 0.4.0",
                                      scenarioHash: "sha256:9f2c4e1b7a0d3c58e6f1a2b4c7d9e0f3a5b6c8d1e2f4a7b9c0d3e5f6a8b1c2d4",
                                      sourceRevision: "99d84ea",
                                      facts: [RunFact("Devices", "2,000,000"), RunFact("Horizon", "1,800 s"), RunFact("Campaigns", "1")],
                                      overrides: ["--devices 2000000", "--set world.campaigns[0].warm.aheadSeconds=600"]),
            headlines: [
                HeadlineMetric(name: "Taps painted within 500 ms", unit: "%", value: 93.42, decimals: 1, ciHalfWidth: 0.61,
                               threshold: Threshold(value: 90, alarmWhen: .below), note: "Share of opened pushes whose hero image was in the preload store.",
                               id: "tapToPaint.shareUnder500ms"),
                HeadlineMetric(name: "Tap-to-paint p95", id: "tapToPaint.p95Seconds", measuredValue: 0.4123, measured: .seconds, ciHalfWidth: 0.0184),
                HeadlineMetric(name: "Extension download p95", unit: "s", value: 1.314, decimals: 2, ciHalfWidth: 0.052,
                               threshold: Threshold(value: 1.2, alarmWhen: .above), note: "iOS Notification Service Extension, 30 s budget."),
                HeadlineMetric(name: "Edge hit ratio during send", unit: "%", value: 97.21, decimals: 1, ciHalfWidth: 0.38,
                               threshold: Threshold(value: 95, alarmWhen: .below)),
                HeadlineMetric(name: "Origin peak", unit: "req/s", value: 1840, decimals: 0, ciHalfWidth: 175,
                               threshold: Threshold(value: 2000, alarmWhen: .above)),
            ],
            sections: [
                ReportSection(title: "Tap to paint", blocks: [
                    .paragraph("Time from the user's tap to the hero image on screen, per platform and network class."),
                    .chart(.cdf(tapToPaint)),
                ]),
                ReportSection(title: "CDN and origin", blocks: [
                    .chart(.timeSeries(edgeHitRatio)),
                    .chart(.timeSeries(originLoad)),
                ]),
                ReportSection(title: "Sweep", blocks: [
                    .chart(.line(warmAheadSweep)),
                ]),
                ReportSection(title: "Preload outcomes", blocks: [
                    .chart(.breakdown(preloadOutcomes)),
                ]),
                ReportSection(title: "Bytes", blocks: [
                    .chart(.groupedBars(bytes)),
                    .table(Table(caption: "Cost inputs", columns: [Table.Column("Item"), Table.Column("Value", alignment: .trailing)],
                                 rows: [[.text("CDN egress price per GB"), .number(0.02, decimals: 3)],
                                        [.text("Pushes sent"), .count(2_000_000)]])),
                ]),
            ])
    }

    /// Log-normal CDF curves: median `medianMs`, shape `sigma`, evaluated on a log grid.
    static func logNormalCDF(name: String, medianMs: Double, sigma: Double, color: ChartColor? = nil) -> CDFSeries {
        let points = (0...60).map { step -> CDFPoint in
            let x = 20 * pow(10, Double(step) / 60 * 2.5)   // 20 ms ... ~6.3 s
            let z = (log(x) - log(medianMs)) / (sigma * 2.0.squareRoot())
            return CDFPoint(value: x, fraction: 0.5 * erfc(-z))
        }
        return CDFSeries(name: name, color: color, points: points)
    }

    static var tapToPaint: CDFChart {
        CDFChart(title: "Tap-to-paint, cumulative", summary: "Share of taps painted within a given time; the dashed line is the 500 ms target.",
                 valueAxis: ValueAxis(label: "Tap-to-paint", unit: "ms", scale: .logarithmic),
                 series: [logNormalCDF(name: "iOS · Wi-Fi", medianMs: 90, sigma: 0.8),
                          logNormalCDF(name: "iOS · 4G", medianMs: 160, sigma: 0.9),
                          logNormalCDF(name: "Android · Wi-Fi", medianMs: 120, sigma: 0.9),
                          logNormalCDF(name: "Android · 4G", medianMs: 230, sigma: 1.0),
                          logNormalCDF(name: "No pre-staging · 4G", medianMs: 900, sigma: 0.7, color: .grey)],
                 markers: [ChartMarker(at: 500, label: "500 ms target")])
    }

    static var edgeHitRatio: TimeSeriesChart {
        let points = stride(from: 0.0, through: 1800, by: 30).map { t -> TimePoint in
            let warmed = t < 120 ? 0.0 : 1 - exp(-(t - 120) / 140)
            return TimePoint(seconds: t, value: 40 + 57.5 * warmed)
        }
        return TimeSeriesChart(title: "Edge hit ratio", summary: "Share of asset requests served from edge caches, all PoPs.",
                               valueAxis: ValueAxis(label: "Edge hit ratio", unit: "%"), valueDecimals: 1,
                               series: [TimeSeries(name: "Edge hit ratio", style: .area, points: points)],
                               bands: [TimeBand(fromSeconds: 600, toSeconds: 1200, label: "Send window")],
                               markers: [ChartMarker(at: 120, label: "Warm start"), ChartMarker(at: 600, label: "Send start")],
                               referenceLines: [ReferenceLine(value: 90, label: "alarm below 90 %", kind: .alarm)],
                               focus: TimeRange(fromSeconds: 540, toSeconds: 1260))
    }

    static var originLoad: TimeSeriesChart {
        func bump(_ t: Double, center: Double, width: Double, height: Double) -> Double {
            height * exp(-((t - center) * (t - center)) / (2 * width * width))
        }
        let warm = stride(from: 0.0, through: 1800, by: 20).map { TimePoint(seconds: $0, value: 60 + bump($0, center: 200, width: 60, height: 900) + bump($0, center: 700, width: 80, height: 450)) }
        let cold = stride(from: 0.0, through: 1800, by: 20).map { TimePoint(seconds: $0, value: 60 + ($0 >= 600 && $0 <= 1250 ? 2600 * (1 - exp(-($0 - 600) / 90)) * exp(-max(0, $0 - 900) / 250) : 0)) }
        return TimeSeriesChart(title: "Origin requests", summary: "Requests per second reaching the origin, with and without warming.",
                               valueAxis: ValueAxis(label: "Origin load", unit: "req/s"), valueDecimals: 0,
                               series: [TimeSeries(name: "Warm 10 min ahead", points: warm),
                                        TimeSeries(name: "No warming", color: .vermillion, points: cold)],
                               bands: [TimeBand(fromSeconds: 600, toSeconds: 1200, label: "Send window")],
                               markers: [ChartMarker(at: 120, label: "Warm start"), ChartMarker(at: 600, label: "Send start")])
    }

    /// Tap-to-paint p95 against warm-ahead time, one line per network class, with closed-form intervals.
    static var warmAheadSweep: LineChart {
        let aheads: [Double] = [0, 60, 120, 300, 600]
        func line(_ name: String, base: Double, dash: LineDash) -> LineSeries {
            LineSeries(name: name, color: .blue, dash: dash, points: aheads.map { ahead in
                let y = base * (0.35 + 0.65 * exp(-ahead / 150))
                return LinePoint(x: ahead, y: y, lower: y * 0.93, upper: y * 1.07)
            })
        }
        return LineChart(title: "Tap-to-paint p95 by warm-ahead time", summary: "Mean over replications with 95 % confidence bands.",
                         xAxis: ValueAxis(label: "Warm ahead", unit: "s"), yAxis: ValueAxis(label: "Tap-to-paint p95", unit: "ms"),
                         xDecimals: 0, yDecimals: 0,
                         series: [line("Wi-Fi", base: 900, dash: .solid), line("4G", base: 1400, dash: .dashed)],
                         referenceLines: [ReferenceLine(value: 500, label: "target 500 ms", kind: .target)])
    }

    static var preloadOutcomes: BreakdownChart {
        BreakdownChart(title: "Preload outcome per push", summary: "What happened to the pre-stage fetch of each push.", countNoun: "pushes",
                       categories: [BreakdownCategory("Completed", color: .green), BreakdownCategory("Partial", color: .sky),
                                    BreakdownCategory("Timed out / killed", color: .vermillion), BreakdownCategory("Skipped by policy", color: .grey),
                                    BreakdownCategory("Deferred by Doze", color: .orange), BreakdownCategory("Not delivered", color: .purple)],
                       bars: [BreakdownBar(label: "iOS", counts: [712_400, 61_300, 18_900, 41_200, 0, 6_200]),
                              BreakdownBar(label: "Android", counts: [861_000, 70_100, 22_400, 38_900, 152_300, 15_300]),
                              BreakdownBar(label: "All pushes", counts: [1_573_400, 131_400, 41_300, 80_100, 152_300, 21_500])])
    }

    static var bytes: GroupedBarChart {
        GroupedBarChart(title: "Bytes moved", summary: "CDN egress, cellular bytes on phones, and bytes fetched for pushes never opened.",
                        valueLabel: "Bytes", valueFormat: .bytes,
                        groups: ["CDN egress", "Cellular", "Never-opened pushes"],
                        series: [BarSeries(name: "Warm 10 min ahead", values: [412e9, 268e9, 301e9]),
                                 BarSeries(name: "Warm 2 min ahead", values: [405e9, 262e9, 296e9]),
                                 BarSeries(name: "No pre-staging", values: [131e9, 84e9, 0])])
    }
}
