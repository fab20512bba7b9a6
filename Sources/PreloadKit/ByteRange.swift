/// A sub-range of a resource: `length` bytes from `offset` (RFC 8216 §4.3.2.2 `<n>@<o>`), the
/// form an HLS playlist addresses a segment or initialization section inside one larger file.
///
/// A pre-stage fetches it with `Range: bytes=<offset>-<lastByte>` (RFC 9110 §14.1.2), expects
/// `206 Partial Content` with the matching `Content-Range` (`ContentRange`), and stores it under
/// `StoreKey(cacheKey:range:)`: each sub-range its own entry, so an app's player asking for that
/// range of that URL is served exactly those bytes.
public struct ByteRange: Hashable, Sendable, CustomStringConvertible {
    /// First byte, from 0.
    public let offset: Int64
    /// Bytes, at least 1.
    public let length: Int64

    /// The largest offset or length accepted: 2^50 bytes (a petabyte; no media file comes near,
    /// and `offset + length` then never overflows).
    public static let bytesMax: Int64 = 1 << 50

    /// A range of `length` bytes from `offset`; nil unless `0 <= offset <= bytesMax` and
    /// `1 <= length <= bytesMax`.
    public init?(offset: Int64, length: Int64) {
        guard offset >= 0, offset <= Self.bytesMax, length >= 1, length <= Self.bytesMax else { return nil }
        self.offset = offset
        self.length = length
    }

    /// The last byte's position (inclusive), as a `Range` header names it.
    public var lastByte: Int64 { offset + length - 1 }

    /// One past the last byte: where a following sub-range without an offset starts.
    public var end: Int64 { offset + length }

    /// Whether the two ranges share a byte.
    public func overlaps(_ other: ByteRange) -> Bool { offset < other.end && other.offset < end }

    /// The `Range` request header's value: `bytes=<offset>-<lastByte>`.
    public var headerValue: String { "bytes=\(offset)-\(lastByte)" }

    /// `<length>@<offset>`, as a playlist writes it.
    public var description: String { "\(length)@\(offset)" }
}

/// A `Content-Range` response header (RFC 9110 §14.4): `bytes <first>-<last>/<complete>` (the
/// complete length may be `*`, unknown).
public struct ContentRange: Hashable, Sendable {
    public let first: Int64
    public let last: Int64
    /// The whole resource's length; nil when the server sent `*`.
    public let completeLength: Int64?

    public init(first: Int64, last: Int64, completeLength: Int64?) {
        self.first = first
        self.last = last
        self.completeLength = completeLength
    }

    /// The range it names (nil when `last < first`).
    public var range: ByteRange? { ByteRange(offset: first, length: last - first + 1) }

    /// Parses `bytes <first>-<last>/<complete or *>` (the unit case-insensitive, spaces around the
    /// value trimmed; decimal numbers of at most 18 digits); nil for anything else, including
    /// `last < first`, `last >= complete` and the unsatisfied form `bytes */<complete>`.
    /// - Complexity: O(n) in the header's bytes; no allocation.
    public static func parse(_ text: String) -> ContentRange? {
        var bytes = Substring(text).utf8[...]
        while bytes.first == 0x20 || bytes.first == 0x09 { bytes = bytes.dropFirst() }
        while bytes.last == 0x20 || bytes.last == 0x09 { bytes = bytes.dropLast() }
        let unit: [UInt8] = Array("bytes ".utf8)
        guard bytes.count > unit.count else { return nil }
        for (i, u) in unit.enumerated() {
            let b = bytes[bytes.index(bytes.startIndex, offsetBy: i)]
            if (b >= 0x41 && b <= 0x5A ? b + 0x20 : b) != u { return nil }
        }
        var rest = bytes.dropFirst(unit.count)
        func number(until stop: UInt8?) -> Int64? {
            var value: Int64 = 0
            var digits = 0
            while let b = rest.first, b != stop {
                guard b >= 0x30 && b <= 0x39, digits < 18 else { return nil }
                value = value * 10 + Int64(b - 0x30)
                digits += 1
                rest = rest.dropFirst()
            }
            return digits > 0 ? value : nil
        }
        guard let first = number(until: 0x2D), rest.first == 0x2D else { return nil }  // "-"
        rest = rest.dropFirst()
        guard let last = number(until: 0x2F), rest.first == 0x2F else { return nil }  // "/"
        rest = rest.dropFirst()
        var complete: Int64?
        if rest.count == 1 && rest.first == 0x2A {  // "*"
            complete = nil
        } else {
            guard let c = number(until: nil), rest.isEmpty else { return nil }
            complete = c
        }
        guard last >= first, complete.map({ last < $0 }) ?? true else { return nil }
        return ContentRange(first: first, last: last, completeLength: complete)
    }
}

extension StoreKey {
    /// The preload-store key of sub-range `range` of the asset whose `AssetURL.cacheKey` is
    /// `cacheKey`: the hash of `cacheKey#bytes=<offset>-<lastByte>`. An accepted asset URL never
    /// holds a `#` (fragments are refused), so no URL's whole-object key equals a range's, and two
    /// ranges of one URL have two keys.
    public init(cacheKey: String, range: ByteRange) {
        self.init(cacheKey: cacheKey + "#" + range.headerValue)
    }
}

extension AssetURL {
    /// The preload-store key of sub-range `range` of this asset (`StoreKey(cacheKey:range:)`); an
    /// app's player asking for those bytes of this URL looks them up under it.
    public func storeKey(range: ByteRange?) -> StoreKey {
        guard let range else { return storeKey }
        return StoreKey(cacheKey: cacheKey, range: range)
    }
}
