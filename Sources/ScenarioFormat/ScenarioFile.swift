import Foundation
import PushModel

/// The `run` section of a scenario file: how to run the world, not what the world is.
package struct RunSettings: Codable, Sendable, Equatable {
    /// Master seed (0...2⁶⁴−1). Replication r draws every variate from streams derived from
    /// (seed, r), so two scenarios with the same seed use common random numbers. Default 1.
    package var seed: UInt64 = 1
    /// Independent replications (1...10 000); confidence intervals need at least 2. Default 5.
    package var replications: Int = 5
    /// Shortcut for `population.devices` (1...50 000 000); wins over it when both are given, and
    /// is folded into `population.devices` in the resolved scenario. Default: absent.
    var devices: Int? = nil
    /// Most events one replication may process (1...10¹²); a replication that reaches it stops
    /// early and says so in `summary.json` (`stopReasons`). Default 2 000 000 000.
    package var eventsMax: UInt64 = 2_000_000_000
    /// Confidence level of every interval, in [0.5, 0.999]. Default 0.95.
    package var confidenceLevel: Double = 0.95
    /// The precision each metric is planned for: `summary.json` and report.md give, per metric,
    /// the replications needed for a CI half-width of this share of the mean's magnitude, in
    /// (0, 1]. Default 0.05.
    package var relativeHalfWidthTarget: Double = RunSettings.relativeHalfWidthTargetDefault
    /// 0.05: a half-width of 5 % of the mean.
    package static let relativeHalfWidthTargetDefault = 0.05

    /// The defaults.
    init() {}

    enum CodingKeys: String, CodingKey, CaseIterable { case seed, replications, devices, eventsMax, confidenceLevel, relativeHalfWidthTarget }

    package init(from decoder: any Decoder) throws {
        let d = RunSettings()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        seed = try c.decodeIfPresent(UInt64.self, forKey: .seed) ?? d.seed
        replications = try c.decodeIfPresent(Int.self, forKey: .replications) ?? d.replications
        devices = try c.decodeIfPresent(Int.self, forKey: .devices)
        eventsMax = try c.decodeIfPresent(UInt64.self, forKey: .eventsMax) ?? d.eventsMax
        confidenceLevel = try c.decodeIfPresent(Double.self, forKey: .confidenceLevel) ?? d.confidenceLevel
        relativeHalfWidthTarget = try c.decodeIfPresent(Double.self, forKey: .relativeHalfWidthTarget) ?? d.relativeHalfWidthTarget
        var problems: [ConfigIssue] = []
        func check(_ ok: Bool, _ key: CodingKeys, _ expected: String, _ found: String) {
            if !ok { problems.append(ConfigIssue(key: key.stringValue, expected: expected, found: found)) }
        }
        check((1...ScenarioLimits.replicationsMax).contains(replications), .replications,
              "an integer in 1...\(ScenarioLimits.replicationsMax)", "\(replications)")
        if let devices {
            check((1...ScenarioLimits.devicesMax).contains(devices), .devices, "an integer in 1...\(ScenarioLimits.devicesMax)", "\(devices)")
        }
        let events = ScenarioLimits.eventsMaxRange, levels = ScenarioLimits.confidenceLevels
        check(events.contains(eventsMax), .eventsMax, "an integer in \(events.lowerBound)...\(events.upperBound)", "\(eventsMax)")
        check(levels.contains(confidenceLevel), .confidenceLevel, "a number in [\(levels.lowerBound), \(levels.upperBound)]", "\(confidenceLevel)")
        check(relativeHalfWidthTarget > 0 && relativeHalfWidthTarget <= 1, .relativeHalfWidthTarget, "a number in (0, 1]",
              "\(relativeHalfWidthTarget)")
        if !problems.isEmpty { throw ConfigIssues(problems) }
    }
}

/// A scenario file: a name, the one-line question it answers, run settings, and the world.
///
/// The world's sections (`population`, `platforms`, `users`, `campaigns`, `preloadPolicy`,
/// `infra`, `horizonSeconds`: PushModel's `PushWorldConfig`) sit at the top level next to `name`,
/// `question` and `run`, so overrides read `--set campaigns[0].warm.aheadSeconds=300`.
/// The format is documented in docs/scenario-format.md.
package struct ScenarioFile: Codable, Sendable, Equatable {
    /// Longest `name`, bytes.
    package static let nameBytesMax = 64
    /// Longest `question`, characters.
    static let questionCharactersMax = 200

    /// 1–64 characters from [A-Za-z0-9._-]; used in result directory names. Required.
    package var name: String
    /// What the scenario answers, one line (1–200 characters, no line break). Required.
    package var question: String
    /// Free text for readers (JSON has no comments): assumptions, variants as `--set` runs.
    /// At most 50 lines of 1–500 characters. Default: none.
    var notes: [String]
    /// How to run it.
    package var run: RunSettings
    /// Service-level objectives on result metrics (`slo`; see SLO.swift). Default: none.
    package var slo: [ServiceLevelObjective] = []
    /// Inputs known only as a distribution of plausible values (`uncertain`; see
    /// UncertainInputs.swift). Default: none, and every replication simulates `world` as written.
    package var uncertain = UncertainInputs()
    /// What is simulated.
    package var world: PushWorldConfig

    /// The world a run simulates: `world` with the model-level settings the format derives
    /// (InfraModel's per-second series covering the horizon).
    package var modelWorld: PushWorldConfig {
        var w = world
        w.infra = world.effectiveInfra
        return w
    }

    /// A scenario from its parts.
    init(name: String, question: String, notes: [String] = [], run: RunSettings = RunSettings(),
         world: PushWorldConfig = PushWorldConfig()) {
        self.name = name
        self.question = question
        self.notes = notes
        self.run = run
        self.world = world
    }

    /// The top-level keys this type reads itself (the world's sections are the rest). `$schema`
    /// (the JSON Schema an editor validates the file with) is read and not kept: it never reaches
    /// the resolved scenario, its hash or any output.
    enum CodingKeys: String, CodingKey, CaseIterable { case schema = "$schema", name, question, notes, run, slo, uncertain }
    /// Most `notes` lines, and their longest length in characters.
    static let notesMax = 50, noteCharactersMax = 500

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        // Everything through decodeIfPresent first: problems there are recorded at their path and
        // the pass goes on, so a bad name, question, run section and world are reported together.
        _ = try c.decodeIfPresent(String.self, forKey: .schema)
        run = try c.decodeIfPresent(RunSettings.self, forKey: .run) ?? RunSettings()
        notes = try c.decodeIfPresent(Notes.self, forKey: .notes)?.lines ?? []
        let name = try c.decodeIfPresent(Name.self, forKey: .name)?.value
        let question = try c.decodeIfPresent(Question.self, forKey: .question)?.value
        slo = try c.decodeIfPresent(ServiceLevelObjectives.self, forKey: .slo)?.objectives ?? []
        uncertain = try c.decodeIfPresent(UncertainInputs.self, forKey: .uncertain) ?? UncertainInputs()
        world = try PushWorldConfig(from: decoder)
        for (key, value) in [(CodingKeys.name, name), (.question, question)] where value == nil {
            guard c.contains(key) else {
                throw DecodingError.keyNotFound(key, DecodingError.Context(
                    codingPath: decoder.codingPath, debugDescription: "missing required key \"\(key.stringValue)\""))
            }
            // Present but invalid: already recorded at its path (this repeat is dropped as consequential).
            throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "invalid \(key.stringValue)")
        }
        self.name = name ?? ""
        self.question = question ?? ""
        let unproducible = ServiceLevelObjective.unproducible(slo, in: world)
        if !unproducible.isEmpty { throw ConfigIssues(unproducible) }
    }

    /// A validated `name`.
    struct Name: Decodable {
        let value: String
        init(from decoder: any Decoder) throws {
            let s = try decoder.singleValueContainer().decode(String.self)
            let ok = !s.isEmpty && s.utf8.count <= ScenarioFile.nameBytesMax && !s.hasPrefix(".") && s.utf8.allSatisfy { b in
                (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2E || b == 0x5F || b == 0x2D
            }
            guard ok else {
                throw ConfigIssue(expected: "1–\(ScenarioFile.nameBytesMax) characters from [A-Za-z0-9._-] not starting with \".\"")
            }
            value = s
        }
    }

    /// A validated `question`: one line.
    struct Question: Decodable {
        let value: String
        init(from decoder: any Decoder) throws {
            let s = try decoder.singleValueContainer().decode(String.self)
            guard !s.trimmingCharacters(in: .whitespaces).isEmpty, s.count <= ScenarioFile.questionCharactersMax,
                  !s.contains(where: { $0.isNewline }) else {
                throw ConfigIssue(expected: "one line of 1–\(ScenarioFile.questionCharactersMax) characters")
            }
            value = s
        }
    }

    /// Validated `notes`.
    struct Notes: Decodable {
        let lines: [String]
        init(from decoder: any Decoder) throws {
            let lines = try decoder.singleValueContainer().decode([String].self)
            guard lines.count <= ScenarioFile.notesMax, lines.allSatisfy({ !$0.isEmpty && $0.count <= ScenarioFile.noteCharactersMax }) else {
                throw ConfigIssue(expected: "at most \(ScenarioFile.notesMax) lines of 1–\(ScenarioFile.noteCharactersMax) characters", found: "\(lines.count) lines (longest \(lines.map(\.count).max() ?? 0))")
            }
            self.lines = lines
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(question, forKey: .question)
        if !notes.isEmpty { try c.encode(notes, forKey: .notes) }
        try c.encode(run, forKey: .run)
        if !slo.isEmpty { try c.encode(slo, forKey: .slo) }
        if !uncertain.isEmpty { try c.encode(uncertain, forKey: .uncertain) }
        try world.encode(to: encoder)
    }

    /// This scenario with the `run.devices` shortcut folded into `population.devices`: the form
    /// that is run, hashed and recorded in `summary.json`.
    package var resolved: ScenarioFile {
        var copy = self
        if let devices = run.devices {
            copy.world.population.devices = devices
            copy.run.devices = nil
        }
        return copy
    }

    /// Canonical JSON of the scenario: compact, keys sorted, no escaped slashes.
    /// - Throws: an `EncodingError` only for values JSON cannot hold (never for a decoded scenario).
    func canonicalJSON() throws -> Data {
        try CanonicalJSON.encode(self, pretty: false)
    }

    /// "sha256:" + hex SHA-256 of `canonicalJSON()`.
    package func hash() throws -> String {
        "sha256:" + hexDigest(try canonicalJSON())
    }
}

/// Reads scenario files: look-up, `--set` and flag overrides, strict decoding.
package enum ScenarioLoader {
    /// Overrides given as command-line flags, applied after the `--set` ones.
    package struct FlagOverrides: Sendable, Equatable {
        /// `--devices N` → `run.devices`.
        var devices: Int?
        /// `--seed S` → `run.seed`.
        var seed: UInt64?
        /// `--replications N` → `run.replications`.
        var replications: Int?

        /// Flag overrides; nil fields are not applied.
        package init(devices: Int? = nil, seed: UInt64? = nil, replications: Int? = nil) {
            self.devices = devices
            self.seed = seed
            self.replications = replications
        }

        var jsonOverrides: [JSONOverride] {
            var out: [JSONOverride] = []
            if let devices { out.append(JSONOverride(path: JSONPath([.key("run"), .key("devices")]), value: .integer(Int64(devices)))) }
            // `seed` is set after decoding: any UInt64 is valid, and seeds above Int64.max have
            // no exact JSON integer form in the JSON tree.
            if let replications {
                out.append(JSONOverride(path: JSONPath([.key("run"), .key("replications")]), value: .integer(Int64(replications))))
            }
            return out
        }
    }

    /// Decodes `data` (the contents of `label`) strictly, applies the overrides, and resolves it.
    ///
    /// Overrides are applied to the scenario with every default filled in (the file is decoded,
    /// re-encoded, overridden and decoded again), so `--set campaigns[0].warm.aheadSeconds=120`
    /// works on a file that leaves `campaigns` at its default. The file's own problems are
    /// reported first; override problems name the override's path.
    /// - Throws: `ScenarioLoadError` with one diagnostic per problem.
    package static func decode(_ data: Data, label: String, set assignments: [String] = [],
                              flags: FlagOverrides = FlagOverrides()) throws(ScenarioLoadError) -> ScenarioFile {
        var overrides: [JSONOverride] = []
        var problems: [Diagnostic] = []
        for text in assignments {
            do { overrides.append(try JSONOverride(parsing: text)) } catch { problems.append(error) }
        }
        overrides += flags.jsonOverrides
        let decoder = StrictJSONDecoder()
        var file: ScenarioFile
        switch decoder.decode(ScenarioFile.self, from: data) {
        case let .success(f): file = f
        case let .failure(errors): throw failure(label, errors.adding(problems))
        }
        if !overrides.isEmpty {
            var tree: JSONValue
            do {
                tree = try JSONParser.parse(try CanonicalJSON.encode(file, pretty: false))
            } catch {
                throw ScenarioLoadError("\(label): cannot re-encode the scenario to apply overrides: \(error)")
            }
            for o in overrides {
                do { tree = try tree.applying(o) } catch { problems.append(error) }
            }
            if !problems.isEmpty { throw failure(label, ScenarioErrors(problems)) }
            switch decoder.decode(ScenarioFile.self, from: tree) {
            case let .success(f): file = f
            case let .failure(errors):
                throw failure(label, ScenarioErrors(errors.diagnostics.map { suggestingSibling($0, in: tree) }, alreadyOmitted: errors.omittedCount))
            }
        } else if !problems.isEmpty {
            throw failure(label, ScenarioErrors(problems))
        }
        if let seed = flags.seed { file.run.seed = seed }
        let resolved = file.resolved
        // What building the world would refuse, refused now: the same for validate and run.
        do {
            try resolved.world.preflight()
        } catch {
            throw ScenarioLoadError("\(label): \(DisplayText.bounded("\(error)", limit: DisplayText.limitCharacters * 4))")
        }
        if let problem = resolved.uncertainProblem() {
            throw ScenarioLoadError("\(label): \(DisplayText.bounded(problem, limit: DisplayText.limitCharacters * 4))")
        }
        return resolved
    }

    /// An unknown key without a suggestion, re-suggested among its siblings. With the defaults
    /// filled in every known key is present, so the decoder (which suggests only absent keys) has
    /// nothing to offer for a mistyped override such as `--set campaigns[0].sendRatPerMinute=5`
    /// or a flattened one such as `campaigns[0].warmAheadSeconds`.
    static func suggestingSibling(_ d: Diagnostic, in tree: JSONValue) -> Diagnostic {
        guard d.kind == .unknownKey, !d.message.contains("did you mean"), case let .key(key)? = d.path.components.last,
              case let .object(siblings)? = tree[JSONPath(Array(d.path.components.dropLast()))] else { return d }
        // Siblings, and their members one level down (`warmAheadSeconds` → `warm.aheadSeconds`).
        var candidates = siblings.keys.filter { $0 != key }
        for (name, value) in siblings where name != key {
            if case let .object(members) = value { candidates += members.keys.map { name + "." + $0 } }
        }
        guard let suggestion = Spelling.closest(to: key, among: candidates) else { return d }
        return Diagnostic(path: d.path, kind: d.kind, message: "unknown key \"\(key)\"; did you mean \"\(suggestion)\"?",
                          expected: d.expected, found: d.found)
    }

    /// Reads and decodes the file `argument` names (a path or a bare name from `library`).
    /// - Throws: `ScenarioLoadError`.
    package static func load(_ argument: String, library: ScenarioLibrary, set assignments: [String] = [],
                            flags: FlagOverrides = FlagOverrides()) throws(ScenarioLoadError) -> (url: URL, scenario: ScenarioFile) {
        let url = try library.resolve(argument)
        let data = try read(url, label: argument)
        return (url, try decode(data, label: url.path, set: assignments, flags: flags))
    }

    /// The bytes of `url` (a file, `/dev/stdin`, a pipe), refusing more than `ScenarioLibrary.fileBytesMax`.
    static func read(_ url: URL, label: String) throws(ScenarioLoadError) -> Data {
        switch InputFile.read(url.path, limitBytes: ScenarioLibrary.fileBytesMax) {
        case let .success(data): return data
        case let .failure(failure): throw ScenarioLoadError("\(label): " + InputFile.message(failure, what: "a scenario file"))
        }
    }

    private static func failure(_ label: String, _ errors: ScenarioErrors) -> ScenarioLoadError {
        var lines = errors.diagnostics.map { "\(label): \($0)" }
        if errors.omittedCount > 0 { lines.append("\(label): … and \(errors.omittedCount) more") }
        return ScenarioLoadError(lines.joined(separator: "\n"), diagnostics: errors.diagnostics,
                                 problemCount: errors.diagnostics.count + errors.omittedCount)
    }
}
