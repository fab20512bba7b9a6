import Foundation

extension OverlayBuilder {
    /// Longest region name the scenario format takes (`infra.topology.regionNames`).
    static let regionNameLengthMax = 40

    /// Logged PoP codes as region names under the scenario format's rule (1–40 ASCII letters,
    /// digits, spaces, `-`, `_`, `.`, a letter or digit at each end; unique): other characters are
    /// dropped, a repeated name is numbered ("IAD89-2"); nil when a code leaves nothing.
    static func regionNames(_ codes: [String]) -> [String]? {
        func alphanumeric(_ c: Unicode.Scalar) -> Bool { c.isASCII && CharacterSet.alphanumerics.contains(c) }
        func trimmed(_ scalars: [Unicode.Scalar]) -> String {
            var s = scalars
            while let first = s.first, !alphanumeric(first) { s.removeFirst() }
            while let last = s.last, !alphanumeric(last) { s.removeLast() }
            return String(String.UnicodeScalarView(s))
        }
        var used = Set<String>(), out: [String] = []
        for code in codes {
            let kept = code.unicodeScalars.filter { alphanumeric($0) || $0 == " " || $0 == "-" || $0 == "_" || $0 == "." }
            let base = trimmed(Array(kept.prefix(regionNameLengthMax)))
            guard !base.isEmpty else { return nil }
            var name = base, k = 2
            while used.contains(name) {
                let suffix = "-\(k)"
                name = trimmed(Array(base.unicodeScalars.prefix(regionNameLengthMax - suffix.count))) + suffix
                k += 1
            }
            used.insert(name)
            out.append(name)
        }
        return out
    }
}
