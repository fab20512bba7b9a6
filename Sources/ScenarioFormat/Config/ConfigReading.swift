import Foundation

// The scenario format's reader: each configuration type lists its JSON fields once (key, where
// the value lives, the one rule it must meet); decoding starts from the type's own default
// instance, so a default is stated only in the model. Problems are `ConfigIssue` values.

/// The rule one value must meet: nil when it does, else what was expected and found.
struct ConfigRule<Value> {
    let verdict: (Value) -> (expected: String, found: String)?
    /// The JSON Schema keywords that state this rule, where a schema can (`minimum`, `pattern`, …);
    /// empty when it cannot. `ScenarioSchema` adds them to the value type's schema.
    var schema: [String: JSONValue] = [:]

    /// `ok` must hold; `expected` names the rule, the value is rendered with `found`.
    init(_ expected: String, found: @escaping (Value) -> String = { "\($0)" }, schema: [String: JSONValue] = [:],
         _ ok: @escaping (Value) -> Bool) {
        verdict = { ok($0) ? nil : (expected, found($0)) }
        self.schema = schema
    }

    init(schema: [String: JSONValue] = [:], verdict: @escaping (Value) -> (expected: String, found: String)?) {
        self.verdict = verdict
        self.schema = schema
    }

    /// This rule, then (when it holds) `next` on the same value; the schema keywords are this rule's.
    func then(_ next: @escaping (Value) -> (expected: String, found: String)?) -> ConfigRule {
        let first = verdict
        return ConfigRule(schema: schema, verdict: { first($0) ?? next($0) })
    }

    /// This rule with `keywords` added to its schema.
    func adding(_ keywords: [String: JSONValue]) -> ConfigRule {
        var copy = self
        for (k, v) in keywords { copy.schema[k] = v }
        return copy
    }
}

extension ConfigRule where Value: BinaryInteger {
    /// An integer in `range`, worded `expected` (default "an integer in LO...HI").
    static func integers(_ range: ClosedRange<Value>, saying expected: String? = nil) -> ConfigRule {
        ConfigRule(expected ?? "an integer in \(range.lowerBound)...\(range.upperBound)",
                   schema: ["minimum": .integer(Int64(clamping: range.lowerBound)), "maximum": .integer(Int64(clamping: range.upperBound))]) {
            range.contains($0)
        }
    }
}

extension ConfigRule where Value: Collection {
    /// A count of elements in `range`, worded `expected`; what was found is the count unless `found` says.
    static func counts(_ range: ClosedRange<Int>, _ expected: String, found: @escaping (Value) -> String = { "\($0.count)" }) -> ConfigRule {
        ConfigRule(expected, found: found, schema: ["minItems": .integer(Int64(range.lowerBound)), "maxItems": .integer(Int64(range.upperBound))]) {
            range.contains($0.count)
        }
    }
}

extension ConfigRule where Value == Double {
    /// A finite number in `range` (`unit` is appended to the expectation).
    static func numbers(_ range: ClosedRange<Double>, unit: String = "") -> ConfigRule {
        ConfigRule("a number in \(range.lowerBound)...\(range.upperBound)\(unit.isEmpty ? "" : " \(unit)")",
                   schema: ["minimum": .number(range.lowerBound), "maximum": .number(range.upperBound)]) {
            $0.isFinite && range.contains($0)
        }
    }

    /// A finite number in `range`, worded `expected`.
    static func numbers(_ range: ClosedRange<Double>, saying expected: String) -> ConfigRule {
        ConfigRule(expected, schema: ["minimum": .number(range.lowerBound), "maximum": .number(range.upperBound)]) {
            $0.isFinite && range.contains($0)
        }
    }

    /// A finite number ≥ `lower` (> `lower` when `exclusive`), worded `expected`.
    static func atLeast(_ lower: Double, exclusive: Bool = false, saying expected: String) -> ConfigRule {
        ConfigRule(expected, schema: [exclusive ? "exclusiveMinimum" : "minimum": .number(lower)]) {
            $0.isFinite && (exclusive ? $0 > lower : $0 >= lower)
        }
    }

    /// A probability.
    static var probability: ConfigRule {
        ConfigRule("a probability in [0, 1]", schema: ["minimum": .integer(0), "maximum": .integer(1)]) { $0 >= 0 && $0 <= 1 }
    }
}

extension ConfigRule where Value == [Double] {
    /// Shares: finite, ≥ 0 and not all zero.
    static var weights: ConfigRule {
        ConfigRule(schema: ["items": .object(["minimum": .integer(0)])], verdict: { values in
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
    /// Whether absence is an error.
    let isRequired: Bool
    /// The value's JSON Schema (its type's, with the rule's keywords), for `ScenarioSchema`.
    let schema: (SchemaContext) -> JSONValue

    /// A field; absent, it keeps the default instance's value (`required`: absence is an error).
    init<V: Codable>(_ key: String, _ keyPath: WritableKeyPath<Root, V>, required: Bool = false, _ rule: ConfigRule<V>? = nil) {
        self.key = key
        isRequired = required
        schema = { $0.schema(of: V.self, adding: rule?.schema ?? [:]) }
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
        isRequired = false
        schema = plain.schema
    }

    /// An optional field: absent or null is nil, and nil is not written.
    init<V: Codable>(_ key: String, optional keyPath: WritableKeyPath<Root, V?>, _ rule: ConfigRule<V>? = nil) {
        self.key = key
        isRequired = false
        schema = { $0.schema(of: V.self, adding: rule?.schema ?? [:], nullable: true) }
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

    package init(from decoder: any Decoder) throws {
        self = try Self.read(from: decoder, defaults: Self.defaultValue)
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: ConfigKey.self)
        for f in Self.fields { try f.write(&c, self) }
    }
}

/// `expected`, found `found`, at `path` (for relations reported below the object).
func issue(_ path: [JSONPath.Component], _ expected: String, _ found: String) -> ConfigIssue {
    ConfigIssue(at: path, expected: expected, found: found)
}
