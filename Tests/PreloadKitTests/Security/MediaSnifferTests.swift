import Foundation
import XCTest
@testable import PreloadKit

final class MediaSnifferTests: XCTestCase {
    private static func bytes(_ ascii: String) -> [UInt8] { Array(ascii.utf8) }

    /// Real-world file starts (magic numbers from the format specifications; see MediaSniffer docs).
    private let samples: [(name: String, prefix: [UInt8], kind: MediaKind?)] = [
        ("JPEG JFIF", [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01], .jpeg),
        ("JPEG Exif", [0xFF, 0xD8, 0xFF, 0xE1], .jpeg),
        ("PNG", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52], .png),
        ("GIF87a", bytes("GIF87a") + [0x01, 0x00], .gif),
        ("GIF89a", bytes("GIF89a"), .gif),
        ("WebP", bytes("RIFF") + [0x24, 0x00, 0x00, 0x00] + bytes("WEBPVP8 "), .webp),
        ("WAV is RIFF but not WebP", bytes("RIFF") + [0x24, 0x00, 0x00, 0x00] + bytes("WAVEfmt "), nil),
        ("HEIC heic", [0, 0, 0, 0x18] + bytes("ftypheic") + [0, 0, 0, 0], .heic),
        ("HEIC heix", [0, 0, 0, 0x18] + bytes("ftypheix"), .heic),
        ("HEIF mif1", [0, 0, 0, 0x1C] + bytes("ftypmif1"), .heic),
        ("MP4 isom", [0, 0, 0, 0x20] + bytes("ftypisom") + [0, 0, 2, 0], .mp4),
        ("MP4 iso2", [0, 0, 0, 0x20] + bytes("ftypiso2"), .mp4),
        ("MP4 mp41", [0, 0, 0, 0x20] + bytes("ftypmp41"), .mp4),
        ("MP4 mp42", [0, 0, 0, 0x20] + bytes("ftypmp42"), .mp4),
        ("MP4 avc1", [0, 0, 0, 0x20] + bytes("ftypavc1"), .mp4),
        ("M4V", [0, 0, 0, 0x20] + bytes("ftypM4V "), .mp4),
        ("M4A", [0, 0, 0, 0x20] + bytes("ftypM4A "), .m4a),
        ("QuickTime brand is not accepted", [0, 0, 0, 0x14] + bytes("ftypqt  "), nil),
        ("AVIF brand is not accepted", [0, 0, 0, 0x1C] + bytes("ftypavif"), nil),
        ("MP3 ID3v2", bytes("ID3") + [0x04, 0x00, 0x00], .mp3),
        ("MP3 MPEG-1 Layer III frame", [0xFF, 0xFB, 0x90, 0x64], .mp3),
        ("MP3 MPEG-2 Layer III frame", [0xFF, 0xF3, 0x40, 0xC4], .mp3),
        ("MP3 MPEG-2.5 Layer III frame", [0xFF, 0xE3, 0x18, 0xC4], .mp3),
        ("AAC ADTS (layer 00) is not MP3", [0xFF, 0xF1, 0x50, 0x80], nil),
        ("MPEG-1 Layer II is not MP3", [0xFF, 0xFD, 0x90, 0x64], nil),
        ("reserved MPEG version", [0xFF, 0xEB, 0x90, 0x64], nil),
        ("bad bitrate index", [0xFF, 0xFB, 0xF0, 0x64], nil),
        ("reserved sample rate", [0xFF, 0xFB, 0x9C, 0x64], nil),
        ("JSON object", bytes("{\"a\":1}"), .json),
        ("JSON array after whitespace", bytes(" \t\r\n [1]"), .json),
        ("JSON after BOM", [0xEF, 0xBB, 0xBF] + bytes("{}"), .json),
        ("JSON scalar is not accepted", bytes("\"text\""), nil),
        ("M3U8", bytes("#EXTM3U\n#EXT-X-VERSION:3\n"), .m3u8),
        ("M3U8 after BOM", [0xEF, 0xBB, 0xBF] + bytes("#EXTM3U\n"), .m3u8),
        ("HTML", bytes("<!DOCTYPE html>"), nil),
        ("plain text", bytes("hello"), nil),
        ("empty", [], nil),
    ]

    func testSamples() {
        for sample in samples {
            XCTAssertEqual(MediaSniffer.sniff(sample.prefix), sample.kind, sample.name)
            // Non-contiguous, non-random-access collection of the same bytes.
            XCTAssertEqual(MediaSniffer.sniff(sample.prefix.lazy.filter { _ in true }), sample.kind, "\(sample.name) (lazy)")
        }
    }

    /// Every proper prefix of a magic number is too short to decide and must give nil (no
    /// out-of-bounds reads, no guess), except where a shorter prefix is itself a complete signature.
    func testTruncatedPrefixesGiveNil() {
        let signatures: [(name: String, full: [UInt8], decidingLength: Int)] = [
            ("JPEG", [0xFF, 0xD8, 0xFF, 0xE0], 3),
            ("PNG", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], 8),
            ("GIF", Self.bytes("GIF89a"), 6),
            ("WebP", Self.bytes("RIFF") + [0x24, 0, 0, 0] + Self.bytes("WEBP"), 12),
            ("HEIC", [0, 0, 0, 0x18] + Self.bytes("ftypheic"), 12),
            ("MP4", [0, 0, 0, 0x20] + Self.bytes("ftypisom"), 12),
            ("M4A", [0, 0, 0, 0x20] + Self.bytes("ftypM4A "), 12),
            ("ID3", Self.bytes("ID3"), 3),
            ("MP3 frame", [0xFF, 0xFB, 0x90], 3),
            ("M3U8", Self.bytes("#EXTM3U"), 7),
        ]
        for signature in signatures {
            for length in 0..<signature.decidingLength {
                XCTAssertNil(MediaSniffer.sniff(signature.full.prefix(length)), "\(signature.name) truncated to \(length)")
            }
            XCTAssertNotNil(MediaSniffer.sniff(signature.full.prefix(signature.decidingLength)), signature.name)
        }
        XCTAssertNil(MediaSniffer.sniff(Self.bytes("   ")), "whitespace only")
        XCTAssertNil(MediaSniffer.sniff([0xEF, 0xBB]), "partial BOM")
    }

    /// The brand switch uses integer literals: each must be the big-endian value of its text, and
    /// no other brand may map to a kind.
    func testISOBrandLiteralsMatchTheirText() {
        let brands: [(String, MediaKind)] = [
            ("heic", .heic), ("heix", .heic), ("mif1", .heic), ("isom", .mp4), ("iso2", .mp4), ("mp41", .mp4),
            ("mp42", .mp4), ("avc1", .mp4), ("M4V ", .mp4), ("M4A ", .m4a),
        ]
        for (text, kind) in brands {
            let word = Self.bytes(text).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            XCTAssertEqual(MediaSniffer.isoBrandKind(word), kind, text)
            XCTAssertEqual(MediaSniffer.sniff([0, 0, 0, 0x18] + Self.bytes("ftyp") + Self.bytes(text)), kind, text)
        }
        for text in ["qt  ", "HEIC", "mp40", "3gp4", "M4B ", "avif"] {
            XCTAssertNil(MediaSniffer.sniff([0, 0, 0, 0x18] + Self.bytes("ftyp") + Self.bytes(text)), text)
        }
    }

    func testJSONLeadingWhitespaceIsBounded() {
        let limit = MediaSniffer.jsonLeadingWhitespaceMax
        XCTAssertEqual(MediaSniffer.sniff([UInt8](repeating: 0x20, count: limit) + [0x7B]), .json)
        XCTAssertNil(MediaSniffer.sniff([UInt8](repeating: 0x20, count: limit + 1) + [0x7B]))
    }

    func testMIMEMatching() {
        let cases: [(contentType: String, kind: MediaKind, matches: Bool)] = [
            ("image/jpeg", .jpeg, true), ("IMAGE/JPEG", .jpeg, true), ("image/jpeg; charset=binary", .jpeg, true),
            ("  image/jpeg  ;q=1", .jpeg, true), ("\timage/png", .png, true), ("image/gif", .gif, true),
            ("image/webp", .webp, true), ("image/heic", .heic, true), ("image/heif", .heic, true),
            ("video/mp4", .mp4, true), ("audio/mpeg", .mp3, true), ("audio/mp4", .m4a, true),
            ("audio/x-m4a", .m4a, true), ("application/json; charset=utf-8", .json, true),
            ("application/vnd.apple.mpegurl", .m3u8, true), ("application/x-mpegURL", .m3u8, true),
            ("Application/VND.Apple.MpegURL", .m3u8, true),
            ("image/png", .jpeg, false), ("image/jpegx", .jpeg, false), ("image/jpe", .jpeg, false),
            ("image/ jpeg", .jpeg, false), ("text/html", .json, false), ("", .json, false), (";", .json, false),
            ("application/json+evil", .json, false), ("video/mp4", .m4a, false), ("audio/mp4", .mp4, false),
        ]
        for (contentType, kind, matches) in cases {
            XCTAssertEqual(MediaSniffer.mimeType(contentType, matches: kind), matches, "\(contentType) vs \(kind)")
        }
    }

    func testEveryKindHasLowercaseMIMETypes() {
        for kind in MediaKind.allCases {
            XCTAssertFalse(kind.mimeTypes.isEmpty, "\(kind)")
            for mimeType in kind.mimeTypes {
                XCTAssertEqual(mimeType, mimeType.lowercased(), "\(kind)")
                XCTAssertTrue(MediaSniffer.mimeType(mimeType.uppercased(), matches: kind), mimeType)
            }
        }
    }

    func testMIMEMatchingAgreesWithTheMIMETypeLists() {
        // Registered types (IANA, plus the de-facto aliases x-m4a and x-mpegurl), independent of the code.
        XCTAssertEqual(MediaKind.heic.mimeTypes, ["image/heic", "image/heif"])
        XCTAssertEqual(MediaKind.m4a.mimeTypes, ["audio/mp4", "audio/x-m4a"])
        XCTAssertEqual(MediaKind.m3u8.mimeTypes, ["application/vnd.apple.mpegurl", "application/x-mpegurl"])
        XCTAssertEqual(MediaKind.mp3.mimeTypes, ["audio/mpeg"])
        // Every listed type, in several spellings, against every kind: matches exactly its own kinds.
        let all = MediaKind.allCases.flatMap(\.mimeTypes)
        for text in all {
            for spelling in [text, text.uppercased(), " \t\(text) ; charset=utf-8", "\(text);", String(text.dropLast()), text + "x"] {
                for kind in MediaKind.allCases {
                    let expected = spelling.split(separator: ";", omittingEmptySubsequences: false).first
                        .map { kind.mimeTypes.contains($0.trimmingCharacters(in: .whitespaces).lowercased()) } ?? false
                    XCTAssertEqual(MediaSniffer.mimeType(spelling, matches: kind), expected, "\(spelling) vs \(kind)")
                }
            }
        }
    }

    /// The first-byte dispatch in `sniff` gives the answer of the plain chain of signature tests it
    /// replaced (written out here byte by byte), for every first byte and a spread of tails.
    func testSniffAgreesWithTheSignatureChain() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt8 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        let signatures = samples.map(\.prefix) + [Self.bytes("ID3\u{3}"), [0xEF, 0xBB, 0xBF] + Self.bytes("#EXTM3U\n"),
                                                  [0xEF, 0xBB, 0xBF] + Self.bytes("  {"), Self.bytes("\n\t["), [0xFF, 0xFB, 0x90, 0x00]]
        for first in 0...255 {
            for length in 0...20 {
                for trial in 0..<4 {
                    var prefix = (0..<length).map { _ in next() }
                    if trial > 0 {
                        prefix = Array((signatures[Int(next()) % signatures.count] + prefix).prefix(length))
                    }
                    if !prefix.isEmpty && trial < 2 { prefix[0] = UInt8(first) }
                    XCTAssertEqual(MediaSniffer.sniff(prefix), Self.chainSniff(prefix), "\(prefix)")
                    XCTAssertEqual(MediaSniffer.sniff(prefix[...]), Self.chainSniff(prefix), "slice \(prefix)")
                }
            }
        }
    }

    func testLowercasedWordFoldsExactlyAToZ() {
        for byte in 0...255 {
            let b = UInt8(byte)
            let expected = UInt64(b >= 0x41 && b <= 0x5A ? b + 0x20 : b)
            for lane in 0..<8 {
                let word = UInt64(b) << UInt64(8 * lane) | 0x5A41_7F80_2040_5B60 & ~(0xFF << UInt64(8 * lane))
                let folded = MediaSniffer.lowercasedWord(word)
                XCTAssertEqual(folded >> UInt64(8 * lane) & 0xFF, expected, "byte \(byte) lane \(lane)")
            }
        }
    }

    /// The signature chain, test by test in the documented order.
    private static func chainSniff(_ p: [UInt8]) -> MediaKind? {
        func at(_ offset: Int, _ text: [UInt8]) -> Bool {
            offset + text.count <= min(p.count, 16) && Array(p[offset..<offset + text.count]) == text
        }
        if at(0, [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if at(0, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if at(0, bytes("GIF87a")) || at(0, bytes("GIF89a")) { return .gif }
        if at(0, bytes("RIFF")) && at(8, bytes("WEBP")) { return .webp }
        if p.count >= 12 && at(4, bytes("ftyp")) {
            return MediaSniffer.isoBrandKind(p[8...11].reduce(0) { $0 << 8 | UInt32($1) })
        }
        if at(4, bytes("styp")) || at(4, bytes("moof")) { return .mp4 }
        if p.count >= 4 && p[0] == 0x47 && p[1] & 0x80 == 0 && !at(0, bytes("GIF")) {
            return p.count > 188 && p[188] != 0x47 ? nil : .ts
        }
        if at(0, bytes("ID3")) { return .mp3 }
        if p.count >= 3 && p[0] == 0xFF && p[1] & 0xE0 == 0xE0 && (p[1] >> 3) & 3 != 1 && (p[1] >> 1) & 3 == 1
            && p[2] >> 4 != 0x0F && (p[2] >> 2) & 3 != 3 { return .mp3 }
        let bom = at(0, [0xEF, 0xBB, 0xBF]) ? 3 : 0
        if at(bom, bytes("#EXTM3U")) { return .m3u8 }
        for byte in p.dropFirst(bom) {
            if [0x20, 0x09, 0x0A, 0x0D].contains(byte) { continue }
            return byte == 0x7B || byte == 0x5B ? .json : nil
        }
        return nil
    }
}
