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
            guard let eq = a.firstIndex(of: "=") else { continue }
            let path = String(a[..<eq]), text = String(a[a.index(after: eq)...])
            let value = JSONValueText(text)
            if i == assignments.count - 1 { grid[path] = [value] } else { set[path] = value }
        }
        let file = EmittedSweep(scenario: scenarioPath, replications: count, seed: seed, devices: devices,
                                set: set.isEmpty ? nil : set, grid: grid)
        return try CanonicalJSON.encode(file)
    }

    /// The sweep file's shape (ScenarioFormat's `SweepFile` reads it).
    struct EmittedSweep: Encodable {
        let scenario: String
        let replications: Int
        let seed: UInt64
        let devices: Int?
        let set: [String: JSONValueText]?
        let grid: [String: [JSONValueText]]
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
    /// at v; a point is taken only when one of them hashes like it.
    /// - Returns: the replications stored.
    package static func ingest(_ directory: URL, knobPath: String, candidates: (Double) -> [ScenarioFile],
                              into evaluator: PlanEvaluator) throws -> Int {
        let manifest = try JSONDecoder().decode(SweepManifest.self, from: Data(contentsOf: directory.appendingPathComponent("sweep.json")))
        var stored = 0
        guard let axis = manifest.axes.firstIndex(where: { $0.field == knobPath }) else { return 0 }
        for point in manifest.points {
            guard axis < point.values.count, let value = Double(point.values[axis].plainText) else { continue }
            // A candidate with the sweep's replication count hashes like the sweep's point.
            guard let scenario = candidates(value).first(where: { c in
                var s = c
                s.run.replications = manifest.replications
                return (try? s.hash()) == point.scenarioHash
            }) else { continue }
            var perReplication: [Int: [String: Double]] = [:]
            for r in 0..<manifest.replications {
                let url = directory.appendingPathComponent("items/p\(point.point)-r\(r).json")
                guard let data = FileManager.default.contents(atPath: url.path),
                      let item = try? JSONDecoder().decode(SweepItemResult.self, from: data) else { continue }
                var metrics: [String: Double] = [:]
                for m in item.metrics { if let v = m.value { metrics[m.name] = v } }
                perReplication[r] = metrics
            }
            stored += try evaluator.store(perReplication, of: scenario)
        }
        return stored
    }
}
