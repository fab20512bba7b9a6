/// Allocation-free parsing of numbers and small tokens from a line's bytes.
enum FieldParsing {
    /// Exact powers of ten (10^0 … 10^22 are exact doubles).
    static let powersOfTen: [Double] = (0...22).map { k in (0..<k).reduce(1.0) { a, _ in a * 10 } }

    /// A decimal number (`-12.5`, `3e-2`, `0.004`); nil when the bytes are not one. Correctly rounded
    /// on the fast path (≤ 19 significant digits, |exponent| ≤ 22); otherwise through `Double(String)`.
    static func double(_ b: UnsafeBufferPointer<UInt8>) -> Double? {
        var i = 0
        let n = b.count
        guard n > 0 else { return nil }
        var negative = false
        if b[0] == 45 || b[0] == 43 { negative = b[0] == 45; i = 1 }
        var mantissa: UInt64 = 0, digits = 0, exponent = 0, sawDigit = false
        while i < n, b[i] >= 48, b[i] <= 57 {
            sawDigit = true
            if digits < 19 { mantissa = mantissa * 10 + UInt64(b[i] - 48); if mantissa > 0 { digits += 1 } } else { exponent += 1 }
            i += 1
        }
        if i < n, b[i] == 46 {
            i += 1
            while i < n, b[i] >= 48, b[i] <= 57 {
                sawDigit = true
                if digits < 19 { mantissa = mantissa * 10 + UInt64(b[i] - 48); exponent -= 1; if mantissa > 0 { digits += 1 } }
                i += 1
            }
        }
        guard sawDigit else { return nil }
        if i < n, b[i] == 101 || b[i] == 69 {
            i += 1
            var expNegative = false
            if i < n, b[i] == 45 || b[i] == 43 { expNegative = b[i] == 45; i += 1 }
            var e = 0, sawExp = false
            while i < n, b[i] >= 48, b[i] <= 57 { e = min(e * 10 + Int(b[i] - 48), 100_000); sawExp = true; i += 1 }
            guard sawExp else { return nil }
            exponent += expNegative ? -e : e
        }
        guard i == n else { return nil }
        var value: Double
        if mantissa < (1 << 53), abs(exponent) <= 22 {
            value = exponent >= 0 ? Double(mantissa) * powersOfTen[exponent] : Double(mantissa) / powersOfTen[-exponent]
        } else {
            guard let v = Double(String(decoding: b, as: UTF8.self)) else { return nil }
            return v
        }
        if negative { value = -value }
        return value
    }

    /// A non-negative decimal integer; nil otherwise.
    static func integer(_ b: UnsafeBufferPointer<UInt8>) -> Int? {
        guard !b.isEmpty, b.count <= 18 else { return nil }
        var v = 0
        for c in b {
            guard c >= 48, c <= 57 else { return nil }
            v = v * 10 + Int(c - 48)
        }
        return v
    }

    /// ASCII case-insensitive equality with a lowercase literal.
    static func equalsLowercase(_ b: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        guard b.count == literal.utf8CodeUnitCount else { return false }
        let l = literal.utf8Start
        for i in 0..<b.count where (b[i] | 0x20) != l[i] && b[i] != l[i] { return false }
        return true
    }

    /// The bytes as a String (for short tokens: PoP codes, platforms).
    static func string(_ b: UnsafeBufferPointer<UInt8>) -> String { String(decoding: b, as: UTF8.self) }

    /// Splits `line` at `separator` into `ranges` (reused; no allocation once grown).
    static func split(_ line: UnsafeBufferPointer<UInt8>, separator: UInt8, into ranges: inout [Range<Int>]) {
        ranges.removeAll(keepingCapacity: true)
        var start = 0
        for i in 0..<line.count where line[i] == separator {
            ranges.append(start..<i)
            start = i + 1
        }
        ranges.append(start..<line.count)
    }
}

extension UnsafeBufferPointer where Element == UInt8 {
    /// The sub-buffer `range`.
    func slice(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: self[range]) }

    /// Without leading and trailing spaces and tabs.
    func trimmed() -> UnsafeBufferPointer<UInt8> {
        var lo = 0, hi = count
        while lo < hi, self[lo] == 32 || self[lo] == 9 { lo += 1 }
        while hi > lo, self[hi - 1] == 32 || self[hi - 1] == 9 { hi -= 1 }
        return slice(lo..<hi)
    }
}
