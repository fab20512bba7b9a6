// Fuzz target `url`: AssetURL.parse (the strict asset URL parser every payload URL goes through)
// under two policies (https only; and plain http allowed for the loopback test host), plus
// HostAllowlist patterns. The input's first line is the URL; further lines, if any, are
// allowlist patterns tried against the URL's host.
// Properties: no crash; an accepted URL is https (or http on a plainHTTPHosts host) on the
// allowlist, within urlLengthMax, without control characters, user info or fragment; re-parsing its
// absoluteString gives an equal value (documented), its cacheKey re-parses to the same cacheKey
// without token parameters, its storeKey is derived from the cacheKey and its description redacts
// every token value.
import PreloadKit

let policies: [URLPolicy] = [
    Fuzz.urlPolicy,
    URLPolicy(allowlist: ["cdn.example.com", "*.cdn.example.net", "127.0.0.1", "localhost"], plainHTTPHosts: ["127.0.0.1", "localhost"]),
]

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzURL(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let lines = UnsafeBufferPointer(start: data, count: size).split(separator: 10, omittingEmptySubsequences: false)
    let text = lines.first.map { String(decoding: $0, as: UTF8.self) } ?? ""
    for policy in policies {
        guard let url = try? AssetURL.parse(text, policy: policy) else { continue }
        let what = "\(text.debugDescription) → \(url.absoluteString.debugDescription)"
        require(url.scheme == "https" || (url.scheme == "http" && policy.plainHTTPHosts.contains(url.host)), "\(what): scheme \(url.scheme)")
        require(url.scheme != "https" || url.port == nil, "\(what): https with port \(url.port!)")
        require(policy.allowlist.allows(url.host), "\(what): host off the allowlist")
        require(url.host == url.host.lowercased(), "\(what): host not lowercase")
        require(url.path.hasPrefix("/"), "\(what): path without /")
        require(!url.absoluteString.utf8.contains(where: { $0 < 0x21 || $0 == 0x7F || $0 == 0x23 }), "\(what): control, space or # in the URL")
        // '@' may stand in a path or query (RFC 3986 pchar), never in the authority.
        require(!url.absoluteString.dropFirst(url.scheme.count + 3).prefix(while: { $0 != "/" }).contains("@"), "\(what): user info kept")
        let again = try? AssetURL.parse(url.absoluteString, policy: policy)
        require(again == url, "\(what): absoluteString re-parses to \(again?.absoluteString ?? "a rejection")")
        require(again?.cacheKey == url.cacheKey, "\(what): cacheKey changed on re-parse")
        let keyURL = try? AssetURL.parse(url.cacheKey, policy: policy)
        require(keyURL?.cacheKey == url.cacheKey, "\(what): cacheKey \(url.cacheKey) does not re-parse to itself")
        require(!(keyURL?.queryItems.contains(where: \.isToken) ?? false), "\(what): token parameter in the cacheKey")
        require(url.storeKey == StoreKey(cacheKey: url.cacheKey), "\(what): storeKey")
        for item in url.queryItems where item.isToken { require(item.value == nil || url.description.contains("=<redacted>"), "\(what): token not redacted") }
        for pattern in lines.dropFirst().prefix(8) {
            let p = String(decoding: pattern, as: UTF8.self)
            guard let list = try? HostAllowlist([p]) else { continue }
            let allowed = list.allows(url.host)
            require(list.allows(url.host.uppercased()) == allowed, "\(what): allowlist \(p) case-sensitive")
            require((try? HostAllowlist(list.patterns)) == list, "\(what): allowlist \(p) does not round-trip its patterns")
        }
    }
    // Patterns alone: a valid allowlist's canonical patterns build the same allowlist.
    let patterns = lines.dropFirst().prefix(8).map { String(decoding: $0, as: UTF8.self) }
    if let list = try? HostAllowlist(patterns) {
        require((try? HostAllowlist(list.patterns)) == list, "allowlist \(patterns) does not round-trip")
    }
    _ = URLPolicy.isLoopbackHost(text)
    return 0
}
