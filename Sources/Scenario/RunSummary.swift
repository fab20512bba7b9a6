import Foundation
import SimStats

/// One headline metric over the replications of a run.
public struct MetricSummary: Codable, Sendable, Equatable {
    /// e.g. "tapToPaint.p50Seconds".
    public var name: String
    /// e.g. "s", "ratio", "req/s".
    public var unit: String
    /// "lower", "higher" or "none": which direction is better.
    public var better: String
    /// The value of each replication, by replication index; nil where the replication produced no
    /// finite value (e.g. a percentile of an empty histogram).
    public var values: [Double?]
    /// Mean of the finite values; nil if there are none.
    public var mean: Double?
    /// The t-based interval over the replications; nil with fewer than 2 finite values, or when
    /// some replication had no finite value (the mean of the rest would be biased).
    public var confidenceInterval: ConfidenceInterval?

    /// Summarises `values` (one per replication) at `level`.
    /// - Complexity: O(values.count).
    public init(name: String, unit: String, better: String, values: [Double], level: Double) {
        self.name = name
        self.unit = unit
        self.better = better
        self.values = values.map { $0.isFinite ? $0 : nil }
        let finite = values.filter(\.isFinite)
        mean = finite.isEmpty ? nil : finite.reduce(0, +) / Double(finite.count)
        if finite.count == values.count, finite.count >= 2 {
            confidenceInterval = try? ConfidenceInterval.studentT(sample: finite, level: level)
        } else {
            confidenceInterval = nil
        }
    }

    /// The per-replication values when every replication has one.
    public var finiteValues: [Double]? {
        let kept = values.compactMap { $0 }
        return kept.count == values.count ? kept : nil
    }
}

/// The comparable part of `summary.json`: what `prestage compare` reads. Wall time and other
/// machine-dependent figures live in `run-info.json`, so two runs of the same scenario and seed
/// write byte-identical `summary.json` files.
public struct RunSummary: Codable, Sendable, Equatable {
    /// Identifies the file format; bumped on incompatible changes.
    public static let formatName = "prestage-summary/1"

    /// `formatName`.
    public var format: String
    /// "prestage 0.1.0".
    public var toolVersion: String
    /// The scenario's `name`.
    public var scenarioName: String
    /// The scenario's one-line question.
    public var question: String
    /// "sha256:" + hex SHA-256 of the canonical resolved scenario JSON (sorted keys).
    public var scenarioHash: String
    /// The master seed; replication r draws from streams derived from (seed, r).
    public var seed: UInt64
    /// Number of replications.
    public var replications: Int
    /// Confidence level of every interval, e.g. 0.95.
    public var confidenceLevel: Double
    /// Headline metrics, sorted by name.
    public var metrics: [MetricSummary]
    /// Events processed, per replication.
    public var eventsProcessed: [UInt64]
    /// Virtual time reached, per replication, seconds.
    public var virtualEndSeconds: [Double]

    /// A summary; see the properties.
    public init(toolVersion: String, scenarioName: String, question: String, scenarioHash: String, seed: UInt64,
                replications: Int, confidenceLevel: Double, metrics: [MetricSummary], eventsProcessed: [UInt64],
                virtualEndSeconds: [Double]) {
        self.format = Self.formatName
        self.toolVersion = toolVersion
        self.scenarioName = scenarioName
        self.question = question
        self.scenarioHash = scenarioHash
        self.seed = seed
        self.replications = replications
        self.confidenceLevel = confidenceLevel
        self.metrics = metrics
        self.eventsProcessed = eventsProcessed
        self.virtualEndSeconds = virtualEndSeconds
    }

    /// The metric named `name`.
    public func metric(_ name: String) -> MetricSummary? { metrics.first { $0.name == name } }
}

/// Encodes as a `RunSummary` with extra top-level members (the resolved scenario, outcome counts).
struct SummaryDocument<Extra: Encodable>: Encodable {
    let summary: RunSummary
    let extra: Extra

    func encode(to encoder: any Encoder) throws {
        try summary.encode(to: encoder)
        try extra.encode(to: encoder)
    }
}

/// JSON the way results are written: sorted keys, pretty-printed, "/" unescaped, a final newline.
enum CanonicalJSON {
    static func encode<T: Encodable>(_ value: T, pretty: Bool = true) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(value)
        if pretty { data.append(0x0A) }
        return data
    }
}
