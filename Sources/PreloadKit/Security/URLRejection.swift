/// Why `AssetURL.parse` refused a URL. Each case carries the offending value where there is one.
///
/// Values quoted in a description are parts the parser already isolated and bounded by
/// `URLPolicy.urlLengthMax`; control characters never reach them (they are rejected first).
public enum URLRejection: Error, Equatable, Sendable, CustomStringConvertible {
    /// The scheme is not `https` (nor `http` for a host listed in `URLPolicy.plainHTTPHosts`). Lowercased scheme.
    case notHTTPS(String)
    /// The (lowercased) host is not on the allowlist.
    case hostNotAllowed(String)
    /// The authority carries user information (`user:password@`), a classic way to disguise the real host.
    case userInfoPresent
    /// The URL has a `#fragment`; asset URLs never need one.
    case fragmentPresent
    /// A path segment is `.` or `..` (also percent-encoded, or before a `;` parameter), or a segment hides an
    /// encoded separator (`%2F`, `%5C`) or a double-encoded dot/separator. Carries the raw path.
    case pathTraversal(String)
    /// A `%` is not followed by two hexadecimal digits.
    case badPercentEncoding
    /// A control character (U+0000–U+001F or U+007F), raw or percent-encoded.
    case controlCharacter
    /// The URL is `length` UTF-8 bytes long, more than the policy's `max`.
    case tooLong(length: Int, max: Int)
    /// The authority has no host (`https:///x`, `https://:443/`).
    case emptyHost
    /// Any other syntax error; `reason` says which part and what was expected.
    case malformed(String)

    public var description: String {
        switch self {
        case .notHTTPS(let scheme):
            return "URL scheme is \"\(scheme)\"; only https is allowed (http only for hosts listed in plainHTTPHosts)."
        case .hostNotAllowed(let host):
            return "URL host \"\(host)\" is not on the host allowlist."
        case .userInfoPresent:
            return "URL contains user information ('@' in the authority); it is not allowed."
        case .fragmentPresent:
            return "URL contains a fragment ('#'); it is not allowed."
        case .pathTraversal(let path):
            return "URL path \"\(path)\" contains a '.' or '..' segment or an encoded path separator; it is not allowed."
        case .badPercentEncoding:
            return "URL contains a '%' that is not followed by two hexadecimal digits."
        case .controlCharacter:
            return "URL contains a control character (U+0000-U+001F or U+007F), raw or percent-encoded."
        case .tooLong(let length, let max):
            return "URL is \(length) bytes long; at most \(max) bytes are allowed."
        case .emptyHost:
            return "URL has no host."
        case .malformed(let reason):
            return "URL is malformed: \(reason)."
        }
    }
}
