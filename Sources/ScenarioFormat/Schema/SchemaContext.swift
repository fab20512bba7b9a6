import Foundation

// Walking the readers' declarations into JSON Schema (draft 2020-12): a value's schema follows from
// its Swift type (a `ConfigReadable` table, an array, a string enumeration, a primitive, or a type
// that describes itself), its field's rule adds the bounds it states, and its description is the
// "meaning" text of docs/scenario-format.md (`ScenarioFieldText`).

/// A type whose reader is written by hand (not a `ConfigReadable` table) and that states its own
/// schema next to that reader, from the same constants.
protocol SchemaDescribed {
    /// The schema of a value of this type at `context`.
    static func jsonSchema(_ context: SchemaContext) -> JSONValue
}

/// Lets the walk see an array's element type.
protocol SchemaArray { static var schemaElementType: Any.Type { get } }
extension Array: SchemaArray { static var schemaElementType: Any.Type { Element.self } }

/// What one generation collects: shared definitions and what could not be described.
final class SchemaLog {
    /// `$defs` entries by name.
    var definitions: [String: JSONValue] = [:]
    /// Types without a schema and fields without a description, by path (a test keeps this empty).
    var gaps: [String] = []
}

/// Where in the document a schema is being made: the doc section of the value (`campaigns[]`,
/// `infra.networks.CLASS`; "" for the top level) and the table its descriptions come from.
struct SchemaContext {
    let section: String
    let texts: [String: String]
    let log: SchemaLog

    /// The context of the member `key`: its section is this one's extended by the key.
    func member(_ key: String) -> SchemaContext {
        SchemaContext(section: section.isEmpty ? key : section + "." + key, texts: texts, log: log)
    }

    /// The context of an array's elements (`section[]`).
    var elements: SchemaContext { SchemaContext(section: section + "[]", texts: texts, log: log) }

    /// The context of a section named outright.
    func at(_ section: String) -> SchemaContext { SchemaContext(section: section, texts: texts, log: log) }

    /// The doc text of member `key` of this section; a gap is logged when there is none.
    func description(of key: String) -> String? {
        if section.isEmpty, key == "$schema" { return ScenarioSchema.schemaKeyText }
        if let text = texts[ScenarioFieldText.key(section, key)] { return text }
        log.gaps.append("no description for \(section.isEmpty ? key : section + "." + key)")
        return nil
    }

    /// An object schema: `properties` (each with its doc text), `required`, and no other keys
    /// (the readers reject unknown keys).
    func object(_ properties: [(key: String, schema: JSONValue)], required: [String] = [], extra: [String: JSONValue] = [:]) -> JSONValue {
        var props: [String: JSONValue] = [:]
        for p in properties { props[p.key] = described(p.schema, description(of: p.key)) }
        var o: [String: JSONValue] = ["type": .string("object"), "properties": .object(props), "additionalProperties": .bool(false)]
        if !required.isEmpty { o["required"] = .array(required.map(JSONValue.string)) }
        for (k, v) in extra { o[k] = v }
        return .object(o)
    }

    /// The schema of a value of `type` here, with `keywords` added (and `null` allowed when `nullable`).
    func schema(of type: Any.Type, adding keywords: [String: JSONValue] = [:], nullable: Bool = false) -> JSONValue {
        let s = base(type).merging(keywords)
        return nullable ? .object(["anyOf": .array([s, .object(["type": .string("null")])])]) : s
    }

    private func base(_ type: Any.Type) -> JSONValue {
        if let t = type as? any SchemaDescribed.Type { return t.jsonSchema(self) }
        if let t = type as? any ConfigReadable.Type { return table(t) }
        if let t = type as? any SchemaArray.Type {
            return .object(["type": .string("array"), "items": elements.schema(of: t.schemaElementType)])
        }
        if let t = type as? any (CaseIterable & RawRepresentable).Type, let names = rawNames(t) {
            return .object(["enum": .array(names.map(JSONValue.string))])
        }
        switch type {
        case is Bool.Type: return .object(["type": .string("boolean")])
        case is String.Type: return .object(["type": .string("string")])
        case is Double.Type, is Float.Type: return .object(["type": .string("number")])
        case is Int.Type, is Int64.Type, is Int32.Type, is Int16.Type, is Int8.Type: return .object(["type": .string("integer")])
        case is UInt.Type, is UInt64.Type, is UInt32.Type, is UInt16.Type, is UInt8.Type:
            return .object(["type": .string("integer"), "minimum": .integer(0)])
        default:
            log.gaps.append("no schema for \(type) at \(section.isEmpty ? "(top level)" : section)")
            return .object([:])
        }
    }

    /// A `ConfigReadable` type's object: one property per field of its table.
    private func table<T: ConfigReadable>(_ type: T.Type) -> JSONValue {
        let fields = T.fields
        return object(fields.map { ($0.key, $0.schema(member($0.key))) }, required: fields.filter(\.isRequired).map(\.key))
    }

    private func rawNames<C: CaseIterable & RawRepresentable>(_ type: C.Type) -> [String]? {
        let names = C.allCases.compactMap { $0.rawValue as? String }
        return names.count == C.allCases.count ? names : nil
    }

    /// `schema` with `description` (a `$ref` keeps its siblings in draft 2020-12).
    func described(_ schema: JSONValue, _ description: String?) -> JSONValue {
        guard let description, case var .object(o) = schema else { return schema }
        o["description"] = .string(description)
        return .object(o)
    }
}

extension JSONValue {
    /// This object with `keywords` added; an object-valued keyword (`items`) is merged into the one
    /// already there, so a rule's bounds join the element type's schema.
    func merging(_ keywords: [String: JSONValue]) -> JSONValue {
        guard case var .object(o) = self else { return self }
        for (k, v) in keywords {
            if case let .object(inner)? = o[k], case let .object(extra) = v { o[k] = JSONValue.object(inner).merging(extra) } else { o[k] = v }
        }
        return .object(o)
    }

    /// A JSON number: an integer when `x` is integral (and fits), else a double.
    static func number(_ x: Double) -> JSONValue {
        x == x.rounded() && abs(x) < 9e15 ? .integer(Int64(x)) : .double(x)
    }

    /// Pretty JSON text, two-space indent, keys sorted, one trailing newline: the committed form.
    func prettyText() -> String {
        var out = ""
        pretty(into: &out, indent: "")
        return out + "\n"
    }

    private func pretty(into out: inout String, indent: String) {
        let inner = indent + "  "
        switch self {
        case let .array(a) where !a.isEmpty:
            if a.allSatisfy({ if case .object = $0 { return false }; if case .array = $0 { return false }; return true }) {
                out += "[" + a.map { $0.rendered(limit: .max) }.joined(separator: ", ") + "]"
                return
            }
            out += "[\n"
            for (i, v) in a.enumerated() {
                out += inner
                v.pretty(into: &out, indent: inner)
                out += i + 1 < a.count ? ",\n" : "\n"
            }
            out += indent + "]"
        case let .object(o) where !o.isEmpty:
            out += "{\n"
            let keys = o.keys.sorted()
            for (i, k) in keys.enumerated() {
                out += inner + JSONValue.quoted(k) + ": "
                o[k]?.pretty(into: &out, indent: inner)
                out += i + 1 < keys.count ? ",\n" : "\n"
            }
            out += indent + "}"
        default:
            out += rendered(limit: .max)
        }
    }
}
