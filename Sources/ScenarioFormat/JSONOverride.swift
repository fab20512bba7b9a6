
/// A `--set path=value` assignment applied to a scenario's JSON tree before decoding.
package struct JSONOverride: Sendable, Equatable {
    /// Where to write.
    let path: JSONPath
    /// What to write.
    let value: JSONValue

    /// An override writing `value` at `path`.
    init(path: JSONPath, value: JSONValue) {
        self.path = path
        self.value = value
    }

    /// Parses `a.b[2].c=value`: the path is everything before the first `=`; the value is parsed as
    /// JSON if it is valid JSON (`10`, `true`, `"x"`, `[1,2]`), else taken as a string (`hello`).
    /// - Throws: a `.override` diagnostic for a missing `=` or an invalid path.
    init(parsing assignment: String, limits: JSONLimits = JSONLimits()) throws(Diagnostic) {
        guard let eq = assignment.firstIndex(of: "=") else {
            throw Diagnostic(path: .root, kind: .override,
                             message: "--set: expected path=value, found \(DisplayText.quoted(assignment))",
                             expected: "path=value", found: DisplayText.quoted(assignment))
        }
        let path = try JSONPath(parsing: String(assignment[..<eq]))
        guard !path.components.isEmpty else {
            throw Diagnostic(path: .root, kind: .override, message: "--set: expected a non-empty path")
        }
        let text = String(assignment[assignment.index(after: eq)...])
        let value = (try? JSONParser.parse(Array(text.utf8), limits: limits)) ?? .string(text)
        self.init(path: path, value: value)
    }
}

extension JSONValue {
    /// This tree with `override.value` written at `override.path`. Missing object keys are created
    /// (as objects when a key follows, so `--set network.rttMs=40` works on a file without
    /// `network`); a `null` member counts as missing, as the decoder reads it (so `--devices` still
    /// works after `--set run=null`); array indices must exist.
    /// - Throws: a `.override` diagnostic naming the override's path and the step that failed:
    ///   an intermediate that is not an object/array, or an index out of range.
    /// - Complexity: O(path length + sizes of the containers copied along the path).
    func applying(_ override: JSONOverride) throws(Diagnostic) -> JSONValue {
        try set(override.value, at: override.path.components[...], walked: .root, target: override.path)
    }

    private func set(_ newValue: JSONValue, at rest: ArraySlice<JSONPath.Component>, walked: JSONPath,
                     target: JSONPath) throws(Diagnostic) -> JSONValue {
        guard let step = rest.first else { return newValue }
        let here = walked.components.isEmpty ? "the document root" : walked.description
        func fail(_ message: String, expected: String?, found: String?) -> Diagnostic {
            Diagnostic(path: target, kind: .override, message: "--set: \(message)", expected: expected, found: found)
        }
        switch (step, self) {
        case let (.key(k), .object(o)):
            let child: JSONValue
            if let existing = o[k], existing != .null {
                child = existing
            } else if rest.count > 1, case .index = rest[rest.startIndex + 1] {
                throw fail("\(walked.appending(key: k)) does not exist, so it has no element to set",
                           expected: "an existing array", found: nil)
            } else {
                child = .object([:])
            }
            var copy = o
            copy[k] = try child.set(newValue, at: rest.dropFirst(), walked: walked.appending(key: k), target: target)
            return .object(copy)
        case let (.index(i), .array(a)):
            guard i < a.count else {
                throw fail("index \(i) is out of range: \(here) has \(a.count) element\(a.count == 1 ? "" : "s")",
                           expected: "an index in 0..<\(a.count)", found: "\(i)")
            }
            var copy = a
            copy[i] = try a[i].set(newValue, at: rest.dropFirst(), walked: walked.appending(index: i), target: target)
            return .array(copy)
        case (.key, _):
            throw fail("expected an object at \(here), found \(rendered())", expected: "an object", found: rendered())
        case (.index, _):
            throw fail("expected an array at \(here), found \(rendered())", expected: "an array", found: rendered())
        }
    }
}
