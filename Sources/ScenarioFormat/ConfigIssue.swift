/// A value a reader rejected, raised where the problem is detected and carried up as a value:
/// `path` is relative to the value whose `init(from:)` threw it (empty: that value itself),
/// `expected` states the rule, `found` what was there (nil: the decoder renders the JSON value at
/// the path). `StrictJSONDecoder` reports it as `PATH: expected …, found …` without reading text.
struct ConfigIssue: Error, Sendable, Equatable, CustomStringConvertible {
    /// Steps below the value being read.
    var path: [JSONPath.Component]
    /// The rule, e.g. `an integer in 1...16`.
    var expected: String
    /// What was found, rendered; nil to let the decoder render the document's value.
    var found: String?

    /// An issue at `path` below the value being read.
    init(at path: [JSONPath.Component] = [], expected: String, found: String? = nil) {
        self.path = path
        self.expected = expected
        self.found = found
    }

    /// An issue at the field `key` of the object being read.
    init(key: String, expected: String, found: String? = nil) {
        self.init(at: [.key(key)], expected: expected, found: found)
    }

    /// This issue one step further down (the caller read it from a child).
    func below(_ step: JSONPath.Component) -> ConfigIssue {
        ConfigIssue(at: [step] + path, expected: expected, found: found)
    }

    /// `expected …, found …` (relative path first when there is one).
    var description: String {
        let message = "expected \(expected)" + (found.map { ", found \($0)" } ?? "")
        return path.isEmpty ? message : "\(JSONPath(path)): \(message)"
    }
}

/// The coding key of any configuration field, by name.
struct ConfigKey: CodingKey, Sendable {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// Several issues found in one object, reported together.
struct ConfigIssues: Error, Sendable, Equatable {
    /// In the order the reader found them.
    var issues: [ConfigIssue]

    /// Issues of one object.
    init(_ issues: [ConfigIssue]) { self.issues = issues }
}

extension DecodingSession {
    /// A reader's typed issue, at its own path below `path` (the value whose reader threw it).
    func diagnostic(for issue: ConfigIssue, at path: JSONPath) -> Diagnostic {
        let located = JSONPath(path.components + issue.path)
        let found = issue.found ?? root[located]?.rendered()
        let message = "expected \(issue.expected)" + (found.map { ", found \($0)" } ?? "")
        return Diagnostic(path: located, kind: .invalidValue, message: message, expected: issue.expected, found: found)
    }
}
