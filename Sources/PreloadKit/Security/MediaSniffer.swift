/// The asset types PreloadKit pre-stages.
public enum MediaKind: String, Sendable, Codable, CaseIterable {
    case jpeg, png, gif, webp, heic, mp4, mp3, m4a, json, m3u8
    /// An MPEG-2 transport stream: the classic HLS media segment (RFC 8216 §3.2).
    case ts

    /// Lowercase MIME types that announce this kind (matched case-insensitively, parameters ignored).
    /// Allocates an array per call; matching uses `MediaSniffer.mimeType(_:matches:)`, which does not.
    public var mimeTypes: [String] {
        let (first, alias) = mimeTypeNames
        guard let alias else { return [first.description] }
        return [first.description, alias.description]
    }

    /// The lowercase MIME types of this kind as static text (no allocation): the main one and an
    /// alias, if any. The single table behind `mimeTypes` and `MediaSniffer.mimeType(_:matches:)`.
    var mimeTypeNames: (StaticString, StaticString?) {
        switch self {
        case .jpeg: return ("image/jpeg", nil)
        case .png: return ("image/png", nil)
        case .gif: return ("image/gif", nil)
        case .webp: return ("image/webp", nil)
        case .heic: return ("image/heic", "image/heif")
        case .mp4: return ("video/mp4", nil)
        case .mp3: return ("audio/mpeg", nil)
        case .m4a: return ("audio/mp4", "audio/x-m4a")
        case .json: return ("application/json", nil)
        case .m3u8: return ("application/vnd.apple.mpegurl", "application/x-mpegurl")
        case .ts: return ("video/mp2t", nil)
        }
    }
}

/// Identifies an asset from its first bytes and checks a `Content-Type` against the expected kind.
public enum MediaSniffer {
    /// Bytes of prefix `sniff` needs to recognise every binary kind (ISO BMFF `ftyp` brand ends at 12).
    /// JSON may need more when it starts with whitespace.
    public static let prefixByteCountNeeded = 12
    /// Most leading whitespace bytes skipped when looking for JSON's `{` or `[`.
    public static let jsonLeadingWhitespaceMax = 1024

    /// The kind whose magic bytes start `prefix`, or nil if none matches or the prefix is too short
    /// to decide.
    ///
    /// Signatures: JPEG `FF D8 FF`; PNG `89 50 4E 47 0D 0A 1A 0A`; GIF `GIF87a`/`GIF89a`; WebP
    /// `RIFF????WEBP`; ISO BMFF `????ftyp` + major brand (`heic`/`heix`/`mif1` HEIC, `isom`/`iso2`/
    /// `mp41`/`mp42`/`avc1`/`M4V ` MP4, `M4A ` M4A); fragmented MP4 segments `????styp` or
    /// `????moof` MP4; MPEG-2 TS sync byte `47` with the transport-error bit clear (at least 4 bytes, not
    /// `GIF`, and `47` again at byte 188 when the prefix is that long); MP3 `ID3` or an MPEG audio Layer III frame header
    /// (11 sync bits, valid version, bitrate and sample-rate fields); M3U8 `#EXTM3U`; JSON first
    /// non-whitespace byte `{` or `[`. A UTF-8 byte-order mark before M3U8 or JSON is skipped.
    /// - Complexity: O(1) for binary kinds, O(min(n, jsonLeadingWhitespaceMax)) for JSON; no allocation.
    public static func sniff<C: Collection>(_ prefix: C) -> MediaKind? where C.Element == UInt8 {
        let head = Head(prefix)
        guard head.count > 0 else { return nil }
        // Dispatch on the first byte: each signature below starts with a different one, so at
        // most one is tested. The order of the original chain is kept: the offset-0 signatures
        // before ISO BMFF (whose `ftyp` sits at offset 4, after any first byte), then the rest.
        let first = head[0]
        switch first {
        case 0xFF: if head.matches(at: 0, 0xFFD8FF, byteCount: 3) { return .jpeg }
        case 0x89: if head.matches(at: 0, 0x8950_4E47_0D0A_1A0A, byteCount: 8) { return .png }
        case 0x47:  // GIF87a, GIF89a
            if head.matches(at: 0, 0x4749_4638_3761, byteCount: 6) || head.matches(at: 0, 0x4749_4638_3961, byteCount: 6) {
                return .gif
            }
        case 0x52:  // RIFF, WEBP
            if head.matches(at: 0, 0x5249_4646, byteCount: 4), head.matches(at: 8, 0x5745_4250, byteCount: 4) { return .webp }
        default: break
        }
        if head.count >= 12, head.matches(at: 4, 0x6674_7970, byteCount: 4) {  // "ftyp"
            return isoBrandKind(head.word(at: 8))
        }
        // Fragmented MP4 media segments (HLS fMP4, RFC 8216 §3.3) start with a "styp" or "moof" box.
        if head.count >= 8, head.matches(at: 4, 0x7374_7970, byteCount: 4) || head.matches(at: 4, 0x6D6F_6F66, byteCount: 4) {
            return .mp4
        }
        // MPEG-2 TS: sync byte 0x47, a clear transport-error bit, and 0x47 again at the second
        // packet (byte 188) when the prefix reaches it; "GIF" (the other 0x47 signature) is not TS.
        if first == 0x47, head.count >= 4, head[1] & 0x80 == 0, !head.matches(at: 0, 0x474946, byteCount: 3) {
            if let second = prefix.dropFirst(188).first, second != 0x47 { return nil }
            return .ts
        }
        switch first {
        case 0x49: return head.matches(at: 0, 0x494433, byteCount: 3) ? .mp3 : nil  // "ID3"
        case 0xFF: return head.count >= 3 && isMPEGAudioLayer3Header(head[0], head[1], head[2]) ? .mp3 : nil
        case 0xEF:  // text kinds after a UTF-8 BOM
            guard head.matches(at: 0, 0xEFBBBF, byteCount: 3) else { return nil }
            if head.matches(at: 3, 0x2345_5854_4D33_55, byteCount: 7) { return .m3u8 }  // "#EXTM3U"
            return jsonAfterWhitespace(prefix.dropFirst(3))
        case 0x23: return head.matches(at: 0, 0x2345_5854_4D33_55, byteCount: 7) ? .m3u8 : nil  // "#EXTM3U"
        case 0x7B, 0x5B: return .json
        case 0x20, 0x09, 0x0A, 0x0D: return jsonAfterWhitespace(prefix)
        default: return nil
        }
    }

    /// `.json` when the first byte after at most `jsonLeadingWhitespaceMax` spaces, tabs, CRs and
    /// LFs is `{` or `[`; nil otherwise.
    private static func jsonAfterWhitespace<S: Sequence>(_ bytes: S) -> MediaKind? where S.Element == UInt8 {
        var skipped = 0
        for byte in bytes {
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0D:
                skipped += 1
                if skipped > jsonLeadingWhitespaceMax { return nil }
            case 0x7B, 0x5B: return .json
            default: return nil
            }
        }
        return nil
    }

    /// True when `contentType` (e.g. `"Image/JPEG; charset=binary"`) names one of `kind.mimeTypes`.
    /// Parameters after `;` and surrounding spaces/tabs are ignored; the comparison is ASCII
    /// case-insensitive. Runs per fetch completion, so it compares against static text.
    /// - Complexity: O(n) in the header's length; no allocation for native Swift strings (a
    ///   bridged, non-contiguous string is copied once).
    public static func mimeType(_ contentType: String, matches kind: MediaKind) -> Bool {
        // A pointer loop over the contiguous UTF-8 bytes: String.UTF8View indexing took about
        // twice as many instructions per completed fetch (callgrind, see docs/performance.md).
        if let result = contentType.utf8.withContiguousStorageIfAvailable({ essence($0, matches: kind) }) {
            return result
        }
        var copy = contentType
        copy.makeContiguousUTF8()
        return copy.utf8.withContiguousStorageIfAvailable { essence($0, matches: kind) } ?? false
    }

    /// Whether the media type in `header` (up to `;`, without surrounding spaces/tabs) names one
    /// of `kind.mimeTypes`, ignoring ASCII case.
    private static func essence(_ header: UnsafeBufferPointer<UInt8>, matches kind: MediaKind) -> Bool {
        let (first, alias) = kind.mimeTypeNames
        // The common header is the bare main type: no `;`, space or tab can be in it then.
        if equalsIgnoringASCIICase(header, first) { return true }
        var end = header.firstIndex(of: ASCII.semicolon) ?? header.count
        var start = 0
        while start < end && (header[start] == ASCII.space || header[start] == ASCII.tab) { start += 1 }
        while end > start && (header[end - 1] == ASCII.space || header[end - 1] == ASCII.tab) { end -= 1 }
        let essence = UnsafeBufferPointer(rebasing: header[start..<end])
        if essence.count != header.count && equalsIgnoringASCIICase(essence, first) { return true }
        if let alias, equalsIgnoringASCIICase(essence, alias) { return true }
        return false
    }

    /// True when `bytes` equal the lowercase ASCII text `expected`, ignoring ASCII case.
    /// Eight bytes per step: `lowercasedWord` folds A-Z of a whole word at once.
    @inline(__always)
    private static func equalsIgnoringASCIICase(_ bytes: UnsafeBufferPointer<UInt8>, _ expected: StaticString) -> Bool {
        let count = expected.utf8CodeUnitCount
        guard bytes.count == count, let base = bytes.baseAddress else { return count == 0 && bytes.count == 0 }
        let actual = UnsafeRawPointer(base), wanted = UnsafeRawPointer(expected.utf8Start)
        var i = 0
        while i + 8 <= count {
            let word = actual.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            if lowercasedWord(word) != wanted.loadUnaligned(fromByteOffset: i, as: UInt64.self) { return false }
            i += 8
        }
        while i < count {
            if ASCII.lowercased(base[i]) != expected.utf8Start[i] { return false }
            i += 1
        }
        return true
    }

    /// `word` with every byte in A-Z (0x41-0x5A) turned to lowercase; other bytes, including
    /// non-ASCII ones, unchanged. Per byte b < 0x80, b + 0x3F sets the top bit iff b >= 0x41 and
    /// b + 0x25 iff b >= 0x5B (no carry leaves a byte); bytes >= 0x80 are masked out.
    @inline(__always)
    static func lowercasedWord(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let low7 = word & (0x7F &* ones)
        let upper = (low7 &+ 0x3F &* ones) & ~(low7 &+ 0x25 &* ones) & ~word & (0x80 &* ones)
        return word | (upper >> 2)
    }

    /// The kind of an ISO BMFF major brand (four ASCII bytes, big-endian). The brands are integer
    /// literals so that the switch compiles to compares; `MediaSnifferTests` checks each against
    /// its text.
    static func isoBrandKind(_ brand: UInt32) -> MediaKind? {
        switch brand {
        case 0x6865_6963, 0x6865_6978, 0x6D69_6631: return .heic  // "heic", "heix", "mif1"
        case 0x6973_6F6D, 0x6973_6F32, 0x6D70_3431, 0x6D70_3432, 0x6176_6331, 0x4D34_5620: return .mp4  // "isom", "iso2", "mp41", "mp42", "avc1", "M4V "
        case 0x4D34_4120: return .m4a  // "M4A "
        default: return nil
        }
    }

    /// MPEG audio frame header, Layer III: 11 sync bits, version not reserved (`01`), layer bits `01`,
    /// bitrate index not `1111` (bad), sample-rate index not `11` (reserved). Rejecting the other
    /// layers keeps AAC ADTS (`FF F1`/`FF F9`, layer `00`) from being taken for MP3.
    private static func isMPEGAudioLayer3Header(_ b0: UInt8, _ b1: UInt8, _ b2: UInt8) -> Bool {
        guard b0 == 0xFF, b1 & 0xE0 == 0xE0 else { return false }
        let version = (b1 >> 3) & 0x03
        let layer = (b1 >> 1) & 0x03
        let bitrateIndex = b2 >> 4
        let sampleRateIndex = (b2 >> 2) & 0x03
        return version != 0x01 && layer == 0x01 && bitrateIndex != 0x0F && sampleRateIndex != 0x03
    }

    /// Up to the first 16 bytes of a prefix, held without allocating: bytes 0-7 and 8-15 as two
    /// big-endian words, so a signature test is a shift, a mask and one compare. Its members are
    /// inlined: `sniff` runs per completed fetch and a dozen calls cost more than the tests.
    private struct Head {
        /// Bytes 0-7 (byte 0 in the top bits), zero-padded past `count`.
        private var high: UInt64 = 0
        /// Bytes 8-15, likewise.
        private var low: UInt64 = 0
        private(set) var count = 0

        @inline(__always)
        init<C: Collection>(_ prefix: C) where C.Element == UInt8 {
            // Arrays (the common case) are read through a pointer; other collections by iteration.
            let loaded: Void? = prefix.withContiguousStorageIfAvailable { buffer in
                let n = Swift.min(buffer.count, 16)
                guard n >= 8, let base = buffer.baseAddress else {
                    for i in 0..<n { append(buffer[i]) }
                    return
                }
                // Unaligned big-endian loads instead of a shift per byte.
                let raw = UnsafeRawPointer(base)
                high = UInt64(bigEndian: raw.loadUnaligned(as: UInt64.self))
                if n == 16 {
                    low = UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
                } else {
                    for i in 8..<n { low |= UInt64(buffer[i]) << UInt64(56 - 8 * (i - 8)) }
                }
                count = n
            }
            if loaded == nil {
                for byte in prefix.prefix(16) { append(byte) }
            }
        }

        @inline(__always)
        private mutating func append(_ byte: UInt8) {
            if count < 8 {
                high |= UInt64(byte) << UInt64(56 - 8 * count)
            } else {
                low |= UInt64(byte) << UInt64(56 - 8 * (count - 8))
            }
            count += 1
        }

        @inline(__always)
        subscript(offset: Int) -> UInt8 {
            precondition(offset >= 0 && offset < count, "Head offset out of range")
            return UInt8(truncatingIfNeeded: window(at: offset) >> 56)
        }

        /// The 8 bytes from `offset` (0..<16) as a big-endian word, zero-padded past byte 15.
        @inline(__always)
        private func window(at offset: Int) -> UInt64 {
            if offset == 0 { return high }
            if offset < 8 { return high << UInt64(8 * offset) | low >> UInt64(64 - 8 * offset) }
            return low << UInt64(8 * (offset - 8))
        }

        /// True when the `byteCount` bytes at `offset` are `pattern` written big-endian
        /// (e.g. `0xFFD8FF`, 3 bytes); false when fewer bytes are present.
        @inline(__always)
        func matches(at offset: Int, _ pattern: UInt64, byteCount: Int) -> Bool {
            guard offset >= 0, byteCount >= 1, byteCount <= 8, offset + byteCount <= count else { return false }
            return window(at: offset) >> UInt64(64 - 8 * byteCount) == pattern
        }

        /// Big-endian 32-bit word at `offset` (caller checks `offset + 4 <= count`).
        @inline(__always)
        func word(at offset: Int) -> UInt32 {
            UInt32(truncatingIfNeeded: window(at: offset) >> 32)
        }
    }
}
