// Shared by every fuzz target: the input read as a stream of decisions, and the check that turns a
// broken invariant into a crash libFuzzer reports (with the input that caused it).

/// The fuzz input, consumed front to back. Reads past the end give zeros, so every input is a
/// complete script (libFuzzer's mutations then shorten and lengthen it freely).
struct FuzzBytes {
    let bytes: [UInt8]
    var offset = 0

    init(_ data: UnsafePointer<UInt8>, _ size: Int) {
        bytes = Array(UnsafeBufferPointer(start: data, count: size))
    }

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isExhausted: Bool { offset >= bytes.count }

    mutating func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// 0..<n (n > 0), from one byte (or two when n > 256).
    mutating func below(_ n: Int) -> Int {
        n <= 256 ? Int(byte()) % n : (Int(byte()) << 8 | Int(byte())) % n
    }

    mutating func bool() -> Bool { byte() & 1 == 1 }

    mutating func uint16() -> UInt16 { UInt16(byte()) << 8 | UInt16(byte()) }
    mutating func uint32() -> UInt32 { UInt32(uint16()) << 16 | UInt32(uint16()) }
    mutating func uint64() -> UInt64 { UInt64(uint32()) << 32 | UInt64(uint32()) }

    /// `count` bytes (fewer at the end of the input).
    mutating func take(_ count: Int) -> [UInt8] {
        let end = min(bytes.count, offset + max(0, count))
        defer { offset = max(offset, end) }
        return offset < end ? Array(bytes[offset..<end]) : []
    }

    /// A length-prefixed byte string of at most `max` bytes.
    mutating func chunk(max: Int) -> [UInt8] { take(below(max + 1)) }

    /// Everything not yet read.
    mutating func rest() -> [UInt8] { take(bytes.count - offset) }
}

/// Crashes (so libFuzzer saves the input) when an invariant does not hold. `fatalError` prints its
/// message in optimised builds too, unlike `precondition`.
@inline(__always)
func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
             file: StaticString = #fileID, line: UInt = #line) {
    if !condition() { fatalError("fuzz invariant broken: \(message())", file: file, line: line) }
}

/// Splits `bytes` at the first line that is exactly `separator` (a seed file's sections).
func sections(_ bytes: [UInt8], separator: String) -> [[UInt8]] {
    let sep = Array(("\n" + separator + "\n").utf8)
    var out: [[UInt8]] = []
    var start = 0, i = 0
    while i + sep.count <= bytes.count {
        if bytes[i] == sep[0], Array(bytes[i..<(i + sep.count)]) == sep {
            out.append(Array(bytes[start..<i])); i += sep.count; start = i
        } else { i += 1 }
    }
    out.append(Array(bytes[start...]))
    return out
}
