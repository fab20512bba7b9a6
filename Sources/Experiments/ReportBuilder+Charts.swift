import Foundation
import PushModel
import ReportKit
import ScenarioFormat
import SimStats

/// The run report's charts: tap to paint (per platform, colour per network), time series focused on
/// the action with a whole-run overview and the alarm levels drawn, outcomes and bytes.
extension ReportBuilder {
    /// Network classes in a fixed order, so a network has the same colour and dash in every chart.
    static let networkOrder = MetricTable.networkNames
    /// Platforms in a fixed order, so a platform has the same colour in every chart.
    static let platformOrder = ["ios", "android"]

    /// The style of network `name`: its position in `networkOrder` (unknown names after the known ones).
    static func networkIndex(_ name: String, among all: [String]) -> Int {
        networkOrder.firstIndex(of: name) ?? networkOrder.count + (all.firstIndex(of: name) ?? 0)
    }

    static func platformIndex(_ name: String, among all: [String]) -> Int {
        platformOrder.firstIndex(of: name) ?? platformOrder.count + (all.firstIndex(of: name) ?? 0)
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

    /// All taps and one line per platform (platform colours), then one chart per platform with a line per
    /// network class (network colours and dashes): small multiples instead of one chart of 15 lines.
    static func tapToPaintCharts(_ aggregate: RunAggregate) -> [CDFChart] {
        let groups = aggregate.histograms.filter { !$0.platform.isEmpty && $0.name.hasPrefix("tapToPaint") && $0.histogram.count > 0 }
        let platforms = Array(Set(groups.map { $0.platform })).sorted { (platformIndex($0, among: []), $0) < (platformIndex($1, among: []), $1) }
        let networks = Array(Set(groups.map { $0.network })).sorted()
        let marker = [ChartMarker(at: instantPaintMilliseconds, label: "500 ms")]
        let axis = ValueAxis(label: "Tap to paint", unit: "ms", scale: .logarithmic)
        var overview: [CDFSeries] = []
        if let all = aggregate.histograms.first(where: { $0.name == "tapToPaint" }), all.histogram.count > 0 {
            overview.append(CDFSeries(name: "all taps", color: .grey, points: cdfPoints(all.histogram), dash: .solid))
        }
        for platform in platforms {
            var merged: LatencyHistogram?
            for group in groups where group.platform == platform {
                if merged == nil { merged = group.histogram } else { try? merged?.merge(group.histogram) }
            }
            if let merged {
                overview.append(CDFSeries(name: platform, color: .automatic(platformIndex(platform, among: platforms)), points: cdfPoints(merged), dash: .solid))
            }
        }
        var charts = [CDFChart(title: "Tap to paint, all taps and per platform",
                               summary: "Share of taps painted within a time (all replications pooled); the dashed line is the 500 ms instant-paint level.",
                               valueAxis: axis, series: overview, markers: marker)]
        for platform in platforms {
            let series = groups.filter { $0.platform == platform }
                .sorted { networkIndex($0.network, among: networks) < networkIndex($1.network, among: networks) }
                .map { group -> CDFSeries in
                    let index = networkIndex(group.network, among: networks)
                    return CDFSeries(name: group.network, color: .automatic(index), points: cdfPoints(group.histogram), dash: .cycling(index))
                }
            charts.append(CDFChart(title: "Tap to paint on " + platform + ", per network class",
                                   summary: "Share of " + platform + " taps painted within a time, one line per network class (same colour and dash for a network on every platform).",
                                   valueAxis: axis, series: series, markers: marker))
        }
        return charts
    }

    /// Campaign send windows: from the first send to the time the last targeted push leaves at the
    /// effective rate (an estimate from the configuration, for shading only).
    static func sendBands(_ scenario: ScenarioFile) -> [TimeBand] {
        scenario.world.campaigns.enumerated().flatMap { i, c in
            if let waves = calendarSendBands(scenario.world, campaign: i) { return waves }
            var end = c.timing.sendEndSeconds(devices: scenario.world.population.devices, partsAfterFirst: c.assets.count - 1)
            if let rate = scenario.world.fanOutDevicesPerSecond(c) {
                // A topic send: FCM's fan-out paces it (alone), not the campaign's send rate.
                end = c.sendStartSeconds + Double(scenario.world.population.devices) * c.audienceShare / rate
            }
            return [TimeBand(fromSeconds: c.sendStartSeconds, toSeconds: min(end, scenario.world.horizonSeconds), label: "send \(c.name)")]
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

    /// The seconds where any of `columns` is non-zero, as a range; nil when all are zero.
    static func activity(_ columns: [[UInt64]]) -> TimeRange? {
        var first = Int.max, last = -1
        for column in columns {
            if let f = column.firstIndex(where: { $0 > 0 }) { first = min(first, f) }
            if let l = column.lastIndex(where: { $0 > 0 }) { last = max(last, l) }
        }
        return last >= 0 ? TimeRange(fromSeconds: Double(first), toSeconds: Double(last + 1)) : nil
    }

    /// A chart's focus (the given intervals with a margin; nil when they cover most of the run) and its bin.
    static func focusAndBin(_ intervals: [TimeRange], horizonSeconds: Int) -> (focus: TimeRange?, bin: Int) {
        let whole = TimeRange(fromSeconds: 0, toSeconds: Double(horizonSeconds))
        var focus = TimeRange.around(intervals, marginShare: 0.25, marginSecondsMin: 10, within: whole)
        if let f = focus, f.toSeconds - f.fromSeconds > 0.6 * whole.toSeconds { focus = nil }
        let span = focus.map { Int(($0.toSeconds - $0.fromSeconds).rounded(.up)) } ?? horizonSeconds
        let bin = max(1, (span + timePointsMax - 1) / timePointsMax, (horizonSeconds + horizonPointsMax - 1) / horizonPointsMax)
        return (focus, bin)
    }

    /// The taps' charts' focus and bin: where taps and paints happen (users open pushes long after
    /// the send), else around the send.
    static func tapFocusAndBin(_ aggregate: RunAggregate, sendRanges: [TimeRange]) -> (focus: TimeRange?, bin: Int) {
        let s = aggregate.series
        return focusAndBin(activity([s.column(.taps), s.column(.paints)]).map { [$0] } ?? sendRanges, horizonSeconds: s.horizonSeconds)
    }

    /// Tap-to-paint p50 and p95 per window of tap time (replications pooled, as
    /// tap-to-paint-windows.csv), on the taps chart's focus, with the scenario's objectives on these
    /// quantiles drawn as target lines. A window where no tap painted is a gap.
    static func tapToPaintOverTimeChart(scenario: ScenarioFile, aggregate: RunAggregate) -> TimeSeriesChart {
        let windows = aggregate.tapToPaintWindows
        let focus = tapFocusAndBin(aggregate, sendRanges: sendBands(scenario).map { TimeRange(fromSeconds: $0.fromSeconds, toSeconds: $0.toSeconds) }).focus
        let quantiles = MetricTable.WindowQuantile.allCases
        let series = quantiles.enumerated().map { i, q in
            TimeSeries(name: q.rawValue, color: i == 0 ? .blue : .vermillion,
                       points: windows.map { w in
                           TimePoint(seconds: Double(w.startSeconds), value: i < w.quantilesMicroseconds.count ? w.quantilesMicroseconds[i] / 1000 : .nan)
                       }, dash: i == 0 ? .solid : .dashed)
        }
        let objectiveMetrics: [String: String] = [MetricID.tapToPaintP50.rawValue: "p50", MetricID.tapToPaintP95.rawValue: "p95"]
        let objectives = scenario.slo.compactMap { o -> ReferenceLine? in
            guard let q = objectiveMetrics[o.metric] else { return nil }
            return ReferenceLine(value: o.threshold * 1000, label: "objective \(q) \(o.op.rawValue) " + HumanScale.format(o.threshold, unit: .seconds), kind: .target)
        }
        let width = windows.first?.seconds ?? 0
        return TimeSeriesChart(title: "Tap to paint over time",
                               summary: "Tap-to-paint median and p95 of the taps in each \(width)-second window of tap time, all replications pooled (tap-to-paint-windows.csv has each window's count; gaps: no tap of the window painted)"
                                   + (objectives.isEmpty ? "." : "; the green line is the scenario's objective, which is checked on the whole run's quantile averaged over replications.")
                                   + (focus == nil ? "" : " The main plot shows the busy interval; the strip below it shows the whole run."),
                               valueAxis: ValueAxis(label: "Tap to paint", unit: "ms", scale: .logarithmic), valueDecimals: 0,
                               series: series, bands: timelineBands(scenario), referenceLines: objectives, focus: focus)
    }

    static func binText(_ bin: Int) -> String { bin == 1 ? "1-second bins" : "\(bin)-second bins" }

    static func timeCharts(scenario: ScenarioFile, aggregate: RunAggregate) -> [TimeSeriesChart] {
        let s = aggregate.series
        let reps = aggregate.replications
        let sendRanges = sendBands(scenario).map { TimeRange(fromSeconds: $0.fromSeconds, toSeconds: $0.toSeconds) }
        let bands = timelineBands(scenario)
        let warm = scenario.world.campaigns.indices.flatMap { c in
            let instants = CalendarRules.warmCallSeconds(scenario.world, campaign: c)
            let name = scenario.world.campaigns[c].name
            return instants.enumerated().map { k, at in
                ChartMarker(at: at, label: instants.count > 1 ? "warm \(name) (wave \(k + 1))" : "warm \(name)")
            }
        }
        let requests = s.column(.prestageEdgeRequests), hits = s.column(.prestageEdgeHits)
        // Hit ratio: where pre-stage requests reach the edge.
        let hitView = focusAndBin(activity([requests]).map { [$0] } ?? sendRanges, horizonSeconds: s.horizonSeconds)
        var ratio: [TimePoint] = []
        for start in stride(from: 0, to: s.horizonSeconds, by: hitView.bin) {
            let end = min(s.horizonSeconds, start + hitView.bin)
            let r = requests[start..<end].reduce(UInt64(0), &+), h = hits[start..<end].reduce(UInt64(0), &+)
            ratio.append(TimePoint(seconds: Double(start), value: r > 0 ? Double(h) / Double(r) * 100 : .nan))
        }
        let hitAlarm = MetricID.edgePrestageHitRatio.spec.alarm.map {
            [ReferenceLine(value: $0.value * 100, label: "alarm below " + HumanScale.format($0.value, unit: .ratio), kind: .alarm)]
        } ?? []
        // Pushes: around the send. Origin: around the warm calls and the send (foreground misses after
        // the send spread over the whole run; the overview shows them).
        let sendView = focusAndBin(sendRanges, horizonSeconds: s.horizonSeconds)
        let originView = focusAndBin(sendRanges + warm.map { TimeRange(fromSeconds: $0.at, toSeconds: $0.at) }, horizonSeconds: s.horizonSeconds)
        let tapView = tapFocusAndBin(aggregate, sendRanges: sendRanges)
        let focusNote = " The main plot shows the busy interval; the strip below it shows the whole run."
        let originRequests = binned(s.column(.originRequests), replications: reps, bin: originView.bin)
        let origin503 = binned(s.column(.origin503), replications: reps, bin: originView.bin)
        let capacity = originCapacity(scenario: scenario, peak: (originRequests + origin503).map(\.value).max() ?? 0)
        var receiptCharts: [TimeSeriesChart] = []
        if let receipts = s.analyticsReceipts {
            let view = focusAndBin(activity([receipts]).map { [$0] } ?? sendRanges, horizonSeconds: s.horizonSeconds)
            receiptCharts.append(TimeSeriesChart(
                title: "Delivery receipts at the analytics endpoint",
                summary: "Receipts arriving per second (each at its jittered send time), averaged over replications, in \(binText(view.bin)) "
                    + "(the headline analytics peak is each replication's busiest 1-second bin, averaged)." + focusNote,
                valueAxis: ValueAxis(label: "Requests", unit: "req/s"), valueDecimals: 1,
                series: [TimeSeries(name: "receipts", color: .orange, style: .area, points: binned(receipts, replications: reps, bin: view.bin))],
                bands: bands, markers: [], focus: view.focus))
        }
        return [
            TimeSeriesChart(title: "Edge hit ratio of pre-stage requests",
                            summary: "Hits ÷ requests at the edge for background pre-stage fetches, in \(binText(hitView.bin)) (gaps: no requests); the red line is the alarm level." + focusNote,
                            valueAxis: ValueAxis(label: "Hit ratio", unit: "%"), valueDecimals: 1,
                            series: [TimeSeries(name: "edge hit ratio", color: .blue, points: ratio)], bands: bands, markers: warm,
                            referenceLines: hitAlarm, focus: hitView.focus),
            TimeSeriesChart(title: "Origin requests",
                            summary: "Requests reaching the origin and 503 rejections per second, averaged over replications, in \(binText(originView.bin)) (the headline origin peak is each replication's busiest 1-second bin, averaged). "
                                + capacity.text + focusNote,
                            valueAxis: ValueAxis(label: "Requests", unit: "req/s"), valueDecimals: 1,
                            series: [TimeSeries(name: "origin requests", color: .blue, style: .area, points: originRequests),
                                     TimeSeries(name: "503s", color: .vermillion, points: origin503)],
                            bands: bands, markers: warm, referenceLines: capacity.line.map { [$0] } ?? [], focus: originView.focus),
        ] + bandwidthCharts(scenario: scenario, aggregate: aggregate) + [
            TimeSeriesChart(title: "Pushes sent and delivered",
                            summary: "Pushes sent and deliveries to a handler per second, averaged over replications, in \(binText(sendView.bin))." + focusNote,
                            valueAxis: ValueAxis(label: "Rate", unit: "/s"), valueDecimals: 1,
                            series: [TimeSeries(name: "pushes sent", color: .blue, points: binned(s.column(.pushesSent), replications: reps, bin: sendView.bin)),
                                     TimeSeries(name: "deliveries", color: .orange, points: binned(s.column(.deliveries), replications: reps, bin: sendView.bin), dash: .dashed)],
                            bands: bands, markers: [], focus: sendView.focus),
            TimeSeriesChart(title: "Taps and paints",
                            summary: "Taps on delivered pushes and paints of their screens per second, averaged over replications, in \(binText(tapView.bin)); on their own scale so they are not hidden under the send rate.",
                            valueAxis: ValueAxis(label: "Rate", unit: "/s"), valueDecimals: 2,
                            series: [TimeSeries(name: "taps", color: .green, points: binned(s.column(.taps), replications: reps, bin: tapView.bin)),
                                     TimeSeries(name: "paints", color: .purple, points: binned(s.column(.paints), replications: reps, bin: tapView.bin), dash: .dashed)],
                            bands: bands, markers: [], focus: tapView.focus),
        ] + receiptCharts
    }

    /// Share of the origin workers' throughput the chart's peak must reach for the capacity line to be
    /// drawn (below it the line would squash the data to the floor; the description gives the figure).
    static let capacityLineShareMin = 0.2

    /// The origin workers' throughput, workers ÷ mean service time, as a reference line when the chart's
    /// `peak` (req/s) comes within `capacityLineShareMin` of it; the sentence for the chart's description.
    static func originCapacity(scenario: ScenarioFile, peak: Double) -> (line: ReferenceLine?, text: String) {
        let origin = scenario.world.effectiveInfra.origin
        guard let service = origin.serviceSeconds.mean, service > 0, origin.workers > 0 else { return (nil, "") }
        let capacity = Double(origin.workers) / service
        let figure = HumanScale.format(capacity, unit: .perSecond(noun: "req"))
        let how = "\(TextFormat.count(origin.workers)) worker(s) ÷ mean service time " + HumanScale.format(service, unit: .seconds)
        guard peak >= capacityLineShareMin * capacity else {
            return (nil, "The origin's workers serve about \(figure) (\(how)), far above this chart's peak, so that line is not drawn.")
        }
        return (ReferenceLine(value: capacity, label: "origin capacity " + figure, kind: .capacity),
                "The grey line is the origin workers' throughput, \(figure) (\(how)); above it requests queue (queue of \(TextFormat.count(origin.queueMax))), then get 503.")
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
            BreakdownCategory("refused as expired", color: .lightGrey), BreakdownCategory("not delivered", color: .indigo),
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
