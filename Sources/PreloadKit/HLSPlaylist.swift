/// A small, bounded M3U8 reader (RFC 8216): what pre-staging an HLS asset needs, nothing more.
///
/// A master playlist yields its variants (`#EXT-X-STREAM-INF` `BANDWIDTH`, its `AUDIO` group and
/// the URI line that follows) and its audio renditions (`#EXT-X-MEDIA` `TYPE=AUDIO` with a `URI`:
/// `GROUP-ID`, `DEFAULT`); a media playlist yields its initialization section (`#EXT-X-MAP`
/// `URI`), if any, and its first segments (`#EXTINF` duration and the URI line that follows).
/// Every other tag is skipped (subtitle and video renditions, I-frame playlists, keys, program
/// dates).
/// Byte-range addressing is read (RFC 8216 §4.3.2.2 `#EXT-X-BYTERANGE:<n>[@<o>]`, §4.3.2.5
/// `#EXT-X-MAP` `BYTERANGE="<n>@<o>"`): a segment is then its URI and a `ByteRange`. An omitted
/// offset starts at the byte after the previous segment's sub-range, which must exist and be of
/// the same URI (else `byteRangeWithoutOffset`); the initialization section's range must state
/// its offset (no segment precedes it). Malformed or out-of-bound numbers (`badByteRange`) and
/// kept parts of one URI whose bytes overlap (`byteRangeOverlap`) are refused by name.
///
/// Bounded: the document is at most `HLSPolicy.playlistBytesMax` bytes, a line at most
/// `lineBytesMax`, at most `variantsMax` variants and as many audio renditions; reading a media
/// playlist stops after the segments asked for. The bytes are scanned in place; a `String` is made only for each URI kept.
public enum HLSPlaylist: Sendable, Equatable {
    /// A multivariant ("master") playlist: variants and audio renditions, each in document order.
    case master([HLSVariant], audio: [HLSRendition])
    /// A media playlist: its initialization section's URI (fMP4) and sub-range, if any, and its
    /// first segments.
    case media(initURI: String?, initRange: ByteRange? = nil, segments: [HLSSegment])

    /// The longest line accepted (a URI line is also bounded by the URL policy's length).
    public static let lineBytesMax = 4_096
    /// The largest `BANDWIDTH` accepted: 10 Gbit/s (nothing a phone streams comes near it; the
    /// bound keeps the byte arithmetic far from overflow).
    public static let bandwidthBitsPerSecondMax: Int64 = 10_000_000_000
    /// The longest `#EXTINF` duration accepted: one hour, in microseconds.
    public static let segmentDurationMicrosecondsMax: Int64 = 3_600_000_000

    /// Parses `bytes`; a media playlist is read up to its first `segmentsWanted` segments.
    /// - Throws: `HLSRejection` naming the first problem and its line (1-based).
    /// - Complexity: O(n) in the document's bytes; allocates one `String` per URI kept.
    public static func parse(_ bytes: [UInt8], segmentsWanted: Int, variantsMax: Int, playlistBytesMax: Int) throws(HLSRejection) -> HLSPlaylist {
        if bytes.count > playlistBytesMax { throw .tooLarge(bytes: bytes.count, maxBytes: playlistBytesMax) }
        var reader = LineReader(bytes)
        // The first line must be #EXTM3U (after an optional UTF-8 byte-order mark).
        if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF { reader.position = 3 }
        guard let first = try reader.next(), reader.has(first, prefix: tagEXTM3U), first.count == tagEXTM3U.count else {
            throw .notM3U8
        }
        var variants: [HLSVariant] = []
        var audio: [HLSRendition] = []
        var segments: [HLSSegment] = []
        var initURI: String?
        var initRange: ByteRange?
        /// `#EXT-X-BYTERANGE` for the next segment: its length and offset (nil: omitted), and its line.
        var pendingRange: (length: Int64, offset: Int64?, line: Int)?
        var sawMedia = false
        var pendingBandwidth: Int64?
        var pendingAudioGroup: String?
        var pendingDuration: Int64?
        while let line = try reader.next() {
            let n = reader.lineNumber
            if line.isEmpty { continue }
            if bytes[line.lowerBound] == 0x23 {  // "#": a tag or a comment
                if reader.has(line, prefix: tagStreamInf) {
                    if sawMedia { throw .mixedMasterAndMedia(line: n) }
                    if pendingBandwidth != nil { throw .missingURI(line: n) }
                    let attributes = line.lowerBound + tagStreamInf.count..<line.upperBound
                    guard let value = reader.attribute(named: attrBandwidth, in: attributes) else { throw .missingBandwidth(line: n) }
                    guard let bw = reader.decimal(value), bw > 0, bw <= bandwidthBitsPerSecondMax else { throw .badBandwidth(line: n) }
                    pendingBandwidth = bw
                    pendingAudioGroup = reader.attribute(named: attrAudio, in: attributes).flatMap(reader.quoted)
                } else if reader.has(line, prefix: tagMedia) {
                    if sawMedia { throw .mixedMasterAndMedia(line: n) }
                    let attributes = line.lowerBound + tagMedia.count..<line.upperBound
                    // Audio renditions with their own playlist; one without a URI is in the variants' streams.
                    guard let type = reader.attribute(named: attrType, in: attributes), reader.has(type, prefix: valueAudio),
                          type.count == valueAudio.count, let uriValue = reader.attribute(named: attrURI, in: attributes) else { continue }
                    guard let uri = reader.quoted(uriValue) else { throw .missingURI(line: n) }
                    guard let group = reader.attribute(named: attrGroupID, in: attributes).flatMap(reader.quoted) else { throw .missingGroupID(line: n) }
                    if audio.count == variantsMax { throw .tooManyRenditions(max: variantsMax) }
                    let isDefault = reader.attribute(named: attrDefault, in: attributes).map { reader.has($0, prefix: valueYes) && $0.count == valueYes.count } ?? false
                    audio.append(HLSRendition(groupID: group, uri: uri, isDefault: isDefault))
                } else if reader.has(line, prefix: tagEXTINF) {
                    if !variants.isEmpty || pendingBandwidth != nil || !audio.isEmpty { throw .mixedMasterAndMedia(line: n) }
                    if pendingDuration != nil { throw .missingURI(line: n) }
                    sawMedia = true
                    let rest = line.lowerBound + tagEXTINF.count..<line.upperBound
                    let end = reader.firstIndex(of: 0x2C, in: rest) ?? rest.upperBound  // ","
                    guard let d = reader.durationMicroseconds(rest.lowerBound..<end), d > 0, d <= segmentDurationMicrosecondsMax else {
                        throw .badDuration(line: n)
                    }
                    pendingDuration = d
                } else if reader.has(line, prefix: tagMap) {
                    if !variants.isEmpty || pendingBandwidth != nil || !audio.isEmpty { throw .mixedMasterAndMedia(line: n) }
                    sawMedia = true
                    let attributes = line.lowerBound + tagMap.count..<line.upperBound
                    guard let uri = reader.attribute(named: attrURI, in: attributes), uri.count >= 2,
                          bytes[uri.lowerBound] == 0x22, bytes[uri.upperBound - 1] == 0x22 else { throw .missingURI(line: n) }
                    var range: ByteRange?
                    if let value = reader.attribute(named: attrByteRange, in: attributes) {
                        guard value.count >= 2, bytes[value.lowerBound] == 0x22, bytes[value.upperBound - 1] == 0x22,
                              let parsed = reader.byteRange(value.lowerBound + 1..<value.upperBound - 1) else { throw .badByteRange(line: n) }
                        // No segment precedes an initialization section: its offset cannot be implied.
                        guard let offset = parsed.offset else { throw .byteRangeWithoutOffset(line: n) }
                        guard let r = ByteRange(offset: offset, length: parsed.length) else { throw .badByteRange(line: n) }
                        range = r
                    }
                    if initURI == nil && segments.isEmpty {
                        initURI = reader.string(uri.lowerBound + 1..<uri.upperBound - 1)
                        initRange = range
                    }
                } else if reader.has(line, prefix: tagByteRange) {
                    if !variants.isEmpty || pendingBandwidth != nil || !audio.isEmpty { throw .mixedMasterAndMedia(line: n) }
                    sawMedia = true
                    // A second one before the segment's URI line, or not `<n>[@<o>]`.
                    guard pendingRange == nil, let parsed = reader.byteRange(line.lowerBound + tagByteRange.count..<line.upperBound) else {
                        throw .badByteRange(line: n)
                    }
                    pendingRange = (parsed.length, parsed.offset, n)
                } else if reader.has(line, prefix: tagTargetDuration) || reader.has(line, prefix: tagMediaSequence) {
                    if !variants.isEmpty || pendingBandwidth != nil || !audio.isEmpty { throw .mixedMasterAndMedia(line: n) }
                    sawMedia = true
                }
                continue
            }
            // A URI line.
            if let bw = pendingBandwidth {
                if variants.count == variantsMax { throw .tooManyVariants(max: variantsMax) }
                variants.append(HLSVariant(bandwidthBitsPerSecond: bw, uri: reader.string(line), audioGroup: pendingAudioGroup))
                pendingBandwidth = nil
                pendingAudioGroup = nil
            } else if let d = pendingDuration {
                let uri = reader.string(line)
                var range: ByteRange?
                if let p = pendingRange {
                    range = try Self.segmentRange(p, uri: uri, previous: segments.last)
                    pendingRange = nil
                }
                // Parts kept of one resource must not share bytes (the same whole URI twice is one
                // part, selected once).
                if let i = initURI, i == uri, Self.overlap(initRange, range) { throw .byteRangeOverlap(line: n) }
                for s in segments where s.uri == uri && Self.overlap(s.range, range) { throw .byteRangeOverlap(line: n) }
                segments.append(HLSSegment(durationMicroseconds: d, uri: uri, range: range))
                pendingDuration = nil
                if segments.count >= segmentsWanted { break }
            } else {
                throw .uriWithoutTag(line: n)
            }
        }
        if pendingBandwidth != nil || pendingDuration != nil { throw .missingURI(line: reader.lineNumber) }
        if let p = pendingRange { throw .missingURI(line: p.line) }
        if !variants.isEmpty { return .master(variants, audio: audio) }
        if segments.isEmpty { throw sawMedia ? .noSegments : .noVariantsOrSegments }
        return .media(initURI: initURI, initRange: initRange, segments: segments)
    }

    /// The sub-range `#EXT-X-BYTERANGE` (`pending`) gives the segment at `uri`: an omitted offset
    /// is the byte after `previous`'s sub-range, which must be one and of the same URI (RFC 8216
    /// §4.3.2.2: "the client MUST fail to parse the Playlist" otherwise).
    static func segmentRange(_ pending: (length: Int64, offset: Int64?, line: Int), uri: String,
                             previous: HLSSegment?) throws(HLSRejection) -> ByteRange {
        let offset: Int64
        if let o = pending.offset {
            offset = o
        } else {
            guard let previous, previous.uri == uri, let before = previous.range else { throw .byteRangeWithoutOffset(line: pending.line) }
            offset = before.end
        }
        guard let range = ByteRange(offset: offset, length: pending.length) else { throw .badByteRange(line: pending.line) }
        return range
    }

    /// Whether two parts of one URI share bytes: two sub-ranges that overlap, or a sub-range and
    /// the whole resource; two whole-resource parts are the same part, not an overlap.
    static func overlap(_ a: ByteRange?, _ b: ByteRange?) -> Bool {
        switch (a, b) {
        case (nil, nil): return false
        case (let x?, let y?): return x.overlaps(y)
        default: return true
        }
    }

    /// The variant to pre-stage: the highest `BANDWIDTH` at most `usableBitsPerSecond`, the first
    /// in document order among equals; the lowest when none fits (playback starts at the lowest
    /// rung the network could sustain at all). Nil for an empty list.
    public static func chooseVariant(_ variants: [HLSVariant], usableBitsPerSecond: Int64) -> Int? {
        var best: Int?
        var lowest: Int?
        for i in variants.indices {
            let bw = variants[i].bandwidthBitsPerSecond
            if lowest == nil || bw < variants[lowest!].bandwidthBitsPerSecond { lowest = i }
            if bw <= usableBitsPerSecond && (best == nil || bw > variants[best!].bandwidthBitsPerSecond) { best = i }
        }
        return best ?? lowest
    }

    /// The audio rendition `variant` plays with: in its `AUDIO` group, the one marked `DEFAULT=YES`,
    /// else the group's first (RFC 8216 §4.3.4.2.1: a client chooses within the group); nil when
    /// the variant names no group or the group has no rendition with a playlist of its own (its
    /// audio is in the variant's segments).
    public static func audioRendition(for variant: HLSVariant, in audio: [HLSRendition]) -> Int? {
        guard let group = variant.audioGroup else { return nil }
        var first: Int?
        for i in audio.indices where audio[i].groupID == group {
            if audio[i].isDefault { return i }
            if first == nil { first = i }
        }
        return first
    }

    /// `uri` (from a playlist at `base`) as an absolute URL string (RFC 3986 §5.2 for the forms
    /// playlists use): an absolute URL as is; `//host/path` with the base's scheme; `/path` on
    /// the base's origin; anything else relative to the base's directory. The base's query is not
    /// inherited (RFC 3986); dot segments are left for `AssetURL.parse` to refuse.
    public static func resolve(_ uri: String, against base: AssetURL) -> String {
        let u = uri.utf8
        if let colon = u.firstIndex(of: 0x3A), u[u.startIndex..<colon].allSatisfy({ ASCII.isAlpha($0) || ASCII.isDigit($0) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E }),
           u.first.map(ASCII.isAlpha) == true {
            return uri
        }
        var origin = base.scheme + "://" + base.host
        if let port = base.port { origin += ":" + String(port) }
        if uri.hasPrefix("//") { return base.scheme + ":" + uri }
        if uri.hasPrefix("/") { return origin + uri }
        let path = base.path
        let directory = path.utf8.lastIndex(of: 0x2F).map { String(path[...$0]) } ?? "/"
        return origin + directory + uri
    }

    // The tags read, as bytes (compared in place, case-sensitively as RFC 8216 §4.1 requires).
    static let tagEXTM3U = Array("#EXTM3U".utf8)
    static let tagStreamInf = Array("#EXT-X-STREAM-INF:".utf8)
    static let tagEXTINF = Array("#EXTINF:".utf8)
    static let tagMap = Array("#EXT-X-MAP:".utf8)
    static let tagByteRange = Array("#EXT-X-BYTERANGE:".utf8)
    static let tagTargetDuration = Array("#EXT-X-TARGETDURATION".utf8)
    static let tagMediaSequence = Array("#EXT-X-MEDIA-SEQUENCE".utf8)
    static let tagMedia = Array("#EXT-X-MEDIA:".utf8)
    static let attrBandwidth = Array("BANDWIDTH".utf8)
    static let attrAudio = Array("AUDIO".utf8)
    static let attrType = Array("TYPE".utf8)
    static let attrGroupID = Array("GROUP-ID".utf8)
    static let attrDefault = Array("DEFAULT".utf8)
    static let valueAudio = Array("AUDIO".utf8)
    static let valueYes = Array("YES".utf8)
    static let attrURI = Array("URI".utf8)
    static let attrByteRange = Array("BYTERANGE".utf8)
}

/// One variant stream of a master playlist.
public struct HLSVariant: Sendable, Equatable {
    /// `BANDWIDTH`: the peak segment bit rate (RFC 8216 §4.3.4.2), bits per second.
    public let bandwidthBitsPerSecond: Int64
    /// The media playlist's URI as written (resolve with `HLSPlaylist.resolve`).
    public let uri: String
    /// `AUDIO`: the group of audio renditions it plays with (nil: its audio is in its segments).
    public let audioGroup: String?

    public init(bandwidthBitsPerSecond: Int64, uri: String, audioGroup: String? = nil) {
        self.bandwidthBitsPerSecond = bandwidthBitsPerSecond
        self.uri = uri
        self.audioGroup = audioGroup
    }
}

/// An audio rendition of a master playlist (`#EXT-X-MEDIA:TYPE=AUDIO` with a `URI`).
public struct HLSRendition: Sendable, Equatable {
    /// `GROUP-ID`, which variants name in their `AUDIO` attribute.
    public let groupID: String
    /// Its media playlist's URI as written.
    public let uri: String
    /// `DEFAULT=YES`.
    public let isDefault: Bool

    public init(groupID: String, uri: String, isDefault: Bool) {
        self.groupID = groupID
        self.uri = uri
        self.isDefault = isDefault
    }
}

/// One media segment.
public struct HLSSegment: Sendable, Equatable {
    /// `#EXTINF` duration, microseconds (the decimal seconds, truncated to the microsecond).
    public let durationMicroseconds: Int64
    /// The segment's URI as written.
    public let uri: String
    /// Its sub-range of the resource (`#EXT-X-BYTERANGE`, the omitted offset resolved); nil: the
    /// whole resource.
    public let range: ByteRange?

    public init(durationMicroseconds: Int64, uri: String, range: ByteRange? = nil) {
        self.durationMicroseconds = durationMicroseconds
        self.uri = uri
        self.range = range
    }
}

/// Why a playlist was refused (`FetchRejection.playlist`). Lines are 1-based.
public enum HLSRejection: Error, Sendable, Equatable, CustomStringConvertible {
    case tooLarge(bytes: Int, maxBytes: Int)
    /// The first line is not `#EXTM3U`.
    case notM3U8
    case lineTooLong(line: Int, maxBytes: Int)
    /// A NUL or other control byte (tab excepted) inside a line.
    case controlCharacter(line: Int)
    case missingBandwidth(line: Int)
    case badBandwidth(line: Int)
    case badDuration(line: Int)
    /// A tag that must be followed by a URI line is not (or `#EXT-X-MAP` without a quoted `URI`).
    case missingURI(line: Int)
    /// An audio rendition (`#EXT-X-MEDIA:TYPE=AUDIO` with a `URI`) without a quoted `GROUP-ID`.
    case missingGroupID(line: Int)
    /// A URI line no `#EXT-X-STREAM-INF` or `#EXTINF` announced.
    case uriWithoutTag(line: Int)
    case mixedMasterAndMedia(line: Int)
    /// `#EXT-X-BYTERANGE` (or `#EXT-X-MAP`'s `BYTERANGE`) is not `<n>[@<o>]` in decimal with
    /// `1 <= n` and both at most `ByteRange.bytesMax` (a sign, an empty or over-long number, a
    /// second tag before the segment's URI).
    case badByteRange(line: Int)
    /// A sub-range without an offset where none can be implied: no previous segment, a previous
    /// segment of another URI or of the whole resource, or an `#EXT-X-MAP`.
    case byteRangeWithoutOffset(line: Int)
    /// A segment sharing bytes with the initialization section or an earlier segment of the same URI.
    case byteRangeOverlap(line: Int)
    case tooManyVariants(max: Int)
    /// More audio renditions than `HLSPolicy.variantsMax` (the same bound).
    case tooManyRenditions(max: Int)
    /// A master playlist's variant is itself a master playlist.
    case nestedMaster
    case noVariantsOrSegments
    case noSegments
    /// A variant or segment URI that is not an acceptable asset URL once resolved.
    case uri(URLRejection)

    public var description: String {
        switch self {
        case .tooLarge(let bytes, let maxBytes): return "the playlist is \(bytes) bytes, over the limit of \(maxBytes)"
        case .notM3U8: return "the first line is not #EXTM3U"
        case .lineTooLong(let line, let maxBytes): return "line \(line) is longer than \(maxBytes) bytes"
        case .controlCharacter(let line): return "line \(line) contains a control character"
        case .missingBandwidth(let line): return "line \(line): #EXT-X-STREAM-INF has no BANDWIDTH"
        case .badBandwidth(let line): return "line \(line): BANDWIDTH is not a decimal integer in 1...\(HLSPlaylist.bandwidthBitsPerSecondMax)"
        case .badDuration(let line): return "line \(line): #EXTINF duration is not a decimal number of seconds in (0, 3600]"
        case .missingURI(let line): return "line \(line): a tag that needs a URI has none"
        case .missingGroupID(let line): return "line \(line): #EXT-X-MEDIA has no quoted GROUP-ID"
        case .uriWithoutTag(let line): return "line \(line): a URI line without #EXT-X-STREAM-INF or #EXTINF before it"
        case .mixedMasterAndMedia(let line): return "line \(line): master and media playlist tags in one playlist"
        case .badByteRange(let line): return "line \(line): the byte range is not <length>[@<offset>] with a length of 1 or more, both at most \(ByteRange.bytesMax)"
        case .byteRangeWithoutOffset(let line): return "line \(line): a byte range without an offset and no previous sub-range of the same URI to follow"
        case .byteRangeOverlap(let line): return "line \(line): the segment's bytes overlap an earlier part of the same URI"
        case .tooManyVariants(let max): return "more than \(max) variants"
        case .tooManyRenditions(let max): return "more than \(max) audio renditions"
        case .nestedMaster: return "a variant's playlist is a master playlist, expected a media playlist"
        case .noVariantsOrSegments: return "neither variants nor segments"
        case .noSegments: return "a media playlist without segments"
        case .uri(let rejection): return "a playlist URI is refused: \(rejection)"
        }
    }
}

/// Splits a document into lines (LF or CRLF) in place, with the line bounds checked.
struct LineReader {
    let bytes: [UInt8]
    var position = 0
    private(set) var lineNumber = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The next line's range without its terminator (trailing spaces and tabs trimmed); nil at the end.
    mutating func next() throws(HLSRejection) -> Range<Int>? {
        guard position < bytes.count else { return nil }
        lineNumber += 1
        let start = position
        var end = start
        while end < bytes.count && bytes[end] != 0x0A {
            let b = bytes[end]
            if (b < 0x20 && b != 0x09 && b != 0x0D) || b == 0x7F { throw .controlCharacter(line: lineNumber) }
            end += 1
        }
        position = end + 1
        var trimmed = end
        while trimmed > start && (bytes[trimmed - 1] == 0x0D || bytes[trimmed - 1] == 0x20 || bytes[trimmed - 1] == 0x09) { trimmed -= 1 }
        if trimmed - start > HLSPlaylist.lineBytesMax { throw .lineTooLong(line: lineNumber, maxBytes: HLSPlaylist.lineBytesMax) }
        return start..<trimmed
    }

    func has(_ line: Range<Int>, prefix: [UInt8]) -> Bool {
        guard line.count >= prefix.count else { return false }
        for i in prefix.indices where bytes[line.lowerBound + i] != prefix[i] { return false }
        return true
    }

    func firstIndex(of byte: UInt8, in range: Range<Int>) -> Int? {
        var i = range.lowerBound
        while i < range.upperBound { if bytes[i] == byte { return i }; i += 1 }
        return nil
    }

    /// The raw value of attribute `name` in an attribute list (`NAME=value,NAME="quoted, value"`).
    func attribute(named name: [UInt8], in list: Range<Int>) -> Range<Int>? {
        var i = list.lowerBound
        while i < list.upperBound {
            let nameStart = i
            while i < list.upperBound && bytes[i] != 0x3D && bytes[i] != 0x2C { i += 1 }  // "=" ","
            let nameRange = nameStart..<i
            guard i < list.upperBound, bytes[i] == 0x3D else { i += 1; continue }
            i += 1
            let valueStart = i
            if i < list.upperBound && bytes[i] == 0x22 {  // quoted: up to the closing quote
                i += 1
                while i < list.upperBound && bytes[i] != 0x22 { i += 1 }
                if i < list.upperBound { i += 1 }
            }
            while i < list.upperBound && bytes[i] != 0x2C { i += 1 }
            if nameRange.count == name.count && has(nameRange, prefix: name) { return valueStart..<i }
            i += 1
        }
        return nil
    }

    /// A decimal integer of at most 18 digits; nil otherwise.
    func decimal(_ range: Range<Int>) -> Int64? {
        guard !range.isEmpty, range.count <= 18 else { return nil }
        var value: Int64 = 0
        for i in range {
            let b = bytes[i]
            guard b >= 0x30 && b <= 0x39 else { return nil }
            value = value * 10 + Int64(b - 0x30)
        }
        return value
    }

    /// `<n>[@<o>]` as decimal integers (`decimal`): the length and the offset (nil when omitted);
    /// nil for anything else.
    func byteRange(_ range: Range<Int>) -> (length: Int64, offset: Int64?)? {
        if let at = firstIndex(of: 0x40, in: range) {  // "@"
            guard let n = decimal(range.lowerBound..<at), let o = decimal(at + 1..<range.upperBound) else { return nil }
            return (n, o)
        }
        guard let n = decimal(range) else { return nil }
        return (n, nil)
    }

    /// Decimal seconds (`6`, `6.006`, `5.`) as microseconds, digits past the sixth decimal
    /// dropped; nil for anything else (signs, exponents, more than 4 integer digits).
    func durationMicroseconds(_ range: Range<Int>) -> Int64? {
        guard !range.isEmpty else { return nil }
        var whole: Int64 = 0, fraction: Int64 = 0, scale: Int64 = 100_000
        var wholeDigits = 0, inFraction = false
        for i in range {
            let b = bytes[i]
            if b == 0x2E && !inFraction { inFraction = true; continue }
            guard b >= 0x30 && b <= 0x39 else { return nil }
            if inFraction {
                if scale > 0 { fraction += Int64(b - 0x30) * scale; scale /= 10 }
            } else {
                wholeDigits += 1
                if wholeDigits > 4 { return nil }
                whole = whole * 10 + Int64(b - 0x30)
            }
        }
        guard wholeDigits > 0 else { return nil }
        return whole * 1_000_000 + fraction
    }

    func string(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }

    /// A quoted-string value's text without its quotes; nil when the value is not quoted.
    func quoted(_ value: Range<Int>) -> String? {
        guard value.count >= 2, bytes[value.lowerBound] == 0x22, bytes[value.upperBound - 1] == 0x22 else { return nil }
        return string(value.lowerBound + 1..<value.upperBound - 1)
    }
}
