import Foundation

// The Decoder and its keyed, unkeyed and single-value containers: each read goes through
// `DecodingSession` (StrictJSONDecoder.swift), which records what was asked and every problem.

/// The `Decoder` handed to `init(from:)`.
struct StrictDecoder: Decoder {
    let session: DecodingSession
    let value: JSONValue
    let path: JSONPath
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case let .object(o) = value else {
            throw DecodingError.typeMismatch([String: Any].self, DecodingError.Context(
                codingPath: codingPath, debugDescription: "expected an object, found \(value.rendered())",
                underlyingError: Expectation(expected: "an object")))
        }
        session.visit(path)
        return KeyedDecodingContainer(StrictKeyedContainer<Key>(session: session, object: o, path: path, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case let .array(a) = value else {
            throw DecodingError.typeMismatch([Any].self, DecodingError.Context(
                codingPath: codingPath, debugDescription: "expected an array, found \(value.rendered())",
                underlyingError: Expectation(expected: "an array")))
        }
        return StrictUnkeyedContainer(session: session, elements: a, path: path, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        StrictSingleValueContainer(session: session, value: value, path: path, codingPath: codingPath)
    }
}

struct StrictKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let session: DecodingSession
    let object: [String: JSONValue]
    let path: JSONPath
    let codingPath: [any CodingKey]

    var allKeys: [Key] {
        let keys = object.keys.sorted().compactMap { Key(stringValue: $0) }
        for k in keys { session.ask(k.stringValue, at: path) }
        return keys
    }

    func contains(_ key: Key) -> Bool {
        session.ask(key.stringValue, at: path)
        return object[key.stringValue] != nil
    }

    private func required(_ key: Key) throws -> JSONValue {
        session.ask(key.stringValue, at: path)
        guard let v = object[key.stringValue] else {
            throw DecodingError.keyNotFound(key, DecodingError.Context(
                codingPath: codingPath, debugDescription: "missing required key \(JSONValue.quoted(key.stringValue))"))
        }
        return v
    }

    func decodeNil(forKey key: Key) throws -> Bool { try required(key) == .null }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let v = try required(key)
        return try session.unbox(T.self, v, path: path.appending(key: key.stringValue), codingPath: codingPath + [key])
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        session.ask(key.stringValue, at: path)
        guard let v = object[key.stringValue], v != .null else { return nil }
        let childPath = path.appending(key: key.stringValue)
        do {
            return try session.unbox(T.self, v, path: childPath, codingPath: codingPath + [key])
        } catch {
            session.record(error, fallbackPath: childPath)
            return nil
        }
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try generic(type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try generic(type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try generic(type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try generic(type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try generic(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try generic(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try generic(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try generic(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try generic(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try generic(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try generic(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try generic(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try generic(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try generic(type, key) }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try genericIfPresent(type, key) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try genericIfPresent(type, key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try genericIfPresent(type, key) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try genericIfPresent(type, key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try genericIfPresent(type, key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try genericIfPresent(type, key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try genericIfPresent(type, key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try genericIfPresent(type, key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try genericIfPresent(type, key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try genericIfPresent(type, key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try genericIfPresent(type, key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try genericIfPresent(type, key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try genericIfPresent(type, key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try genericIfPresent(type, key) }

    private func generic<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T { try decode(T.self, forKey: key) }
    private func genericIfPresent<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T? { try decodeIfPresent(T.self, forKey: key) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try child(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try child(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        session.ask("super", at: path)
        return StrictDecoder(session: session, value: object["super"] ?? .null, path: path.appending(key: "super"),
                             codingPath: codingPath + [SuperKey()])
    }

    func superDecoder(forKey key: Key) throws -> any Decoder { try child(key) }

    private func child(_ key: Key) throws -> StrictDecoder {
        let v = try required(key)
        return StrictDecoder(session: session, value: v, path: path.appending(key: key.stringValue), codingPath: codingPath + [key])
    }
}

struct StrictUnkeyedContainer: UnkeyedDecodingContainer {
    let session: DecodingSession
    let elements: [JSONValue]
    let path: JSONPath
    let codingPath: [any CodingKey]
    private(set) var currentIndex = 0
    /// The element type decoded so far, while every element has been decoded as the same type.
    private var elementType: ObjectIdentifier? = nil
    private var homogeneous = true

    init(session: DecodingSession, elements: [JSONValue], path: JSONPath, codingPath: [any CodingKey]) {
        self.session = session
        self.elements = elements
        self.path = path
        self.codingPath = codingPath
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private func endError<T>(_ type: T.Type) -> DecodingError {
        DecodingError.valueNotFound(type, DecodingError.Context(
            codingPath: codingPath + [IndexKey(currentIndex)],
            debugDescription: "expected another element, found the end of the array (\(elements.count) elements)"))
    }

    private mutating func note<T>(_ type: T.Type) {
        let id = ObjectIdentifier(type)
        if let elementType, elementType != id { homogeneous = false }
        elementType = id
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { throw endError(Never?.self) }
        if elements[currentIndex] == .null {
            currentIndex += 1
            return true
        }
        return false
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        guard !isAtEnd else { throw endError(T.self) }
        note(T.self)
        let i = currentIndex
        do {
            let v = try session.unbox(T.self, elements[i], path: path.appending(index: i), codingPath: codingPath + [IndexKey(i)])
            currentIndex += 1
            return v
        } catch {
            // The array cannot be produced; decode the remaining elements as the same type (when
            // the array has been homogeneous so far) to report their errors in the same pass.
            var found = session.diagnostics(from: error, fallbackPath: path.appending(index: i))
            if homogeneous {
                for j in (i + 1)..<max(i + 1, elements.count) {
                    do {
                        _ = try session.unbox(T.self, elements[j], path: path.appending(index: j), codingPath: codingPath + [IndexKey(j)])
                    } catch {
                        found += session.diagnostics(from: error, fallbackPath: path.appending(index: j))
                    }
                }
            }
            currentIndex = elements.count
            throw DiagnosticBundle(diagnostics: found)
        }
    }

    mutating func decodeIfPresent<T: Decodable>(_ type: T.Type) throws -> T? {
        guard !isAtEnd else { throw endError(T.self) }
        note(T.self)
        let i = currentIndex
        currentIndex += 1
        if elements[i] == .null { return nil }
        do {
            return try session.unbox(T.self, elements[i], path: path.appending(index: i), codingPath: codingPath + [IndexKey(i)])
        } catch {
            session.record(error, fallbackPath: path.appending(index: i))
            return nil
        }
    }

    private mutating func nextDecoder() throws -> StrictDecoder {
        guard !isAtEnd else { throw endError(Any.self) }
        let i = currentIndex
        currentIndex += 1
        return StrictDecoder(session: session, value: elements[i], path: path.appending(index: i), codingPath: codingPath + [IndexKey(i)])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try nextDecoder().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try nextDecoder().unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder { try nextDecoder() }
}

struct StrictSingleValueContainer: SingleValueDecodingContainer {
    let session: DecodingSession
    let value: JSONValue
    let path: JSONPath
    let codingPath: [any CodingKey]

    func decodeNil() -> Bool { value == .null }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try session.unbox(T.self, value, path: path, codingPath: codingPath)
    }

    func decode(_ type: Bool.Type) throws -> Bool { try generic(type) }
    func decode(_ type: String.Type) throws -> String { try generic(type) }
    func decode(_ type: Double.Type) throws -> Double { try generic(type) }
    func decode(_ type: Float.Type) throws -> Float { try generic(type) }
    func decode(_ type: Int.Type) throws -> Int { try generic(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try generic(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try generic(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try generic(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try generic(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try generic(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try generic(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try generic(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try generic(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try generic(type) }

    private func generic<T: Decodable>(_ type: T.Type) throws -> T { try decode(T.self) }
}
