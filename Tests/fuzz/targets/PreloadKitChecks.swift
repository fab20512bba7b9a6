// What every request PreloadKit accepts must satisfy, whatever the input (PayloadParser's
// documented guarantees; the same properties as Tests/PreloadKitTests/PayloadFuzzTests).
import PreloadKit

enum Fuzz {
    /// The key the committed seeds are signed with (Tests/PreloadKitTests' `Fixtures.signingKey`).
    static let signingKey: [UInt8] = Array("prestage-test-signing-key-0123456789".utf8)
    static let urlPolicy = URLPolicy(allowlist: ["cdn.example.com", "*.cdn.example.net"])

    static func options(_ requirement: SignatureRequirement) -> PayloadOptions {
        PayloadOptions(urlPolicy: urlPolicy, signingKey: signingKey, signatureRequirement: requirement)
    }

    /// Checks an accepted request against the options it was parsed with.
    static func checkAccepted(_ r: PreStageRequest, _ options: PayloadOptions, _ what: String) {
        let limits = options.limits
        var urls = r.assets.map(\.url) + r.assets.flatMap { $0.variants.map(\.url) }
        if let m = r.manifestURL { urls.append(m) }
        for u in urls {
            require(u.scheme == "https" || options.urlPolicy.plainHTTPHosts.contains(u.host), "\(what): non-https URL \(u) accepted")
            require(options.urlPolicy.allowlist.allows(u.host), "\(what): URL \(u) off the allowlist accepted")
            // AssetURL: re-parsing the normalised form gives an equal value.
            let again = try? AssetURL.parse(u.absoluteString, policy: options.urlPolicy)
            require(again == u, "\(what): \(u.absoluteString) does not re-parse to itself")
        }
        require(r.assets.count <= limits.assetsMax, "\(what): \(r.assets.count) assets > assetsMax")
        require(r.ttlSeconds >= limits.ttlSecondsMin && r.ttlSeconds <= limits.ttlSecondsMax, "\(what): ttl \(r.ttlSeconds) out of range")
        for a in r.assets {
            require(a.key == StoreKey(cacheKey: a.url.cacheKey), "\(what): store key not derived from the URL")
            if let d = a.declaredBytes { require(d >= 1 && d <= limits.declaredBytesMax, "\(what): declared bytes \(d) out of range") }
            require(a.variants.count <= limits.variantsMax, "\(what): too many variants")
            var seen = Set<NetworkClass>()
            for v in a.variants {
                require(seen.insert(v.network).inserted, "\(what): two variants for \(v.network)")
                require(v.key == StoreKey(cacheKey: v.url.cacheKey), "\(what): variant key not derived from its URL")
                if let d = v.declaredBytes { require(d >= 1 && d <= limits.declaredBytesMax, "\(what): variant bytes \(d) out of range") }
            }
        }
        switch options.signatureRequirement {
        case .required: require(r.signature == .verified, "\(what): accepted under .required without a verified signature")
        case .ifPresent: require(r.signature != .notChecked, "\(what): .ifPresent reported notChecked")
        case .none: require(r.signature == .notChecked, "\(what): .none reported \(r.signature)")
        }
        // The tag `PayloadParser.manifestTag` documents: of the manifest_id / pre_stage_id, or for a
        // rich push of the attachment URL's cacheKey.
        let tagText = r.format == .richPush ? (r.assets.first?.url.cacheKey ?? "") : r.manifestID
        require(r.manifestTag == PayloadParser.manifestTag(format: r.format, manifestID: tagText), "\(what): manifest tag not derived")
    }
}
