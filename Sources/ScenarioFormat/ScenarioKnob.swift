import Foundation

/// A numeric field of a scenario that `prestage plan` varies: `PATH=LO..HI` (`--vary`), checked
/// against the scenario it varies (the path exists, is numeric, the range is not empty).
package struct ScenarioKnob: Sendable, Equatable, Codable {
    /// The override path, e.g. `campaigns[0].sendRatePerMinute`.
    package let path: String
    /// The range's ends (lower < upper).
    package let lower: Double
    package let upper: Double
    /// Whether the field holds integers (then every value tried is an integer).
    package let isInteger: Bool

    /// A bad `--vary` or `--for` argument: `argument` names the option.
    package struct Problem: Error, Sendable, CustomStringConvertible {
        package let argument: String
        package let message: String
        package var description: String { "\(argument): \(message)" }
    }

    /// Parses `PATH=LO..HI` given to `argument` and checks it against the scenario `load` reads
    /// with extra `--set` assignments (the scenario as the user gave it, overrides included).
    /// - Throws: `Problem` naming `argument` (unknown path with a suggestion, non-numeric field,
    ///   empty or inverted range).
    package static func parse(_ text: String, argument: String,
                             load: ([String]) throws(ScenarioLoadError) -> ScenarioFile) throws(Problem) -> ScenarioKnob {
        guard let eq = text.firstIndex(of: "="), let dots = text.range(of: "..", range: eq..<text.endIndex) else {
            throw Problem(argument: argument, message: "expected PATH=LO..HI (e.g. campaigns[0].sendRatePerMinute=60000..1200000), found \"\(text)\"")
        }
        let path = String(text[..<eq])
        let loText = String(text[text.index(after: eq)..<dots.lowerBound]), hiText = String(text[dots.upperBound...])
        guard let lo = Double(loText), let hi = Double(hiText), lo.isFinite, hi.isFinite else {
            throw Problem(argument: argument, message: "expected numbers LO..HI, found \"\(loText)..\(hiText)\"")
        }
        guard lo < hi else {
            throw Problem(argument: argument, message: "expected a non-empty range LO..HI with LO < HI, found \(loText)..\(hiText)")
        }
        let isInteger = try checkNumeric(path: path, value: lo.rounded(.up), argument: argument, load: load)
        if isInteger, lo.rounded(.up) > hi.rounded(.down) {
            throw Problem(argument: argument, message: "\(path) holds integers; the range \(loText)..\(hiText) contains none")
        }
        return ScenarioKnob(path: path, lower: isInteger ? lo.rounded(.up) : lo, upper: isInteger ? hi.rounded(.down) : hi, isInteger: isInteger)
    }

    /// Checks that `path` names a numeric field by loading the scenario with `path=value`, and
    /// finds whether it holds integers (a fractional value is then refused by the reader).
    /// - Returns: whether the field holds integers.
    package static func checkNumeric(path: String, value: Double, argument: String,
                                    load: ([String]) throws(ScenarioLoadError) -> ScenarioFile) throws(Problem) -> Bool {
        let parsedPath: JSONPath
        do { parsedPath = try JSONPath(parsing: path) } catch {
            throw Problem(argument: argument, message: "\(error)")
        }
        // The field must hold a number in the scenario as read (not a string, object, …).
        func valueKind(_ scenario: ScenarioFile) -> JSONValue?? {
            guard let tree = try? JSONParser.parse(try CanonicalJSON.encode(scenario, pretty: false)) else { return nil }
            return .some(tree[parsedPath])
        }
        if let asGiven = try? load([]), case let .some(.some(current)) = valueKind(asGiven) {
            switch current {
            case .integer, .double: break
            default: throw Problem(argument: argument, message: "\(path) is \(current.kindDescription), not a numeric field; only numbers can be varied")
            }
        }
        let scenario: ScenarioFile
        do { scenario = try load([assignment(path, value)]) } catch {
            let detail = error.diagnostics.first.map { "\($0)" } ?? error.description
            throw Problem(argument: argument, message: "\(path) cannot be varied: \(detail)")
        }
        switch valueKind(scenario) {
        case .some(.some(.integer)), .some(.some(.double)): break
        case let .some(.some(other)):
            throw Problem(argument: argument, message: "\(path) is \(other.kindDescription), not a numeric field; only numbers can be varied")
        default:
            throw Problem(argument: argument, message: "\(path) is not a field of the scenario")
        }
        // A fractional value the reader refuses marks an integer field.
        let probe = value.rounded(.down) + 0.5
        do { _ = try load([assignment(path, probe)]); return false } catch { return true }
    }

    /// `PATH=VALUE` for `--set`, the number written exactly (integers without a fraction).
    package static func assignment(_ path: String, _ value: Double) -> String {
        path + "=" + numberText(value)
    }

    /// A number as JSON text: integers without a fraction, others with the shortest exact form.
    package static func numberText(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
    }

    /// The value `x` snapped to what this knob can take (integers for an integer field).
    package func snapped(_ x: Double) -> Double { isInteger ? x.rounded(.down) : x }

    /// The unit of the field varied, as its name declares it.
    package var unit: ScenarioFieldUnit { ScenarioFieldUnit(path: path, isInteger: isInteger) }
}

/// `--for PATH=v1,v2,…`: a second knob given as a list of values (one plan per value).
package struct ScenarioKnobList: Sendable, Equatable, Codable {
    package let path: String
    package let values: [Double]

    /// Parses `PATH=v1,v2,…` given to `argument` and checks every value against the scenario.
    package static func parse(_ text: String, argument: String,
                             load: ([String]) throws(ScenarioLoadError) -> ScenarioFile) throws(ScenarioKnob.Problem) -> ScenarioKnobList {
        guard let eq = text.firstIndex(of: "=") else {
            throw ScenarioKnob.Problem(argument: argument, message: "expected PATH=v1,v2,… (e.g. campaigns[0].warm.aheadSeconds=0,120,300), found \"\(text)\"")
        }
        let path = String(text[..<eq])
        let items = text[text.index(after: eq)...].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        var values: [Double] = []
        for item in items {
            guard let v = Double(item.trimmingCharacters(in: .whitespaces)), v.isFinite else {
                throw ScenarioKnob.Problem(argument: argument, message: "expected numbers v1,v2,…, found \"\(item)\"")
            }
            values.append(v)
        }
        guard !values.isEmpty else { throw ScenarioKnob.Problem(argument: argument, message: "expected at least one value") }
        for v in values {
            let isInteger = try ScenarioKnob.checkNumeric(path: path, value: v, argument: argument, load: load)
            if isInteger, v != v.rounded() {
                throw ScenarioKnob.Problem(argument: argument, message: "\(path) holds integers, found \(v)")
            }
        }
        return ScenarioKnobList(path: path, values: values)
    }
}
