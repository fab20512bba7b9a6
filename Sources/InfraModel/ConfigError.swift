/// A configuration value that failed validation: `path` names the field (e.g.
/// `origin.workers`, `topology.regions[3].popIndex`), `value` what was found, `expected` the rule.
package struct InfraConfigError: Error, Equatable, Sendable, CustomStringConvertible {
    package var path: String
    package var value: String
    package var expected: String

    package init(path: String, value: String, expected: String) {
        self.path = path
        self.value = value
        self.expected = expected
    }

    package var description: String { "\(path): expected \(expected), found \(value)" }
}

func joinPath(_ base: String, _ field: String) -> String { base.isEmpty ? field : base + "." + field }

/// Throw unless `ok`.
@inline(__always)
func require(_ ok: Bool, _ path: String, _ field: String, _ value: @autoclosure () -> String,
             _ expected: @autoclosure () -> String) throws(InfraConfigError) {
    if !ok { throw InfraConfigError(path: joinPath(path, field), value: value(), expected: expected()) }
}
