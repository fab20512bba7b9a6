import Foundation

// Decoding helpers shared by the PushModel configuration types. Validation errors are
// `DecodingError.dataCorrupted` values whose description reads `expected …, found …`, so
// ScenarioKit's StrictJSONDecoder reports them as `path: expected …, found …`.

extension KeyedDecodingContainer {
    /// The value for `key`, or `fallback` when the key is absent.
    func field<T: Decodable>(_ key: Key, _ fallback: T) throws -> T {
        try decodeIfPresent(T.self, forKey: key) ?? fallback
    }

    /// Throws a `dataCorruptedError` at `key` unless `ok`.
    func check(_ ok: Bool, _ key: Key, expected: @autoclosure () -> String, found: @autoclosure () -> String) throws {
        if !ok {
            throw DecodingError.dataCorruptedError(forKey: key, in: self,
                                                   debugDescription: "expected \(expected()), found \(found())")
        }
    }

    /// `value` must be a finite probability.
    func checkProbability(_ value: Double, _ key: Key) throws {
        try check(value >= 0 && value <= 1, key, expected: "a probability in [0, 1]", found: "\(value)")
    }

    /// `value` must be finite and in `range`.
    func checkRange(_ value: Double, _ range: ClosedRange<Double>, _ key: Key, unit: String = "") throws {
        let u = unit.isEmpty ? "" : " \(unit)"
        try check(value.isFinite && range.contains(value), key,
                  expected: "a number in \(range.lowerBound)...\(range.upperBound)\(u)", found: "\(value)")
    }

    /// Integer `value` must be in `range`.
    func checkRange<I: BinaryInteger>(_ value: I, _ range: ClosedRange<I>, _ key: Key) throws {
        try check(range.contains(value), key, expected: "an integer in \(range.lowerBound)...\(range.upperBound)", found: "\(value)")
    }

    /// Shares (weights) must be finite, ≥ 0 and not all zero.
    func checkWeights(_ values: [Double], _ key: Key) throws {
        for v in values where !(v.isFinite && v >= 0) {
            try check(false, key, expected: "finite weights ≥ 0", found: "\(v)")
        }
        try check(values.reduce(0, +) > 0, key, expected: "weights with a positive sum", found: "all zero")
    }
}

/// An error building a run from a configuration that passed decoding (a distribution GSL cannot
/// sample, a payload PreloadKit refuses, a model limit), naming the field path.
public struct PushModelError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Field path in the world configuration, e.g. `campaigns[0].assets[1].bytes`.
    public var path: String
    /// What went wrong, with the value found and what was expected.
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { path.isEmpty ? reason : "\(path): \(reason)" }
}
