import Foundation
import InfraModel

/// The rules of `infra.topology.popNames` and `regionNames`: absent or empty (the outputs say
/// "pop-N" and "region N"), or one name per PoP (per region in effect), unique within its list,
/// of `lengthMax` ASCII letters, digits, spaces, `-`, `_` and `.`, starting and ending with a
/// letter or digit. The characters are those a CSV cell, a file name and a terminal show as
/// written (no comma, quote or `;`, which pops.csv uses between a PoP's regions).
enum TopologyNameRules {
    /// Longest name, characters (judgement: a CDN's PoP codes are 3–8, "IAD1" or "FRA56-P3";
    /// region names such as "us-east-1" or "Frankfurt metro 2" stay well below it).
    static let lengthMax = 40

    /// The JSON Schema pattern of one name (the same rule `problem` checks).
    static let pattern = "^[A-Za-z0-9]([A-Za-z0-9 ._-]{0,\(lengthMax - 2)}[A-Za-z0-9])?$"

    /// Schema keywords only: the checks are in `issues`, which can name the index.
    static var schemaRule: ConfigRule<[String]> {
        ConfigRule(schema: ["items": .object(["pattern": .string(pattern)]), "uniqueItems": .bool(true)], verdict: { _ in nil })
    }

    /// What is wrong with one name; nil when it is fine.
    static func problem(_ name: String) -> String? {
        let scalars = Array(name.unicodeScalars)
        guard !scalars.isEmpty else { return "empty" }
        guard scalars.count <= lengthMax else { return "\(scalars.count) characters" }
        func alphanumeric(_ c: Unicode.Scalar) -> Bool { c.isASCII && (CharacterSet.alphanumerics.contains(c)) }
        if let bad = scalars.first(where: { !(alphanumeric($0) || $0 == " " || $0 == "-" || $0 == "_" || $0 == ".") }) {
            return "the character \(bad.escaped(asASCII: true).debugDescription)"
        }
        if let first = scalars.first, let last = scalars.last, !(alphanumeric(first) && alphanumeric(last)) {
            return "a name starting or ending with \(alphanumeric(first) ? "\"\(last)\"" : "\"\(first)\"")"
        }
        return nil
    }

    /// Count, characters and uniqueness of both lists, each issue at the list or the name.
    static func issues(_ t: TopologyConfig) -> [ConfigIssue] {
        let regionCount = t.effectiveRegions.count
        let regionsSaying = t.regions.isEmpty ? "one per PoP, as `regions` is empty" : "the length of `regions`"
        return check(t.popNames, key: "popNames", count: t.popCount, counting: "one per PoP (`popCount` \(t.popCount))")
            + check(t.regionNames, key: "regionNames", count: regionCount, counting: "one per region (\(regionCount), \(regionsSaying))")
    }

    private static func check(_ names: [String], key: String, count: Int, counting: String) -> [ConfigIssue] {
        guard !names.isEmpty else { return [] }
        if names.count != count {
            return [issue([.key(key)], "\(count) names, \(counting), or none", "\(names.count) names")]
        }
        var issues: [ConfigIssue] = []
        var first: [String: Int] = [:]
        let rule = "a name of 1–\(lengthMax) ASCII letters, digits, spaces, '-', '_' or '.', starting and ending with a letter or digit"
        for (i, name) in names.enumerated() {
            if let p = problem(name) {
                issues.append(issue([.key(key), .index(i)], rule, "\(name.debugDescription) (\(p))"))
            } else if let j = first[name] {
                issues.append(issue([.key(key), .index(i)], "a name not already used in \(key) (\(key)[\(j)] is \(name.debugDescription))", name.debugDescription))
            } else {
                first[name] = i
            }
        }
        return issues
    }
}
