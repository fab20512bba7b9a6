// Fuzz target `manifest`: PayloadParser.parseReferencedManifest over arbitrary fetched manifest
// documents, for two references (the signed fixture push without campaign, and an unsigned one
// with a `campaign_id`), under each signature requirement, at a fixed `now`.
// Properties: no crash; an accepted manifest meets PayloadParser's guarantees, answers its
// reference (same manifest_id, campaign, manifest URL; format .manifestReference, assets known)
// and passes `checkReferencedManifest` (the path a simulator takes for a shared parsed manifest);
// acceptance is monotone in the signature requirement.
import PreloadKit

enum References {
    /// Tests/PreloadKitTests/PayloadFixtures.swift `Payloads.reference` (signed with Fuzz.signingKey).
    static let signed = #"{"aps":{"alert":{"title":"New mix","body":"Tap to play"},"mutable-content":1},"cdn_preload":{"manifest_id":"mix_wk43_ab12","manifest_url":"https://cdn.example.com/preload/manifests/mix_wk43.json","signature":"v1=767b148e85bb020a6adc164d2cca55f264a4922e3372d2ad88e4c253ffa987d3"}}"#
    static let campaign = #"{"aps":{"content-available":1},"cdn_preload":{"manifest_id":"flash_1","manifest_url":"https://img.cdn.example.net/m/flash_1.json","campaign_id":"bf-2024:eu","exp":1700003600}}"#
    static let all: [PreStageRequest] = [
        try! PayloadParser.parse(json: Array(signed.utf8), options: Fuzz.options(.required)),
        try! PayloadParser.parse(json: Array(campaign.utf8), options: Fuzz.options(.none)),
    ]
}

/// 2023-11-14T22:13:20Z on the app timeline (microseconds since the Unix epoch).
let fuzzNow = Instant(microseconds: 1_700_000_000 * 1_000_000)

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzManifest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let json = Array(UnsafeBufferPointer(start: data, count: size))
    for reference in References.all {
        var accepted: [SignatureRequirement: PreStageRequest] = [:]
        for requirement in SignatureRequirement.allCases {
            let options = Fuzz.options(requirement)
            do {
                let m = try PayloadParser.parseReferencedManifest(json: json, for: reference, options: options, now: fuzzNow)
                let what = "manifest for \(reference.manifestID) (\(requirement))"
                Fuzz.checkAccepted(m, options, what)
                require(m.format == .manifestReference && m.assetsKnown, "\(what): format \(m.format), assetsKnown \(m.assetsKnown)")
                require(m.manifestID == reference.manifestID, "\(what): manifest_id \(m.manifestID)")
                require(m.manifestURL == reference.manifestURL, "\(what): manifest URL changed")
                if let c = reference.campaignID { require(m.campaignID == c, "\(what): campaign \(m.campaignID ?? "nil") for \(c)") }
                require((try? PayloadParser.checkReferencedManifest(m, for: reference, options: options, now: fuzzNow)) != nil,
                        "\(what): accepted by parseReferencedManifest, refused by checkReferencedManifest")
                accepted[requirement] = m
            } catch {
                require(!error.description.isEmpty && error.path.hasPrefix("$"), "refusal without a path or reason: \(error)")
            }
        }
        if accepted[.required] != nil { require(accepted[.ifPresent] != nil && accepted[.none] != nil, "accepted under .required only") }
        if accepted[.ifPresent] != nil { require(accepted[.none] != nil, "accepted under .ifPresent, not under .none") }
    }
    return 0
}
