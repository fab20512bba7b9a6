/// What `AssetURL.parse` accepts.
public struct URLPolicy: Sendable, Equatable {
    /// Query parameters that carry signed-URL tokens on common CDNs and object stores (CloudFront,
    /// Akamai, S3/SigV4, Google Cloud Storage, generic). They rotate with every signing, so the cache
    /// key ignores them. Names are matched exactly, after percent-decoding: byte for byte in UTF-8,
    /// so case-sensitive and without Unicode equivalence (`%E2%84%AAey-Pair-Id`, spelled with
    /// U+212A KELVIN SIGN, is not `Key-Pair-Id` and stays in the cache key).
    public static let defaultTokenQueryParameters: Set<String> = [
        "token", "sig", "signature", "expires",
        "Expires", "Signature", "Key-Pair-Id", "Policy",
        "hdnts", "__token__",
        "X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Date", "X-Amz-Expires",
        "X-Amz-SignedHeaders", "X-Amz-Signature", "X-Amz-Security-Token",
        "GoogleAccessId", "X-Goog-Algorithm", "X-Goog-Credential", "X-Goog-Date", "X-Goog-Expires",
        "X-Goog-SignedHeaders", "X-Goog-Signature",
    ]
    /// Default `urlLengthMax`: 2048 bytes, the conservative limit most CDNs and browsers honour.
    public static let defaultURLLengthMax = 2048

    /// Hosts an asset URL may name. Applies to every URL, including plain-http ones.
    public var allowlist: HostAllowlist
    /// Lowercase hosts for which `http` is also accepted (with any port). Only for loopback test
    /// servers such as `"127.0.0.1"`; a host listed here must still be on the allowlist. Matched
    /// byte for byte against the (ASCII, lowercased) URL host.
    public var plainHTTPHosts: Set<String> {
        didSet { plainHTTPHosts = Set(plainHTTPHosts.map { ASCII.lowercased($0) }) }
    }
    /// Query parameter names left out of `AssetURL.cacheKey`, matched by their exact UTF-8 bytes;
    /// see `defaultTokenQueryParameters`. (A `Set<String>` keeps one of two canonically equivalent
    /// spellings: list a name only in the spelling the CDN uses.)
    public var tokenQueryParameters: Set<String>
    /// Longest accepted URL in UTF-8 bytes.
    public var urlLengthMax: Int

    /// - Parameters:
    ///   - plainHTTPHosts: hosts allowed over http; stored lowercased.
    public init(
        allowlist: HostAllowlist,
        plainHTTPHosts: Set<String> = [],
        tokenQueryParameters: Set<String> = URLPolicy.defaultTokenQueryParameters,
        urlLengthMax: Int = URLPolicy.defaultURLLengthMax
    ) {
        self.allowlist = allowlist
        self.plainHTTPHosts = Set(plainHTTPHosts.map { ASCII.lowercased($0) })
        self.tokenQueryParameters = tokenQueryParameters
        self.urlLengthMax = urlLengthMax
    }

    /// True for `localhost` and dotted-quad `127.x.x.x` (the only hosts `plainHTTPHosts` may
    /// name; `PayloadOptions.validate()` refuses others).
    public static func isLoopbackHost(_ host: String) -> Bool {
        if host == "localhost" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "127" else { return false }
        return parts.allSatisfy { p in !p.isEmpty && p.count <= 3 && p.allSatisfy(\.isASCII) && p.allSatisfy(\.isNumber) && (Int(p) ?? 256) <= 255 }
    }
}
