import Foundation
import PushModel
import ReportKit
import ScenarioFormat
import SimStats

/// One work item's result: `items/pP-rR.json`, written atomically when the replication ends.
package struct SweepItemResult: Codable, Sendable, Equatable, ContentHashed {
    /// Identifies the file format (2: with `contentHash`).
    static let formatName = "prestage-sweep-item/2"

    /// One metric of the replication.
    package struct Value: Codable, Sendable, Equatable {
        /// e.g. "tapToPaint.p95Seconds".
        package var name: String
        /// e.g. "s", "ratio", "count".
        var unit: String
        /// "lower", "higher" or "none".
        var better: String
        /// Nil when the replication produced no finite value.
        package var value: Double?
    }

    /// `formatName`.
    var format: String
    /// The sweep it belongs to.
    var sweepHash: String
    /// Grid point.
    package var point: Int
    /// Replication index (0-based).
    package var replication: Int
    /// The master seed (replication r uses streams derived from (seed, r)).
    var seed: UInt64
    /// Events the replication processed.
    var eventsProcessed: UInt64
    /// Virtual time it reached, seconds.
    var virtualEndSeconds: Double
    /// Why it stopped.
    var stopReason: String
    /// The replication's metrics, sorted by name.
    package var metrics: [Value]
    /// "sha256:…" of the item's canonical JSON with this field empty: it covers every value, the
    /// point, the replication, the seed and the sweep hash, so an edited, copied-and-relabelled
    /// or damaged item is recognised when a resume or a merge reads it.
    var contentHash: String

    /// The file name of (point, replication) inside `items/`.
    package static func fileName(point: Int, replication: Int) -> String { "p\(point)-r\(replication).json" }

    init(sweepHash: String, point: Int, replication: Int, seed: UInt64, result: ReplicationResult) {
        format = Self.formatName
        self.sweepHash = sweepHash
        self.point = point
        self.replication = replication
        self.seed = seed
        eventsProcessed = result.eventsProcessed
        virtualEndSeconds = result.virtualEndSeconds
        stopReason = result.stopReason
        metrics = result.metrics.map { Value(name: $0.name, unit: $0.unit, better: $0.better, value: $0.value.isFinite ? $0.value : nil) }
            .sorted { $0.name < $1.name }
        contentHash = ""
        seal()
    }
}

/// `shard.json` in a shard's directory.
package struct SweepShardInfo: Codable, Sendable, Equatable {
    /// Identifies the file format.
    package static let formatName = "prestage-sweep-shard/1"
    /// `formatName`.
    var format: String
    /// The sweep the shard belongs to.
    var sweepHash: String
    /// Which slice of the work items: item k belongs to shard k mod count.
    package var shard: ShardSpec
    /// Items in this shard.
    var items: Int

    /// The shard file of `shard` of sweep `sweepHash`, holding `items` items.
    package init(format: String, sweepHash: String, shard: ShardSpec, items: Int) {
        self.format = format
        self.sweepHash = sweepHash
        self.shard = shard
        self.items = items
    }
}

/// Reading and writing a sweep's result files.
package enum SweepFiles {
    package static let manifestName = "sweep.json"
    package static let scenarioName = "scenario.json"
    package static let shardName = "shard.json"
    package static let itemsDirectory = "items"
    /// Every name a sweep or shard writes in its directory.
    package static let ownFiles: Set<String> = [manifestName, scenarioName, shardName, itemsDirectory, "sweep.csv", "points.csv", "summary.json"]
    /// Largest sweep.json / item / shard file read.
    static let fileBytesMax = 64 << 20

    /// Reads and strictly decodes `url` as `T`; the message names the file.
    package static func read<T: Decodable>(_ type: T.Type, _ url: URL, what: String) -> Result<(T, Data), CommandMessage> {
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int ?? 0
        guard size <= fileBytesMax else {
            return .failure(CommandMessage("\(url.path): expected \(what) of at most \(fileBytesMax) bytes, found \(size) bytes"))
        }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            return .failure(CommandMessage("\(url.path): expected \(what), found no readable file"))
        }
        switch StrictJSONDecoder(limits: JSONLimits(maxBytes: fileBytesMax)).decode(T.self, from: data) {
        case let .success(v): return .success((v, data))
        case let .failure(errors):
            return .failure(CommandMessage("\(url.path): expected \(what), found a file that does not decode (\(errors.diagnostics.first.map { "\($0)" } ?? "?"))"))
        }
    }

    /// The manifest in `directory`, checked: format and its own hash.
    package static func readManifest(_ directory: URL) -> Result<(SweepManifest, Data), CommandMessage> {
        let url = directory.appendingPathComponent(manifestName)
        switch read(SweepManifest.self, url, what: "a prestage sweep.json") {
        case let .failure(m): return .failure(m)
        case let .success((manifest, data)):
            guard manifest.format == SweepManifest.formatName else {
                return .failure(CommandMessage("\(url.path): format: expected \"\(SweepManifest.formatName)\", found \"\(manifest.format)\""))
            }
            guard (try? manifest.computedHash()) == manifest.sweepHash else {
                return .failure(CommandMessage("\(url.path): sweepHash: expected the hash of the file's contents, found \(manifest.sweepHash) (the file was edited or damaged)"))
            }
            return .success((manifest, data))
        }
    }

    /// The item (point, replication) in `items`, if present and valid for `manifest`; a message
    /// saying what is wrong otherwise (nil message: absent).
    package static func readItem(_ items: URL, point: Int, replication: Int, manifest: SweepManifest) -> Result<(SweepItemResult, Data), CommandMessage>? {
        let url = items.appendingPathComponent(SweepItemResult.fileName(point: point, replication: replication))
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        switch read(SweepItemResult.self, url, what: "a prestage sweep item") {
        case let .failure(m): return .failure(m)
        case let .success((item, data)):
            if item.format != SweepItemResult.formatName {
                return .failure(CommandMessage("\(url.path): format: expected \"\(SweepItemResult.formatName)\", found \"\(item.format)\""))
            }
            if item.sweepHash != manifest.sweepHash {
                return .failure(CommandMessage("\(url.path): sweepHash: expected \(manifest.sweepHash), found \(item.sweepHash) (an item of a different sweep)"))
            }
            if item.point != point || item.replication != replication || item.seed != manifest.seed {
                return .failure(CommandMessage("\(url.path): expected point \(point), replication \(replication), seed \(manifest.seed), found point \(item.point), replication \(item.replication), seed \(item.seed)"))
            }
            guard let expected = try? item.computedHash(), expected == item.contentHash else {
                return .failure(CommandMessage("\(url.path): contentHash: expected the hash of the item's contents, found \(DisplayText.bounded(item.contentHash)) (the item was edited or damaged)"))
            }
            return .success((item, data))
        }
    }

    /// Writes sweep.csv, points.csv, summary.json, report.md and report.html (for `reportMetrics`) into `directory` from its manifest and items
    /// (every item must be present: the caller checked). The same code serves unsharded runs and
    /// merges, so both write the same bytes.
    package static func writeResults(_ directory: ResultsDirectory, manifest: SweepManifest, items: [SweepItemResult],
                                    reportMetrics: [String] = SweepReportBuilder.defaultMetrics) throws {
        let r = manifest.replications
        precondition(items.count == manifest.itemCount, "every item must be present")
        let fields = manifest.axes.map(\.field)
        // sweep.csv: one row per point × replication × metric.
        var tidy = "point," + fields.map(csvCell).joined(separator: ",") + ",replication,seed,metric,value,unit\n"
        for item in items {
            let prefix = "\(item.point)," + manifest.points[item.point].values.map { csvCell($0.plainText) }.joined(separator: ",")
                + ",\(item.replication),\(item.seed),"
            for m in item.metrics {
                tidy += prefix + csvCell(m.name) + "," + (m.value.map(csvValue) ?? "") + "," + csvCell(m.unit) + "\n"
            }
        }
        try directory.write(Data(tidy.utf8), named: "sweep.csv")
        // Per point: metric summaries with CIs (a metric missing in a replication has no CI).
        var summaries: [PointSummary] = []
        var table = "point," + fields.map(csvCell).joined(separator: ",")
            + ",metric,unit,better,n,mean,halfWidth,lower,upper,level,replicationsNeeded\n"
        for point in manifest.points {
            let slice = items[(point.point * r)..<((point.point + 1) * r)]
            var info: [String: (unit: String, better: String)] = [:]
            for item in slice { for m in item.metrics where info[m.name] == nil { info[m.name] = (m.unit, m.better) } }
            let metrics = info.keys.sorted().map { name -> MetricSummary in
                let values = slice.map { item in item.metrics.first { $0.name == name }?.value ?? .nan }
                let i = info[name] ?? ("", "none")
                return MetricSummary(name: name, unit: i.unit, better: i.better, values: values, level: manifest.confidenceLevel,
                                     relativeHalfWidthTarget: manifest.relativeHalfWidthTarget)
            }
            let prefix = "\(point.point)," + point.values.map { csvCell($0.plainText) }.joined(separator: ",") + ","
            for m in metrics {
                let ci = m.confidenceInterval
                table += prefix + [csvCell(m.name), csvCell(m.unit), m.better, String(m.values.compactMap { $0 }.count),
                                   m.mean.map(csvValue) ?? "", ci.map { csvValue($0.halfWidth) } ?? "", ci.map { csvValue($0.lower) } ?? "",
                                   ci.map { csvValue($0.upper) } ?? "", csvValue(manifest.confidenceLevel),
                                   m.precision?.replicationsNeeded.map(String.init) ?? ""].joined(separator: ",") + "\n"
            }
            var values: [String: SweepValue] = [:]
            for (axis, v) in zip(manifest.axes, point.values) { values[axis.field] = v }
            summaries.append(PointSummary(point: point.point, values: values, scenarioHash: point.scenarioHash,
                                          eventsProcessed: slice.map(\.eventsProcessed), stopReasons: slice.map(\.stopReason), metrics: metrics))
        }
        try directory.write(Data(table.utf8), named: "points.csv")
        let summary = SweepSummary(format: SweepSummary.formatName, sweepHash: manifest.sweepHash, toolVersion: manifest.toolVersion,
                                   scenarioName: manifest.scenarioName, scenarioHash: manifest.scenarioHash, seed: manifest.seed,
                                   replications: r, confidenceLevel: manifest.confidenceLevel,
                                   relativeHalfWidthTarget: manifest.relativeHalfWidthTarget, fields: fields, points: summaries)
        try directory.write(try CanonicalJSON.encode(summary), named: "summary.json")
        let report = SweepReportBuilder.build(manifest: manifest, points: summaries, metrics: reportMetrics)
        try directory.write(Data(MarkdownRenderer().render(report).utf8), named: "report.md")
        try directory.write(Data(HTMLRenderer().render(report).utf8), named: "report.html")
    }

    /// A CSV cell: quoted when it holds a comma, a quote or a line break.
    static func csvCell(_ s: String) -> String {
        guard s.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return s }
        return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A number at full precision: integers as integers, others in Swift's shortest round-trip form.
    static func csvValue(_ x: Double) -> String {
        guard x.isFinite else { return "" }
        if x == x.rounded(), abs(x) < 1e15 { return String(Int64(x)) }
        return "\(x)"
    }
}

/// One point in a sweep's summary.json.
struct PointSummary: Codable, Sendable, Equatable {
    /// Point index.
    var point: Int
    /// Grid field → value.
    var values: [String: SweepValue]
    /// Hash of the point's resolved scenario.
    var scenarioHash: String
    /// Events processed, per replication.
    var eventsProcessed: [UInt64]
    /// Why each replication stopped.
    var stopReasons: [String]
    /// Metric summaries with t CIs and replications needed, sorted by name.
    var metrics: [MetricSummary]
}

/// A sweep's summary.json: per point, every metric with its CI.
struct SweepSummary: Codable, Sendable, Equatable {
    /// Identifies the file format.
    static let formatName = "prestage-sweep-summary/1"
    /// `formatName`.
    var format: String
    /// The sweep (see `SweepManifest`).
    var sweepHash: String
    /// The tool that ran it.
    var toolVersion: String
    /// The base scenario's name and resolved hash.
    var scenarioName: String
    var scenarioHash: String
    /// Master seed of every point.
    var seed: UInt64
    /// Replications per point.
    var replications: Int
    /// Level of every interval.
    var confidenceLevel: Double
    /// Precision target of `metrics[].precision`.
    var relativeHalfWidthTarget: Double
    /// Grid fields, in point-coordinate order.
    var fields: [String]
    var points: [PointSummary]
}
