import Foundation

// The scenario format's reader: each configuration type lists its JSON fields once (key, where
// the value lives, the one rule it must meet); decoding starts from the type's own default
// instance, so a default is stated only in the model. Problems are `ConfigIssue` values.

/// The rule one value must meet: nil when it does, else what was expected and found.
struct ConfigRule<Value> {
    let verdict: (Value) -> (expected: String, found: String)?

    /// `ok` must hold; `expected` names the rule, the value is rendered with `found`.
    init(_ expected: String, found: @escaping (Value) -> String = { "\($0)" }, _ ok: @escaping (Value) -> Bool) {
        verdict = { ok($0) ? nil : (expected, found($0)) }
    }

    init(verdict: @escaping (Value) -> (expected: String, found: String)?) { self.verdict = verdict }
}

extension ConfigRule where Value: BinaryInteger {
    /// An integer in `range`.
    static func integers(_ range: ClosedRange<Value>) -> ConfigRule {
        ConfigRule("an integer in \(range.lowerBound)...\(range.upperBound)") { range.contains($0) }
    }
}

extension ConfigRule where Value == Double {
    /// A finite number in `range` (`unit` is appended to the expectation).
    static func numbers(_ range: ClosedRange<Double>, unit: String = "") -> ConfigRule {
        ConfigRule("a number in \(range.lowerBound)...\(range.upperBound)\(unit.isEmpty ? "" : " \(unit)")") {
            $0.isFinite && range.contains($0)
        }
    }

    /// A probability.
    static var probability: ConfigRule { ConfigRule("a probability in [0, 1]") { $0 >= 0 && $0 <= 1 } }
}

extension ConfigRule where Value == [Double] {
    /// Shares: finite, ≥ 0 and not all zero.
    static var weights: ConfigRule {
        ConfigRule(verdict: { values in
            if let bad = values.first(where: { !($0.isFinite && $0 >= 0) }) { return ("finite weights ≥ 0", "\(bad)") }
            return values.reduce(0, +) > 0 ? nil : ("weights with a positive sum", "all zero")
        })
    }
}

/// One JSON field of the configuration type `Root`.
struct ConfigField<Root> {
    let key: String
    let read: (KeyedDecodingContainer<ConfigKey>, inout Root) throws -> Void
    let write: (inout KeyedEncodingContainer<ConfigKey>, Root) throws -> Void
    let check: (Root) -> ConfigIssue?

    /// A field; absent, it keeps the default instance's value (`required`: absence is an error).
    init<V: Codable>(_ key: String, _ keyPath: WritableKeyPath<Root, V>, required: Bool = false, _ rule: ConfigRule<V>? = nil) {
        self.key = key
        read = { c, root in
            if required {
                root[keyPath: keyPath] = try c.decode(V.self, forKey: ConfigKey(key))
            } else if let v = try c.decodeIfPresent(V.self, forKey: ConfigKey(key)) {
                root[keyPath: keyPath] = v
            }
        }
        write = { c, root in try c.encode(root[keyPath: keyPath], forKey: ConfigKey(key)) }
        check = { root in
            rule?.verdict(root[keyPath: keyPath]).map { ConfigIssue(key: key, expected: $0.expected, found: $0.found) }
        }
    }

    /// A field written only when it differs from `unwritten` (its default): a field added after
    /// results were published, so that scenarios leaving it at its default encode, and hash, as
    /// they did before it existed.
    init<V: Codable & Equatable>(_ key: String, _ keyPath: WritableKeyPath<Root, V>, unwritten: V, _ rule: ConfigRule<V>? = nil) {
        let plain = ConfigField(key, keyPath, rule)
        self.key = key
        read = plain.read
        write = { c, root in if root[keyPath: keyPath] != unwritten { try plain.write(&c, root) } }
        check = plain.check
    }

    /// An optional field: absent or null is nil, and nil is not written.
    init<V: Codable>(_ key: String, optional keyPath: WritableKeyPath<Root, V?>, _ rule: ConfigRule<V>? = nil) {
        self.key = key
        read = { c, root in root[keyPath: keyPath] = try c.decodeIfPresent(V.self, forKey: ConfigKey(key)) }
        write = { c, root in try c.encodeIfPresent(root[keyPath: keyPath], forKey: ConfigKey(key)) }
        check = { root in
            root[keyPath: keyPath].flatMap { v in
                rule?.verdict(v).map { ConfigIssue(key: key, expected: $0.expected, found: $0.found) }
            }
        }
    }
}

/// A configuration type read field by field from the scenario format.
protocol ConfigReadable: Codable {
    /// The instance absent keys take their values from (the model's own defaults).
    static var defaultValue: Self { get }
    /// Every JSON field, once.
    static var fields: [ConfigField<Self>] { get }
    /// Rules relating several fields, each issue naming the field it is reported at.
    static func relations(_ value: Self) -> [ConfigIssue]
}

extension ConfigReadable {
    static func relations(_ value: Self) -> [ConfigIssue] { [] }

    /// Reads the fields over `defaults`, then checks every rule; all issues are thrown together.
    static func read(from decoder: any Decoder, defaults: Self) throws -> Self {
        let c = try decoder.container(keyedBy: ConfigKey.self)
        var value = defaults
        let fields = Self.fields
        for f in fields { try f.read(c, &value) }
        let issues = fields.compactMap { $0.check(value) } + relations(value)
        if !issues.isEmpty { throw ConfigIssues(issues) }
        return value
    }

    public init(from decoder: any Decoder) throws {
        self = try Self.read(from: decoder, defaults: Self.defaultValue)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: ConfigKey.self)
        for f in Self.fields { try f.write(&c, self) }
    }
}

/// `expected`, found `found`, at `path` (for relations reported below the object).
func issue(_ path: [JSONPath.Component], _ expected: String, _ found: String) -> ConfigIssue {
    ConfigIssue(at: path, expected: expected, found: found)
}
