/// The `Cache-Control` response directives that matter to a private preload store (RFC 9111,
/// RFC 5861).
///
/// Parsing never fails: unknown directives and malformed values are ignored, as RFC 9111 asks of
/// caches. `s-maxage`, `public`, `proxy-revalidate` are for shared caches and ignored here.
public struct CacheControl: Sendable, Equatable {
    /// `max-age` in seconds (the smallest when repeated), clamped to `deltaSecondsMax`.
    public var maxAgeSeconds: Int64?
    /// `stale-while-revalidate` in seconds (the smallest when repeated), clamped to `deltaSecondsMax`.
    public var staleWhileRevalidateSeconds: Int64?
    /// `stale-if-error` in seconds (RFC 5861 §4; the smallest when repeated), clamped to
    /// `deltaSecondsMax`: past freshness, a stored copy within this may be used when its
    /// revalidation or refetch fails.
    public var staleIfErrorSeconds: Int64?
    /// `no-store`: the response must not be stored at all.
    public var noStore: Bool
    /// `no-cache`: a stored response must not be used fresh without revalidation.
    public var noCache: Bool

    /// RFC 9111 §1.2.2: delta-seconds larger than 2^31 are treated as 2^31.
    public static let deltaSecondsMax: Int64 = 2_147_483_648

    /// Header values longer than this are ignored (treated as absent) rather than scanned.
    public static let headerBytesMax = 1_024

    public init(maxAgeSeconds: Int64? = nil, staleWhileRevalidateSeconds: Int64? = nil, noStore: Bool = false, noCache: Bool = false,
                staleIfErrorSeconds: Int64? = nil) {
        self.maxAgeSeconds = maxAgeSeconds
        self.staleWhileRevalidateSeconds = staleWhileRevalidateSeconds
        self.staleIfErrorSeconds = staleIfErrorSeconds
        self.noStore = noStore
        self.noCache = noCache
    }

    /// Parses a `Cache-Control` header value (several header lines may be joined with commas).
    ///
    /// Directive names are case-insensitive; whitespace around names, `=` and values is skipped;
    /// values may be quoted (`max-age="60"`); a value that is not all digits makes that directive
    /// ignored (`max-age=-1`, `max-age=1.5`, `max-age=`); `no-cache="Set-Cookie"` (field-name
    /// form) counts as `no-cache`. Values beyond 2^31 clamp to 2^31 without overflowing.
    /// - Complexity: O(n) in the header length (at most `headerBytesMax`); no allocation for
    ///   native strings (it runs once per completed fetch).
    public static func parse(_ header: String) -> CacheControl {
        var copy = header
        return copy.withUTF8 { parse(utf8: $0) }
    }

    /// `parse(_:)` over the header's UTF-8 bytes.
    public static func parse(utf8 bytes: UnsafeBufferPointer<UInt8>) -> CacheControl {
        var result = CacheControl()
        let n = bytes.count > headerBytesMax ? 0 : bytes.count
        var i = 0
        while i < n {
            // Skip separators and whitespace.
            while i < n, bytes[i] == UInt8(ascii: ",") || isSpace(bytes[i]) { i += 1 }
            // Directive name.
            let nameStart = i
            while i < n, bytes[i] != UInt8(ascii: "="), bytes[i] != UInt8(ascii: ","), !isSpace(bytes[i]) { i += 1 }
            let nameEnd = i
            while i < n, isSpace(bytes[i]) { i += 1 }
            var valueStart = -1
            var valueEnd = -1
            var wellFormed = true
            if i < n, bytes[i] == UInt8(ascii: "=") {
                i += 1
                while i < n, isSpace(bytes[i]) { i += 1 }
                if i < n, bytes[i] == UInt8(ascii: "\"") {
                    i += 1
                    let start = i
                    while i < n, bytes[i] != UInt8(ascii: "\"") {
                        if bytes[i] == UInt8(ascii: "\\") { i += 1 }
                        i += 1
                    }
                    if i >= n { wellFormed = false; i = n } else { valueStart = start; valueEnd = i; i += 1 }
                } else {
                    valueStart = i
                    while i < n, bytes[i] != UInt8(ascii: ","), !isSpace(bytes[i]) { i += 1 }
                    valueEnd = i
                }
                // Anything other than whitespace before the next comma makes the directive malformed.
                while i < n, isSpace(bytes[i]) { i += 1 }
                if i < n, bytes[i] != UInt8(ascii: ",") {
                    wellFormed = false
                    while i < n, bytes[i] != UInt8(ascii: ",") { i += 1 }
                }
            } else if i < n, bytes[i] != UInt8(ascii: ",") {
                // Junk after a bare name ("no-store x"): skip to the next directive.
                wellFormed = false
                while i < n, bytes[i] != UInt8(ascii: ",") { i += 1 }
            }
            guard wellFormed else { continue }
            let hasValue = valueStart >= 0
            if nameIs(bytes, nameStart, nameEnd, "max-age") {
                if hasValue, let seconds = deltaSeconds(bytes, valueStart, valueEnd) {
                    result.maxAgeSeconds = min(result.maxAgeSeconds ?? .max, seconds)
                }
            } else if nameIs(bytes, nameStart, nameEnd, "stale-while-revalidate") {
                if hasValue, let seconds = deltaSeconds(bytes, valueStart, valueEnd) {
                    result.staleWhileRevalidateSeconds = min(result.staleWhileRevalidateSeconds ?? .max, seconds)
                }
            } else if nameIs(bytes, nameStart, nameEnd, "stale-if-error") {
                if hasValue, let seconds = deltaSeconds(bytes, valueStart, valueEnd) {
                    result.staleIfErrorSeconds = min(result.staleIfErrorSeconds ?? .max, seconds)
                }
            } else if nameIs(bytes, nameStart, nameEnd, "no-store") {
                if !hasValue { result.noStore = true }
            } else if nameIs(bytes, nameStart, nameEnd, "no-cache") {
                result.noCache = true
            }
        }
        return result
    }

    static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }

    /// ASCII case-insensitive comparison of `bytes[start..<end]` with a lowercase name.
    static func nameIs(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, _ name: StaticString) -> Bool {
        guard end - start == name.utf8CodeUnitCount else { return false }
        let expected = name.utf8Start
        for k in 0..<(end - start) {
            let b = bytes[start + k]
            let lower = b >= 0x41 && b <= 0x5A ? b + 0x20 : b
            if lower != expected[k] { return false }
        }
        return true
    }

    /// Non-empty ASCII digits, clamped to `deltaSecondsMax`; nil otherwise.
    static func deltaSeconds(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Int64? {
        guard end > start else { return nil }
        var value: Int64 = 0
        for k in start..<end {
            let b = bytes[k]
            guard b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") else { return nil }
            if value < deltaSecondsMax { value = value * 10 + Int64(b - UInt8(ascii: "0")) }
        }
        return min(value, deltaSecondsMax)
    }
}
