// Small byte-level helpers shared by the strict URL parser, the host allowlist and the MIME matcher.
// Everything here works on UTF-8 code units so the security decisions never depend on Unicode
// normalisation, locale or Foundation.

enum ASCII {
    static let slash: UInt8 = 0x2F            // /
    static let backslash: UInt8 = 0x5C        // \
    static let colon: UInt8 = 0x3A            // :
    static let questionMark: UInt8 = 0x3F     // ?
    static let hash: UInt8 = 0x23             // #
    static let at: UInt8 = 0x40               // @
    static let percent: UInt8 = 0x25          // %
    static let ampersand: UInt8 = 0x26        // &
    static let equals: UInt8 = 0x3D           // =
    static let dot: UInt8 = 0x2E              // .
    static let hyphen: UInt8 = 0x2D           // -
    static let semicolon: UInt8 = 0x3B        // ;
    static let space: UInt8 = 0x20
    static let tab: UInt8 = 0x09
    static let asterisk: UInt8 = 0x2A         // *
    static let openBracket: UInt8 = 0x5B      // [

    @inline(__always) static func isControl(_ byte: UInt8) -> Bool { byte < 0x20 || byte == 0x7F }
    @inline(__always) static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
    @inline(__always) static func isAlpha(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }
    @inline(__always) static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte
    }
    /// RFC 3986 `unreserved`: ALPHA / DIGIT / "-" / "." / "_" / "~".
    @inline(__always) static func isUnreserved(_ byte: UInt8) -> Bool {
        isAlpha(byte) || isDigit(byte) || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x7E
    }
    /// RFC 3986 `sub-delims`: ! $ & ' ( ) * + , ; =
    @inline(__always) static func isSubDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x21, 0x24, 0x26, 0x27, 0x28, 0x29, 0x2A, 0x2B, 0x2C, 0x3B, 0x3D: return true
        default: return false
        }
    }
    /// Value of a hexadecimal digit, or nil.
    @inline(__always) static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: return byte - 0x30
        case 0x41...0x46: return byte - 0x41 + 10
        case 0x61...0x66: return byte - 0x61 + 10
        default: return nil
        }
    }
    static let upperHexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)
    static let lowerHexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// True when `set` holds a member whose UTF-8 bytes are exactly `text`'s.
    ///
    /// `Set<String>.contains` (like `String ==` and `switch` over strings) matches canonically
    /// equivalent spellings: U+212A KELVIN SIGN equals "K", "e" + U+0301 equals "é". A set holds at
    /// most one member per equivalence class, so the one candidate it finds is the only member
    /// that can have `text`'s bytes.
    /// - Complexity: O(n) in `text`'s UTF-8 length.
    static func setContainsExactly(_ set: Set<String>, _ text: String) -> Bool {
        guard let index = set.firstIndex(of: text) else { return false }
        return set[index].utf8.elementsEqual(text.utf8)
    }

    /// ASCII-lowercased copy of `text` (non-ASCII bytes are left alone).
    static func lowercased(_ text: some StringProtocol) -> String {
        String(decoding: text.utf8.map { lowercased($0) }, as: UTF8.self)
    }

    /// Lowercase hexadecimal rendering of `bytes`.
    static func lowerHex(_ bytes: some Sequence<UInt8>) -> String {
        var out = [UInt8]()
        for byte in bytes {
            out.append(lowerHexDigits[Int(byte >> 4)])
            out.append(lowerHexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A short printable rendering of one byte for error messages, e.g. `"\"\\\\\" (0x5C)"`.
    static func describe(_ byte: UInt8) -> String {
        let hex = String(decoding: [upperHexDigits[Int(byte >> 4)], upperHexDigits[Int(byte & 0x0F)]], as: UTF8.self)
        if byte >= 0x21 && byte < 0x7F {
            return "'\(String(decoding: [byte], as: UTF8.self))' (0x\(hex))"
        }
        return "byte 0x\(hex)"
    }
}

/// Why a host name (or allowlist pattern) is not a plain ASCII DNS name.
enum HostNameCheck {
    /// Longest DNS name in presentation form without the trailing dot (RFC 1035 §2.3.4).
    static let nameByteCountMax = 253
    /// Longest DNS label (RFC 1035 §2.3.4).
    static let labelByteCountMax = 63

    /// Returns nil when `bytes` (already lowercased) is a valid host name made of LDH labels
    /// (letters, digits, hyphen; IPv4 dotted quads qualify), otherwise the reason it is not.
    static func problem(_ bytes: ArraySlice<UInt8>) -> String? {
        if bytes.isEmpty { return "the host is empty" }
        if bytes.count > nameByteCountMax {
            return "the host is \(bytes.count) bytes long; at most \(nameByteCountMax) are allowed"
        }
        var labelStart = bytes.startIndex
        var index = bytes.startIndex
        while index <= bytes.endIndex {
            if index == bytes.endIndex || bytes[index] == ASCII.dot {
                let label = bytes[labelStart..<index]
                if label.isEmpty { return "the host has an empty label (leading, trailing or doubled '.')" }
                if label.count > labelByteCountMax {
                    return "a host label is \(label.count) bytes long; at most \(labelByteCountMax) are allowed"
                }
                if label.first == ASCII.hyphen || label.last == ASCII.hyphen {
                    return "a host label starts or ends with '-'"
                }
                labelStart = index + 1
            } else {
                let byte = bytes[index]
                if byte >= 0x80 {
                    return "the host contains non-ASCII characters; internationalised names must be given in punycode (xn--)"
                }
                if !(ASCII.isAlpha(byte) || ASCII.isDigit(byte) || byte == ASCII.hyphen) {
                    return "the host contains \(ASCII.describe(byte)); only letters, digits, '-' and '.' are allowed"
                }
            }
            index += 1
        }
        return nil
    }
}
