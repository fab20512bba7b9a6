/// Locale-independent number formatting and text escaping shared by the renderers.
///
/// Everything here is a pure function of its arguments: no locale, no clock, no Foundation formatter,
/// so the same report renders to the same bytes on every machine.
package enum TextFormat {
    /// The text shown for a value that is not a finite number (NaN or ±infinity).
    package static let notANumber = "n/a"

    /// Largest number of decimals `fixed` honours; more are clamped (a Double has ~15-17 significant digits).
    package static let decimalsMax = 9

    /// `value` with exactly `decimals` digits after the point ("." always), rounded half away from zero,
    /// optionally grouping the integer part in threes with ",". Never prints "-0".
    ///
    /// Values whose scaled magnitude does not fit exactly in a Double's integer range (|value| × 10^decimals
    /// ≥ 2^53) fall back to Swift's shortest round-trip representation, which is also locale-independent.
    /// - Complexity: O(number of digits).
    package static func fixed(_ value: Double, decimals: Int, grouping: Bool = false) -> String {
        guard value.isFinite else { return notANumber }
        let places = min(max(decimals, 0), decimalsMax)
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let scaled = (abs(value) * scale).rounded(.toNearestOrAwayFromZero)
        guard scaled < 9_007_199_254_740_992 else { return value.description }
        let units = UInt64(scaled)
        if units == 0 { return places == 0 ? "0" : "0." + String(repeating: "0", count: places) }
        var digits = String(units)
        if digits.count <= places { digits = String(repeating: "0", count: places - digits.count + 1) + digits }
        let integerPart = String(digits.prefix(digits.count - places))
        let fraction = String(digits.suffix(places))
        let sign = value < 0 ? "-" : ""
        let integerText = grouping ? group(integerPart) : integerPart
        return sign + integerText + (places > 0 ? "." + fraction : "")
    }

    /// A count with thousands separators: 1234567 → "1,234,567".
    package static func count(_ value: Int) -> String {
        let digits = String(value.magnitude)
        return (value < 0 ? "-" : "") + group(digits)
    }

    /// A fraction in [0, 1] as a percentage with `decimals` places: 0.6171 → "61.7%".
    package static func percent(fraction: Double, decimals: Int = 1) -> String {
        guard fraction.isFinite else { return notANumber }
        return fixed(fraction * 100, decimals: decimals) + "%"
    }

    /// Escapes text for XML and HTML text or attribute values: `& < > " '` become character references,
    /// and characters XML 1.0 forbids (C0 controls other than tab, line feed and carriage return,
    /// U+FFFE, U+FFFF) become U+FFFD, so user input can neither inject markup nor break well-formedness.
    /// - Complexity: O(n) in the length of `text`.
    package static func escapeXML(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF {
                    out += "\u{FFFD}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    /// Escapes text for one line of Markdown (a table cell or an inline run): backslash-escapes the ASCII
    /// punctuation that could start markup or break a table (`\ ` * _ [ ] < > | ~ & #`), and folds line
    /// breaks and other control characters into single spaces. `<script>` renders as literal text.
    /// - Complexity: O(n) in the length of `text`.
    package static func escapeMarkdown(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        var lastWasSpace = false
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F {
                if !lastWasSpace { out += " " }
                lastWasSpace = true
                continue
            }
            lastWasSpace = scalar == " "
            switch scalar {
            case "\\", "`", "*", "_", "[", "]", "<", ">", "|", "~", "&", "#":
                out += "\\"
                out.unicodeScalars.append(scalar)
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func group(_ digits: String) -> String {
        var out = ""
        for (index, character) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out += "," }
            out.append(character)
        }
        return out
    }
}
