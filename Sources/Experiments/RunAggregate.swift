import Foundation
import PushModel
import ScenarioFormat
import SimStats

/// The replications of one run combined: metrics across replications (for CIs), histograms merged,
/// time series summed, outcome and byte counts summed.
package struct RunAggregate: Sendable {
    /// One named histogram merged over replications.
    struct NamedHistogram: Sendable {
        /// "tapToPaint", "tapToPaint.ios.wifi", "extensionDownloadLatency".
        var name: String
        /// "" or the platform of a per-group histogram.
        var platform: String
        /// "" or the network class of a per-group histogram.
        var network: String
        /// The merged counts.
        var histogram: LatencyHistogram
    }

    /// Per-second series summed over replications.
    struct SummedSeries: Sendable {
        /// Seconds covered.
        var horizonSeconds: Int
        /// `columns[c.rawValue][second]`: the sum over replications of column `c`.
        var columns: [[UInt64]]
        /// Delivery receipts arriving at the analytics endpoint per second, summed over
        /// replications; nil when the scenario sends none (timeseries.csv then has no column for it).
        var analyticsReceipts: [UInt64]? = nil

        /// The summed series of `column`.
        func column(_ column: SeriesColumn) -> [UInt64] { columns[column.rawValue] }
    }

    /// Replications combined.
    let replications: Int
    /// Metric summaries, sorted by name (a metric missing from a replication counts as no value there).
    package let metrics: [MetricSummary]
    /// Tap-to-paint overall, per platform × network (sorted), and extension download latency.
    let histograms: [NamedHistogram]
    /// Per-second counters.
    let series: SummedSeries
    /// Tap to paint per window of tap time, replications pooled: the count and one quantile per
    /// `MetricTable.WindowQuantile` (none where no tap of the window painted).
    let tapToPaintWindows: [LatencyWindow]
    /// Outcome counts summed over replications.
    let outcomes: OutcomeCounts
    /// Byte counts summed over replications.
    let bytes: ByteCounts

    /// Combines `results` (in replication order).
    /// - Throws: `StatisticsError` if histograms or series of different shapes meet (a model bug).
    /// - Complexity: O(replications · (metrics + buckets + horizon)).
    /// `perDraw`: replications sharing one draw of uncertain inputs (see `MetricSummary`).
    package init(results: [ReplicationResult], confidenceLevel: Double,
                relativeHalfWidthTarget: Double = RunSettings.relativeHalfWidthTargetDefault, perDraw: Int = 1) throws(StatisticsError) {
        replications = results.count
        // Metrics: the union of names, in sorted order, one value per replication.
        var units: [String: (unit: String, better: String)] = [:]
        for r in results { for m in r.metrics where units[m.name] == nil { units[m.name] = (m.unit, m.better) } }
        metrics = units.keys.sorted().map { name in
            let values = results.map { r in r.metrics.first { $0.name == name }?.value ?? .nan }
            let info = units[name] ?? ("", "none")
            return MetricSummary(name: name, unit: info.unit, better: info.better, values: values, level: confidenceLevel,
                                 relativeHalfWidthTarget: relativeHalfWidthTarget, perDraw: perDraw)
        }
        // Histograms.
        var named: [NamedHistogram] = []
        if let first = results.first {
            var all = first.tapToPaint, download = first.extensionDownloadLatency
            for r in results.dropFirst() {
                try all.merge(r.tapToPaint)
                try download.merge(r.extensionDownloadLatency)
            }
            var groups: [String: NamedHistogram] = [:]
            for r in results {
                for g in r.tapToPaintByGroup {
                    let key = g.platform + "." + g.network
                    if groups[key] == nil {
                        groups[key] = NamedHistogram(name: "tapToPaint." + key, platform: g.platform, network: g.network, histogram: g.histogram)
                    } else {
                        try groups[key]?.histogram.merge(g.histogram)
                    }
                }
            }
            named.append(NamedHistogram(name: "tapToPaint", platform: "", network: "", histogram: all))
            named += groups.keys.sorted().compactMap { groups[$0] }
            named.append(NamedHistogram(name: "extensionDownloadLatency", platform: "", network: "", histogram: download))
        }
        histograms = named
        // Series.
        let horizon = results.map(\.series.pushesSent.horizonSeconds).max() ?? 0
        var columns = [[UInt64]](repeating: [UInt64](repeating: 0, count: horizon), count: SeriesColumn.allCases.count)
        for r in results {
            for column in SeriesColumn.allCases {
                guard let counter = column.counter(in: r.series) else { continue }
                let i = column.rawValue
                for second in 0..<min(horizon, counter.horizonSeconds) { columns[i][second] &+= counter[second] }
            }
        }
        series = SummedSeries(horizonSeconds: horizon, columns: columns,
                              analyticsReceipts: Self.summedReceipts(results.map(\.series.analyticsReceipts), horizonSeconds: horizon))
        tapToPaintWindows = try WindowedLatencyHistogram.pooled(results.map(\.tapToPaintWindows),
                                                                quantiles: MetricTable.WindowQuantile.allCases.map(\.probability))
        var o = OutcomeCounts(), b = ByteCounts()
        for r in results {
            o.completed += r.outcomes.completed
            o.partial += r.outcomes.partial
            o.fetchTimedOut += r.outcomes.fetchTimedOut
            o.fetchFailed += r.outcomes.fetchFailed
            o.payloadExpired += r.outcomes.payloadExpired
            o.timedOutOrKilled += r.outcomes.timedOutOrKilled
            o.skippedByPolicy += r.outcomes.skippedByPolicy
            o.deferredThenCompleted += r.outcomes.deferredThenCompleted
            o.deferredThenExpired += r.outcomes.deferredThenExpired
            o.notDelivered += r.outcomes.notDelivered
            b.cdnEgressBytes += r.bytes.cdnEgressBytes
            b.cellularBytes += r.bytes.cellularBytes
            b.neverOpenedBytes += r.bytes.neverOpenedBytes
            b.backgroundBytes += r.bytes.backgroundBytes
            b.foregroundBytes += r.bytes.foregroundBytes
            b.evictedForSpace += r.bytes.evictedForSpace
            b.expiredRemoved += r.bytes.expiredRemoved
        }
        outcomes = o
        bytes = b
    }
}

extension RunAggregate {
    /// The replications' receipt series summed per second (nil when none has one).
    static func summedReceipts(_ counters: [PerSecondCounter?], horizonSeconds: Int) -> [UInt64]? {
        guard counters.contains(where: { $0 != nil }) else { return nil }
        var sum = [UInt64](repeating: 0, count: horizonSeconds)
        for counter in counters.compactMap({ $0 }) {
            for second in 0..<min(horizonSeconds, counter.horizonSeconds) { sum[second] &+= counter[second] }
        }
        return sum
    }
}

/// Writes the files of a results directory.
package enum ResultFiles {
    /// Members of summary.json beyond `RunSummary`.
    struct SummaryExtra: Encodable {
        /// The scenario as run (defaults filled in, overrides applied).
        let scenario: ScenarioFile
        /// Outcome counts per replication.
        let outcomesByReplication: [OutcomeCounts]
        /// Byte counts per replication.
        let bytesByReplication: [ByteCounts]
        /// Why each replication stopped.
        let stopReasons: [String]
        /// The scenario's objectives checked (absent without any).
        let slo: SLOReport?
        /// The cost table (absent without `costs`).
        var costs: CostTable? = nil
    }

    /// summary.json: deterministic (no wall time, sorted keys).
    package static func summaryJSON(scenario: ScenarioFile, hash: String, results: [ReplicationResult], aggregate: RunAggregate) throws -> Data {
        var summary = RunSummary(
            toolVersion: ToolVersion.text, scenarioName: scenario.name, question: scenario.question, scenarioHash: hash,
            seed: scenario.run.seed, replications: scenario.run.replications, confidenceLevel: scenario.run.confidenceLevel,
            metrics: aggregate.pooledMetrics, eventsProcessed: results.map(\.eventsProcessed), virtualEndSeconds: results.map(\.virtualEndSeconds))
        summary.campaigns = aggregate.campaignMetrics(names: scenario.world.campaigns.map(\.name))
        let extra = SummaryExtra(scenario: scenario, outcomesByReplication: results.map(\.outcomes),
                                 bytesByReplication: results.map(\.bytes), stopReasons: results.map(\.stopReason),
                                 slo: scenario.slo.isEmpty ? nil : SLOReport(scenario.slo, aggregate: aggregate, perDraw: scenario.replicationsPerDraw),
                                 costs: CostTable(scenario: scenario, aggregate: aggregate))
        return try CanonicalJSON.encode(SummaryDocument(summary: summary, extra: extra))
    }

    /// timeseries.csv: one row per second; counts are means per replication; the hit ratio pools
    /// all replications (empty where there were no requests).
    package static func timeSeriesCSV(_ aggregate: RunAggregate) -> Data {
        let s = aggregate.series
        let n = Double(max(1, aggregate.replications))
        let receipts = s.analyticsReceipts
        var out = "second," + SeriesColumn.allCases.map(\.name).joined(separator: ",") + ",prestageEdgeHitRatio"
            + (receipts == nil ? "" : ",analyticsReceipts") + "\n"
        let requests = s.column(.prestageEdgeRequests), hits = s.column(.prestageEdgeHits)
        out.reserveCapacity(s.horizonSeconds * 40)
        for second in 0..<s.horizonSeconds {
            out += String(second)
            for column in s.columns { out += "," + csvNumber(Double(column[second]) / n) }
            out += "," + (requests[second] > 0 ? csvNumber(Double(hits[second]) / Double(requests[second])) : "")
            if let receipts { out += "," + csvNumber(Double(receipts[second]) / n) }
            out += "\n"
        }
        return Data(out.utf8)
    }

    /// tap-to-paint-windows.csv: one row per window of tap time (`MetricTable.tapToPaintWindowColumns`);
    /// the count is the pooled sample (a sum over replications), the quantiles are in seconds and
    /// empty where no tap of the window painted.
    package static func tapToPaintWindowsCSV(_ aggregate: RunAggregate) -> Data {
        var out = MetricTable.tapToPaintWindowColumns.map(\.name).joined(separator: ",") + "\n"
        for w in aggregate.tapToPaintWindows {
            out += "\(w.startSeconds),\(w.seconds),\(w.count)"
            for i in MetricTable.WindowQuantile.allCases.indices {
                out += "," + (i < w.quantilesMicroseconds.count ? csvNumber(w.quantilesMicroseconds[i] / 1e6) : "")
            }
            out += "\n"
        }
        return Data(out.utf8)
    }

    /// histograms.csv: the non-empty buckets of every merged histogram (counts summed over replications).
    package static func histogramsCSV(_ aggregate: RunAggregate) -> Data {
        var out = "histogram,platform,network,lowerBoundMicroseconds,widthMicroseconds,count\n"
        for h in aggregate.histograms {
            for b in h.histogram.nonEmptyBuckets {
                out += "\(h.name),\(h.platform),\(h.network),\(b.lowerBoundMicroseconds),\(b.widthMicroseconds),\(b.count)\n"
            }
            if h.histogram.overflowCount > 0 {
                out += "\(h.name),\(h.platform),\(h.network),\(h.histogram.maxValueMicroseconds + 1),overflow,\(h.histogram.overflowCount)\n"
            }
        }
        return Data(out.utf8)
    }

    /// Integers as integers, other values with up to 6 decimals (trailing zeros dropped); locale-free.
    static func csvNumber(_ x: Double) -> String {
        guard x.isFinite else { return "" }
        if x == x.rounded(), abs(x) < 1e15 { return String(Int64(x)) }
        var s = String(format: "%.6f", locale: nil, x)
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return s
    }
}
