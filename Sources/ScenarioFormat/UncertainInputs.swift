import Foundation
import PushModel
import Stochastic

/// Inputs the scenario does not know exactly (`uncertain`): each is a numeric field (by its
/// `--set` path) with a distribution of plausible values. A run draws one value of every input per
/// *draw*; replications come in groups of `replicationsPerDraw` that share a draw, so the spread
/// of each metric splits into the part the inputs cause and the part the simulation's own
/// randomness causes (`VarianceSplit`).
///
/// Draw d of the input at path P comes from its own stream (seed, d, "scenario.uncertain.P"), so
/// every knob value of a plan, a sweep or a compare sees the same plausible worlds (common random
/// numbers), and adding an input never changes the values another draws.
package struct UncertainInputs: Codable, Sendable, Equatable {
    /// The inputs the scenario states.
    package var inputs: [UncertainInput] = []
    /// Inputs `prestage fit` measured (written by its overlay), kept apart so an overlay never
    /// replaces the scenario's own. A path may appear in one of the two lists only.
    package var fitted: [UncertainInput] = []
    /// Replications per draw (1–100). 1 (the default) draws a new world every replication: the
    /// replications stay independent days of the uncertain world, so every interval, chance
    /// constraint and plan reads them as usual, and no split is reported. m ≥ 2 is the nested
    /// design of Ankenman & Nelson (WSC 2012): each metric's spread is split into its input and
    /// simulation parts, intervals and mean objectives are over the draw means, and chance
    /// constraints are refused (days sharing a draw are not independent).
    package var replicationsPerDraw: Int = 1

    /// Most inputs in both lists together.
    package static let countMax = 32
    /// Most replications per draw.
    package static let replicationsPerDrawMax = 100

    /// No uncertain inputs.
    package init() {}

    enum CodingKeys: String, CodingKey, CaseIterable { case inputs, fitted, replicationsPerDraw }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        inputs = try c.decodeIfPresent([UncertainInput].self, forKey: .inputs) ?? []
        fitted = try c.decodeIfPresent([UncertainInput].self, forKey: .fitted) ?? []
        replicationsPerDraw = try c.decodeIfPresent(Int.self, forKey: .replicationsPerDraw) ?? 1
        var problems: [ConfigIssue] = []
        if !(1...Self.replicationsPerDrawMax).contains(replicationsPerDraw) {
            problems.append(ConfigIssue(key: CodingKeys.replicationsPerDraw.stringValue,
                                        expected: "an integer in 1...\(Self.replicationsPerDrawMax)", found: "\(replicationsPerDraw)"))
        }
        if inputs.count + fitted.count > Self.countMax {
            problems.append(ConfigIssue(expected: "at most \(Self.countMax) uncertain inputs in inputs and fitted together",
                                        found: "\(inputs.count + fitted.count)"))
        }
        var seen: Set<String> = []
        for (key, list) in [(CodingKeys.inputs, inputs), (.fitted, fitted)] {
            for (i, input) in list.enumerated() {
                if !seen.insert(input.path).inserted {
                    problems.append(ConfigIssue(at: [.key(key.stringValue), .index(i), .key("path")],
                                                expected: "a path given once across inputs and fitted", found: DisplayText.quoted(input.path)))
                }
            }
        }
        if !problems.isEmpty { throw ConfigIssues(problems) }
    }

    /// Whether there is anything to draw.
    package var isEmpty: Bool { inputs.isEmpty && fitted.isEmpty }

    /// Both lists, the scenario's first.
    package var all: [UncertainInput] { inputs + fitted }

    /// The draw replication `r` uses.
    package func draw(replication r: Int) -> Int { r / replicationsPerDraw }

    /// The values of draw `d`, one per input in `all` order (integers rounded to the nearest
    /// integer where the field is one, `isInteger`).
    package func values(draw d: Int, seed: UInt64, isInteger: [Bool]) throws -> [Double] {
        try all.enumerated().map { i, input in
            let stream = RandomStream(masterSeed: seed, entity: UInt64(d), purpose: StreamPurpose("scenario.uncertain." + input.path))
            let x = try Sampler(input.distribution).sample(stream)
            return isInteger[i] ? x.rounded() : x
        }
    }
}

/// One uncertain input: a numeric field and the distribution of its plausible values.
package struct UncertainInput: Codable, Sendable, Equatable {
    /// The field, as `--set` names it, e.g. `infra.origin.workers`.
    package var path: String
    /// Its plausible values. The support must be bounded (uniform, a normal with `lower` and
    /// `upper`, categorical, empirical, …), and the scenario must be valid at both ends.
    package var distribution: Distribution
    /// Where the distribution comes from (a measurement, a fit, "judgement"). Required.
    package var source: String

    /// Longest `source`, characters.
    static let sourceCharactersMax = 300

    package init(path: String, distribution: Distribution, source: String) {
        self.path = path
        self.distribution = distribution
        self.source = source
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case path, distribution, source }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        path = try c.decode(String.self, forKey: .path)
        distribution = try c.decode(Distribution.self, forKey: .distribution)
        source = try c.decode(String.self, forKey: .source)
        var problems: [ConfigIssue] = []
        if (try? JSONPath(parsing: path))?.components.isEmpty ?? true {
            problems.append(ConfigIssue(key: "path", expected: "a field path such as infra.origin.workers", found: DisplayText.quoted(path)))
        } else if path.hasPrefix("uncertain") || path.hasPrefix("run.") || path == "run" || path.hasPrefix("name") || path.hasPrefix("slo") {
            problems.append(ConfigIssue(key: "path", expected: "a field of the simulated world (not run, slo, name or uncertain itself)",
                                        found: DisplayText.quoted(path)))
        }
        let (lo, hi) = distribution.supportBounds
        if !(lo.isFinite && hi.isFinite) {
            problems.append(ConfigIssue(key: "distribution",
                                        expected: "a bounded distribution (uniform, normal with lower and upper, categorical, empirical)",
                                        found: "support \(lo) … \(hi)"))
        }
        if source.trimmingCharacters(in: .whitespaces).isEmpty || source.count > Self.sourceCharactersMax || source.contains("\n") {
            problems.append(ConfigIssue(key: "source", expected: "one line of 1–\(Self.sourceCharactersMax) characters saying where the distribution comes from",
                                        found: DisplayText.quoted(source)))
        }
        if !problems.isEmpty { throw ConfigIssues(problems) }
    }
}
