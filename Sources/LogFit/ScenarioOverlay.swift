import Foundation
import Stochastic

/// A scenario overlay: scenario paths (the ones `--set` and sweep files use) and the values `prestage
/// fit` derived for them, with where they came from.
///
/// ```json
/// { "format": "prestage-overlay", "version": 1, "generatedBy": "prestage fit",
///   "sources": ["logs/cf.log.gz"], "notes": ["..."],
///   "set": { "infra.tiers.edgeProcessingSeconds": {"kind": "lognormal", "mu": -5.2, "sigma": 0.4}, ... } }
/// ```
/// `prestage run|validate --overlay FILE` applies every `set` entry as a `--set` before the
/// command line's own `--set`s (which therefore win).
package struct ScenarioOverlay: Sendable {
    package static let formatName = "prestage-overlay"
    package static let version = 1
    /// Largest overlay file read.
    package static let fileBytesMax = 8 << 20

    package var sources: [String]
    package var notes: [String]
    /// Path → JSON value (sorted by path when written).
    package var set: [String: OverlayValue]

    package init(sources: [String], notes: [String] = [], set: [String: OverlayValue] = [:]) {
        self.sources = sources
        self.notes = notes
        self.set = set
    }

    /// Pretty JSON, keys sorted (byte-identical for equal overlays).
    package func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(File(format: Self.formatName, version: Self.version, generatedBy: "prestage fit",
                                       sources: sources, notes: notes, set: set))
    }

    private struct File: Encodable {
        let format: String
        let version: Int
        let generatedBy: String
        let sources: [String]
        let notes: [String]
        let set: [String: OverlayValue]
    }

    /// The `set` entries of the overlay file at `path` as `--set` assignments (`PATH=JSON`), in path order.
    /// - Throws: `LogFitError.badFormat` naming the file and the member that is wrong.
    package static func assignments(contentsOf path: String) throws(LogFitError) -> [String] {
        try assignments(data: try contents(of: path), label: path)
    }

    /// The bytes of the overlay file at `path`, refusing one over `fileBytesMax`.
    package static func contents(of path: String) throws(LogFitError) -> Data {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        if let size = attributes?[.size] as? Int, size > fileBytesMax {
            throw .badFormat(path: path, reason: "expected an overlay of at most \(fileBytesMax) bytes, found \(size) bytes")
        }
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(path: path, reason: "cannot read the overlay") }
        return data
    }

    /// This overlay's `set` entries as `--set` assignments, in path order.
    package func assignments() throws(LogFitError) -> [String] {
        guard let data = try? encoded() else { throw .badFormat(path: "(overlay)", reason: "cannot encode the overlay") }
        return try Self.assignments(data: data, label: "(overlay)")
    }

    /// The assignments of overlay JSON `data` (`label` names it in errors).
    package static func assignments(data: Data, label path: String) throws(LogFitError) -> [String] {
        guard let root = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) as? [String: Any] else {
            throw .badFormat(path: path, reason: "expected a JSON object (a prestage overlay)")
        }
        guard root["format"] as? String == formatName else {
            throw .badFormat(path: path, reason: "format: expected \"\(formatName)\", found \(root["format"].map { "\($0)" } ?? "nothing")")
        }
        guard let v = root["version"] as? Int, v == version else {
            throw .badFormat(path: path, reason: "version: expected \(version), found \(root["version"].map { "\($0)" } ?? "nothing")")
        }
        let known: Set<String> = ["format", "version", "generatedBy", "sources", "notes", "set"]
        if let unknown = root.keys.sorted().first(where: { !known.contains($0) }) {
            throw .badFormat(path: path, reason: "unknown member \"\(unknown)\"; expected \(known.sorted().joined(separator: ", "))")
        }
        guard let set = root["set"] as? [String: Any] else {
            throw .badFormat(path: path, reason: "set: expected an object of scenario path → value")
        }
        var out: [String] = []
        for key in set.keys.sorted() {
            guard let value = set[key],
                  let text = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys, .withoutEscapingSlashes]) else {
                throw .badFormat(path: path, reason: "set.\(key): expected a JSON value")
            }
            out.append(key + "=" + String(decoding: text, as: UTF8.self))
        }
        return out
    }
}

/// A value written at an overlay path.
package enum OverlayValue: Sendable, Encodable, Equatable {
    case number(Double)
    case distribution(Distribution)
    case weights([String: Double])
    case popOverrides([PopOverride])
    case regions([Region])
    /// `uncertain.fitted`: the fitted parameters' uncertainty, one input per parameter.
    case uncertainInputs([FittedInput])

    /// One `uncertain.fitted[]` element (the scenario's `UncertainInput` form).
    package struct FittedInput: Sendable, Encodable, Equatable {
        package let path: String
        package let distribution: Distribution
        package let source: String
    }
    // names
    case names([String])

    /// One `infra.topology.popOverrides[]` element.
    package struct PopOverride: Sendable, Encodable, Equatable {
        package let popIndex: Int
        package let edgeProcessingSeconds: Distribution?
        package let upstreamSeconds: Distribution?
    }

    /// One `infra.topology.regions[]` element: the audience behind a PoP.
    package struct Region: Sendable, Encodable, Equatable {
        package let popIndex: Int
        package let audienceWeight: Double
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case let .number(v): try c.encode(v)
        case let .distribution(d): try c.encode(d)
        case let .weights(w): try c.encode(w)
        case let .popOverrides(p): try c.encode(p)
        case let .regions(r): try c.encode(r)
        case let .uncertainInputs(u): try c.encode(u)
        case let .names(n): try c.encode(n)
        }
    }
}
