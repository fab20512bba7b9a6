
/// One problem found in a scenario file or its overrides, naming where, what was found and what
/// was expected. `description` is `path: message`, e.g.
/// `campaign.warmAheadSeconds: expected a number, found "ten"`.
package struct Diagnostic: Error, Sendable, Equatable, Comparable, CustomStringConvertible {
    /// What kind of problem this is.
    enum Kind: String, Sendable {
        /// The text is not valid JSON (or exceeds a size/depth limit).
        case syntax
        /// A value of the wrong JSON type (a string where a number was expected, ...).
        case typeMismatch
        /// A value of the right type that the scenario type's validation rejected.
        case invalidValue
        /// A required key is absent.
        case missingKey
        /// A key the scenario type does not know.
        case unknownKey
        /// A `--set` override that cannot be applied.
        case override
    }

    /// Where in the document.
    let path: JSONPath
    /// The category, for callers that treat e.g. unknown keys differently.
    let kind: Kind
    /// Everything after "path: ".
    let message: String
    /// What was expected, when known ("an integer ≥ 0").
    let expected: String?
    /// The value found, rendered compactly and truncated (`"ten"`, `-5`, `[1,2]`), when there is one.
    let found: String?

    /// A diagnostic; `description` is `path: message`.
    init(path: JSONPath, kind: Kind, message: String, expected: String? = nil, found: String? = nil) {
        self.path = path
        self.kind = kind
        self.message = message
        self.expected = expected
        self.found = found
    }

    /// `path: expected X, found Y`.
    static func mismatch(_ path: JSONPath, expected: String, found: JSONValue?) -> Diagnostic {
        let f = found?.rendered() ?? "nothing"
        return Diagnostic(path: path, kind: .typeMismatch, message: "expected \(expected), found \(f)",
                          expected: expected, found: found?.rendered())
    }

    /// `path: message`.
    /// One line: control and bidirectional characters of a key or value are escaped.
    package var description: String { DisplayText.bounded("\(path): \(message)", limit: .max) }

    /// By path, then kind, then message: a deterministic report order.
    package static func < (lhs: Diagnostic, rhs: Diagnostic) -> Bool {
        if lhs.path != rhs.path { return lhs.path < rhs.path }
        if lhs.kind != rhs.kind { return lhs.kind.rawValue < rhs.kind.rawValue }
        return lhs.message < rhs.message
    }
}

/// All the problems found in one pass over a scenario, sorted by path. Its description has one
/// diagnostic per line.
package struct ScenarioErrors: Error, Sendable, Equatable, CustomStringConvertible {
    /// At most `limit` diagnostics, sorted.
    package let diagnostics: [Diagnostic]
    /// How many more were found beyond the limit.
    let omittedCount: Int

    /// Sorts, removes duplicates and keeps the first `limit`; `alreadyOmitted` more were found
    /// before (and left out of) `diagnostics`.
    init(_ diagnostics: [Diagnostic], limit: Int = 100, alreadyOmitted: Int = 0) {
        var unique: [Diagnostic] = []
        for d in diagnostics.sorted() where unique.last != d { unique.append(d) }
        self.diagnostics = Array(unique.prefix(limit))
        self.omittedCount = max(0, unique.count - limit) + alreadyOmitted
    }

    /// These problems with `problems` added (the omitted count kept).
    func adding(_ problems: [Diagnostic]) -> ScenarioErrors {
        ScenarioErrors(problems + diagnostics, alreadyOmitted: omittedCount)
    }

    package var description: String {
        var lines = diagnostics.map(\.description)
        if omittedCount > 0 { lines.append("… and \(omittedCount) more") }
        return lines.joined(separator: "\n")
    }
}

/// Spelling suggestions by edit distance.
package enum Spelling {
    /// Optimal-string-alignment distance (Levenshtein plus adjacent transpositions), case-insensitive.
    /// - Complexity: O(|a|·|b|).
    static func distance(_ a: String, _ b: String) -> Int {
        let x = Array(a.lowercased()), y = Array(b.lowercased())
        if x.isEmpty { return y.count }
        if y.isEmpty { return x.count }
        var d = [[Int]](repeating: [Int](repeating: 0, count: y.count + 1), count: x.count + 1)
        for i in 0...x.count { d[i][0] = i }
        for j in 0...y.count { d[0][j] = j }
        for i in 1...x.count {
            for j in 1...y.count {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[x.count][y.count]
    }

    /// The closest candidate within max(2, ⌊longer length / 3⌋) edits; ties go to the first in
    /// sorted order. Nil if none is close enough.
    /// Longest word offered a suggestion, in bytes.
    static let wordBytesMax = 128

    /// - Complexity: O(candidates · |word| · |candidate|).
    package static func closest(to word: String, among candidates: [String]) -> String? {
        // A word far longer than any key is no misspelling (and its edit distance is costly).
        guard word.utf8.count <= wordBytesMax else { return nil }
        var best: (distance: Int, candidate: String)? = nil
        for c in candidates.sorted() where c != word {
            let d = distance(word, c)
            guard d <= max(2, max(word.count, c.count) / 3) else { continue }
            if best.map({ d < $0.distance }) ?? true { best = (d, c) }
        }
        return best?.candidate
    }
}
