/// Why a host allowlist pattern was refused.
public struct HostPatternError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The pattern as given.
    public let pattern: String
    /// What is wrong with it.
    public let reason: String

    public var description: String {
        "Host allowlist pattern \"\(pattern)\" is invalid: \(reason). Expected a host name such as "
            + "\"cdn.example.com\" or a wildcard such as \"*.cdn.example.com\"."
    }
}

/// The hosts an asset URL may name: exact host names and `*.suffix` wildcards, compared case-insensitively.
///
/// A wildcard `*.cdn.example.com` matches any subdomain at any depth (`a.cdn.example.com`,
/// `a.b.cdn.example.com`) but never `cdn.example.com` itself and never a name that merely ends with the
/// same characters (`evilcdn.example.com`): the match requires a `.` label boundary. List the bare name
/// separately if it is wanted. `*` alone, `*` anywhere but a leading `*.` label, and non-ASCII names
/// (use punycode) are refused.
///
/// Encodes as a JSON array of pattern strings (sorted, de-duplicated, lowercase).
public struct HostAllowlist: Sendable, Equatable, Codable, ExpressibleByArrayLiteral {
    /// Exact host names, lowercase, sorted, unique.
    public let exactHosts: [String]
    /// Wildcard suffixes without the leading `*.`, lowercase, sorted, unique.
    public let wildcardSuffixes: [String]

    /// Builds an allowlist from patterns such as `"cdn.example.com"` and `"*.img.example.com"`.
    /// - Throws: `HostPatternError` naming the first invalid pattern.
    /// - Complexity: O(n log n) in the number of patterns.
    public init(_ patterns: [String]) throws(HostPatternError) {
        var exact: [String] = []
        var wildcards: [String] = []
        for pattern in patterns {
            var bytes = Array(pattern.utf8.map { ASCII.lowercased($0) })
            let isWildcard = bytes.count >= 2 && bytes[0] == ASCII.asterisk && bytes[1] == ASCII.dot
            if isWildcard { bytes.removeFirst(2) }
            if bytes.contains(ASCII.asterisk) {
                throw HostPatternError(
                    pattern: pattern, reason: "'*' may only appear as a whole leading label followed by '.'")
            }
            if let problem = HostNameCheck.problem(bytes[...]) {
                throw HostPatternError(pattern: pattern, reason: problem)
            }
            let name = String(decoding: bytes, as: UTF8.self)
            if isWildcard { wildcards.append(name) } else { exact.append(name) }
        }
        exactHosts = Array(Set(exact)).sorted()
        wildcardSuffixes = Array(Set(wildcards)).sorted()
    }

    /// Array-literal form for patterns written in source code. An invalid literal pattern is a
    /// programmer error and traps; patterns from configuration must use the throwing `init(_:)`.
    public init(arrayLiteral patterns: String...) {
        do {
            try self.init(patterns)
        } catch {
            preconditionFailure(error.description)
        }
    }

    /// The patterns in canonical form: exact hosts, then wildcards, each sorted.
    public var patterns: [String] { exactHosts + wildcardSuffixes.map { "*." + $0 } }

    /// True when `host` is allowed. `host` is compared ASCII-case-insensitively.
    /// - Complexity: O(p · h) for p patterns and a host of h bytes; no allocation for lowercase input.
    public func allows(_ host: String) -> Bool {
        for exact in exactHosts where Self.equalsIgnoringASCIICase(host.utf8, exact.utf8) {
            return true
        }
        for suffix in wildcardSuffixes where Self.isStrictSubdomain(host.utf8, of: suffix.utf8) {
            return true
        }
        return false
    }

    private static func equalsIgnoringASCIICase(_ lhs: String.UTF8View, _ rhs: String.UTF8View) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return zip(lhs, rhs).allSatisfy { ASCII.lowercased($0) == ASCII.lowercased($1) }
    }

    /// `host` ends with `"." + suffix` and has at least one byte before that dot.
    private static func isStrictSubdomain(_ host: String.UTF8View, of suffix: String.UTF8View) -> Bool {
        guard host.count >= suffix.count + 2 else { return false }
        let dotIndex = host.index(host.endIndex, offsetBy: -(suffix.count + 1))
        guard host[dotIndex] == ASCII.dot else { return false }
        return equalsIgnoringASCIICase(host[host.index(after: dotIndex)...], suffix)
    }

    private static func equalsIgnoringASCIICase(_ lhs: Substring.UTF8View, _ rhs: String.UTF8View) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return zip(lhs, rhs).allSatisfy { ASCII.lowercased($0) == ASCII.lowercased($1) }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let patterns = try container.decode([String].self)
        do {
            try self.init(patterns)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(patterns)
    }
}
