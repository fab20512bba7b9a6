import Foundation

/// A scalar a sweep assigns to a scenario field: a number, a string or a boolean.
package struct SweepValue: Codable, Sendable, Equatable {
    /// Longest string value, characters.
    static let stringCharactersMax = 200

    /// The value as ScenarioFormat JSON (integral numbers are `.integer`).
    let json: JSONValue

    /// A value from JSON (programmer API: scalars only).
    init(_ json: JSONValue) {
        self.json = json
    }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let b = try? c.decode(Bool.self) {
            json = .bool(b)
        } else if let i = try? c.decode(Int64.self) {
            json = .integer(i)
        } else if let d = try? c.decode(Double.self) {
            json = .double(d)
        } else if let s = try? c.decode(String.self) {
            guard s.count <= Self.stringCharactersMax, !s.contains(where: { $0.isNewline }) else {
                throw ConfigIssue(expected: "one line of at most \(Self.stringCharactersMax) characters")
            }
            json = .string(s)
        } else {
            throw ConfigIssue(expected: "a number, a string or a boolean")
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch json {
        case let .bool(b): try c.encode(b)
        case let .integer(i): try c.encode(i)
        case let .double(d): try c.encode(d)
        case let .string(s): try c.encode(s)
        case .null, .array, .object: try c.encodeNil()  // not produced by init(from:)
        }
    }

    /// The JSON text used in an override (`300`, `"none"`, `true`).
    var overrideText: String {
        switch json {
        case let .string(s): return JSONValue.quoted(s)
        default: return plainText
        }
    }

    /// The value in a CSV cell or a progress line (strings unquoted).
    package var plainText: String {
        switch json {
        case let .bool(b): return b ? "true" : "false"
        case let .integer(i): return String(i)
        case let .double(d): return "\(d)"
        case let .string(s): return s
        case .null, .array, .object: return ""
        }
    }
}

/// A sweep file: a base scenario, replications, a seed and a grid of scenario fields.
///
/// ```json
/// { "scenario": "default", "replications": 5, "seed": 1, "devices": 5000,
///   "set":  { "campaigns[0].warm.mode": "allPops" },
///   "grid": { "campaigns[0].warm.aheadSeconds": [0, 120, 300, 600] } }
/// ```
/// Instead of `grid`, `points` lists the points themselves, each an object of the same fields
/// (a design that is no product of value lists, e.g. a sensitivity study's):
/// ```json
/// { "scenario": "default", "replications": 2,
///   "points": [ { "infra.origin.workers": 16, "campaigns[0].sendRatePerMinute": 300000 },
///               { "infra.origin.workers": 64, "campaigns[0].sendRatePerMinute": 300000 } ] }
/// ```
/// Decoded strictly (unknown keys with suggestions, every problem with its path).
struct SweepFile: Decodable, Sendable, Equatable {
    /// Most grid fields.
    static let fieldsMax = 8
    /// Most values per grid field.
    static let valuesPerFieldMax = 1_000
    /// Most grid points (the product of the value counts).
    static let pointsMax = 10_000
    /// Most work items (points × replications).
    static let itemsMax = 1_000_000
    /// Most fixed `set` overrides.
    static let setMax = 100
    /// Largest sweep file, bytes.
    static let fileBytesMax = 1 << 20

    /// The base scenario: a bare name from `scenarios/` or a path (relative paths are looked up
    /// next to the sweep file first, then from the working directory). Required.
    var scenario: String
    /// Replications per point (1...10 000). Default: the scenario's `run.replications`.
    var replications: Int?
    /// Master seed; every point uses it, so points compare on common random numbers.
    /// Default: the scenario's `run.seed`.
    var seed: UInt64?
    /// Population size of every point (overrides `population.devices`). Default: the scenario's.
    var devices: Int?
    /// Fixed overrides applied to every point before the grid's (path → value).
    var set: [String: SweepValue]
    /// Field path → the values it takes. Points are every combination; fields are ordered by path
    /// and the last one varies fastest. Empty when `points` is given.
    var grid: [String: [SweepValue]]
    /// The points as listed (nil: the grid's). Every point sets the same fields.
    var points: [[String: SweepValue]]?
    /// Most fields a listed point sets (a sensitivity study sets every factor).
    static let pointFieldsMax = 100

    /// `$schema` (the JSON Schema an editor validates the file with) is read and not kept.
    enum CodingKeys: String, CodingKey, CaseIterable { case schema = "$schema", scenario, replications, seed, devices, set, grid, points }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        // Optional fields through decodeIfPresent of validating types: a bad one is recorded at its
        // path and the pass goes on, so it is reported together with the grid's problems.
        _ = try c.decodeIfPresent(String.self, forKey: .schema)
        replications = try c.decodeIfPresent(Checked<ReplicationsRange>.self, forKey: .replications)?.value
        seed = try c.decodeIfPresent(UInt64.self, forKey: .seed)
        devices = try c.decodeIfPresent(Checked<DevicesRange>.self, forKey: .devices)?.value
        set = try c.decodeIfPresent(SetField.self, forKey: .set)?.overrides ?? [:]
        let scenario = try c.decodeIfPresent(ScenarioField.self, forKey: .scenario)?.value
        // The grid (or the points) last and required: its element errors end this object's decoding.
        if c.contains(.points) {
            guard !c.contains(.grid) else {
                throw DecodingError.dataCorruptedError(forKey: .points, in: c, debugDescription: "expected \"grid\" or \"points\", found both")
            }
            grid = [:]
            points = try c.decode(PointsField.self, forKey: .points).points
        } else {
            grid = try c.decode(GridField.self, forKey: .grid).fields
            points = nil
        }
        guard let scenario else {
            guard c.contains(.scenario) else {
                throw DecodingError.keyNotFound(CodingKeys.scenario, DecodingError.Context(
                    codingPath: decoder.codingPath, debugDescription: "missing required key \"scenario\""))
            }
            // Present but invalid: already recorded at its path (this repeat is dropped as consequential).
            throw DecodingError.dataCorruptedError(forKey: .scenario, in: c, debugDescription: "invalid scenario")
        }
        self.scenario = scenario
    }

    /// Bounds of a validated integer field.
    protocol IntegerRange { static var range: ClosedRange<Int> { get } }
    enum ReplicationsRange: IntegerRange { static var range: ClosedRange<Int> { 1...ScenarioLimits.replicationsMax } }
    enum DevicesRange: IntegerRange { static var range: ClosedRange<Int> { 1...ScenarioLimits.devicesMax } }

    /// An integer within `R.range`.
    struct Checked<R: IntegerRange>: Decodable {
        let value: Int
        init(from decoder: any Decoder) throws {
            let v = try decoder.singleValueContainer().decode(Int.self)
            guard R.range.contains(v) else {
                throw ConfigIssue(expected: "an integer in \(R.range.lowerBound)...\(R.range.upperBound)", found: "\(v)")
            }
            value = v
        }
    }

    /// A scenario name or path of 1...4096 bytes.
    struct ScenarioField: Decodable {
        let value: String
        init(from decoder: any Decoder) throws {
            let s = try decoder.singleValueContainer().decode(String.self)
            guard !s.isEmpty, s.utf8.count <= 4096 else {
                throw ConfigIssue(expected: "a scenario name or path of 1...4096 bytes")
            }
            value = s
        }
    }

    /// At most `setMax` fixed overrides.
    struct SetField: Decodable {
        let overrides: [String: SweepValue]
        init(from decoder: any Decoder) throws {
            let o = try decoder.singleValueContainer().decode([String: SweepValue].self)
            guard o.count <= SweepFile.setMax else {
                throw ConfigIssue(expected: "at most \(SweepFile.setMax) overrides", found: "\(o.count)")
            }
            overrides = o
        }
    }

    /// 1...`pointsMax` listed points, each of 1...`pointFieldsMax` fields, all the same fields.
    struct PointsField: Decodable {
        let points: [[String: SweepValue]]
        init(from decoder: any Decoder) throws {
            let p = try decoder.singleValueContainer().decode([[String: SweepValue]].self)
            guard (1...SweepFile.pointsMax).contains(p.count) else {
                throw ConfigIssue(expected: "a list of 1...\(SweepFile.pointsMax) points", found: "\(p.count) points")
            }
            let fields = Set(p[0].keys)
            guard (1...SweepFile.pointFieldsMax).contains(fields.count) else {
                throw ConfigIssue(expected: "points of 1...\(SweepFile.pointFieldsMax) fields", found: "\(fields.count) fields in point 0")
            }
            if let i = p.firstIndex(where: { Set($0.keys) != fields }) {
                let other = Set(p[i].keys)
                let missing = fields.subtracting(other).sorted(), extra = other.subtracting(fields).sorted()
                throw ConfigIssue(expected: "every point setting the fields of point 0 (\(fields.sorted().joined(separator: ", ")))",
                                  found: "point \(i)" + (missing.isEmpty ? "" : " without \(missing.joined(separator: ", "))")
                                      + (extra.isEmpty ? "" : " with \(extra.joined(separator: ", "))"))
            }
            points = p
        }
    }

    /// 1...`fieldsMax` grid fields.
    struct GridField: Decodable {
        let fields: [String: [SweepValue]]
        init(from decoder: any Decoder) throws {
            let g = try decoder.singleValueContainer().decode([String: [SweepValue]].self)
            guard (1...SweepFile.fieldsMax).contains(g.count) else {
                throw ConfigIssue(expected: "an object of 1...\(SweepFile.fieldsMax) fields", found: "\(g.count) fields")
            }
            fields = g
        }
    }
}

/// One field of a sweep's grid.
package struct SweepAxis: Codable, Sendable, Equatable {
    /// The scenario path, as written (`campaigns[0].warm.aheadSeconds`).
    package var field: String
    /// Its values, in file order.
    var values: [SweepValue]
}

/// A grid point as recorded in `sweep.json`.
package struct SweepPoint: Codable, Sendable, Equatable {
    /// 0-based index: fields in path order, the last varying fastest.
    package var point: Int
    /// One value per grid field, in field order.
    package var values: [SweepValue]
    /// Hash of the point's resolved scenario.
    package var scenarioHash: String
}

/// `sweep.json`: everything about a sweep that its results depend on. Identical in every shard;
/// its hash identifies the sweep.
package struct SweepManifest: Codable, Sendable, Equatable {
    /// Identifies the file format.
    package static let formatName = "prestage-sweep/1"

    /// `formatName`.
    package var format: String
    /// "sha256:" + hex SHA-256 of this manifest's canonical compact JSON with `sweepHash` empty.
    package var sweepHash: String
    /// The tool that ran it.
    package var toolVersion: String
    /// The base scenario's name and resolved hash (fixed `set` overrides, devices, seed applied).
    package var scenarioName: String
    package var scenarioHash: String
    /// Master seed of every point; replication r of every point uses streams (seed, r).
    package var seed: UInt64
    /// Replications per point.
    package var replications: Int
    /// Confidence level of every interval.
    package var confidenceLevel: Double
    /// Precision target of `precision.replicationsNeeded`.
    package var relativeHalfWidthTarget: Double
    /// The grid fields, sorted by path.
    package var axes: [SweepAxis]
    /// Every point.
    package var points: [SweepPoint]

    /// Work items: item k is (point k / replications, replication k mod replications).
    package var itemCount: Int { points.count * replications }

    /// The hash this manifest should carry.
    package func computedHash() throws -> String {
        var copy = self
        copy.sweepHash = ""
        return "sha256:" + hexDigest(try CanonicalJSON.encode(copy, pretty: false))
    }
}

/// A sweep resolved against its scenario: the manifest and every point's scenario.
package struct SweepPlan: Sendable {
    /// What `sweep.json` records.
    package let manifest: SweepManifest
    /// The base scenario (with `set`, devices, seed and replications applied).
    package let base: ScenarioFile
    /// Each point's resolved scenario, by point index.
    package let scenarios: [ScenarioFile]

    /// Loads and validates the sweep file at `path`: the file strictly, then every `set` override
    /// and grid value alone against the scenario (so a bad value is reported once, with its
    /// place in the grid), then every point.
    /// - Throws: `CommandMessage` naming the file, the path in it and what was expected.
    /// - Complexity: O(points × scenario decoding).
    package static func load(_ path: String, library: ScenarioLibrary) throws(CommandMessage) -> SweepPlan {
        let url = URL(fileURLWithPath: path)
        let data: Data
        switch InputFile.read(url.path, limitBytes: SweepFile.fileBytesMax) {
        case let .success(d): data = d
        case .failure(.unreadable) where !FileManager.default.fileExists(atPath: url.path):
            throw CommandMessage("\(path): expected a sweep file, found nothing")
        case let .failure(failure): throw CommandMessage("\(path): " + InputFile.message(failure, what: "a sweep file"))
        }
        let file: SweepFile
        switch StrictJSONDecoder().decode(SweepFile.self, from: data) {
        case let .success(f): file = f
        case let .failure(errors):
            var lines = errors.diagnostics.map { "\(path): \($0)" }
            if errors.omittedCount > 0 { lines.append("\(path): … and \(errors.omittedCount) more") }
            throw CommandMessage(lines.joined(separator: "\n"))
        }
        return try resolve(file, label: path, directory: url.deletingLastPathComponent(), library: library)
    }

    /// Resolves a decoded sweep file (see `load`); relative scenario paths are tried in `directory` first.
    static func resolve(_ file: SweepFile, label: String, directory: URL, library: ScenarioLibrary) throws(CommandMessage) -> SweepPlan {
        // The base scenario.
        let scenarioURL: URL
        let nextToSweep = directory.appendingPathComponent(file.scenario)
        if !file.scenario.hasPrefix("/"), file.scenario.contains("/") || file.scenario.hasSuffix(".json"),
           FileManager.default.fileExists(atPath: nextToSweep.path) {
            scenarioURL = nextToSweep
        } else {
            do { scenarioURL = try library.resolve(file.scenario) } catch { throw CommandMessage("\(label): scenario: \(error.description)") }
        }
        let scenarioData: Data
        do { scenarioData = try ScenarioLoader.read(scenarioURL, label: scenarioURL.path) } catch { throw CommandMessage(error.description) }

        // Paths: valid, outside `run` (but run.devices/run.eventsMax), not both fixed and swept.
        var problems: [String] = []
        func place(_ section: String, _ field: String) -> String { "\(label): \(section)[\(DisplayText.quoted(field))]" }
        let listedFields = file.points?.first.map { $0.keys.sorted() } ?? []
        for (section, fields) in [("set", file.set.keys.sorted()), ("grid", file.grid.keys.sorted()), ("points", listedFields)] {
            for field in fields {
                do {
                    let p = try JSONPath(parsing: field)
                    if case .key("run")? = p.components.first,
                       p.components.count != 2 || !(p.components[1] == .key("devices") || p.components[1] == .key("eventsMax")) {
                        problems.append("\(place(section, field)): expected a scenario field outside \"run\" (or run.devices, run.eventsMax): the sweep's own \"seed\" and \"replications\" set the rest")
                    }
                } catch {
                    problems.append("\(place(section, field)): \(error.message)")
                }
            }
        }
        for field in file.grid.keys.sorted() {
            guard let values = file.grid[field] else { continue }
            if file.set[field] != nil { problems.append("\(place("grid", field)): also fixed in \"set\"; expected each field in one of them") }
            if values.isEmpty || values.count > SweepFile.valuesPerFieldMax {
                problems.append("\(place("grid", field)): expected 1...\(SweepFile.valuesPerFieldMax) values, found \(values.count)")
            }
            for (i, v) in values.enumerated() where values[..<i].contains(v) {
                problems.append("\(place("grid", field))[\(i)]: expected distinct values, found \(v.overrideText) again")
            }
        }
        for field in listedFields where file.set[field] != nil {
            problems.append("\(place("points", field)): also fixed in \"set\"; expected each field in one of them")
        }
        guard problems.isEmpty else { throw CommandMessage(problems.joined(separator: "\n")) }
        let axes: [SweepAxis]
        if let listed = file.points {
            // Each field's distinct values in order of appearance (what the report's axes show).
            axes = listedFields.map { field in
                var values: [SweepValue] = []
                for point in listed { if let v = point[field], !values.contains(v) { values.append(v) } }
                return SweepAxis(field: field, values: values)
            }
        } else {
            axes = file.grid.keys.sorted().map { SweepAxis(field: $0, values: file.grid[$0] ?? []) }
        }
        // Saturating product: 1000^8 does not fit in an Int.
        let pointCount = file.points?.count ?? axes.reduce(1) { product, axis in
            let (p, overflow) = product.multipliedReportingOverflow(by: axis.values.count)
            return overflow ? Int.max : p
        }
        guard pointCount <= SweepFile.pointsMax else {
            throw CommandMessage("\(label): grid: expected at most \(SweepFile.pointsMax) points, found \(pointCount == Int.max ? "more than \(Int.max)" : String(pointCount)) (\(axes.map { String($0.values.count) }.joined(separator: " × ")))")
        }

        // The base scenario with the fixed overrides and the sweep's settings.
        let fixed = file.set.keys.sorted().map { "\($0)=\(file.set[$0]?.overrideText ?? "null")" }
        let flags = ScenarioLoader.FlagOverrides(devices: file.devices, seed: file.seed, replications: file.replications)
        let base: ScenarioFile
        do {
            base = try ScenarioLoader.decode(scenarioData, label: "\(label): scenario \(scenarioURL.path) with \"set\"", set: fixed, flags: flags)
        } catch { throw CommandMessage(error.description) }
        let replications = base.run.replications
        guard pointCount * replications <= SweepFile.itemsMax else {
            throw CommandMessage("\(label): expected at most \(SweepFile.itemsMax) points × replications, found \(pointCount) × \(replications)")
        }
        // Every grid value alone, so a bad one is named once with its place (listed points are
        // checked whole below).
        for axis in axes where file.points == nil {
            for (i, v) in axis.values.enumerated() {
                do {
                    _ = try ScenarioLoader.decode(scenarioData, label: "\(place("grid", axis.field))[\(i)] = \(v.overrideText)",
                                                  set: fixed + ["\(axis.field)=\(v.overrideText)"], flags: flags)
                } catch {
                    problems.append(error.description)
                }
            }
        }
        guard problems.isEmpty else { throw CommandMessage(problems.joined(separator: "\n")) }
        // Every point (combinations can still conflict, e.g. warm.aheadSeconds > sendStartSeconds).
        var scenarios: [ScenarioFile] = []
        var points: [SweepPoint] = []
        scenarios.reserveCapacity(pointCount)
        var failedPoints = 0
        for p in 0..<pointCount {
            let values = file.points.map { listed in axes.map { listed[p][$0.field] ?? SweepValue(.null) } }
                ?? coordinates(of: p, sizes: axes.map(\.values.count)).enumerated().map { axes[$0.offset].values[$0.element] }
            let assignments = zip(axes, values).map { "\($0.field)=\($1.overrideText)" }
            do {
                let s = try ScenarioLoader.decode(scenarioData, label: "\(label): point \(p) (\(assignments.joined(separator: ", ")))",
                                                  set: fixed + assignments, flags: flags)
                if s.replicationsPerDraw > 1 {
                    throw CommandMessage("\(label): point \(p): uncertain.replicationsPerDraw: a sweep reads its replications as independent days; "
                                         + "expected 1, found \(s.replicationsPerDraw) (run the split with prestage run)")
                }
                scenarios.append(s)
                points.append(SweepPoint(point: p, values: values, scenarioHash: try s.hash()))
            } catch let error as ScenarioLoadError {
                failedPoints += 1
                if failedPoints <= 5 { problems.append(error.description) }
            } catch let error as CommandMessage {
                throw error
            } catch {
                throw CommandMessage("\(label): point \(p): cannot encode the resolved scenario: \(error)")
            }
        }
        if failedPoints > 5 { problems.append("\(label): … and \(failedPoints - 5) more invalid points") }
        guard problems.isEmpty else { throw CommandMessage(problems.joined(separator: "\n")) }
        do {
            var manifest = SweepManifest(
                format: SweepManifest.formatName, sweepHash: "", toolVersion: ToolVersion.text,
                scenarioName: base.name, scenarioHash: try base.hash(), seed: base.run.seed, replications: replications,
                confidenceLevel: base.run.confidenceLevel, relativeHalfWidthTarget: base.run.relativeHalfWidthTarget,
                axes: axes, points: points)
            manifest.sweepHash = try manifest.computedHash()
            return SweepPlan(manifest: manifest, base: base, scenarios: scenarios)
        } catch {
            throw CommandMessage("\(label): cannot encode the sweep: \(error)")
        }
    }

    /// The value index per field of point `p` (mixed radix, the last field fastest).
    static func coordinates(of p: Int, sizes: [Int]) -> [Int] {
        var rest = p
        var out = [Int](repeating: 0, count: sizes.count)
        for i in sizes.indices.reversed() {
            out[i] = rest % sizes[i]
            rest /= sizes[i]
        }
        return out
    }
}

/// `--shard i/N`: this process runs the work items k with k mod N = i.
package struct ShardSpec: Sendable, Equatable, Codable {
    /// Most shards.
    static let countMax = 10_000
    /// 0-based shard index.
    package var index: Int
    /// Number of shards.
    package var count: Int

    /// Parses "i/N" with 0 ≤ i < N ≤ `countMax`.
    package init(parsing text: String) throws(CommandMessage) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]), n >= 1, n <= Self.countMax, i >= 0, i < n else {
            throw CommandMessage("--shard: expected i/N with 0 ≤ i < N ≤ \(Self.countMax) (e.g. 0/4), found \"\(text)\"")
        }
        index = i
        count = n
    }

    /// A shard from its parts (0 ≤ index < count).
    init(index: Int, count: Int) {
        precondition(index >= 0 && index < count, "invalid shard")
        self.index = index
        self.count = count
    }

    /// Whether work item `k` belongs to this shard.
    package func owns(_ k: Int) -> Bool { k % count == index }

    /// "i/N".
    package var text: String { "\(index)/\(count)" }
}
