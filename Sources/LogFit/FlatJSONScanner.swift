/// Finds the members of one flat JSON object (one NDJSON line) without building a tree: for each
/// wanted key, the byte range of its value (a string's contents without quotes, or a number/literal).
/// Nested objects and arrays are skipped. Allocation-free once `ranges` has grown.
struct FlatJSONScanner {
    /// The wanted keys, in the order of `ranges`.
    let keys: [[UInt8]]
    /// Value range per key (nil when absent), and whether it was a JSON string.
    var ranges: [(range: Range<Int>, isString: Bool)?]

    init(keys: [String]) {
        self.keys = keys.map { Array($0.utf8) }
        ranges = Array(repeating: nil, count: keys.count)
    }

    /// Scans `line`; returns a reason when it is not one JSON object.
    mutating func scan(_ b: UnsafeBufferPointer<UInt8>) -> String? {
        for i in ranges.indices { ranges[i] = nil }
        var i = 0
        func skipSpace() { while i < b.count, b[i] == 32 || b[i] == 9 || b[i] == 10 || b[i] == 13 { i += 1 } }
        /// Index after the string starting at `i` (a quote), or nil.
        func stringEnd(_ start: Int) -> Int? {
            var j = start + 1
            while j < b.count {
                if b[j] == 92 { j += 2; continue }
                if b[j] == 34 { return j + 1 }
                j += 1
            }
            return nil
        }
        skipSpace()
        guard i < b.count, b[i] == 123 else { return "expected a JSON object" }
        i += 1
        skipSpace()
        if i < b.count, b[i] == 125 { return nil }
        while true {
            skipSpace()
            guard i < b.count, b[i] == 34, let keyEnd = stringEnd(i) else { return "expected a member name at byte \(i + 1)" }
            let key = (i + 1)..<(keyEnd - 1)
            i = keyEnd
            skipSpace()
            guard i < b.count, b[i] == 58 else { return "expected ':' at byte \(i + 1)" }
            i += 1
            skipSpace()
            guard i < b.count else { return "the object is cut off" }
            let valueStart = i
            var isString = false
            var valueRange: Range<Int>
            if b[i] == 34 {
                guard let end = stringEnd(i) else { return "unterminated string at byte \(i + 1)" }
                isString = true
                valueRange = (i + 1)..<(end - 1)
                i = end
            } else if b[i] == 123 || b[i] == 91 {
                var depth = 0
                while i < b.count {
                    if b[i] == 34 { guard let end = stringEnd(i) else { return "unterminated string" }; i = end; continue }
                    if b[i] == 123 || b[i] == 91 { depth += 1 }
                    if b[i] == 125 || b[i] == 93 { depth -= 1; if depth == 0 { i += 1; break } }
                    i += 1
                }
                guard depth == 0 else { return "the object is cut off" }
                valueRange = valueStart..<i
            } else {
                while i < b.count, b[i] != 44, b[i] != 125, b[i] != 32, b[i] != 9 { i += 1 }
                valueRange = valueStart..<i
                guard !valueRange.isEmpty else { return "expected a value at byte \(valueStart + 1)" }
            }
            for (k, wanted) in keys.enumerated() where wanted.count == key.count {
                if zip(wanted, b[key]).allSatisfy({ $0 == $1 }) { ranges[k] = (valueRange, isString); break }
            }
            skipSpace()
            guard i < b.count else { return "the object is cut off" }
            if b[i] == 44 { i += 1; continue }
            if b[i] == 125 { i += 1; break }
            return "expected ',' or '}' at byte \(i + 1)"
        }
        skipSpace()
        return i == b.count ? nil : "unexpected bytes after the object at byte \(i + 1)"
    }
}
