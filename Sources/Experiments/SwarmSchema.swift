import Foundation
import ScenarioFormat

/// The range one scenario field accepts, as the scenario readers declare it (read from the JSON
/// Schema that `prestage schema scenario` prints, which is generated from those declarations).
struct SwarmFieldRange: Sendable, Equatable {
    /// Smallest accepted value; nil when the schema states none.
    var lower: Double?
    /// Largest accepted value; nil when the schema states none.
    var upper: Double?
    /// Whether `lower` itself is refused (`exclusiveMinimum`).
    var lowerExclusive = false
    /// Whether `upper` itself is refused (`exclusiveMaximum`).
    var upperExclusive = false
    /// Whether only integers are accepted.
    var integer = false
    /// The accepted strings of an enumeration; empty for other fields.
    var choices: [String] = []

    /// Whether the schema bounds the field on both sides (a value drawn inside must be accepted
    /// unless a rule between fields refuses it).
    var isBounded: Bool { lower != nil && upper != nil }
}

/// The scenario schema as a look-up of field ranges by path (`campaigns[2].warm.aheadSeconds`;
/// array indices are ignored, every element shares the element schema).
struct SwarmSchema: Sendable {
    /// The schema document (JSON object tree from `JSONSerialization`), wrapped for `Sendable`.
    private let root: [String: any Sendable]
    private let definitions: [String: any Sendable]

    /// The scenario schema generated from the readers' declarations.
    static let scenario = SwarmSchema(text: ScenarioSchema.generate(.scenario).text)

    /// The schema in `text` (JSON); an unreadable text gives a schema that knows no field.
    init(text: String) {
        let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
        root = Self.sendable(object) as? [String: any Sendable] ?? [:]
        definitions = root["$defs"] as? [String: any Sendable] ?? [:]
    }

    /// The range of the field at `path` (keys; indices may be present and are skipped), or nil
    /// when the schema has no such field.
    func range(at path: [SwarmPathComponent]) -> SwarmFieldRange? {
        var node: [String: any Sendable] = root
        for component in path {
            node = resolved(node)
            switch component {
            case .index:
                guard let items = node["items"] as? [String: any Sendable] else { return nil }
                node = items
            case let .key(key):
                guard let properties = node["properties"] as? [String: any Sendable],
                      let child = properties[key] as? [String: any Sendable] else { return nil }
                node = child
            }
        }
        node = resolved(node)
        var range = SwarmFieldRange()
        range.integer = (node["type"] as? String) == "integer"
        if let minimum = Self.number(node["minimum"]) { range.lower = minimum }
        if let minimum = Self.number(node["exclusiveMinimum"]) { range.lower = minimum; range.lowerExclusive = true }
        if let maximum = Self.number(node["maximum"]) { range.upper = maximum }
        if let maximum = Self.number(node["exclusiveMaximum"]) { range.upper = maximum; range.upperExclusive = true }
        range.choices = (node["enum"] as? [any Sendable])?.compactMap { $0 as? String } ?? []
        return range
    }

    /// `node` with a `$ref` to `#/$defs/NAME` followed, and an optional field's `anyOf` (its
    /// schema or `null`) narrowed to the non-null alternative.
    private func resolved(_ node: [String: any Sendable]) -> [String: any Sendable] {
        var node = node
        if let alternatives = node["anyOf"] as? [any Sendable],
           let value = alternatives.compactMap({ $0 as? [String: any Sendable] }).first(where: { ($0["type"] as? String) != "null" }) {
            node = value
        }
        guard let ref = node["$ref"] as? String, let name = ref.split(separator: "/").last,
              let target = definitions[String(name)] as? [String: any Sendable] else { return node }
        return target
    }

    private static func number(_ value: (any Sendable)?) -> Double? {
        value as? Double
    }

    /// A `JSONSerialization` tree with every container typed as `Sendable`.
    private static func sendable(_ value: Any) -> any Sendable {
        if let object = value as? [String: Any] { return object.mapValues(sendable) as [String: any Sendable] }
        if let array = value as? [Any] { return array.map(sendable) as [any Sendable] }
        if let number = value as? NSNumber { return number.doubleValue as any Sendable }
        if let string = value as? String { return string }
        return "null"
    }
}

/// One step of a scenario field path.
enum SwarmPathComponent: Sendable, Equatable {
    case key(String)
    case index(Int)

    /// `path` as the scenario reader names it in its messages: identifier keys joined by dots,
    /// other keys as `["2g"]`, indices as `[3]`.
    static func text(_ path: [SwarmPathComponent]) -> String {
        var out = ""
        for c in path {
            switch c {
            case let .index(i): out += "[\(i)]"
            case let .key(k):
                if isIdentifier(k) {
                    if !out.isEmpty { out += "." }
                    out += k
                } else {
                    out += "[\"" + k + "\"]"
                }
            }
        }
        return out
    }

    /// `campaigns[2].warm.aheadSeconds` → components (keys and `[n]` indices; quoted keys
    /// `["2g"]` are read too).
    static func parse(_ text: String) -> [SwarmPathComponent] {
        var out: [SwarmPathComponent] = []
        var key = ""
        var i = text.startIndex
        func flush() { if !key.isEmpty { out.append(.key(key)); key = "" } }
        while i < text.endIndex {
            let ch = text[i]
            if ch == "." { flush(); i = text.index(after: i); continue }
            if ch == "[" {
                flush()
                guard let close = text[i...].firstIndex(of: "]") else { break }
                let inner = text[text.index(after: i)..<close]
                if inner.hasPrefix("\""), inner.hasSuffix("\""), inner.count >= 2 {
                    out.append(.key(String(inner.dropFirst().dropLast())))
                } else if let n = Int(inner) {
                    out.append(.index(n))
                }
                i = text.index(after: close)
                continue
            }
            key.append(ch)
            i = text.index(after: i)
        }
        flush()
        return out
    }

    private static func isIdentifier(_ k: String) -> Bool {
        guard let first = k.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic) else {
            return false
        }
        return k.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-") }
    }
}
