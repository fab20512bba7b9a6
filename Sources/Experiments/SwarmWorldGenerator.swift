import Foundation
import ScenarioFormat

/// A small random world: a scenario document drawn from a world seed, and what the reader made
/// of it.
package struct SwarmWorld: Sendable {
    /// The world's own seed: `prestage swarm --seed <seed> --worlds 1` regenerates exactly it.
    package let seed: UInt64
    /// The library scenario the draws started from.
    package let base: String
    /// The scenario document as drawn (sorted keys), what `--keep` writes.
    package let document: Data
    /// The scenario as the reader resolved it (what the replication runner runs).
    package let scenario: ScenarioFile
    /// Drawn documents the reader refused for a rule between fields, before this one.
    package let redraws: Int
}

/// Why no world came out of a seed.
package enum SwarmDrawFailure: Error, Sendable {
    /// The reader refused a value drawn inside the range the schema states for that field (the
    /// schema and the reader disagree, or the generator drew outside the schema): a finding.
    case fieldRefused(document: Data, message: String)
    /// The generator asked for a field the schema does not know, or for a range outside the
    /// schema's (a generator bug).
    case generator(String)
    /// Every attempt was refused by rules between fields.
    case alwaysRefused(document: Data, message: String, attempts: Int)
}

/// Draws small worlds within the scenario readers' own field ranges (the generated scenario
/// schema): a library scenario as the base, then devices, horizon, campaigns, platform and
/// network mix, topology, caches, origin, policy, users and Doze varied. Every numeric or
/// enumerated field is drawn inside the intersection of the schema's range and a "small world"
/// range, so a refusal of a single field is a finding; refusals by rules between fields
/// (`warm.aheadSeconds ≤ sendStartSeconds`, the world's preflight) are redrawn and counted.
package struct SwarmWorldGenerator: Sendable {
    /// Attempts per world before giving up (each refused by a rule between fields).
    static let attemptsMax = 30

    /// The bases: library name and its resolved scenario as canonical JSON.
    let bases: [(name: String, json: Data)]
    let schema: SwarmSchema

    /// A generator over the scenarios of `library` (every readable one; `default` at least).
    /// - Throws: `ScenarioLoadError` when no library scenario can be read.
    package init(library: ScenarioLibrary) throws(ScenarioLoadError) {
        var bases: [(String, Data)] = []
        for entry in library.entries() {
            guard let loaded = try? ScenarioLoader.load(entry.name, library: library),
                  let json = try? CanonicalJSON.encode(loaded.scenario, pretty: false) else { continue }
            bases.append((entry.name, json))
        }
        guard !bases.isEmpty else { throw ScenarioLoadError("swarm: no readable scenario in the library") }
        self.bases = bases
        schema = SwarmSchema.scenario
    }

    /// The world of `seed`: drawn, read with `ScenarioLoader.decode` (the path `validate` and
    /// `run` take), redrawn while a rule between fields refuses it.
    package func world(seed: UInt64) -> Result<SwarmWorld, SwarmDrawFailure> {
        var random = SwarmRandom(seed: seed)
        var lastRefusal = ""
        var lastDocument = Data()
        for attempt in 0..<Self.attemptsMax {
            let baseIndex = random.integer(0...(bases.count - 1))
            let base = bases[baseIndex]
            var draft = SwarmDraft(schema: schema, base: base.json, random: random)
            draft.drawWorld(seed: seed)
            random = draft.random
            if let bug = draft.generatorBug { return .failure(.generator("world seed \(seed): \(bug)")) }
            let document: Data
            do { document = try draft.document() } catch { return .failure(.generator("world seed \(seed): \(error)")) }
            do {
                let scenario = try ScenarioLoader.decode(document, label: "swarm world \(seed)")
                return .success(SwarmWorld(seed: seed, base: base.name, document: document, scenario: scenario, redraws: attempt))
            } catch {
                let fieldPaths = error.diagnostics.map { String($0.description.prefix { $0 != ":" }) }
                if let refused = fieldPaths.first(where: { draft.boundedPaths.contains($0) }) {
                    return .failure(.fieldRefused(document: document, message: "\(refused) drawn inside its schema range was refused: \(error.description)"))
                }
                lastRefusal = error.description
                lastDocument = document
            }
        }
        return .failure(.alwaysRefused(document: lastDocument, message: lastRefusal, attempts: Self.attemptsMax))
    }
}

/// One drawn scenario document under construction (a `JSONSerialization` tree).
struct SwarmDraft {
    let schema: SwarmSchema
    var tree: [String: Any]
    var random: SwarmRandom
    /// Paths of the values drawn inside a range the schema bounds on both sides (or an enum).
    var boundedPaths: Set<String> = []
    /// The first generator bug met (a path the schema lacks, a range outside the schema's).
    var generatorBug: String?

    init(schema: SwarmSchema, base: Data, random: SwarmRandom) {
        self.schema = schema
        self.tree = (try? JSONSerialization.jsonObject(with: base)) as? [String: Any] ?? [:]
        self.random = random
    }

    /// The document as JSON text, keys sorted.
    func document() throws -> Data {
        try JSONSerialization.data(withJSONObject: tree, options: [.sortedKeys, .prettyPrinted])
    }

    // MARK: - Field draws within the schema

    /// A number drawn in `small` ∩ the schema's range of `path` (log-uniform when `log`), integer
    /// when the schema says so, rounded to 4 decimals otherwise; stored at `path`.
    @discardableResult
    mutating func number(_ path: String, _ small: ClosedRange<Double>, log: Bool = false) -> Double {
        let components = SwarmPathComponent.parse(path)
        guard let range = schema.range(at: components) else { noteBug("\(path): not a field of the scenario schema"); return small.lowerBound }
        var lo = max(small.lowerBound, range.lower ?? -.infinity)
        var hi = min(small.upperBound, range.upper ?? .infinity)
        if range.lowerExclusive, lo == range.lower { lo = lo.nextUp }
        if range.upperExclusive, hi == range.upper { hi = hi.nextDown }
        if range.integer { lo = lo.rounded(.up); hi = hi.rounded(.down) }
        guard lo <= hi else { noteBug("\(path): the small range \(small) lies outside the schema's"); return small.lowerBound }
        var value = log && lo > 0 ? random.logUniform(lo...hi) : random.uniform(lo...hi)
        if range.integer {
            value = min(hi, max(lo, value.rounded()))
            set(Int(value), at: components)
        } else {
            value = min(hi, max(lo, (value * 10_000).rounded() / 10_000))
            if value < lo || value > hi { value = lo }
            set(value, at: components)
        }
        if range.isBounded { boundedPaths.insert(SwarmPathComponent.text(components)) }
        return value
    }

    /// An integer field (`number` on an integer field), returned as `Int`.
    @discardableResult
    mutating func integer(_ path: String, _ small: ClosedRange<Int>, log: Bool = false) -> Int {
        Int(number(path, Double(small.lowerBound)...Double(small.upperBound), log: log))
    }

    /// One of the schema's choices for `path` (restricted to `among` when given).
    @discardableResult
    mutating func choice(_ path: String, among: [String]? = nil) -> String {
        let components = SwarmPathComponent.parse(path)
        guard let range = schema.range(at: components), !range.choices.isEmpty else {
            noteBug("\(path): not an enumerated field of the scenario schema"); return among?.first ?? ""
        }
        let allowed = among ?? range.choices
        guard let unknown = allowed.first(where: { !range.choices.contains($0) }) else {
            let value = random.pick(allowed)
            set(value, at: components)
            boundedPaths.insert(SwarmPathComponent.text(components))
            return value
        }
        noteBug("\(path): \(unknown) is not among the schema's choices \(range.choices)")
        return unknown
    }

    /// A boolean field, true with probability `p`.
    @discardableResult
    mutating func flag(_ path: String, _ p: Double = 0.5) -> Bool {
        let components = SwarmPathComponent.parse(path)
        guard schema.range(at: components) != nil else { noteBug("\(path): not a field of the scenario schema"); return false }
        let value = random.chance(p)
        set(value, at: components)
        return value
    }

    /// Stores `value` (a JSON tree node) at `path` as is.
    mutating func put(_ value: Any, at path: String) { set(value, at: SwarmPathComponent.parse(path)) }

    /// Removes the member at `path` (an optional field left at its default).
    mutating func remove(_ path: String) { set(nil, at: SwarmPathComponent.parse(path)) }

    /// The node at `path` in the tree, if any.
    func node(_ path: String) -> Any? {
        var node: Any? = tree
        for c in SwarmPathComponent.parse(path) {
            switch c {
            case let .key(k): node = (node as? [String: Any])?[k]
            case let .index(i):
                guard let a = node as? [Any], i < a.count else { return nil }
                node = a[i]
            }
        }
        return node
    }

    private mutating func noteBug(_ text: String) { if generatorBug == nil { generatorBug = text } }

    private mutating func set(_ value: Any?, at path: [SwarmPathComponent]) {
        tree = Self.setting(value, in: tree, at: path[...]) as? [String: Any] ?? tree
    }

    private static func setting(_ value: Any?, in node: Any?, at path: ArraySlice<SwarmPathComponent>) -> Any? {
        guard let first = path.first else { return value }
        switch first {
        case let .key(k):
            var object = node as? [String: Any] ?? [:]
            object[k] = setting(value, in: object[k], at: path.dropFirst())
            return object
        case let .index(i):
            var array = node as? [Any] ?? []
            while array.count <= i { array.append([String: Any]()) }
            array[i] = setting(value, in: array[i], at: path.dropFirst()) ?? [String: Any]()
            return array
        }
    }
}
