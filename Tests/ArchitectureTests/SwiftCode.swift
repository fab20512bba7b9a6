/// The code of a Swift source file with every comment and the contents of every string literal
/// blanked out (replaced by spaces, line breaks kept), so that a line-based scan for `import` or
/// `public` sees only code: not the Python, VCL or shell text a file embeds, nor prose in comments.
///
/// Understands line and nested block comments, single-line, multi-line and raw (`#"…"#`) strings
/// with interpolations (which are code, and may hold strings of their own), and `#/…/#` regex
/// literals (blanked like strings).
enum SwiftCode {
    static func blanked(_ text: String) -> String {
        let chars = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        out.reserveCapacity(chars.count)
        var i = 0
        scanCode(chars, &i, &out, closingParenthesis: false)
        return String(out)
    }

    /// Copies code from `i` until the end, or (inside an interpolation) until its closing `)`.
    private static func scanCode(_ c: [Unicode.Scalar], _ i: inout Int, _ out: inout String.UnicodeScalarView, closingParenthesis: Bool) {
        var depth = 0
        while i < c.count {
            let ch = c[i]
            if ch == "/" && next(c, i) == "/" {
                while i < c.count && c[i] != "\n" { out.append(" "); i += 1 }
            } else if ch == "/" && next(c, i) == "*" {
                var nesting = 0
                repeat {
                    if c[i] == "/" && next(c, i) == "*" { nesting += 1; blank(c, &i, &out, 2) }
                    else if c[i] == "*" && next(c, i) == "/" { nesting -= 1; blank(c, &i, &out, 2) }
                    else { blank(c, &i, &out, 1) }
                } while i < c.count && nesting > 0
            } else if ch == "#" || ch == "\"" {
                var hashes = 0
                while i + hashes < c.count && c[i + hashes] == "#" { hashes += 1 }
                let after = i + hashes
                if after < c.count && c[after] == "\"" {
                    scanString(c, &i, &out, hashes: hashes)
                } else if hashes > 0 && after < c.count && c[after] == "/" {
                    scanRegex(c, &i, &out, hashes: hashes)
                } else {
                    out.append(ch); i += 1
                }
            } else {
                if closingParenthesis {
                    if ch == "(" { depth += 1 }
                    if ch == ")" {
                        if depth == 0 { return }
                        depth -= 1
                    }
                }
                out.append(ch); i += 1
            }
        }
    }

    /// Blanks a string literal starting at `i` (its `#`s, then `"` or `"""`), keeping interpolations.
    private static func scanString(_ c: [Unicode.Scalar], _ i: inout Int, _ out: inout String.UnicodeScalarView, hashes: Int) {
        blank(c, &i, &out, hashes)
        let multiLine = i + 2 < c.count && c[i + 1] == "\"" && c[i + 2] == "\""
        let quotes = multiLine ? 3 : 1
        blank(c, &i, &out, quotes)
        while i < c.count {
            if c[i] == "\\" && hashesFollow(c, i + 1, hashes) {
                let afterHashes = i + 1 + hashes
                if afterHashes < c.count && c[afterHashes] == "(" {
                    blank(c, &i, &out, 1 + hashes)
                    out.append("("); i += 1
                    scanCode(c, &i, &out, closingParenthesis: true)
                    if i < c.count { out.append(")"); i += 1 }
                } else {
                    blank(c, &i, &out, min(2 + hashes, c.count - i))
                }
            } else if c[i] == "\"" && quotesFollow(c, i, quotes) && hashesFollow(c, i + quotes, hashes) {
                blank(c, &i, &out, quotes + hashes)
                return
            } else if !multiLine && c[i] == "\n" {
                return
            } else {
                blank(c, &i, &out, 1)
            }
        }
    }

    /// Blanks an extended regex literal `#/…/#` starting at `i`.
    private static func scanRegex(_ c: [Unicode.Scalar], _ i: inout Int, _ out: inout String.UnicodeScalarView, hashes: Int) {
        blank(c, &i, &out, hashes + 1)
        while i < c.count {
            if c[i] == "/" && hashesFollow(c, i + 1, hashes) { blank(c, &i, &out, 1 + hashes); return }
            blank(c, &i, &out, c[i] == "\\" ? min(2, c.count - i) : 1)
        }
    }

    private static func next(_ c: [Unicode.Scalar], _ i: Int) -> Unicode.Scalar? { i + 1 < c.count ? c[i + 1] : nil }

    private static func hashesFollow(_ c: [Unicode.Scalar], _ start: Int, _ count: Int) -> Bool {
        guard start + count <= c.count else { return false }
        return (0..<count).allSatisfy { c[start + $0] == "#" }
    }

    private static func quotesFollow(_ c: [Unicode.Scalar], _ start: Int, _ count: Int) -> Bool {
        guard start + count <= c.count else { return false }
        return (0..<count).allSatisfy { c[start + $0] == "\"" }
    }

    /// Replaces `count` scalars from `i` by spaces (line breaks kept) and advances past them.
    private static func blank(_ c: [Unicode.Scalar], _ i: inout Int, _ out: inout String.UnicodeScalarView, _ count: Int) {
        for _ in 0..<count where i < c.count {
            out.append(c[i] == "\n" ? "\n" : " ")
            i += 1
        }
    }
}
