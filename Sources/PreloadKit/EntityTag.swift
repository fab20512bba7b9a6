/// A response's validator (`ETag`, RFC 9110 §8.8.3), kept with a store entry so that a stale
/// entry is revalidated with `If-None-Match` and a 304 Not Modified refreshes it without a body.
///
/// PreloadKit keeps a 64-bit fingerprint, not the text: a store entry stays a fixed-size value.
/// The driver that sends the conditional request writes the tag's text, which it keeps with the
/// stored file (the real driver's file index); a driver whose tags are small numbers (a
/// version) may use them as the fingerprint directly.
public struct EntityTag: Hashable, Sendable {
    /// Never 0 (a store entry uses 0 for "no validator").
    public let fingerprint: UInt64

    /// A tag from a driver's own nonzero number (0 becomes 1).
    public init(fingerprint: UInt64) { self.fingerprint = max(1, fingerprint) }

    /// The fingerprint of an `ETag` header value, as received (quotes and a weak `W/` prefix
    /// included: two values match when their bytes do): FNV-1a over its UTF-8 bytes.
    public init(_ headerValue: String) {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in headerValue.utf8 {
            h ^= UInt64(b)
            h &*= 0x0000_0100_0000_01B3
        }
        fingerprint = max(1, h)
    }
}
