import Foundation

/// Text from outside (keys, values, file names, command lines) made safe and short for one line of
/// a message: control, format (bidirectional overrides, zero-width) and separator characters other
/// than space written as `\u{XXXX}`, and at most `limitCharacters` characters shown.
package enum DisplayText {
    /// Longest text shown from one value, in characters (Unicode scalars).
    package static let limitCharacters = 200

    /// `text` escaped and cut to `limit` characters, with "…" when cut.
    /// - Complexity: O(min(text length, limit)).
    package static func bounded(_ text: String, limit: Int = limitCharacters) -> String {
        render(text, limit: limit, quoting: false)
    }

    /// `text` in double quotes for a message: quotes and backslashes escaped as in JSON, the rest
    /// as `bounded`.
    package static func quoted(_ text: String, limit: Int = limitCharacters) -> String {
        "\"" + render(text, limit: limit, quoting: true) + "\""
    }

    private static func render(_ text: String, limit: Int, quoting: Bool) -> String {
        var out = ""
        var count = 0
        for scalar in text.unicodeScalars {
            if count == limit {
                out += "…"
                break
            }
            count += 1
            if quoting, scalar == "\"" || scalar == "\\" {
                out += "\\" + String(scalar)
                continue
            }
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned:
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            case .spaceSeparator where scalar != " ":
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
