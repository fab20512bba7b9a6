
/// A parsed JSON document that keeps number fidelity: integer literals that fit in `Int64` stay
/// integers, every other number is a finite `Double`.
package enum JSONValue: Sendable, Equatable {
    /// `null`.
    case null
    /// `true` / `false`.
    case bool(Bool)
    /// An integer literal (no fraction, no exponent) within Int64.
    case integer(Int64)
    /// Any other number; always finite.
    case double(Double)
    /// A string (valid Unicode).
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object (keys unique; iterate them sorted).
    case object([String: JSONValue])

    /// "an object", "a string", ... — for "expected X, found Y" messages.
    var kindDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .integer, .double: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// Compact JSON text (object keys sorted), truncated to about `limit` characters with "…".
    /// - Complexity: O(size of the rendered prefix).
    func rendered(limit: Int = 60) -> String {
        var out = ""
        render(into: &out, limit: limit)
        if out.count > limit { return String(out.prefix(limit)) + "…" }
        return out
    }

    private func render(into out: inout String, limit: Int) {
        guard out.count <= limit else { return }
        switch self {
        case .null: out += "null"
        case let .bool(b): out += b ? "true" : "false"
        case let .integer(i): out += String(i)
        case let .double(d): out += "\(d)"
        case let .string(s): out += JSONValue.quoted(s)
        case let .array(a):
            out += "["
            for (i, v) in a.enumerated() {
                if i > 0 { out += "," }
                v.render(into: &out, limit: limit)
                if out.count > limit { return }
            }
            out += "]"
        case let .object(o):
            out += "{"
            for (i, k) in o.keys.sorted().enumerated() {
                if i > 0 { out += "," }
                out += JSONValue.quoted(k) + ":"
                o[k]?.render(into: &out, limit: limit)
                if out.count > limit { return }
            }
            out += "}"
        }
    }

    /// `s` as a JSON string literal (quotes, backslash and control characters escaped).
    package static func quoted(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where u.value < 0x20:
                let hex = String(u.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }

    /// The value at `path`, if every component exists.
    /// - Complexity: O(path length).
    subscript(path: JSONPath) -> JSONValue? {
        var node = self
        for c in path.components {
            switch (c, node) {
            case let (.key(k), .object(o)):
                guard let next = o[k] else { return nil }
                node = next
            case let (.index(i), .array(a)):
                guard i >= 0, i < a.count else { return nil }
                node = a[i]
            default:
                return nil
            }
        }
        return node
    }
}

/// A location in a JSON document: `campaign.assets[2].bytes`.
///
/// Rendering: keys joined with "." (keys that are not identifiers are written `["key"]`), array
/// indices as `[i]`, the empty path as `(root)`. Paths order component by component (keys by
/// string, indices numerically, a key before an index), which is the order diagnostics are sorted in.
struct JSONPath: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// One step into an object or an array.
    enum Component: Sendable, Hashable {
        /// An object member.
        case key(String)
        /// An array element (0-based).
        case index(Int)
    }

    /// The steps from the document root.
    var components: [Component]

    /// The document root.
    static let root = JSONPath([])

    /// A path from its steps.
    init(_ components: [Component]) { self.components = components }

    /// This path extended by one step.
    func appending(_ c: Component) -> JSONPath { JSONPath(components + [c]) }
    /// This path extended by a key.
    func appending(key: String) -> JSONPath { appending(.key(key)) }
    /// This path extended by an index.
    func appending(index: Int) -> JSONPath { appending(.index(index)) }

    /// Parses the textual form (`a.b[2].c`, `a["odd key"]`).
    /// - Throws: a `Diagnostic` of kind `.override` naming the text and the offending position.
    /// - Complexity: O(text length).
    init(parsing text: String) throws(Diagnostic) {
        var comps: [Component] = []
        let chars = Array(text)
        var i = 0
        func fail(_ why: String) -> Diagnostic {
            Diagnostic(path: .root, kind: .override, message: "invalid path \(DisplayText.quoted(text)): \(why)",
                       expected: "a path like campaign.assets[2].bytes", found: DisplayText.quoted(text))
        }
        guard !chars.isEmpty else { throw fail("empty path") }
        while i < chars.count {
            if chars[i] == "[" {
                i += 1
                if i < chars.count, chars[i] == "\"" {
                    i += 1
                    var key = ""
                    while i < chars.count, chars[i] != "\"" {
                        if chars[i] == "\\", i + 1 < chars.count { i += 1 }
                        key.append(chars[i])
                        i += 1
                    }
                    guard i + 1 < chars.count, chars[i] == "\"", chars[i + 1] == "]" else {
                        throw fail("unterminated [\"key\"] at character \(i + 1)")
                    }
                    comps.append(.key(key))
                    i += 2
                } else {
                    var digits = ""
                    while i < chars.count, chars[i] != "]" { digits.append(chars[i]); i += 1 }
                    guard i < chars.count, let n = Int(digits), n >= 0, digits.allSatisfy(\.isASCII) else {
                        throw fail("expected an index ≥ 0 in [...] at character \(i + 1)")
                    }
                    comps.append(.index(n))
                    i += 1
                }
            } else {
                if chars[i] == "." {
                    guard !comps.isEmpty else { throw fail("path starts with '.'") }
                    i += 1
                }
                var key = ""
                while i < chars.count, chars[i] != ".", chars[i] != "[" { key.append(chars[i]); i += 1 }
                guard !key.isEmpty else { throw fail("empty key at character \(i + 1)") }
                comps.append(.key(key))
            }
        }
        self.components = comps
    }

    var description: String {
        guard !components.isEmpty else { return "(root)" }
        var out = ""
        for c in components {
            switch c {
            case let .index(i): out += "[\(i)]"
            case let .key(k):
                if JSONPath.isIdentifier(k) {
                    if !out.isEmpty { out += "." }
                    out += DisplayText.bounded(k)
                } else {
                    out += "[" + DisplayText.quoted(k) + "]"
                }
            }
        }
        return out
    }

    static func isIdentifier(_ k: String) -> Bool {
        guard let first = k.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic) else {
            return false
        }
        return k.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-") }
    }

    static func < (lhs: JSONPath, rhs: JSONPath) -> Bool {
        for (a, b) in zip(lhs.components, rhs.components) where a != b {
            switch (a, b) {
            case let (.key(x), .key(y)): return x < y
            case let (.index(x), .index(y)): return x < y
            case (.key, .index): return true
            case (.index, .key): return false
            }
        }
        return lhs.components.count < rhs.components.count
    }
}
