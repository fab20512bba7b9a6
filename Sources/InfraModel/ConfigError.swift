/// A configuration value that failed validation: `path` names the field (e.g.
/// `origin.workers`, `topology.regions[3].popIndex`), `value` what was found, `expected` the rule.
public struct InfraConfigError: Error, Equatable, Sendable, CustomStringConvertible {
    public var path: String
    public var value: String
    public var expected: String

    public init(path: String, value: String, expected: String) {
        self.path = path
        self.value = value
        self.expected = expected
    }

    public var description: String { "\(path): expected \(expected), found \(value)" }
}

/// "a.b[3].c" from a decoder coding path.
func codingPathString(_ path: [any CodingKey]) -> String {
    var s = ""
    for k in path {
        if let i = k.intValue {
            s += "[\(i)]"
        } else {
            if !s.isEmpty { s += "." }
            s += k.stringValue
        }
    }
    return s
}

func joinPath(_ base: String, _ field: String) -> String { base.isEmpty ? field : base + "." + field }

/// Throw unless `ok`.
@inline(__always)
func require(_ ok: Bool, _ path: String, _ field: String, _ value: @autoclosure () -> String,
             _ expected: @autoclosure () -> String) throws(InfraConfigError) {
    if !ok { throw InfraConfigError(path: joinPath(path, field), value: value(), expected: expected()) }
}

extension KeyedDecodingContainer {
    /// The value for `key`, or `fallback` when the key is absent.
    func value<T: Decodable>(_ key: Key, or fallback: T) throws -> T {
        try decodeIfPresent(T.self, forKey: key) ?? fallback
    }
}
