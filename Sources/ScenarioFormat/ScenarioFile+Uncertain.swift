import Foundation
import PushModel

// The worlds of a scenario with uncertain inputs: replication r simulates the scenario with draw
// ⌊r / replicationsPerDraw⌋ of every input written into its field, decoded and checked exactly as a
// `--set` of that value would be.

extension ScenarioFile {
    /// Why a draw could not be turned into a world (a field that is not numeric, or a value the
    /// scenario refuses), naming the input.
    package struct UncertainWorldError: Error, Sendable, CustomStringConvertible {
        package let description: String
    }

    /// The world replication `r` simulates: `modelWorld` when nothing is uncertain, else the
    /// scenario with draw `uncertain.draw(replication: r)` applied.
    package func world(replication r: Int) throws(UncertainWorldError) -> PushWorldConfig {
        guard !uncertain.isEmpty else { return modelWorld }
        return try scenario(draw: uncertain.draw(replication: r)).modelWorld
    }

    /// The input values of draw `d`, in `uncertain.all` order.
    package func uncertainValues(draw d: Int) throws(UncertainWorldError) -> [Double] {
        try uncertainValues(draw: d, tree: try uncertainTree())
    }

    /// The values of draw `d`, the fields' kinds read from `tree` (the scenario's JSON).
    private func uncertainValues(draw d: Int, tree: JSONValue) throws(UncertainWorldError) -> [Double] {
        let integer = try uncertain.all.enumerated().map { i, input throws(UncertainWorldError) in try isInteger(input, at: i, in: tree) }
        do { return try uncertain.values(draw: d, seed: run.seed, isInteger: integer) } catch {
            throw UncertainWorldError(description: "uncertain: cannot sample draw \(d): \(error)")
        }
    }

    /// The scenario of draw `d`, every uncertain input set to its drawn value (and `uncertain`
    /// itself emptied: the result is one plausible world). The scenario is encoded once.
    package func scenario(draw d: Int) throws(UncertainWorldError) -> ScenarioFile {
        let tree = try uncertainTree()
        return try withInputs(try uncertainValues(draw: d, tree: tree), label: "draw \(d)", tree: tree)
    }

    /// The scenario with the inputs set to `values` (in `uncertain.all` order); `base` is the
    /// scenario's JSON when the caller has it already.
    func withInputs(_ values: [Double], label: String, tree base: JSONValue? = nil) throws(UncertainWorldError) -> ScenarioFile {
        var tree: JSONValue
        if let base { tree = base } else { tree = try uncertainTree() }
        for (i, input) in uncertain.all.enumerated() {
            let integer = try isInteger(input, at: i, in: tree)
            let value: JSONValue = integer ? .integer(Int64(values[i].rounded())) : .double(values[i])
            do {
                tree = try tree.applying(JSONOverride(path: try JSONPath(parsing: input.path), value: value))
            } catch {
                throw UncertainWorldError(description: "\(Self.inputLabel(i, uncertain)): \(error.message)")
            }
        }
        switch StrictJSONDecoder().decode(ScenarioFile.self, from: tree) {
        case let .success(file):
            let resolved = file.resolved
            do { try resolved.world.preflight() } catch {
                throw UncertainWorldError(description: "uncertain: \(label) (\(Self.valuesText(values, uncertain))): \(error)")
            }
            return resolved
        case let .failure(errors):
            let first = errors.diagnostics.first.map { "\($0)" } ?? "invalid"
            throw UncertainWorldError(description: "uncertain: \(label) (\(Self.valuesText(values, uncertain))): \(first)")
        }
    }

    /// Replications sharing one draw of the uncertain inputs: 1 without any.
    package var replicationsPerDraw: Int { uncertain.isEmpty ? 1 : uncertain.replicationsPerDraw }

    /// Every input at each end of its support (the others as written) must give a valid scenario:
    /// the check `ScenarioLoader` runs, so a run never meets a draw it cannot simulate at the
    /// support's ends. Nil when every end is valid.
    func uncertainProblem() -> String? {
        guard !uncertain.isEmpty else { return nil }
        if uncertain.replicationsPerDraw >= 2 {
            if let i = slo.firstIndex(where: { $0.probability != nil }) {
                return "slo[\(i)].probability: a chance constraint needs independent days, and replications sharing a draw of the inputs are not: "
                    + "expected uncertain.replicationsPerDraw 1, found \(uncertain.replicationsPerDraw)"
            }
            if run.replications % uncertain.replicationsPerDraw != 0 {
                return "run.replications: expected a multiple of uncertain.replicationsPerDraw (\(uncertain.replicationsPerDraw)), found \(run.replications)"
            }
        }
        let tree: JSONValue
        do { tree = try uncertainTree() } catch { return error.description }
        var asWritten: [Double] = []
        for (i, input) in uncertain.all.enumerated() {
            switch tree[(try? JSONPath(parsing: input.path)) ?? .root] {
            case let .integer(n)?: asWritten.append(Double(n))
            case let .double(x)?: asWritten.append(x)
            default:  // names what is there instead
                do { _ = try isInteger(input, at: i, in: tree) } catch { return error.description }
                return "\(Self.inputLabel(i, uncertain)).path: expected a numeric field"
            }
        }
        for (i, input) in uncertain.all.enumerated() {
            let (lo, hi) = input.distribution.supportBounds
            for (end, x) in [("lower", lo), ("upper", hi)] {
                var values = asWritten
                values[i] = x
                do { _ = try withInputs(values, label: "\(input.path) at its support's \(end) end \(x)", tree: tree) } catch {
                    return "\(Self.inputLabel(i, uncertain)).distribution: " + error.description
                }
            }
        }
        return nil
    }

    /// The scenario as a JSON tree, without `uncertain` (a draw is one world).
    private func uncertainTree() throws(UncertainWorldError) -> JSONValue {
        var copy = self
        copy.uncertain = UncertainInputs()
        do { return try JSONParser.parse(try CanonicalJSON.encode(copy, pretty: false)) } catch {
            throw UncertainWorldError(description: "uncertain: cannot encode the scenario: \(error)")
        }
    }

    /// Whether input `i`'s field holds an integer (its draws are rounded).
    private func isInteger(_ input: UncertainInput, at i: Int, in tree: JSONValue) throws(UncertainWorldError) -> Bool {
        switch tree[(try? JSONPath(parsing: input.path)) ?? .root] {
        case .integer?: return true
        case .double?: return false
        case let other:
            throw UncertainWorldError(description: "\(Self.inputLabel(i, uncertain)).path: expected a numeric field of the scenario, found "
                                      + (other.map { $0.kindDescription } ?? "no such field") + " at \(DisplayText.quoted(input.path))")
        }
    }

    /// `uncertain.inputs[i]` or `uncertain.fitted[j]`.
    private static func inputLabel(_ i: Int, _ u: UncertainInputs) -> String {
        i < u.inputs.count ? "uncertain.inputs[\(i)]" : "uncertain.fitted[\(i - u.inputs.count)]"
    }

    private static func valuesText(_ values: [Double], _ u: UncertainInputs) -> String {
        zip(u.all, values).map { "\($0.path)=\(ScenarioKnob.numberText($1))" }.joined(separator: ", ")
    }
}
