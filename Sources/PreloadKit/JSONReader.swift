extension PayloadValue {
    /// Decodes a JSON document strictly (RFC 8259): one value, only JSON whitespace around it,
    /// no comments, no trailing commas, no duplicate keys, valid UTF-8, no lone surrogates,
    /// integers that fit in `Int64`, finite numbers. Every `PayloadLimits` bound is enforced while
    /// reading, so a hostile document costs at most O(`documentBytesMax`) work.
    /// - Throws: `PayloadRejection` with `path` `$` and the byte offset of the problem.
    /// Keys are told apart by their UTF-8 bytes after unescaping: `"\u00e9"` and `"é"` are one key
    /// (a duplicate), `"é"` and `"e\u0301"` are two (canonically equivalent, but different bytes).
    /// - Complexity: O(n log k) in the document size n, for objects of at most k keys
    ///   (k ≤ `containerElementsMax`): the duplicate-key check sorts each object's keys.
    public static func parseJSON(_ bytes: [UInt8], limits: PayloadLimits = PayloadLimits()) throws(PayloadRejection) -> PayloadValue {
        if bytes.count > limits.documentBytesMax {
            throw PayloadRejection(path: "$", reason: .documentTooLarge(bytes: bytes.count, max: limits.documentBytesMax))
        }
        var reader = JSONReader(bytes: bytes, limits: limits)
        reader.skipWhitespace()
        let value = try reader.readValue(depth: 1)
        reader.skipWhitespace()
        if reader.offset != bytes.count {
            throw reader.fail("end of document")
        }
        return value
    }
}

/// The recursive-descent reader behind `PayloadValue.parseJSON`. Recursion depth is bounded by
/// `PayloadLimits.depthMax`.
struct JSONReader {
    let bytes: [UInt8]
    let limits: PayloadLimits
    var offset = 0
    var valueCount = 0
    /// Key comparisons made by the duplicate-key check so far: a test-visible operation count that
    /// bounds its cost without timing it.
    var keyComparisonCount = 0

    init(bytes: [UInt8], limits: PayloadLimits) {
        self.bytes = bytes
        self.limits = limits
    }

    func fail(_ expected: String) -> PayloadRejection {
        PayloadRejection(path: "$", reason: .invalidJSON(offset: offset, expected: expected))
    }

    mutating func skipWhitespace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x09, 0x0A, 0x0D: offset += 1
            default: return
            }
        }
    }

    mutating func readValue(depth: Int) throws(PayloadRejection) -> PayloadValue {
        valueCount += 1
        if valueCount > limits.valuesMax {
            throw PayloadRejection(path: "$", reason: .tooManyValues(max: limits.valuesMax))
        }
        guard offset < bytes.count else { throw fail("a value") }
        switch bytes[offset] {
        case UInt8(ascii: "{"): return try readObject(depth: depth)
        case UInt8(ascii: "["): return try readArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try readString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try readNumber()
        default: throw fail("a value")
        }
    }

    mutating func expectLiteral(_ literal: StaticString) throws(PayloadRejection) {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - offset >= count else { throw fail("\(literal)") }
        let start = literal.utf8Start
        for i in 0..<count where bytes[offset + i] != start[i] {
            throw fail("\(literal)")
        }
        offset += count
    }

    mutating func readObject(depth: Int) throws(PayloadRejection) -> PayloadValue {
        if try enterContainer(depth: depth, closing: UInt8(ascii: "}")) { return .object([]) }
        var members: [PayloadMember] = []
        var keys: [[UInt8]] = []
        while true {
            skipWhitespace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else { throw fail("a string key") }
            let keyBytes = try readStringBytes()
            keys.append(keyBytes)
            let key = String(decoding: keyBytes, as: UTF8.self)
            skipWhitespace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: ":") else { throw fail("':'") }
            offset += 1
            skipWhitespace()
            let value = try readValue(depth: depth + 1)
            if members.count == limits.containerElementsMax {
                throw PayloadRejection(path: "$", reason: .tooManyElements(count: members.count + 1, max: limits.containerElementsMax))
            }
            members.append(PayloadMember(key: key, value: value))
            skipWhitespace()
            guard offset < bytes.count else { throw fail("',' or '}'") }
            if bytes[offset] == UInt8(ascii: ",") { offset += 1; continue }
            if bytes[offset] == UInt8(ascii: "}") {
                offset += 1
                try checkDuplicateKeys(keys)
                return .object(members)
            }
            throw fail("',' or '}'")
        }
    }

    /// Throws `.duplicateKey` when two of `keys` (one object's, in source order) have the same bytes.
    ///
    /// Sorts the key indices by key bytes (bottom-up merge sort, at most k⌈log2 k⌉ comparisons for
    /// k keys) and compares neighbours (k − 1 more), so an object costs O(k log k) comparisons
    /// whatever its keys are; no hashing, so no key choice can make it slower. Comparing each key
    /// with every earlier one cost k²/2: 0.57 s for a 600 KB document at the widest limits.
    mutating func checkDuplicateKeys(_ keys: [[UInt8]]) throws(PayloadRejection) {
        let count = keys.count
        guard count > 1 else { return }
        var order = Array(0..<count)
        var scratch = order
        var width = 1
        while width < count {
            var start = 0
            while start < count {
                let middle = min(start + width, count), end = min(start + 2 * width, count)
                var left = start, right = middle, out = start
                while left < middle && right < end {
                    keyComparisonCount += 1
                    if keys[order[right]].lexicographicallyPrecedes(keys[order[left]]) {
                        scratch[out] = order[right]; right += 1
                    } else {
                        scratch[out] = order[left]; left += 1
                    }
                    out += 1
                }
                while left < middle { scratch[out] = order[left]; left += 1; out += 1 }
                while right < end { scratch[out] = order[right]; right += 1; out += 1 }
                start = end
            }
            swap(&order, &scratch)
            width *= 2
        }
        for i in 1..<count {
            keyComparisonCount += 1
            if keys[order[i - 1]] == keys[order[i]] {
                throw PayloadRejection(path: "$", reason: .duplicateKey(String(decoding: keys[order[i]], as: UTF8.self)))
            }
        }
    }

    /// Steps into the object or array whose opening byte is at `offset`, `depth` levels deep
    /// (beyond the nesting limit it is refused), and past the whitespace after it: whether the
    /// container is empty, in which case its closing byte `close` is consumed too.
    @inline(__always)
    mutating func enterContainer(depth: Int, closing close: UInt8) throws(PayloadRejection) -> Bool {
        if depth > limits.depthMax {
            throw PayloadRejection(path: "$", reason: .nestingTooDeep(max: limits.depthMax))
        }
        offset += 1  // { or [
        skipWhitespace()
        guard offset < bytes.count, bytes[offset] == close else { return false }
        offset += 1
        return true
    }

    mutating func readArray(depth: Int) throws(PayloadRejection) -> PayloadValue {
        if try enterContainer(depth: depth, closing: UInt8(ascii: "]")) { return .array([]) }
        var elements: [PayloadValue] = []
        while true {
            skipWhitespace()
            let value = try readValue(depth: depth + 1)
            if elements.count == limits.containerElementsMax {
                throw PayloadRejection(path: "$", reason: .tooManyElements(count: elements.count + 1, max: limits.containerElementsMax))
            }
            elements.append(value)
            skipWhitespace()
            guard offset < bytes.count else { throw fail("',' or ']'") }
            if bytes[offset] == UInt8(ascii: ",") { offset += 1; continue }
            if bytes[offset] == UInt8(ascii: "]") { offset += 1; return .array(elements) }
            throw fail("',' or ']'")
        }
    }

    mutating func readHex4() throws(PayloadRejection) -> UInt32 {
        guard bytes.count - offset >= 4 else { throw fail("4 hex digits") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[offset]
            let digit: UInt32
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(b - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(b - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(b - UInt8(ascii: "A") + 10)
            default: throw fail("a hex digit")
            }
            v = v << 4 | digit
            offset += 1
        }
        return v
    }

    mutating func readString() throws(PayloadRejection) -> String {
        String(decoding: try readStringBytes(), as: UTF8.self)
    }

    /// The UTF-8 bytes of the string at `offset` (unescaped, validated as UTF-8).
    mutating func readStringBytes() throws(PayloadRejection) -> [UInt8] {
        let start = offset
        offset += 1  // opening quote
        var out: [UInt8] = []
        while true {
            guard offset < bytes.count else { throw fail("closing '\"'") }
            let b = bytes[offset]
            if b == UInt8(ascii: "\"") { offset += 1; break }
            if b < 0x20 { throw fail("an escaped control character") }
            if b == UInt8(ascii: "\\") {
                offset += 1
                guard offset < bytes.count else { throw fail("an escape sequence") }
                let e = bytes[offset]
                offset += 1
                if let unescaped = JSONEscape.byte(e) {
                    out.append(unescaped)
                } else if e == UInt8(ascii: "u") {
                    var scalar = try readHex4()
                    if scalar >= 0xD800 && scalar <= 0xDBFF {
                        guard bytes.count - offset >= 6, bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u") else {
                            throw fail("a low surrogate escape")
                        }
                        offset += 2
                        let low = try readHex4()
                        guard low >= 0xDC00 && low <= 0xDFFF else { throw fail("a low surrogate escape") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if scalar >= 0xDC00 && scalar <= 0xDFFF {
                        throw fail("no lone low surrogate")
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw fail("a Unicode scalar") }
                    JSONReader.appendUTF8(unicode.value, to: &out)
                } else {
                    throw fail("a valid escape sequence")
                }
            } else {
                out.append(b)
                offset += 1
            }
            if out.count > limits.stringBytesMax {
                throw PayloadRejection(path: "$", reason: .stringTooLong(bytes: out.count, max: limits.stringBytesMax))
            }
        }
        var iterator = out.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid: continue
            case .emptyInput: return out
            case .error: throw PayloadRejection(path: "$", reason: .invalidUTF8(offset: start))
            }
        }
    }

    mutating func readNumber() throws(PayloadRejection) -> PayloadValue {
        let start = offset
        var negative = false
        if bytes[offset] == UInt8(ascii: "-") { negative = true; offset += 1 }
        guard offset < bytes.count, isDigit(bytes[offset]) else { throw fail("a digit") }
        if bytes[offset] == UInt8(ascii: "0") {
            offset += 1
            if offset < bytes.count, isDigit(bytes[offset]) { throw fail("no leading zero") }
        } else {
            while offset < bytes.count, isDigit(bytes[offset]) { offset += 1 }
        }
        var isInteger = true
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
            isInteger = false
            offset += 1
            guard offset < bytes.count, isDigit(bytes[offset]) else { throw fail("a digit after '.'") }
            while offset < bytes.count, isDigit(bytes[offset]) { offset += 1 }
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "e") || bytes[offset] == UInt8(ascii: "E") {
            isInteger = false
            offset += 1
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") { offset += 1 }
            guard offset < bytes.count, isDigit(bytes[offset]) else { throw fail("a digit in the exponent") }
            while offset < bytes.count, isDigit(bytes[offset]) { offset += 1 }
        }
        let length = offset - start
        let text = String(decoding: bytes[start..<offset], as: UTF8.self)
        if length > limits.numberCharactersMax {
            throw PayloadRejection(path: "$", reason: .numberOutOfRange(value: text, min: .min, max: .max))
        }
        if isInteger {
            var value: Int64 = 0
            var i = negative ? start + 1 : start
            while i < offset {
                let digit = Int64(bytes[i] - UInt8(ascii: "0"))
                let (times10, o1) = value.multipliedReportingOverflow(by: 10)
                let (next, o2) = negative ? times10.subtractingReportingOverflow(digit) : times10.addingReportingOverflow(digit)
                if o1 || o2 {
                    throw PayloadRejection(path: "$", reason: .numberOutOfRange(value: text, min: .min, max: .max))
                }
                value = next
                i += 1
            }
            return .integer(value)
        }
        guard let double = Double(text), double.isFinite else {
            throw PayloadRejection(path: "$", reason: .numberOutOfRange(value: text, min: .min, max: .max))
        }
        return .number(double)
    }

    /// Appends the UTF-8 encoding of a valid scalar value.
    static func appendUTF8(_ v: UInt32, to out: inout [UInt8]) {
        switch v {
        case 0..<0x80:
            out.append(UInt8(v))
        case 0x80..<0x800:
            out.append(UInt8(0xC0 | (v >> 6)))
            out.append(UInt8(0x80 | (v & 0x3F)))
        case 0x800..<0x10000:
            out.append(UInt8(0xE0 | (v >> 12)))
            out.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (v & 0x3F)))
        default:
            out.append(UInt8(0xF0 | (v >> 18)))
            out.append(UInt8(0x80 | ((v >> 12) & 0x3F)))
            out.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (v & 0x3F)))
        }
    }

    func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }
}
