import Foundation

/// A `Decoder` for scenario files that reports every problem it can find in one pass, each naming
/// its JSON path, the value found and what was expected.
///
/// Rules:
/// - **Unknown keys.** Every key of an object that the decoded type never asked about (through
///   `decode`, `decodeIfPresent`, `decodeNil`, `contains`, `nestedContainer` or `allKeys`) is an
///   error `path.key: unknown key "k"; did you mean "m"?`, the suggestion being the closest key
///   the type asked for that the object lacks. In an object whose decoding failed, keys after the
///   failure were never reached, so only unknown keys with such a suggestion are reported there.
/// - **Recovery.** A failure inside `decodeIfPresent` (a wrong type, or a nested type's validation
///   error) is recorded at its path and decoding continues with nil, so optional and defaulted
///   fields never stop the pass. A failure of a required field stops the enclosing object (no value
///   can be produced); the error propagates to the nearest optional field or the root. An array
///   whose element fails still decodes its remaining elements (as the same type) to report their
///   errors too.
/// - **Types.** Integers must be integral and in the target type's range ("expected an integer ≥ 0,
///   found -5"); an integral double such as `1e6` is accepted. `URL` decodes from a string.
///   Validation errors thrown by types (`DecodingError.dataCorrupted`, `dataCorruptedError(forKey:…)`)
///   keep their description and gain `, found X` unless they say what was found ("found"/"got").
///   A `ConfigIssue` (or `ConfigIssues`) is reported at its own path below the value whose
///   `init(from:)` threw it, as `expected …, found …`; other error types are reported at the path
///   of that value. No path is ever read back from an error's text. A value
///   that matches no case of a `CaseIterable` raw-value enum lists the cases and suggests one.
///
/// The result is `.failure` whenever anything was recorded, with all diagnostics sorted by path.
package struct StrictJSONDecoder: Sendable {
    /// Size, depth and report limits.
    var limits: JSONLimits

    /// A decoder with `limits`.
    package init(limits: JSONLimits = JSONLimits()) {
        self.limits = limits
    }

    /// Parses `data`, applies `overrides` in order, then decodes `T` strictly.
    /// - Complexity: O(document size + work of `T.init(from:)`).
    package func decode<T: Decodable>(_ type: T.Type, from data: Data, overrides: [JSONOverride] = []) -> Result<T, ScenarioErrors> {
        var tree: JSONValue
        do {
            tree = try JSONParser.parse(data, limits: limits)
        } catch {
            return .failure(ScenarioErrors([error], limit: limits.maxDiagnostics))
        }
        var problems: [Diagnostic] = []
        for o in overrides {
            do { tree = try tree.applying(o) } catch { problems.append(error) }
        }
        guard problems.isEmpty else { return .failure(ScenarioErrors(problems, limit: limits.maxDiagnostics)) }
        return decode(type, from: tree)
    }

    /// Decodes `T` strictly from an already parsed tree.
    func decode<T: Decodable>(_ type: T.Type, from tree: JSONValue) -> Result<T, ScenarioErrors> {
        let session = DecodingSession(root: tree)
        var value: T? = nil
        do {
            value = try session.unbox(T.self, tree, path: .root, codingPath: [])
        } catch {
            session.record(error, fallbackPath: .root)
        }
        session.reportUnknownKeys(listedMax: limits.maxDiagnostics)
        if let value, session.diagnostics.isEmpty { return .success(value) }
        return .failure(ScenarioErrors(session.rootCauses(), limit: limits.maxDiagnostics, alreadyOmitted: session.unlistedUnknownKeys))
    }
}

/// Several diagnostics travelling up as one error (from an array whose elements failed).
struct DiagnosticBundle: Error {
    var diagnostics: [Diagnostic]
}

/// Structured "expected" text attached to the `DecodingError`s this decoder throws.
struct Expectation: Error {
    let expected: String
}

/// The coding key of an array element.
struct IndexKey: CodingKey {
    let intValue: Int?
    let stringValue: String
    init(_ i: Int) { intValue = i; stringValue = "\(i)" }
    init?(intValue: Int) { self.init(intValue) }
    init?(stringValue: String) { return nil }
}

/// The coding key `super` for `superDecoder()`.
struct SuperKey: CodingKey {
    var stringValue: String { "super" }
    var intValue: Int? { nil }
    init() {}
    init?(stringValue: String) { guard stringValue == "super" else { return nil } }
    init?(intValue: Int) { return nil }
}

/// State shared by all containers of one decoding pass.
final class DecodingSession {
    let root: JSONValue
    private(set) var diagnostics: [Diagnostic] = []
    /// Keys asked per object path.
    private var askedKeys: [JSONPath: Set<String>] = [:]
    /// Objects whose `init(from:)` returned normally.
    private var completed: Set<JSONPath> = []

    init(root: JSONValue) { self.root = root }

    func ask(_ key: String, at path: JSONPath) {
        askedKeys[path, default: []].insert(key)
    }

    /// Notes that a keyed container was opened on the object at `path`.
    func visit(_ path: JSONPath) {
        if askedKeys[path] == nil { askedKeys[path] = [] }
    }

    // MARK: Values

    /// Decodes `T` from `value`: primitives directly, other types through their `init(from:)`.
    func unbox<T: Decodable>(_ type: T.Type, _ value: JSONValue, path: JSONPath, codingPath: [any CodingKey]) throws -> T {
        if let primitive = try unboxPrimitive(T.self, value, codingPath: codingPath) { return primitive }
        let decoder = StrictDecoder(session: self, value: value, path: path, codingPath: codingPath)
        let result: T
        do {
            result = try T(from: decoder)
        } catch let e as DecodingError {
            if let ctx = Self.context(of: e), ctx.codingPath.count == codingPath.count,
               let enumeration = T.self as? any (CaseIterable & RawRepresentable).Type {
                throw DiagnosticBundle(diagnostics: [unknownCase(value, path: path, cases: caseNames(enumeration))])
            }
            throw e
        } catch let e as DiagnosticBundle {
            throw e
        } catch let e as ConfigIssue {
            throw DiagnosticBundle(diagnostics: [diagnostic(for: e, at: path)])
        } catch let e as ConfigIssues {
            throw DiagnosticBundle(diagnostics: e.issues.map { diagnostic(for: $0, at: path) })
        } catch {
            throw DiagnosticBundle(diagnostics: [diagnostic(for: error, at: path)])
        }
        if case .object = value { completed.insert(path) }
        return result
    }

    /// The context of a value-level error (a wrong type or a rejected value), nil for a missing key.
    private static func context(of error: DecodingError) -> DecodingError.Context? {
        switch error {
        case let .dataCorrupted(ctx), let .typeMismatch(_, ctx): return ctx
        default: return nil
        }
    }

    /// The raw values of an enumeration's cases, rendered as JSON.
    private func caseNames<C: CaseIterable & RawRepresentable>(_ type: C.Type) -> [String] {
        C.allCases.map { ($0.rawValue as? String).map(JSONValue.quoted) ?? "\($0.rawValue)" }
    }

    /// `expected one of "a", "b", found "x"; did you mean "a"?` for a value no enum case has.
    private func unknownCase(_ value: JSONValue, path: JSONPath, cases: [String]) -> Diagnostic {
        let expected = "one of " + cases.prefix(12).joined(separator: ", ") + (cases.count > 12 ? ", …" : "")
        var message = "expected \(expected), found \(value.rendered())"
        if case let .string(s) = value,
           let suggestion = Spelling.closest(to: JSONValue.quoted(s), among: cases.filter { $0.hasPrefix("\"") }) {
            message += "; did you mean \(suggestion)?"
        }
        return Diagnostic(path: path, kind: .invalidValue, message: message, expected: expected, found: value.rendered())
    }

    private func mismatch<T>(_ type: T.Type, _ expected: String, _ value: JSONValue, _ codingPath: [any CodingKey]) -> DecodingError {
        DecodingError.typeMismatch(type, DecodingError.Context(
            codingPath: codingPath, debugDescription: "expected \(expected), found \(value.rendered())",
            underlyingError: Expectation(expected: expected)))
    }

    /// Nil if `T` is not a primitive this decoder handles itself.
    private func unboxPrimitive<T>(_ type: T.Type, _ value: JSONValue, codingPath: [any CodingKey]) throws -> T? {
        switch type {
        case is String.Type:
            guard case let .string(s) = value else { throw mismatch(T.self, "a string", value, codingPath) }
            return s as? T
        case is Bool.Type:
            guard case let .bool(b) = value else { throw mismatch(T.self, "a boolean (true or false)", value, codingPath) }
            return b as? T
        case is Double.Type:
            return try number(value, codingPath) as? T
        case is Float.Type:
            let d = try number(value, codingPath)
            guard abs(d) <= Double(Float.greatestFiniteMagnitude) else {
                throw mismatch(T.self, "a number within ±3.4e38", value, codingPath)
            }
            return Float(d) as? T
        case is Int.Type: return try integer(Int.self, value, codingPath) as? T
        case is Int8.Type: return try integer(Int8.self, value, codingPath) as? T
        case is Int16.Type: return try integer(Int16.self, value, codingPath) as? T
        case is Int32.Type: return try integer(Int32.self, value, codingPath) as? T
        case is Int64.Type: return try integer(Int64.self, value, codingPath) as? T
        case is UInt.Type: return try integer(UInt.self, value, codingPath) as? T
        case is UInt8.Type: return try integer(UInt8.self, value, codingPath) as? T
        case is UInt16.Type: return try integer(UInt16.self, value, codingPath) as? T
        case is UInt32.Type: return try integer(UInt32.self, value, codingPath) as? T
        case is UInt64.Type: return try integer(UInt64.self, value, codingPath) as? T
        case is URL.Type:
            guard case let .string(s) = value, let url = URL(string: s) else {
                throw mismatch(T.self, "a URL string", value, codingPath)
            }
            return url as? T
        default:
            return nil
        }
    }

    private func number(_ value: JSONValue, _ codingPath: [any CodingKey]) throws -> Double {
        switch value {
        case let .integer(i): return Double(i)
        case let .double(d): return d
        default: throw mismatch(Double.self, "a number", value, codingPath)
        }
    }

    private func integer<I: FixedWidthInteger>(_ type: I.Type, _ value: JSONValue, _ codingPath: [any CodingKey]) throws -> I {
        let expected: String
        if I.min == 0 {
            expected = I.bitWidth >= 64 ? "an integer ≥ 0" : "an integer in 0...\(I.max)"
        } else {
            expected = I.bitWidth >= 64 ? "an integer" : "an integer in \(I.min)...\(I.max)"
        }
        switch value {
        case let .integer(i):
            if let v = I(exactly: i) { return v }
        case let .double(d):
            if let v = I(exactly: d) { return v }
        default:
            break
        }
        throw mismatch(I.self, expected, value, codingPath)
    }

    // MARK: Errors

    /// Records `error` (recorded diagnostics are reported at the end of the pass).
    func record(_ error: any Error, fallbackPath: JSONPath) {
        diagnostics.append(contentsOf: self.diagnostics(from: error, fallbackPath: fallbackPath))
    }

    /// The diagnostics minus consequential ones: a validation error raised by a type at a path
    /// where a problem was already recorded (typically a type that read a mistyped field with
    /// `decodeIfPresent`, got nil, and then complained that the value is missing).
    func rootCauses() -> [Diagnostic] {
        var seen: Set<JSONPath> = []
        var kept: [Diagnostic] = []
        for d in diagnostics {
            if d.kind == .invalidValue, seen.contains(d.path) { continue }
            seen.insert(d.path)
            kept.append(d)
        }
        return kept
    }

    /// Converts a thrown error into diagnostics with JSON paths and found values.
    func diagnostics(from error: any Error, fallbackPath: JSONPath) -> [Diagnostic] {
        if let bundle = error as? DiagnosticBundle { return bundle.diagnostics }
        if let issue = error as? ConfigIssue { return [diagnostic(for: issue, at: fallbackPath)] }
        if let issues = error as? ConfigIssues { return issues.issues.map { diagnostic(for: $0, at: fallbackPath) } }
        guard let decodingError = error as? DecodingError else { return [diagnostic(for: error, at: fallbackPath)] }
        switch decodingError {
        case let .typeMismatch(_, ctx), let .valueNotFound(_, ctx):
            let path = jsonPath(ctx.codingPath)
            if let expectation = ctx.underlyingError as? Expectation {
                return [Diagnostic.mismatch(path, expected: expectation.expected, found: root[path])]
            }
            return [validation(path, ctx.debugDescription, kind: .typeMismatch)]
        case let .keyNotFound(key, ctx):
            let path = jsonPath(ctx.codingPath + [key])
            return [Diagnostic(path: path, kind: .missingKey, message: "missing required key \(JSONValue.quoted(key.stringValue))",
                               expected: "key \(JSONValue.quoted(key.stringValue))")]
        case let .dataCorrupted(ctx):
            return [validation(jsonPath(ctx.codingPath), ctx.debugDescription, kind: .invalidValue)]
        @unknown default:
            return [diagnostic(for: error, at: fallbackPath)]
        }
    }

    /// A type's own message, plus what was found if the message does not say.
    private func validation(_ path: JSONPath, _ message: String, kind: Diagnostic.Kind) -> Diagnostic {
        let found = root[path]?.rendered()
        var text = message.isEmpty ? "invalid value" : message
        if let found, !text.contains("found"), !text.contains("got ") { text += ", found \(found)" }
        return Diagnostic(path: path, kind: kind, message: text, found: found)
    }

    /// An error of another kind thrown by a type's `init(from:)` for the value at `path`, reported there.
    private func diagnostic(for error: any Error, at path: JSONPath) -> Diagnostic {
        validation(path, String(describing: error), kind: .invalidValue)
    }

    /// Maps a coding path to a JSON path, using the document to tell array indices from keys.
    private func jsonPath(_ codingPath: [any CodingKey]) -> JSONPath {
        var comps: [JSONPath.Component] = []
        var node: JSONValue? = root
        for key in codingPath {
            if case let .array(a)? = node, let i = key.intValue {
                comps.append(.index(i))
                node = i >= 0 && i < a.count ? a[i] : nil
            } else if node == nil, key is IndexKey, let i = key.intValue {
                comps.append(.index(i))
            } else {
                comps.append(.key(key.stringValue))
                if case let .object(o)? = node { node = o[key.stringValue] } else { node = nil }
            }
        }
        return JSONPath(comps)
    }

    /// Adds an `unknownKey` diagnostic for every key of every successfully decoded object that its
    /// type never asked for. Only the first `listedMax` by path (all a report can show) get their
    /// message and spelling suggestion; the rest are counted in `unlistedUnknownKeys`, so a file
    /// of 150 000 unknown keys is reported in a fraction of a second, not after 150 000 searches.
    func reportUnknownKeys(listedMax: Int) {
        var pending: [PendingUnknownKey] = []
        walk(root, path: .root, into: &pending)
        if pending.count > listedMax {
            pending.sort { $0.path < $1.path }
            unlistedUnknownKeys += pending.count - listedMax
            pending.removeLast(pending.count - listedMax)
        }
        for p in pending { diagnostics.append(p.diagnostic) }
    }

    /// Unknown keys found beyond the listed ones (see `reportUnknownKeys`).
    private(set) var unlistedUnknownKeys = 0

    /// An unknown key whose message is built only if it is listed.
    private struct PendingUnknownKey {
        let path: JSONPath
        let key: String
        /// Keys the type asked for, and those of them absent here (the spelling candidates).
        let asked: Set<String>
        let absent: [String]
        /// Already looked up (in an object whose decoding failed it decides whether to report).
        let suggestion: String??

        var diagnostic: Diagnostic {
            var message = "unknown key \(DisplayText.quoted(key))"
            if let suggestion = suggestion ?? Spelling.closest(to: key, among: absent) {
                message += "; did you mean \(JSONValue.quoted(suggestion))?"
            } else if !asked.isEmpty {
                let known = asked.sorted().prefix(12).joined(separator: ", ")
                message += "; known keys here: \(known)\(asked.count > 12 ? ", …" : "")"
            }
            return Diagnostic(path: path, kind: .unknownKey, message: message)
        }
    }

    private func walk(_ value: JSONValue, path: JSONPath, into pending: inout [PendingUnknownKey]) {
        switch value {
        case let .array(a):
            for (i, v) in a.enumerated() { walk(v, path: path.appending(index: i), into: &pending) }
        case let .object(o):
            let keys = o.keys.sorted()
            if let asked = askedKeys[path] {
                let isComplete = completed.contains(path)
                let absent = asked.filter { o[$0] == nil }.sorted()
                for k in keys where !asked.contains(k) {
                    // In an object whose decoding failed, keys after the failure were never asked
                    // about: only a key that looks like a misspelling of an asked key is reported.
                    var looked: String?? = nil
                    if !isComplete {
                        let suggestion = Spelling.closest(to: k, among: absent)
                        if suggestion == nil { continue }
                        looked = .some(suggestion)
                    }
                    pending.append(PendingUnknownKey(path: path.appending(key: k), key: k, asked: asked, absent: absent, suggestion: looked))
                }
            }
            for k in keys { walk(o[k] ?? .null, path: path.appending(key: k), into: &pending) }
        default:
            break
        }
    }
}
