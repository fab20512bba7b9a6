// Fuzz target `payload`: PayloadParser over arbitrary push payload bytes, all four forms (inline
// manifest, manifest by reference, silent push, rich push), under each signature requirement.
// Properties: no crash; an accepted request meets PayloadParser's guarantees (Fuzz.checkAccepted);
// acceptance is monotone in the requirement (accepted with a verified signature under .required
// ⇒ accepted under .ifPresent ⇒ accepted under .none, with the same content); the canonical form
// of an accepted payload exists; the expiry check agrees with the request's `expiresAt`.
import PreloadKit

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzPayload(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let json = Array(UnsafeBufferPointer(start: data, count: size))
    var accepted: [SignatureRequirement: PreStageRequest] = [:]
    for requirement in SignatureRequirement.allCases {
        let options = Fuzz.options(requirement)
        do {
            let r = try PayloadParser.parse(json: json, options: options)
            Fuzz.checkAccepted(r, options, "payload (\(requirement))")
            accepted[requirement] = r
        } catch {
            require(!error.description.isEmpty && error.path.hasPrefix("$"), "refusal without a path or reason: \(error)")
        }
    }
    if let strict = accepted[.required] {
        require(accepted[.ifPresent] != nil, "accepted under .required but not under .ifPresent")
        require(accepted[.none] != nil, "accepted under .required but not under .none")
        for other in [accepted[.ifPresent], accepted[.none]].compactMap({ $0 }) {
            require(other.assets == strict.assets && other.manifestID == strict.manifestID && other.format == strict.format
                    && other.ttlSeconds == strict.ttlSeconds && other.expiresAt == strict.expiresAt && other.campaignID == strict.campaignID,
                    "the signature requirement changed the parsed content")
        }
    }
    if let loose = accepted[.none] {
        // The canonical signing form exists for every payload accepted without verification.
        let value = try? PayloadValue.parseJSON(json)
        require(value != nil, "accepted bytes that PayloadValue.parseJSON refuses")
        if let value { require((try? PayloadParser.canonicalForm(of: value, options: Fuzz.options(.required))) != nil, "no canonical form for an accepted payload") }
        // Replay: accepted at its `exp`, refused more than the tolerance (60 s) after it.
        if let exp = loose.expiresAt {
            let options = Fuzz.options(.none)
            require((try? PayloadParser.checkExpiry(of: loose, now: exp, options: options)) != nil, "refused at its own exp")
            let after = exp.advanced(bySeconds: 61)
            if after.microseconds(since: exp) == 61_000_000 {
                require((try? PayloadParser.checkExpiry(of: loose, now: after, options: options)) == nil, "accepted 61 s after its exp")
            }
        }
    }
    return 0
}
