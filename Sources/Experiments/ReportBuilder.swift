import Foundation
import PushModel
import ReportKit
import ScenarioFormat
import SimStats

/// Maps a run's aggregate into a ReportKit `Report` (rendered to report.md and report.html).
public enum ReportBuilder {
    /// Metrics shown as headlines when present, in this order (others appear in the full table).
    public static let headlineOrder: [String] = ([.tapToPaintP50, .tapToPaintP95, .tapToPaintShareUnder500ms,
                                                  .edgePrestageHitRatio, .extensionDownloadP95, .originPeakRequestsPerSecond,
                                                  .originRejected503, .outcomesCompletedShare] as [MetricID]).map(\.rawValue)
    /// Alarm levels, from `MetricTable` (after the practitioner account: pre-stage hit ratio below
    /// 90 %, or extension download p95 above 1.2 s, means warming too late or the wrong PoPs). In
    /// the metric's unit.
    static let thresholds: [String: Threshold] = Dictionary(uniqueKeysWithValues: MetricID.allCases.compactMap { id in
        id.spec.alarm.map { (id.rawValue, Threshold(value: $0.value, alarmWhen: $0.when == .below ? .below : .above)) }
    })
    /// Most headline metrics.
    public static let headlinesMax = 8
    /// Most points per time-series line (seconds are binned to stay under it).
    static let timePointsMax = 720
    /// Instant-paint reference on the tap-to-paint CDF, milliseconds.
    static let instantPaintMilliseconds = 500.0

    public static func build(scenario: ScenarioFile, hash: String, aggregate: RunAggregate, tables: PopAndRegionTables,
                             results: [ReplicationResult]) -> Report {
        let level = scenario.run.confidenceLevel
        var headlineMetrics = headlineOrder.compactMap { name in aggregate.metrics.first { $0.name == name } }
        if headlineMetrics.isEmpty { headlineMetrics = Array(aggregate.metrics.prefix(headlinesMax)) }
        let headlines = headlineMetrics.prefix(headlinesMax).compactMap { m -> HeadlineMetric? in
            guard let mean = m.mean else { return nil }
            let (value, unit, decimals) = display(mean, unit: m.unit)
            let half = m.confidenceInterval.map { display($0.halfWidth, unit: m.unit, like: mean) }
            // The threshold is scaled like the value (seconds shown as ms).
            let threshold = thresholds[m.name].map { Threshold(value: display($0.value, unit: m.unit, like: mean), alarmWhen: $0.alarmWhen) }
            return HeadlineMetric(name: m.name, unit: unit, value: value, decimals: decimals, ciHalfWidth: half, ciLevel: level,
                                  threshold: threshold, note: m.better == "none" ? "" : "\(m.better) is better")
        }
        var sections: [ReportSection] = []
        sections.append(ReportSection(title: "Tap to paint", blocks: [.chart(.cdf(tapToPaintChart(aggregate)))]))
        sections.append(ReportSection(title: "CDN and origin over time", blocks: timeCharts(scenario: scenario, aggregate: aggregate).map { .chart(.timeSeries($0)) }))
        sections.append(popsAndRegionsSection(scenario: scenario, tables: tables))
        sections.append(ReportSection(title: "Preload outcomes", blocks: [.chart(.breakdown(outcomeChart(aggregate)))]))
        sections.append(ReportSection(title: "Bytes", blocks: [.chart(.groupedBars(bytesChart(aggregate)))]))
        sections.append(ReportSection(title: "All metrics", blocks: [
            .paragraph("Means over \(aggregate.replications) replication(s) with \(Int((level * 100).rounded())) % t confidence intervals; per-replication values are in summary.json. "
                       + "Replications needed: the estimated count for a half-width of \(TextNumber.format(scenario.run.relativeHalfWidthTarget * 100, significant: 3)) % of the mean (run.relativeHalfWidthTarget; from this run's spread; > \(ScenarioLimits.replicationsMax) or a zero mean: —)."),
            .table(metricsTable(aggregate.metrics, relativeTarget: scenario.run.relativeHalfWidthTarget)),
        ]))
        let events = results.reduce(UInt64(0)) { $0 &+ $1.eventsProcessed }
        let reasons = Dictionary(grouping: results.map(\.stopReason), by: { $0 }).keys.sorted()
        sections.append(ReportSection(title: "Run", blocks: [
            .paragraph("\(scenario.world.population.devices) devices, \(scenario.world.campaigns.count) campaign(s), horizon \(Int(scenario.world.horizonSeconds)) s; \(events) events over \(aggregate.replications) replication(s); stop reason(s): \(reasons.joined(separator: ", "))."),
        ]))
        return Report(title: scenario.name, scenario: ScenarioSummary(name: scenario.name, question: scenario.question),
                      provenance: RunProvenance(seed: scenario.run.seed, replications: scenario.run.replications,
                                                toolVersion: ToolVersion.text, scenarioHash: hash),
                      headlines: Array(headlines), sections: sections)
    }

    /// `x` scaled the way `display` scales `reference` (seconds below 10 become milliseconds).
    static func display(_ x: Double, unit: String, like reference: Double) -> Double {
        unit == "s" && abs(reference) < 10 ? x * 1000 : x
    }

    /// Seconds below 10 shown in ms; ratios as they are.
    static func display(_ value: Double, unit: String) -> (Double, String, Int) {
        switch unit {
        case "s" where abs(value) < 10: return (display(value, unit: unit, like: value), "ms", 0)
        case "s": return (value, "s", 1)
        case "ratio": return (value, "", 3)
        case "count", "bytes": return (value, unit, 0)
        default: return (value, unit, 2)
        }
    }

    static func metricsTable(_ metrics: [MetricSummary], relativeTarget: Double) -> Table {
        let rows: [[TableCell]] = metrics.map { m in
            let decimals = m.unit == "bytes" ? 0 : (m.unit == "count" ? 1 : 4)
            return [.text(m.name), .text(m.unit),
                    m.mean.map { .number($0, decimals: decimals) } ?? .text("n/a"),
                    m.confidenceInterval.map { .number($0.halfWidth, decimals: decimals) } ?? .text("—"),
                    .text(m.better),
                    m.precision?.replicationsNeeded.map { .number(Double($0), decimals: 0) } ?? .text("—")]
        }
        return Table(caption: "Every metric", columns: [
            Table.Column("Metric"), Table.Column("Unit"), Table.Column("Mean", alignment: .trailing),
            Table.Column("± CI", alignment: .trailing), Table.Column("Better"),
            Table.Column("Replications for ± \(TextNumber.format(relativeTarget * 100, significant: 3)) %", alignment: .trailing),
        ], rows: rows)
    }

    /// Cumulative points (ms, share) from a histogram's buckets, thinned to at most `pointsMax`.
    static func cdfPoints(_ h: LatencyHistogram, pointsMax: Int = 300) -> [CDFPoint] {
        let buckets = h.nonEmptyBuckets
        let total = Double(h.count)
        guard total > 0, let first = buckets.first else { return [] }
        var points = [CDFPoint(value: Double(first.lowerBoundMicroseconds) / 1000, fraction: 0)]
        var cumulative: UInt64 = 0
        for b in buckets {
            cumulative += b.count
            points.append(CDFPoint(value: Double(b.lowerBoundMicroseconds + b.widthMicroseconds) / 1000, fraction: Double(cumulative) / total))
        }
        guard points.count > pointsMax else { return points }
        let last = points.count - 1
        return (0..<pointsMax).map { points[($0 * last) / (pointsMax - 1)] }
    }

    static func tapToPaintChart(_ aggregate: RunAggregate) -> CDFChart {
        let series = aggregate.histograms.filter { $0.name.hasPrefix("tapToPaint") && $0.histogram.count > 0 }.map { h in
            CDFSeries(name: h.platform.isEmpty ? "all taps" : "\(h.platform) \(h.network)", points: cdfPoints(h.histogram))
        }
        return CDFChart(title: "Tap to paint", summary: "Share of taps painted within a time, per platform and network class (all replications pooled).",
                        valueAxis: ValueAxis(label: "Tap to paint", unit: "ms", scale: .logarithmic), series: series,
                        markers: [ChartMarker(at: instantPaintMilliseconds, label: "500 ms")])
    }

    /// Campaign send windows: from the first send to the time the last targeted push leaves at the
    /// effective rate (an estimate from the configuration, for shading only).
    static func sendBands(_ scenario: ScenarioFile) -> [TimeBand] {
        scenario.world.campaigns.map { c in
            let pushes = Double(scenario.world.population.devices) * c.audienceShare * Double(c.pushesPerDevice)
            let ratePerSecond = min(c.sendRatePerMinute, c.providerQuotaPerMinute) / 60
            var end = c.sendStartSeconds + pushes / max(ratePerSecond, 1e-9)
            if let interval = c.carouselIntervalSeconds { end += interval * Double(max(0, c.assets.count - 1)) }
            return TimeBand(fromSeconds: c.sendStartSeconds, toSeconds: min(end, scenario.world.horizonSeconds), label: "send \(c.name)")
        }
    }

    /// Per-second means binned into `bin`-second steps (values are per-second rates).
    static func binned(_ column: [UInt64], replications: Int, bin: Int) -> [TimePoint] {
        let n = Double(max(1, replications)) * Double(bin)
        return stride(from: 0, to: column.count, by: bin).map { start in
            let end = min(column.count, start + bin)
            let sum = column[start..<end].reduce(UInt64(0), &+)
            return TimePoint(seconds: Double(start), value: Double(sum) / n * Double(bin) / Double(end - start))
        }
    }

    static func timeCharts(scenario: ScenarioFile, aggregate: RunAggregate) -> [TimeSeriesChart] {
        let s = aggregate.series
        let bin = max(1, (s.horizonSeconds + timePointsMax - 1) / timePointsMax)
        let bands = sendBands(scenario)
        let warm = scenario.world.campaigns.filter { $0.warm.mode != .none }.map {
            ChartMarker(at: $0.sendStartSeconds - $0.warm.aheadSeconds, label: "warm \($0.name)")
        }
        let requests = s.column("prestageEdgeRequests"), hits = s.column("prestageEdgeHits")
        var ratio: [TimePoint] = []
        for start in stride(from: 0, to: s.horizonSeconds, by: bin) {
            let end = min(s.horizonSeconds, start + bin)
            let r = requests[start..<end].reduce(UInt64(0), &+), h = hits[start..<end].reduce(UInt64(0), &+)
            ratio.append(TimePoint(seconds: Double(start), value: r > 0 ? Double(h) / Double(r) : .nan))
        }
        let per = bin == 1 ? "per second" : "per second, \(bin)-second bins"
        return [
            TimeSeriesChart(title: "Edge hit ratio of pre-stage requests", summary: "Hits / requests at the edge for background pre-stage fetches (\(per); gaps: no requests).",
                            valueAxis: ValueAxis(label: "Hit ratio", unit: ""), valueDecimals: 3,
                            series: [TimeSeries(name: "edge hit ratio", points: ratio)], bands: bands, markers: warm),
            TimeSeriesChart(title: "Origin requests", summary: "Requests reaching the origin and 503 rejections, mean per replication (\(per)).",
                            valueAxis: ValueAxis(label: "Requests", unit: "req/s"), valueDecimals: 1,
                            series: [TimeSeries(name: "origin requests", style: .area, points: binned(s.column("originRequests"), replications: aggregate.replications, bin: bin)),
                                     TimeSeries(name: "503s", points: binned(s.column("origin503"), replications: aggregate.replications, bin: bin))],
                            bands: bands, markers: warm),
            TimeSeriesChart(title: "Pushes, taps and paints", summary: "Pushes sent, deliveries to a handler, taps and paints, mean per replication (\(per)).",
                            valueAxis: ValueAxis(label: "Rate", unit: "1/s"), valueDecimals: 1,
                            series: ["pushesSent", "deliveries", "taps", "paints"].map {
                                TimeSeries(name: $0, points: binned(s.column($0), replications: aggregate.replications, bin: bin))
                            }, bands: bands, markers: []),
        ]
    }

    static func outcomeChart(_ aggregate: RunAggregate) -> BreakdownChart {
        let o = aggregate.outcomes
        let categories = [
            BreakdownCategory("completed", color: .green), BreakdownCategory("deferred, then completed", color: .sky),
            BreakdownCategory("partial (some assets ready)", color: .yellow),
            BreakdownCategory("nothing stored, a fetch timed out", color: .blue),
            BreakdownCategory("nothing stored, fetches failed", color: .purple),
            BreakdownCategory("timed out or killed", color: .vermillion),
            BreakdownCategory("deferred, then expired", color: .orange), BreakdownCategory("skipped by policy", color: .grey),
            BreakdownCategory("refused as expired", color: .grey), BreakdownCategory("not delivered", color: .purple),
        ]
        let counts = [o.completed, o.deferredThenCompleted, o.partial, o.fetchTimedOut, o.fetchFailed, o.timedOutOrKilled,
                      o.deferredThenExpired, o.skippedByPolicy, o.payloadExpired, o.notDelivered].map { Int(clamping: $0) }
        return BreakdownChart(title: "Preload outcome per push", summary: "Where each targeted push ended up (all replications pooled).",
                              countNoun: "pushes", categories: categories, bars: [BreakdownBar(label: "all pushes", counts: counts)])
    }

    static func bytesChart(_ aggregate: RunAggregate) -> GroupedBarChart {
        let b = aggregate.bytes
        let n = Double(max(1, aggregate.replications))
        let values = [b.cdnEgressBytes, b.cellularBytes, b.backgroundBytes, b.foregroundBytes, b.neverOpenedBytes].map { Double($0) / n }
        return GroupedBarChart(title: "Bytes", summary: "Bytes per replication (mean): CDN egress, cellular, pre-staged in the background, fetched after taps, pre-staged but never opened.",
                               valueLabel: "Bytes", valueFormat: .bytes,
                               groups: ["CDN egress", "cellular", "background", "foreground", "never opened"],
                               series: [BarSeries(name: "mean per replication", values: values)])
    }
}
