/// Where a distribution field sits: keys and array indices from the document root (or from
/// the prefix a caller gave as text, kept whole as one step).
@usableFromInline package struct DistributionPath: Sendable, Equatable, CustomStringConvertible {
    /// One step down.
    @usableFromInline package enum Step: Sendable, Equatable {
        case key(String)
        case index(Int)
    }

    /// The steps, outermost first.
    @usableFromInline package private(set) var steps: [Step]

    /// A path from its steps (none: the root).
    @usableFromInline package init(_ steps: [Step] = []) { self.steps = steps }

    /// A caller's prefix given as text, kept whole (empty: the root).
    @usableFromInline package init(_ prefix: String) { steps = prefix.isEmpty ? [] : [.key(prefix)] }

    /// The path of a decoder's coding path.
    init(codingPath: [any CodingKey]) {
        steps = codingPath.map { key in key.intValue.map(Step.index) ?? .key(key.stringValue) }
    }

    /// This path one key further down.
    func appending(_ key: String) -> DistributionPath { DistributionPath(steps + [.key(key)]) }

    /// This path one array element further down.
    func appending(index: Int) -> DistributionPath { DistributionPath(steps + [.index(index)]) }

    /// As coding keys, for a `DecodingError` (indices carry an `intValue`).
    var codingPath: [any CodingKey] {
        steps.map { step in
            switch step {
            case let .key(k): return DistributionCodingKey(k)
            case let .index(i): return DistributionCodingKey(index: i)
            }
        }
    }

    /// `a.b[2].c`.
    @usableFromInline package var description: String {
        var result = ""
        for step in steps {
            switch step {
            case let .key(k): result += result.isEmpty ? k : ".\(k)"
            case let .index(i): result += "[\(i)]"
            }
        }
        return result
    }
}

/// A distribution parameter that is missing, malformed or out of range.
///
/// `location` is the offending field (e.g. `network.lte.rttSeconds.sigma`,
/// `latency.components[1].distribution.p90`), as steps; `reason` says what was found and what was
/// expected. Thrown from decoding, it travels inside a `DecodingError.dataCorrupted` whose coding
/// path is `location` (so decoders place it without reading text).
@usableFromInline package struct DistributionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The offending field.
    @usableFromInline package let location: DistributionPath
    /// What was found and what was expected.
    @usableFromInline package let reason: String

    /// An error at `location`.
    @usableFromInline package init(at location: DistributionPath, reason: String) {
        self.location = location
        self.reason = reason
    }

    /// An error at a path given as text.
    @usableFromInline package init(path: String, reason: String) {
        self.init(at: DistributionPath(path), reason: reason)
    }

    /// Dotted path of the offending field; empty for the root.
    @usableFromInline package var path: String { location.description }

    /// `path: reason`.
    @usableFromInline package var description: String { path.isEmpty ? reason : "\(path): \(reason)" }

    /// `path.key`.
    static func join(_ path: DistributionPath, _ key: String) -> DistributionPath { path.appending(key) }

    /// `path[index]`.
    static func join(_ path: DistributionPath, index: Int) -> DistributionPath { path.appending(index: index) }

    /// The path of a coding path.
    static func path(of codingPath: [any CodingKey]) -> DistributionPath { DistributionPath(codingPath: codingPath) }

    /// This error as the `DecodingError` a decoder reports at `location`.
    var decodingError: DecodingError {
        .dataCorrupted(DecodingError.Context(codingPath: location.codingPath, debugDescription: reason, underlyingError: self))
    }
}

extension Distribution {
    /// Checks every parameter, recursively: finite numbers, positive scales, lower < upper, a
    /// truncation interval with non-zero probability, median < p90, non-empty tables with weights
    /// >= 0 and not all zero, empirical points from p = 0 to p = 1 with p strictly increasing and
    /// values non-decreasing, and the size limits in `Distribution.Limits`.
    ///
    /// - Parameter path: the coding path of this distribution, prefixed to the error's field path.
    /// - Throws: `DistributionError` for the first invalid field found.
    /// - Complexity: O(total table entries x nesting depth).
    @usableFromInline package func validate(path: String = "") throws(DistributionError) {
        try validate(at: DistributionPath(path))
    }

    /// `validate(path:)` below `path`.
    func validate(at path: DistributionPath) throws(DistributionError) {
        try validateNode(path: path)
        switch self {
        case .mixture(let components):
            for (i, component) in components.enumerated() {
                let componentPath = DistributionError.join(DistributionError.join(path, "components"), index: i)
                try component.distribution.validate(at: DistributionError.join(componentPath, "distribution"))
            }
        case .shift(_, let distribution):
            try distribution.validate(at: DistributionError.join(path, "distribution"))
        default:
            break
        }
    }

    /// Checks this node's own parameters; nested distributions only for their depth.
    /// (Decoding calls this on each node, whose children were checked when they were decoded.)
    func validateNode(path: DistributionPath) throws(DistributionError) {
        GSLRuntime.ensureInitialised()
        let check = FieldCheck(path: path)
        switch self {
        case .constant(let value):
            try check.finite(value, "value")
        case .uniform(let lower, let upper):
            try check.finite(lower, "lower")
            try check.finite(upper, "upper")
            guard lower < upper else {
                throw check.error("upper", "must be > lower (\(lower)), got \(upper)")
            }
        case .exponential(let mean):
            try check.positive(mean, "mean")
        case .normal(let mean, let sd, let lower, let upper):
            try check.finite(mean, "mean")
            try check.positive(sd, "sd")
            if let lower { try check.finite(lower, "lower") }
            if let upper { try check.finite(upper, "upper") }
            if let lower, let upper, !(lower < upper) {
                throw check.error("upper", "must be > lower (\(lower)), got \(upper)")
            }
            if lower != nil || upper != nil {
                let truncated = TruncatedNormal(mean: mean, sd: sd, lower: lower, upper: upper)
                guard truncated.mass > 0 else {
                    throw check.error(lower != nil ? "lower" : "upper",
                                      "truncation interval [\(lower ?? -.infinity), \(upper ?? .infinity)] has probability 0 "
                                      + "(below double precision) under a normal with mean \(mean) and sd \(sd)")
                }
            }
        case .lognormal(let mu, let sigma):
            try check.finite(mu, "mu")
            try check.positive(sigma, "sigma")
        case .gamma(let shape, let scale), .weibull(let shape, let scale):
            try check.positive(shape, "shape")
            try check.positive(scale, "scale")
        case .pareto(let alpha, let scale):
            try check.positive(alpha, "alpha")
            try check.positive(scale, "scale")
        case .categorical(let values, let weights):
            guard !values.isEmpty else { throw check.error("values", "must not be empty") }
            guard values.count <= Limits.tableEntriesMax else {
                throw check.error("values", "has \(values.count) entries, at most \(Limits.tableEntriesMax) allowed")
            }
            guard weights.count == values.count else {
                throw check.error("weights", "has \(weights.count) entries but values has \(values.count); they must match")
            }
            for (i, value) in values.enumerated() {
                try check.finite(value, "values", index: i)
            }
            try check.weights(weights, key: "weights") { i in DistributionError.join(DistributionError.join(path, "weights"), index: i) }
        case .empirical(let points):
            guard points.count >= 2 else {
                throw check.error("points", "needs at least 2 points (p = 0 and p = 1), got \(points.count)")
            }
            guard points.count <= Limits.tableEntriesMax else {
                throw check.error("points", "has \(points.count) points, at most \(Limits.tableEntriesMax) allowed")
            }
            for (i, point) in points.enumerated() {
                let pointPath = DistributionError.join(DistributionError.join(path, "points"), index: i)
                let pointCheck = FieldCheck(path: pointPath)
                try pointCheck.finite(point.p, "p")
                try pointCheck.finite(point.value, "value")
                if i == 0, point.p != 0 {
                    throw pointCheck.error("p", "the first point must have p = 0, got \(point.p)")
                }
                if i == points.count - 1, point.p != 1 {
                    throw pointCheck.error("p", "the last point must have p = 1, got \(point.p)")
                }
                if i > 0 {
                    let previous = points[i - 1]
                    guard point.p > previous.p else {
                        throw pointCheck.error("p", "must be > the previous point's p (\(previous.p)), got \(point.p); "
                                               + "quantile points must be strictly increasing in p")
                    }
                    guard point.value >= previous.value else {
                        throw pointCheck.error("value", "must be >= the previous point's value (\(previous.value)), "
                                               + "got \(point.value); quantile points must be non-decreasing")
                    }
                }
            }
        case .mixture(let components):
            guard !components.isEmpty else { throw check.error("components", "must not be empty") }
            guard components.count <= Limits.mixtureComponentsMax else {
                throw check.error("components", "has \(components.count) entries, at most \(Limits.mixtureComponentsMax) allowed")
            }
            try check.weights(components.map(\.weight), key: "components") { i in
                DistributionError.join(DistributionError.join(DistributionError.join(path, "components"), index: i), "weight")
            }
            try check.depth(of: self)
        case .shift(let offset, _):
            try check.finite(offset, "offset")
            try check.depth(of: self)
        }
    }
}

/// Field checks relative to one distribution's path.
private struct FieldCheck {
    let path: DistributionPath

    func error(_ key: String, _ reason: String) -> DistributionError {
        DistributionError(at: DistributionError.join(path, key), reason: reason)
    }

    func finite(_ value: Double, _ key: String) throws(DistributionError) {
        guard value.isFinite else { throw error(key, "must be a finite number, got \(value)") }
    }

    func finite(_ value: Double, _ key: String, index: Int) throws(DistributionError) {
        guard value.isFinite else {
            throw DistributionError(at: DistributionError.join(DistributionError.join(path, key), index: index),
                                    reason: "must be a finite number, got \(value)")
        }
    }

    func positive(_ value: Double, _ key: String) throws(DistributionError) {
        guard value.isFinite, value > 0 else { throw error(key, "must be finite and > 0, got \(value)") }
    }

    /// Weights: each finite and >= 0, sum finite and > 0.
    func weights(_ weights: [Double], key: String, pathOf: (Int) -> DistributionPath) throws(DistributionError) {
        var total = 0.0
        for (i, w) in weights.enumerated() {
            guard w.isFinite, w >= 0 else {
                throw DistributionError(at: pathOf(i), reason: "weight must be finite and >= 0, got \(w)")
            }
            total += w
        }
        guard total > 0 else { throw error(key, "weights must not all be zero") }
        guard total.isFinite else { throw error(key, "weights sum to infinity; scale them down") }
    }

    func depth(of distribution: Distribution) throws(DistributionError) {
        let depth = distribution.nestingDepth
        guard depth <= Distribution.Limits.nestingDepthMax else {
            throw DistributionError(at: path, reason: "mixtures and shifts nest \(depth) deep, "
                                    + "at most \(Distribution.Limits.nestingDepthMax) allowed")
        }
    }
}
