/// A minimal, deterministic SVG/XML text builder: attributes are written in the order given and every
/// attribute value and text run is escaped. Coordinates are printed with one decimal place.
struct SVGWriter {
    private(set) var text = ""

    /// Opens `<name attrs>`.
    mutating func open(_ name: String, _ attributes: [(String, String)] = []) {
        text += "<" + name + Self.attributeText(attributes) + ">"
    }

    /// Ends the current line.
    mutating func newline() {
        text += "\n"
    }

    /// Closes `</name>` and ends the line.
    mutating func close(_ name: String) {
        text += "</" + name + ">\n"
    }

    /// A self-closing element `<name attrs/>` on its own line.
    mutating func leaf(_ name: String, _ attributes: [(String, String)]) {
        text += "<" + name + Self.attributeText(attributes) + "/>\n"
    }

    /// `<name attrs>escaped content</name>` on its own line.
    mutating func element(_ name: String, _ attributes: [(String, String)], content: String) {
        text += "<" + name + Self.attributeText(attributes) + ">" + TextFormat.escapeXML(content) + "</" + name + ">\n"
    }

    /// A leaf element carrying a `<title>` tooltip (e.g. a bar with its exact count).
    mutating func leaf(_ name: String, _ attributes: [(String, String)], tooltip: String) {
        text += "<" + name + Self.attributeText(attributes) + "><title>" + TextFormat.escapeXML(tooltip) + "</title></" + name + ">\n"
    }

    /// A coordinate with one decimal, trailing ".0" dropped: 12 → "12", 12.25 → "12.3".
    static func number(_ value: Double) -> String {
        let text = TextFormat.fixed(value, decimals: 1)
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }

    private static func attributeText(_ attributes: [(String, String)]) -> String {
        var out = ""
        for (name, value) in attributes {
            out += " " + name + "=\"" + TextFormat.escapeXML(value) + "\""
        }
        return out
    }
}
