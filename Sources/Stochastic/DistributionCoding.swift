// JSON form of `Distribution`: `{"kind": "...", <parameters>}`. See the table on `Distribution`.

/// A coding key for any string (so unknown keys can be reported by name).
struct DistributionCodingKey: CodingKey, Hashable {
    let stringValue: String
    let intValue: Int?
    init(_ name: String) { stringValue = name; intValue = nil }
    /// An array element's key (only in error coding paths).
    init(index: Int) { stringValue = "\(index)"; intValue = index }
    init?(stringValue: String) { self.init(stringValue) }
    init?(intValue: Int) { nil }
}

extension Distribution {
    /// The `kind` names, with the keys each accepts.
    enum Kind: String, CaseIterable {
        case constant, uniform, exponential, normal, lognormal, gamma, weibull, pareto
        case categorical, empirical, mixture, shift

        var allowedKeys: Set<String> {
            switch self {
            case .constant: return ["kind", "value"]
            case .uniform: return ["kind", "lower", "upper"]
            case .exponential: return ["kind", "mean"]
            case .normal: return ["kind", "mean", "sd", "lower", "upper"]
            case .lognormal: return ["kind", "mu", "sigma", "median", "p90"]
            case .gamma, .weibull: return ["kind", "shape", "scale"]
            case .pareto: return ["kind", "alpha", "scale"]
            case .categorical: return ["kind", "values", "weights"]
            case .empirical: return ["kind", "points"]
            case .mixture: return ["kind", "components"]
            case .shift: return ["kind", "offset", "distribution"]
            }
        }
    }

    /// Every `kind` name with the keys its JSON form accepts besides `kind` (sorted), in
    /// declaration order: what a schema of the JSON form is generated from.
    @usableFromInline package static var jsonForms: [(kind: String, keys: [String])] {
        Kind.allCases.map { ($0.rawValue, $0.allowedKeys.subtracting(["kind"]).sorted()) }
    }

    var kind: Kind {
        switch self {
        case .constant: return .constant
        case .uniform: return .uniform
        case .exponential: return .exponential
        case .normal: return .normal
        case .lognormal: return .lognormal
        case .gamma: return .gamma
        case .weibull: return .weibull
        case .pareto: return .pareto
        case .categorical: return .categorical
        case .empirical: return .empirical
        case .mixture: return .mixture
        case .shift: return .shift
        }
    }
}

/// Reads one distribution object with errors that name the field's path.
private struct FieldReader {
    typealias Key = DistributionCodingKey
    let container: KeyedDecodingContainer<Key>
    let path: DistributionPath
    /// What is being read, for messages: `kind "normal"`, `a quantile point`.
    let context: String

    func fieldPath(_ key: String) -> DistributionPath { DistributionError.join(path, key) }

    func contains(_ key: String) -> Bool { container.contains(Key(key)) }

    func required<T: Decodable>(_ type: T.Type, _ key: String, expected: String) throws -> T {
        guard contains(key) else {
            throw DistributionError(at: fieldPath(key), reason: "missing; required in \(context)")
        }
        guard let value = try optional(type, key, expected: expected) else {
            // Nil for a value that is there: a decoder that reports and recovers (the scenario
            // reader) already reported why it is invalid.
            let isNull = (try? container.decodeNil(forKey: Key(key))) ?? true
            throw DistributionError(at: fieldPath(key), reason: isNull ? "is null; expected \(expected)"
                                        : "is not a valid \(expected) (the problem inside it is reported)")
        }
        return value
    }

    func optional<T: Decodable>(_ type: T.Type, _ key: String, expected: String) throws -> T? {
        do {
            return try container.decodeIfPresent(type, forKey: Key(key))
        } catch let error as DecodingError where error.carriesDistributionError {
            throw error
        } catch {
            throw DistributionError(at: fieldPath(key), reason: "expected \(expected)")
        }
    }

    func number(_ key: String) throws -> Double { try required(Double.self, key, expected: "a number") }
}

extension Distribution: Codable {
    /// Decodes and validates one distribution object.
    /// - Throws: `DecodingError.dataCorrupted` at the offending field's coding path, carrying a
    ///   `DistributionError` as its underlying error, for an unknown kind or key, a missing or
    ///   mistyped field, or an invalid parameter (see `validate(path:)`).
    @usableFromInline package init(from decoder: any Decoder) throws {
        self = try decodingDistributionErrors { try Distribution(reading: decoder) }
    }

    private init(reading decoder: any Decoder) throws {
        let path = DistributionError.path(of: decoder.codingPath)
        let container = try objectContainer(decoder, path: path, reason: "expected a distribution object {\"kind\": ..., ...}")
        let kindNames = Kind.allCases.map(\.rawValue).joined(separator: ", ")
        let kindKey = DistributionCodingKey("kind")
        guard container.contains(kindKey) else {
            throw DistributionError(at: DistributionError.join(path, "kind"), reason: "missing; expected one of \(kindNames)")
        }
        let kindName: String
        do {
            kindName = try container.decode(String.self, forKey: kindKey)
        } catch {
            throw DistributionError(at: DistributionError.join(path, "kind"), reason: "expected a string, one of \(kindNames)")
        }
        guard let kind = Kind(rawValue: kindName) else {
            throw DistributionError(at: DistributionError.join(path, "kind"),
                                    reason: "unknown kind \"\(kindName)\"; expected one of \(kindNames)")
        }
        try rejectUnknownKeys(container, allowed: kind.allowedKeys.sorted(), path: path, in: "kind \"\(kindName)\"")
        let read = FieldReader(container: container, path: path, context: "kind \"\(kindName)\"")
        switch kind {
        case .constant:
            self = .constant(value: try read.number("value"))
        case .uniform:
            self = .uniform(lower: try read.number("lower"), upper: try read.number("upper"))
        case .exponential:
            self = .exponential(mean: try read.number("mean"))
        case .normal:
            self = .normal(mean: try read.number("mean"), sd: try read.number("sd"),
                           lower: try read.optional(Double.self, "lower", expected: "a number"),
                           upper: try read.optional(Double.self, "upper", expected: "a number"))
        case .lognormal:
            let byQuantiles = read.contains("median") || read.contains("p90")
            let byParameters = read.contains("mu") || read.contains("sigma")
            if byQuantiles && byParameters {
                throw DistributionError(at: read.fieldPath(read.contains("median") ? "median" : "p90"),
                                        reason: "give either mu and sigma or median and p90, not both")
            }
            if byQuantiles {
                self = try Distribution.lognormal(median: try read.number("median"), p90: try read.number("p90"), at: path)
            } else {
                self = .lognormal(mu: try read.number("mu"), sigma: try read.number("sigma"))
            }
        case .gamma:
            self = .gamma(shape: try read.number("shape"), scale: try read.number("scale"))
        case .weibull:
            self = .weibull(shape: try read.number("shape"), scale: try read.number("scale"))
        case .pareto:
            self = .pareto(alpha: try read.number("alpha"), scale: try read.number("scale"))
        case .categorical:
            self = .categorical(values: try read.required([Double].self, "values", expected: "an array of numbers"),
                                weights: try read.required([Double].self, "weights", expected: "an array of numbers"))
        case .empirical:
            self = .empirical(points: try read.required([QuantilePoint].self, "points",
                                                        expected: "an array of {\"p\": ..., \"value\": ...}"))
        case .mixture:
            self = .mixture(components: try read.required([MixtureComponent].self, "components",
                                                          expected: "an array of {\"weight\": ..., \"distribution\": {...}}"))
        case .shift:
            self = .shift(offset: try read.number("offset"),
                          distribution: try read.required(Distribution.self, "distribution", expected: "a distribution object"))
        }
        try validateNode(path: path)
    }

    /// Encodes the canonical form (`mu`/`sigma` for a lognormal), which decodes to an equal value.
    @usableFromInline package func encode(to encoder: any Encoder) throws {
        typealias Key = DistributionCodingKey
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(kind.rawValue, forKey: Key("kind"))
        switch self {
        case .constant(let value):
            try c.encode(value, forKey: Key("value"))
        case .uniform(let lower, let upper):
            try c.encode(lower, forKey: Key("lower"))
            try c.encode(upper, forKey: Key("upper"))
        case .exponential(let mean):
            try c.encode(mean, forKey: Key("mean"))
        case .normal(let mean, let sd, let lower, let upper):
            try c.encode(mean, forKey: Key("mean"))
            try c.encode(sd, forKey: Key("sd"))
            try c.encodeIfPresent(lower, forKey: Key("lower"))
            try c.encodeIfPresent(upper, forKey: Key("upper"))
        case .lognormal(let mu, let sigma):
            try c.encode(mu, forKey: Key("mu"))
            try c.encode(sigma, forKey: Key("sigma"))
        case .gamma(let shape, let scale), .weibull(let shape, let scale):
            try c.encode(shape, forKey: Key("shape"))
            try c.encode(scale, forKey: Key("scale"))
        case .pareto(let alpha, let scale):
            try c.encode(alpha, forKey: Key("alpha"))
            try c.encode(scale, forKey: Key("scale"))
        case .categorical(let values, let weights):
            try c.encode(values, forKey: Key("values"))
            try c.encode(weights, forKey: Key("weights"))
        case .empirical(let points):
            try c.encode(points, forKey: Key("points"))
        case .mixture(let components):
            try c.encode(components, forKey: Key("components"))
        case .shift(let offset, let distribution):
            try c.encode(offset, forKey: Key("offset"))
            try c.encode(distribution, forKey: Key("distribution"))
        }
    }
}

/// The JSON object at `decoder`, or an error at `path` with `reason` (what was expected) when the
/// value there is not an object.
private func objectContainer(_ decoder: any Decoder, path: DistributionPath,
                             reason: String) throws -> KeyedDecodingContainer<DistributionCodingKey> {
    do {
        return try decoder.container(keyedBy: DistributionCodingKey.self)
    } catch {
        throw DistributionError(at: path, reason: reason)
    }
}

/// The fields of an object with a fixed set of keys at `decoder`: an error when the value is not an
/// object (`expected`: what was expected there) or has a key outside `allowed` (named with
/// `context`, as ``rejectUnknownKeys(_:allowed:path:in:)`` reports it).
/// Runs `read`; a `DistributionError` it throws becomes the `DecodingError` a `Codable` caller
/// expects (placed at the field, the distribution error as its underlying error).
private func decodingDistributionErrors<T>(_ read: () throws -> T) throws -> T {
    do { return try read() } catch let e as DistributionError { throw e.decodingError }
}

private func fixedObjectReader(_ decoder: any Decoder, expected: String, allowed: [String], context: String) throws -> FieldReader {
    let path = DistributionError.path(of: decoder.codingPath)
    let container = try objectContainer(decoder, path: path, reason: "expected " + expected)
    try rejectUnknownKeys(container, allowed: allowed, path: path, in: context)
    return FieldReader(container: container, path: path, context: context)
}

/// Rejects keys other than `allowed` in an object at `path`.
/// The first unknown key in sorted order is reported, so the message does not depend on key order.
private func rejectUnknownKeys(_ container: KeyedDecodingContainer<DistributionCodingKey>, allowed: [String],
                               path: DistributionPath, in context: String) throws {
    let unknown = container.allKeys.map(\.stringValue).filter { !allowed.contains($0) }.sorted()
    if let first = unknown.first {
        throw DistributionError(at: DistributionError.join(path, first),
                                reason: "unknown key in \(context); allowed: \(allowed.joined(separator: ", "))")
    }
}

extension Distribution.QuantilePoint: Codable {
    /// Decodes `{"p": ..., "value": ...}`; range checks happen with the enclosing distribution.
    @usableFromInline package init(from decoder: any Decoder) throws {
        self = try decodingDistributionErrors {
            let read = try fixedObjectReader(decoder, expected: "a quantile point {\"p\": ..., \"value\": ...}",
                                             allowed: ["p", "value"], context: "a quantile point")
            return Distribution.QuantilePoint(p: try read.number("p"), value: try read.number("value"))
        }
    }

    /// Encodes `{"p": ..., "value": ...}`.
    @usableFromInline package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: DistributionCodingKey.self)
        try c.encode(p, forKey: DistributionCodingKey("p"))
        try c.encode(value, forKey: DistributionCodingKey("value"))
    }
}

extension Distribution.MixtureComponent: Codable {
    /// Decodes `{"weight": ..., "distribution": {...}}`; the weight is checked with the mixture.
    @usableFromInline package init(from decoder: any Decoder) throws {
        self = try decodingDistributionErrors {
            let read = try fixedObjectReader(decoder, expected: "a mixture component {\"weight\": ..., \"distribution\": {...}}",
                                             allowed: ["distribution", "weight"], context: "a mixture component")
            return Distribution.MixtureComponent(weight: try read.number("weight"),
                                                 distribution: try read.required(Distribution.self, "distribution", expected: "a distribution object"))
        }
    }

    /// Encodes `{"weight": ..., "distribution": {...}}`.
    @usableFromInline package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: DistributionCodingKey.self)
        try c.encode(weight, forKey: DistributionCodingKey("weight"))
        try c.encode(distribution, forKey: DistributionCodingKey("distribution"))
    }
}

extension DecodingError {
    /// A distribution's own error, already placed at its field (passed up unchanged).
    var carriesDistributionError: Bool {
        if case let .dataCorrupted(context) = self { return context.underlyingError is DistributionError }
        return false
    }
}
