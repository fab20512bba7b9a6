import PreloadKit

/// Limits applied to every scenario document.
package struct JSONLimits: Sendable, Equatable {
    /// Largest accepted document, in bytes.
    var maxBytes: Int
    /// Deepest accepted nesting of arrays and objects.
    var maxDepth: Int
    /// Most diagnostics reported for one document (the rest are counted).
    var maxDiagnostics: Int

    /// Defaults: 8 MiB, 64 levels, 100 diagnostics.
    package init(maxBytes: Int = 8 << 20, maxDepth: Int = 64, maxDiagnostics: Int = 100) {
        self.maxBytes = maxBytes
        self.maxDepth = maxDepth
        self.maxDiagnostics = maxDiagnostics
    }
}

/// A strict RFC 8259 JSON parser producing `JSONValue`.
///
/// Rejects: trailing commas, comments, NaN/Infinity literals, numbers that overflow a Double,
/// invalid UTF-8, lone surrogate escapes, unescaped control characters, duplicate object keys,
/// documents over `maxBytes` or nested deeper than `maxDepth`. Errors name the JSON path being
/// parsed and the line and column.
package enum JSONParser {
    /// Parses one JSON document (surrounding whitespace allowed; a UTF-8 byte-order mark is skipped).
    /// Other readers of the project's JSON inputs (`--overlay` files) check their text with it, so
    /// every input refuses what a scenario file refuses.
    /// - Throws: a `Diagnostic` of kind `.syntax`.
    /// - Complexity: O(bytes).
    package static func parse(_ bytes: some Collection<UInt8>, limits: JSONLimits = JSONLimits()) throws(Diagnostic) -> JSONValue {
        guard bytes.count <= limits.maxBytes else {
            throw Diagnostic(path: .root, kind: .syntax,
                             message: "document too large: expected at most \(limits.maxBytes) bytes, found \(bytes.count)",
                             expected: "at most \(limits.maxBytes) bytes", found: "\(bytes.count) bytes")
        }
        var p = Parser(bytes: Array(bytes), maxDepth: limits.maxDepth)
        if p.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { p.pos = 3 }
        p.skipWhitespace()
        let value = try p.parseValue(path: .root, depth: 0)
        p.skipWhitespace()
        guard p.pos == p.bytes.count else { throw p.error(.root, expected: "the end of the document") }
        return value
    }
}

private struct Parser {
    let bytes: [UInt8]
    let maxDepth: Int
    var pos = 0

    init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    mutating func skipWhitespace() {
        while pos < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[pos]) { pos += 1 }
    }

    /// "invalid JSON at line L, column C: expected X, found Y".
    func error(_ path: JSONPath, expected: String, message: String? = nil) -> Diagnostic {
        var line = 1, column = 1
        for b in bytes[..<min(pos, bytes.count)] {
            if b == 0x0A { line += 1; column = 1 } else if b & 0xC0 != 0x80 { column += 1 }
        }
        let found: String
        if pos >= bytes.count {
            found = "the end of the document"
        } else {
            let end = min(bytes.count, pos + 12)
            found = JSONValue.quoted(String(decoding: bytes[pos..<end], as: UTF8.self)) + (end < bytes.count ? "…" : "")
        }
        let what = message ?? "expected \(expected), found \(found)"
        return Diagnostic(path: path, kind: .syntax, message: "invalid JSON at line \(line), column \(column): \(what)",
                          expected: expected, found: found)
    }

    mutating func parseValue(path: JSONPath, depth: Int) throws(Diagnostic) -> JSONValue {
        guard pos < bytes.count else { throw error(path, expected: "a value") }
        switch bytes[pos] {
        case UInt8(ascii: "{"): return try parseObject(path: path, depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(path: path, depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString(path: path))
        case UInt8(ascii: "t"): try literal("true", path: path); return .bool(true)
        case UInt8(ascii: "f"): try literal("false", path: path); return .bool(false)
        case UInt8(ascii: "n"): try literal("null", path: path); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber(path: path)
        default: throw error(path, expected: "a value (object, array, string, number, true, false or null)")
        }
    }

    mutating func literal(_ word: String, path: JSONPath) throws(Diagnostic) {
        let w = Array(word.utf8)
        guard bytes.count - pos >= w.count, Array(bytes[pos..<pos + w.count]) == w else {
            throw error(path, expected: "a value (object, array, string, number, true, false or null)")
        }
        pos += w.count
    }

    mutating func parseObject(path: JSONPath, depth: Int) throws(Diagnostic) -> JSONValue {
        guard depth <= maxDepth else { throw error(path, expected: "nesting at most \(maxDepth) deep", message: "nesting deeper than \(maxDepth) levels") }
        pos += 1
        var object: [String: JSONValue] = [:]
        skipWhitespace()
        if pos < bytes.count, bytes[pos] == UInt8(ascii: "}") { pos += 1; return .object(object) }
        while true {
            skipWhitespace()
            guard pos < bytes.count, bytes[pos] == UInt8(ascii: "\"") else { throw error(path, expected: "a key in double quotes") }
            let keyStart = pos
            let key = try parseString(path: path)
            guard object[key] == nil else {
                pos = keyStart
                throw error(path.appending(key: key), expected: "unique keys", message: "duplicate key \(DisplayText.quoted(key))")
            }
            skipWhitespace()
            guard pos < bytes.count, bytes[pos] == UInt8(ascii: ":") else { throw error(path.appending(key: key), expected: "':'") }
            pos += 1
            skipWhitespace()
            object[key] = try parseValue(path: path.appending(key: key), depth: depth)
            skipWhitespace()
            guard pos < bytes.count else { throw error(path, expected: "',' or '}'") }
            if bytes[pos] == UInt8(ascii: ",") { pos += 1; continue }
            if bytes[pos] == UInt8(ascii: "}") { pos += 1; return .object(object) }
            throw error(path, expected: "',' or '}'")
        }
    }

    mutating func parseArray(path: JSONPath, depth: Int) throws(Diagnostic) -> JSONValue {
        guard depth <= maxDepth else { throw error(path, expected: "nesting at most \(maxDepth) deep", message: "nesting deeper than \(maxDepth) levels") }
        pos += 1
        var array: [JSONValue] = []
        skipWhitespace()
        if pos < bytes.count, bytes[pos] == UInt8(ascii: "]") { pos += 1; return .array(array) }
        while true {
            skipWhitespace()
            array.append(try parseValue(path: path.appending(index: array.count), depth: depth))
            skipWhitespace()
            guard pos < bytes.count else { throw error(path, expected: "',' or ']'") }
            if bytes[pos] == UInt8(ascii: ",") { pos += 1; continue }
            if bytes[pos] == UInt8(ascii: "]") { pos += 1; return .array(array) }
            throw error(path, expected: "',' or ']'")
        }
    }

    mutating func parseNumber(path: JSONPath) throws(Diagnostic) -> JSONValue {
        let start = pos
        func digits(_ p: inout Int, _ b: [UInt8]) -> Int {
            let s = p
            while p < b.count, b[p] >= UInt8(ascii: "0"), b[p] <= UInt8(ascii: "9") { p += 1 }
            return p - s
        }
        if bytes[pos] == UInt8(ascii: "-") { pos += 1 }
        let intStart = pos
        let intDigits = digits(&pos, bytes)
        guard intDigits > 0, !(intDigits > 1 && bytes[intStart] == UInt8(ascii: "0")) else {
            pos = start
            throw error(path, expected: "a number (no leading zeros, no '+', no bare '-')")
        }
        var isInteger = true
        if pos < bytes.count, bytes[pos] == UInt8(ascii: ".") {
            isInteger = false
            pos += 1
            guard digits(&pos, bytes) > 0 else { throw error(path, expected: "a digit after '.'") }
        }
        if pos < bytes.count, bytes[pos] == UInt8(ascii: "e") || bytes[pos] == UInt8(ascii: "E") {
            isInteger = false
            pos += 1
            if pos < bytes.count, bytes[pos] == UInt8(ascii: "+") || bytes[pos] == UInt8(ascii: "-") { pos += 1 }
            guard digits(&pos, bytes) > 0 else { throw error(path, expected: "a digit in the exponent") }
        }
        let text = String(decoding: bytes[start..<pos], as: UTF8.self)
        if isInteger, let i = Int64(text) { return .integer(i) }
        guard let d = Double(text), d.isFinite else {
            pos = start
            throw error(path, expected: "a number within ±1.8e308", message: "number \(text) is out of range: expected a finite number")
        }
        return .double(d)
    }

    mutating func parseString(path: JSONPath) throws(Diagnostic) -> String {
        pos += 1  // opening quote
        var out: [UInt8] = []
        while true {
            guard pos < bytes.count else { throw error(path, expected: "a closing '\"'") }
            let b = bytes[pos]
            if b == UInt8(ascii: "\"") { pos += 1; break }
            if b < 0x20 { throw error(path, expected: "no raw control characters in a string (use \\n, \\t, \\u00XX)") }
            if b != UInt8(ascii: "\\") { out.append(b); pos += 1; continue }
            pos += 1
            guard pos < bytes.count else { throw error(path, expected: "an escape character") }
            let e = bytes[pos]
            pos += 1
            if let unescaped = JSONEscape.byte(e) {
                out.append(unescaped)
                continue
            }
            switch e {
            case UInt8(ascii: "u"):
                var scalar = try hex4(path: path)
                if (0xD800...0xDBFF).contains(scalar) {
                    guard bytes.count - pos >= 2, bytes[pos] == UInt8(ascii: "\\"), bytes[pos + 1] == UInt8(ascii: "u") else {
                        throw error(path, expected: "a low surrogate \\uDC00-\\uDFFF after a high surrogate")
                    }
                    pos += 2
                    let low = try hex4(path: path)
                    guard (0xDC00...0xDFFF).contains(low) else { throw error(path, expected: "a low surrogate \\uDC00-\\uDFFF") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw error(path, expected: "no lone low surrogate")
                }
                guard let u = Unicode.Scalar(scalar) else { throw error(path, expected: "a valid Unicode scalar") }
                out.append(contentsOf: Array(String(Character(u)).utf8))
            default:
                pos -= 1
                throw error(path, expected: "a valid escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)")
            }
        }
        guard let s = String(validating: out, as: UTF8.self) else { throw error(path, expected: "valid UTF-8 text", message: "string is not valid UTF-8") }
        return s
    }

    mutating func hex4(path: JSONPath) throws(Diagnostic) -> UInt32 {
        guard bytes.count - pos >= 4,
              bytes[pos..<pos + 4].allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x66) }),
              let v = UInt32(String(decoding: bytes[pos..<pos + 4], as: UTF8.self), radix: 16) else {
            throw error(path, expected: "4 hex digits after \\u")
        }
        pos += 4
        return v
    }
}
