/// The one-character escapes of a JSON string (RFC 8259 §7), shared by the payload reader and the
/// simulator's scenario parser so both read a string's escapes alike.
package enum JSONEscape {
    /// The byte that `\` followed by `e` stands for: `\"` `\\` `\/` `\b` `\f` `\n` `\r` `\t`; nil
    /// for any other byte (`u` begins a `\uXXXX` escape, which the reader decodes itself).
    package static func byte(_ e: UInt8) -> UInt8? {
        switch e {
        case UInt8(ascii: "\""): 0x22
        case UInt8(ascii: "\\"): 0x5C
        case UInt8(ascii: "/"): 0x2F
        case UInt8(ascii: "b"): 0x08
        case UInt8(ascii: "f"): 0x0C
        case UInt8(ascii: "n"): 0x0A
        case UInt8(ascii: "r"): 0x0D
        case UInt8(ascii: "t"): 0x09
        default: nil
        }
    }
}
