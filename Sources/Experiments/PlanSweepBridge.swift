import Foundation
import ScenarioFormat

/// Carries a plan's evaluations to and from the sweep machinery, so a cluster can run them as
/// sweep shards: a plan step that needs replications not stored yet becomes a sweep file
/// (`plan --emit-sweep`), and the merged results of that sweep become stored replications
/// (`plan --ingest`), which the next `plan` run reuses.
package enum PlanSweepBridge {
    /// The sweep file running replications 0..<count of `scenarioPath` with `assignments`
    /// (`PATH=VALUE`, the knob's last) applied: one point, the knob's value as its grid.
    package static func sweepFile(scenarioPath: String, assignments: [String], count: Int, seed: UInt64, devices: Int?) throws -> Data {
        var set: [String: JSONValueText] = [:]
        var grid: [String: [JSONValueText]] = [:]
        for (i, a) in assignments.enumerated() {
            guard let (path, value) = parts(a) else { continue }
            if i == assignments.count - 1 { grid[path] = [value] } else { set[path] = value }
        }
        let file = EmittedSweep(scenario: scenarioPath, replications: count, seed: seed, devices: devices,
                                set: set.isEmpty ? nil : set, grid: grid)
        return try CanonicalJSON.encode(file)
    }

    /// The sweep file listing `points` (each a list of `PATH=VALUE`, every point the same paths),
    /// replications 0..<count of `scenarioPath` with `fixed` (`PATH=VALUE`) applied to every point:
    /// a design that is no grid (`sensitivity --emit-sweep`).
    package static func sweepFile(scenarioPath: String, fixed: [String], points: [[String]], count: Int, seed: UInt64, devices: Int?) throws -> Data {
        let set = Dictionary(fixed.compactMap(parts), uniquingKeysWith: { _, last in last })
        let listed = points.map { p in Dictionary(p.compactMap(parts), uniquingKeysWith: { _, last in last }) }
        let file = EmittedSweep(scenario: scenarioPath, replications: count, seed: seed, devices: devices,
                                set: set.isEmpty ? nil : set, grid: nil, points: listed)
        return try CanonicalJSON.encode(file)
    }

    /// `PATH=VALUE` as the sweep file holds it (nil without a `=`).
    static func parts(_ assignment: String) -> (String, JSONValueText)? {
        guard let eq = assignment.firstIndex(of: "=") else { return nil }
        return (String(assignment[..<eq]), JSONValueText(String(assignment[assignment.index(after: eq)...])))
    }

    /// The sweep file's shape (ScenarioFormat's `SweepFile` reads it).
    struct EmittedSweep: Encodable {
        let scenario: String
        let replications: Int
        let seed: UInt64
        let devices: Int?
        let set: [String: JSONValueText]?
        let grid: [String: [JSONValueText]]?
        var points: [[String: JSONValueText]]? = nil
    }

    /// A `--set` value as the sweep file holds it: a JSON scalar when the text is one, else a string.
    struct JSONValueText: Encodable {
        let text: String
        init(_ text: String) { self.text = text }
        func encode(to encoder: any Encoder) throws {
            var c = encoder.singleValueContainer()
            if let i = Int64(text) { try c.encode(i) } else if let d = Double(text), d.isFinite { try c.encode(d) }
            else if text == "true" || text == "false" { try c.encode(text == "true") } else { try c.encode(text) }
        }
    }

    /// Stores the replications of the merged (or unsharded) sweep results in `directory` whose
    /// points are scenarios the plan would run: `candidates(v)` are those with the knob `knobPath`
    /// at v, each with the assignments that made it; a point is taken only when one of them hashes
    /// like it. The directory is checked as `merge` checks a shard before anything is stored:
    /// complete (no `INCOMPLETE` marker, not a lone shard), its manifest's own hash, `items/` a
    /// real directory holding exactly the sweep's items, each item's format, sweep, point,
    /// replication, seed and content hash. One bad file refuses the whole directory.
    /// - Returns: the replications stored.
    /// - Throws: `CommandMessage` naming the file and what is wrong, or a write failure.
    package static func ingest(_ directory: URL, knobPath: String, candidates: (Double) -> [(assignments: [String], scenario: ScenarioFile)],
                              into evaluator: PlanEvaluator) throws -> Int {
        let (manifest, itemsByPoint) = try checkedItems(directory)
        var batches: [(perReplication: [Int: [String: Double]], assignments: [String], scenario: ScenarioFile)] = []
        if let axis = manifest.axes.firstIndex(where: { $0.field == knobPath }) {
            for point in manifest.points {
                guard axis < point.values.count, let value = Double(point.values[axis].plainText) else { continue }
                // A candidate with the sweep's replication count hashes like the sweep's point.
                guard let match = candidates(value).first(where: { c in
                    var s = c.scenario
                    s.run.replications = manifest.replications
                    return (try? s.hash()) == point.scenarioHash
                }) else { continue }
                batches.append((perReplication(itemsByPoint[point.point]), match.assignments, match.scenario))
            }
        }
        var stored = 0
        for batch in batches { stored += try evaluator.store(batch.perReplication, of: batch.scenario, assignments: batch.assignments) }
        return stored
    }

    /// Stores the replications of the merged sweep results in `directory` (checked as `ingest`
    /// checks them) whose points are design points of a study over the numeric fields `paths`:
    /// each point's values, in the order of `paths`, make its assignments (`PATH=VALUE` as
    /// `ScenarioKnob.assignment` writes them), `load` the scenario they make, and a point is
    /// taken only when that scenario hashes like the sweep's point (with the sweep's replication
    /// count). Points of other fields, or that hash otherwise, are left out.
    /// - Returns: the replications stored.
    package static func ingest(_ directory: URL, paths: [String], load: ([String]) -> ScenarioFile?, into evaluator: PlanEvaluator) throws -> Int {
        let (manifest, itemsByPoint) = try checkedItems(directory)
        guard Set(manifest.axes.map(\.field)) == Set(paths), manifest.axes.count == paths.count else { return 0 }
        let axisOf = paths.map { p in manifest.axes.firstIndex { $0.field == p } ?? 0 }
        var stored = 0
        for point in manifest.points {
            let numbers = axisOf.compactMap { $0 < point.values.count ? Double(point.values[$0].plainText) : nil }
            guard numbers.count == paths.count else { continue }
            let assignments = zip(paths, numbers).map(ScenarioKnob.assignment)
            guard var scenario = load(assignments) else { continue }
            let asRun = scenario
            scenario.run.replications = manifest.replications
            guard (try? scenario.hash()) == point.scenarioHash else { continue }
            stored += try evaluator.store(perReplication(itemsByPoint[point.point]), of: asRun, assignments: assignments)
        }
        return stored
    }

    /// Metric name → value per replication of one point's items.
    static func perReplication(_ items: [SweepItemResult]) -> [Int: [String: Double]] {
        var out: [Int: [String: Double]] = [:]
        for item in items {
            var metrics: [String: Double] = [:]
            for m in item.metrics { if let v = m.value { metrics[m.name] = v } }
            out[item.replication] = metrics
        }
        return out
    }

    /// The manifest and every item, by point, of the merged sweep results in `directory`,
    /// checked as `merge` checks a shard (see `ingest`).
    static func checkedItems(_ directory: URL) throws -> (SweepManifest, [[SweepItemResult]]) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CommandMessage("expected the directory of merged sweep results (prestage merge --out DIR), found none")
        }
        if FileManager.default.fileExists(atPath: directory.appendingPathComponent(ResultsDirectory.incompleteMarkerName).path) {
            throw CommandMessage("the sweep did not complete (it holds an INCOMPLETE marker); rerun its sweep or merge command to finish it")
        }
        if FileManager.default.fileExists(atPath: directory.appendingPathComponent(SweepFiles.shardName).path) {
            throw CommandMessage("expected merged sweep results, found one shard (shard.json); merge the shards first (prestage merge SHARD_DIRS... --out DIR)")
        }
        let manifest: SweepManifest
        switch SweepFiles.readManifest(directory) {
        case let .success((m, _)): manifest = m
        case let .failure(message): throw message
        }
        let items = directory.appendingPathComponent(SweepFiles.itemsDirectory, isDirectory: true)
        let r = manifest.replications
        let names = Set((0..<manifest.itemCount).map { SweepItemResult.fileName(point: $0 / r, replication: $0 % r) })
        do {
            _ = try ResultsDirectory.checkItemEntries(items, what: "the items of this sweep", removingCutShortWrites: false) { names.contains($0) }
        } catch { throw CommandMessage("\(error)") }
        // Every item, checked, before anything is stored.
        var itemsByPoint = [[SweepItemResult]](repeating: [], count: manifest.points.count)
        for k in 0..<manifest.itemCount {
            switch SweepFiles.readItem(items, point: k / r, replication: k % r, manifest: manifest) {
            case let .success((item, _))?: itemsByPoint[k / r].append(item)
            case let .failure(message)?: throw message
            case nil: throw CommandMessage("\(items.appendingPathComponent(SweepItemResult.fileName(point: k / r, replication: k % r)).path): expected item \(k) of the sweep, found none (the results are incomplete)")
            }
        }
        return (manifest, itemsByPoint)
    }
}
