import Foundation

/// Text from outside (file names, command lines, values) made safe and short for one line of a
/// message: control, format and bidirectional characters escaped, at most `limit` characters.
public enum DisplayText {
    /// Default longest text kept, in characters.
    public static let limitCharacters = 200

    /// `text` with every control, format (bidirectional overrides, zero-width) and separator
    /// character other than space written as `\u{XXXX}`, cut to `limit` characters with "…".
    public static func bounded(_ text: String, limit: Int = limitCharacters) -> String {
        var out = ""
        var count = 0
        for scalar in text.unicodeScalars {
            if count >= limit {
                out += "…"
                break
            }
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned:
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            case .spaceSeparator where scalar != " ":
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default:
                out.unicodeScalars.append(scalar)
            }
            count += 1
        }
        return out
    }
}
