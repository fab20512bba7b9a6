/// A parsed, validated and normalised asset URL.
///
/// Produced only by `parse(_:policy:)`, a small strict parser over UTF-8 bytes (deliberately not
/// Foundation's `URL`, whose leniency differs across platforms). Accepted URLs have the form
/// `https://host[:443]/path[?query]` (or `http://host[:port]...` for `URLPolicy.plainHTTPHosts`) and
/// are normalised: lowercase scheme and host; default port dropped; percent-encodings written with
/// uppercase hex, except unreserved characters (`A-Z a-z 0-9 - . _ ~`), which are decoded; an empty
/// path becomes `/`; empty query items (`a=1&&b=2`) are dropped. Re-parsing `absoluteString` with
/// the same policy gives an equal value.
public struct AssetURL: Hashable, Sendable, CustomStringConvertible {
    /// One `name[=value]` item of the query, in its normalised percent-encoded form.
    public struct QueryItem: Hashable, Sendable {
        /// Normalised, still percent-encoded name.
        public let name: String
        /// Normalised, still percent-encoded value; nil when the item has no `=`.
        public let value: String?
        /// True when the decoded name is one of the policy's `tokenQueryParameters`.
        public let isToken: Bool
    }

    /// The fields, in one immutable object: an asset URL is copied into every fetch request,
    /// slot and action a session makes, and a copy of one reference is one retain where a copy of
    /// six strings and an array was six (and 96 bytes moved).
    final class Storage: Sendable {
        let scheme: String
        let host: String
        let port: UInt16?
        let path: String
        let queryItems: [QueryItem]
        let absoluteString: String
        let cacheKey: String

        init(scheme: String, host: String, port: UInt16?, path: String, queryItems: [QueryItem], absoluteString: String, cacheKey: String) {
            self.scheme = scheme
            self.host = host
            self.port = port
            self.path = path
            self.queryItems = queryItems
            self.absoluteString = absoluteString
            self.cacheKey = cacheKey
        }
    }

    let storage: Storage

    /// `https`, or `http` for a plain-http test host.
    public var scheme: String { storage.scheme }
    /// Lowercase ASCII host name (punycode for internationalised names).
    public var host: String { storage.host }
    /// Explicit non-default port; nil means the scheme's default (443, or 80 for http).
    public var port: UInt16? { storage.port }
    /// Normalised path, starting with `/`.
    public var path: String { storage.path }
    /// Query items in their original order.
    public var queryItems: [QueryItem] { storage.queryItems }
    /// The normalised URL, token parameters included (what to fetch).
    public var absoluteString: String { storage.absoluteString }
    /// The normalised URL without token query parameters: stable across token rotation, so
    /// re-signed URLs of one asset share a cache entry. Other parameters keep their original order.
    public var cacheKey: String { storage.cacheKey }

    /// The preload-store key of this asset, derived from `cacheKey`.
    public var storeKey: StoreKey { StoreKey(cacheKey: cacheKey) }

    /// The URL with token parameter values replaced by `<redacted>`, safe for logs.
    public var description: String {
        var text = origin() + path
        for (offset, item) in queryItems.enumerated() {
            text += offset == 0 ? "?" : "&"
            text += item.name
            if let value = item.value { text += "=" + (item.isToken ? "<redacted>" : value) }
        }
        return text
    }

    /// Equal when every field is equal (the fields determine `absoluteString` and `cacheKey`).
    public static func == (a: AssetURL, b: AssetURL) -> Bool {
        a.storage === b.storage
            || (a.scheme == b.scheme && a.host == b.host && a.port == b.port && a.path == b.path && a.queryItems == b.queryItems)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(scheme)
        hasher.combine(host)
        hasher.combine(port)
        hasher.combine(path)
        hasher.combine(queryItems)
    }

    private init(scheme: String, host: String, port: UInt16?, path: String, queryItems: [QueryItem]) {
        let origin = Self.origin(scheme: scheme, host: host, port: port)
        storage = Storage(scheme: scheme, host: host, port: port, path: path, queryItems: queryItems,
                          absoluteString: origin + path + Self.queryString(queryItems),
                          cacheKey: origin + path + Self.queryString(queryItems.filter { !$0.isToken }))
    }

    private func origin() -> String { Self.origin(scheme: scheme, host: host, port: port) }

    private static func origin(scheme: String, host: String, port: UInt16?) -> String {
        if let port { return scheme + "://" + host + ":" + String(port) }
        return scheme + "://" + host
    }

    private static func queryString(_ items: [QueryItem]) -> String {
        if items.isEmpty { return "" }
        var text = "?"
        for (offset, item) in items.enumerated() {
            if offset > 0 { text += "&" }
            text += item.name
            if let value = item.value { text += "=" + value }
        }
        return text
    }

    /// Parses and validates `string` under `policy`.
    ///
    /// Checks, in order: length (`tooLong`), raw control characters (`controlCharacter`), scheme
    /// (`malformed`, `notHTTPS`), `//`, user info (`userInfoPresent`), host syntax (`emptyHost`,
    /// `malformed`), plain http only for `plainHTTPHosts` (`notHTTPS("http")`), allowlist
    /// (`hostNotAllowed`), port (https: only 443), fragment (`fragmentPresent`), path and query
    /// characters and percent-encoding (`malformed`, `badPercentEncoding`, `controlCharacter`),
    /// dot segments and encoded separators (`pathTraversal`).
    /// - Throws: the first `URLRejection` found.
    /// - Complexity: O(n) in the URL's length (bounded by `policy.urlLengthMax`) plus the allowlist scan.
    public static func parse(_ string: String, policy: URLPolicy) throws(URLRejection) -> AssetURL {
        let length = string.utf8.count
        guard length <= policy.urlLengthMax else { throw .tooLong(length: length, max: policy.urlLengthMax) }
        let bytes = Array(string.utf8)
        if bytes.contains(where: ASCII.isControl) { throw .controlCharacter }

        // Scheme.
        guard let colon = bytes.firstIndex(of: ASCII.colon) else {
            throw .malformed("there is no scheme; expected a URL starting with \"https://\"")
        }
        let schemeBytes = bytes[..<colon]
        guard let firstSchemeByte = schemeBytes.first, ASCII.isAlpha(firstSchemeByte),
            schemeBytes.allSatisfy({ ASCII.isAlpha($0) || ASCII.isDigit($0) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E })
        else {
            throw .malformed("the scheme must start with a letter and contain only letters, digits, '+', '-' or '.'")
        }
        let scheme = String(decoding: schemeBytes.map { ASCII.lowercased($0) }, as: UTF8.self)
        guard scheme == "https" || scheme == "http" else { throw .notHTTPS(scheme) }
        guard bytes.count >= colon + 3, bytes[colon + 1] == ASCII.slash, bytes[colon + 2] == ASCII.slash else {
            throw .malformed("expected \"//\" after \"\(scheme):\"")
        }

        // Authority: host[:port], no user info.
        let authorityStart = colon + 3
        let authorityEnd = bytes[authorityStart...].firstIndex {
            $0 == ASCII.slash || $0 == ASCII.questionMark || $0 == ASCII.hash
        } ?? bytes.endIndex
        let authority = bytes[authorityStart..<authorityEnd]
        if authority.contains(ASCII.at) { throw .userInfoPresent }
        if authority.contains(ASCII.backslash) {
            throw .malformed("the authority contains '\\'; only '/' may end the host")
        }
        if authority.first == ASCII.openBracket {
            throw .malformed("IP-literal hosts (\"[...]\") are not supported")
        }
        let portColon = authority.firstIndex(of: ASCII.colon)
        let hostBytes = Array(authority[..<(portColon ?? authority.endIndex)].map { ASCII.lowercased($0) })
        if hostBytes.isEmpty { throw .emptyHost }
        if let problem = HostNameCheck.problem(hostBytes[...]) { throw .malformed(problem) }
        let host = String(decoding: hostBytes, as: UTF8.self)
        var port: UInt16?
        if let portColon {
            port = try parsePort(authority[(portColon + 1)...])
        }

        // `scheme` and `host` are ASCII here (checked above), so `==` on them compares bytes; the
        // plain-http list may hold any text, so it is matched by bytes.
        if scheme == "http" && !ASCII.setContainsExactly(policy.plainHTTPHosts, host) { throw .notHTTPS(scheme) }
        guard policy.allowlist.allows(host) else { throw .hostNotAllowed(host) }
        if scheme == "https", let explicitPort = port, explicitPort != 443 {
            throw .malformed("port \(explicitPort) is not allowed for https; only 443 is")
        }
        if (scheme == "https" && port == 443) || (scheme == "http" && port == 80) { port = nil }

        // Path and query.
        let rest = bytes[authorityEnd...]
        if rest.contains(ASCII.hash) { throw .fragmentPresent }
        let queryMark = rest.firstIndex(of: ASCII.questionMark)
        let pathBytes = rest[..<(queryMark ?? rest.endIndex)]
        let path = try normalizedPath(pathBytes)
        var queryItems: [QueryItem] = []
        if let queryMark {
            queryItems = try parseQuery(rest[(queryMark + 1)...], tokenNames: policy.tokenQueryParameters)
        }

        let url = AssetURL(scheme: scheme, host: host, port: port, path: path, queryItems: queryItems)
        // Normalisation can lengthen a URL by one byte (an empty path becomes "/"); keep the
        // guarantee that `absoluteString` parses again under the same policy.
        let normalisedLength = url.absoluteString.utf8.count
        guard normalisedLength <= policy.urlLengthMax else {
            throw .tooLong(length: normalisedLength, max: policy.urlLengthMax)
        }
        return url
    }

    private static func parsePort(_ digits: ArraySlice<UInt8>) throws(URLRejection) -> UInt16 {
        let text = String(decoding: digits, as: UTF8.self)
        guard !digits.isEmpty else { throw .malformed("the port after ':' is empty") }
        guard digits.count <= 5, digits.allSatisfy(ASCII.isDigit) else {
            throw .malformed("the port \"\(text)\" is not a decimal number of at most 5 digits")
        }
        guard digits.count == 1 || digits.first != 0x30 else {
            throw .malformed("the port \"\(text)\" has a leading zero")
        }
        var value = 0
        for digit in digits { value = value * 10 + Int(digit - 0x30) }
        guard value >= 1 else { throw .malformed("the port 0 is not a usable port") }
        guard value <= Int(UInt16.max) else { throw .malformed("the port \(value) is above 65535") }
        return UInt16(value)
    }

    /// Validates and normalises the path; rejects `.`/`..` segments and encoded separators.
    private static func normalizedPath(_ pathBytes: ArraySlice<UInt8>) throws(URLRejection) -> String {
        if pathBytes.isEmpty { return "/" }
        let rawPath = String(decoding: pathBytes, as: UTF8.self)
        var out: [UInt8] = []
        out.reserveCapacity(pathBytes.count)
        var segmentStart = pathBytes.startIndex + 1  // pathBytes starts with "/" (the authority ended there)
        out.append(ASCII.slash)
        while segmentStart <= pathBytes.endIndex {
            let segmentEnd = pathBytes[segmentStart...].firstIndex(of: ASCII.slash) ?? pathBytes.endIndex
            let segment = pathBytes[segmentStart..<segmentEnd]
            let normalisedStart = out.count
            try appendNormalised(segment, to: &out, component: .path, rawPath: rawPath)
            // A segment is a dot segment if its part before any ";parameters" is "." or ".."
            // (some servers drop path parameters before resolving dots, e.g. "/..;/").
            let normalised = out[normalisedStart...]
            if containsDoubleEncodedDotOrSeparator(normalised) { throw .pathTraversal(rawPath) }
            let beforeParameters = normalised[..<(normalised.firstIndex(of: ASCII.semicolon) ?? normalised.endIndex)]
            if beforeParameters.elementsEqual([ASCII.dot]) || beforeParameters.elementsEqual([ASCII.dot, ASCII.dot]) {
                throw .pathTraversal(rawPath)
            }
            if segmentEnd < pathBytes.endIndex { out.append(ASCII.slash) }
            segmentStart = segmentEnd + 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// True when a normalised segment holds `%25` followed by the hex of `.`, `/` or `\\`: a second
    /// decoding (by a proxy or origin that decodes twice) would produce a dot segment or a separator.
    /// Checked on the normalised form so that `%25%32%65` (normalised to `%252e`) is caught too.
    private static func containsDoubleEncodedDotOrSeparator(_ segment: ArraySlice<UInt8>) -> Bool {
        var index = segment.startIndex
        while index + 4 < segment.endIndex {
            if segment[index] == ASCII.percent, segment[index + 1] == 0x32, segment[index + 2] == 0x35,
                let high = ASCII.hexValue(segment[index + 3]), let low = ASCII.hexValue(segment[index + 4]) {
                let twice = high << 4 | low
                if twice == ASCII.dot || twice == ASCII.slash || twice == ASCII.backslash { return true }
            }
            index += 1
        }
        return false
    }

    private static func parseQuery(
        _ queryBytes: ArraySlice<UInt8>, tokenNames: Set<String>
    ) throws(URLRejection) -> [QueryItem] {
        var items: [QueryItem] = []
        var itemStart = queryBytes.startIndex
        while itemStart <= queryBytes.endIndex {
            let itemEnd = queryBytes[itemStart...].firstIndex(of: ASCII.ampersand) ?? queryBytes.endIndex
            let item = queryBytes[itemStart..<itemEnd]
            if !item.isEmpty {
                let equals = item.firstIndex(of: ASCII.equals)
                var name: [UInt8] = []
                try appendNormalised(item[..<(equals ?? item.endIndex)], to: &name, component: .query, rawPath: "")
                var value: [UInt8]?
                if let equals {
                    var valueBytes: [UInt8] = []
                    try appendNormalised(item[(equals + 1)...], to: &valueBytes, component: .query, rawPath: "")
                    value = valueBytes
                }
                // Token names are matched by their exact bytes (see `URLPolicy.tokenQueryParameters`);
                // a name that is not valid UTF-8 (it would decode with U+FFFD) is never a token.
                let decodedBytes = percentDecoded(name)
                let decodedName = String(decoding: decodedBytes, as: UTF8.self)
                let isToken = decodedName.utf8.elementsEqual(decodedBytes) && ASCII.setContainsExactly(tokenNames, decodedName)
                items.append(QueryItem(
                    name: String(decoding: name, as: UTF8.self),
                    value: value.map { String(decoding: $0, as: UTF8.self) },
                    isToken: isToken))
            }
            itemStart = itemEnd + 1
        }
        return items
    }

    private enum Component { case path, query }

    /// Appends `raw` to `out` with percent-encodings validated and normalised (unreserved characters
    /// decoded, other escapes in uppercase hex). Path segments must not hide separators (`%2F`, `%5C`).
    private static func appendNormalised(
        _ raw: ArraySlice<UInt8>, to out: inout [UInt8], component: Component, rawPath: String
    ) throws(URLRejection) {
        let componentName = component == .path ? "path" : "query"
        var index = raw.startIndex
        while index < raw.endIndex {
            let byte = raw[index]
            if byte == ASCII.percent {
                guard index + 2 < raw.endIndex,
                    let high = ASCII.hexValue(raw[index + 1]), let low = ASCII.hexValue(raw[index + 2])
                else { throw .badPercentEncoding }
                let decoded = high << 4 | low
                if ASCII.isControl(decoded) { throw .controlCharacter }
                if component == .path && (decoded == ASCII.slash || decoded == ASCII.backslash) {
                    throw .pathTraversal(rawPath)
                }
                if ASCII.isUnreserved(decoded) {
                    out.append(decoded)
                } else {
                    out.append(ASCII.percent)
                    out.append(ASCII.upperHexDigits[Int(high)])
                    out.append(ASCII.upperHexDigits[Int(low)])
                }
                index += 3
                continue
            }
            if byte == ASCII.backslash {
                throw .malformed(component == .path
                    ? "the path contains '\\'; backslashes are not allowed in paths"
                    : "the query contains '\\'; percent-encode it as %5C")
            }
            if byte == ASCII.space { throw .malformed("the \(componentName) contains a space; encode it as %20") }
            if byte >= 0x80 { throw .malformed("the \(componentName) contains a non-ASCII character; percent-encode it") }
            let allowedRaw = ASCII.isUnreserved(byte) || ASCII.isSubDelimiter(byte) || byte == ASCII.colon
                || byte == ASCII.at || (component == .query && (byte == ASCII.slash || byte == ASCII.questionMark))
            guard allowedRaw else {
                throw .malformed("the \(componentName) contains \(ASCII.describe(byte)); percent-encode it")
            }
            out.append(byte)
            index += 1
        }
    }

    /// Decodes `%XX` sequences of an already validated component.
    private static func percentDecoded(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == ASCII.percent, index + 2 < bytes.count,
                let high = ASCII.hexValue(bytes[index + 1]), let low = ASCII.hexValue(bytes[index + 2]) {
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return out
    }
}
