import Foundation
import InfraModel
import PreloadKit

/// A campaign's push as the campaign service sends it: an inline `cdn_preload` manifest, signed
/// with the app's key (PreloadKit's canonical form, HMAC-SHA256, `v1=` hex), and the mapping of
/// the model's network classes onto PreloadKit's. Used by the simulation's campaign plans and by
/// the loopback testbed's real devices, so both receive the same payloads.
public enum CampaignPayload {
    /// The signed push JSON for `assets` (indices into `campaign.assets`); each asset's URL is
    /// `url(asset, variantNetwork)` (nil: the asset's own URL).
    /// - Throws: PreloadKit's rejection when the unsigned document is not a valid payload.
    public static func signedJSON(_ campaign: CampaignConfig, assets: [Int], silent: Bool, options: PayloadOptions,
                                  url: (AssetConfig, String?) -> String) throws(PayloadRejection) -> [UInt8] {
        func json(signature: String?) -> [UInt8] {
            var s = silent ? #"{"aps":{"content-available":1},"# : #"{"aps":{"alert":{"title":"New","body":"Tap to see"},"mutable-content":1},"#
            s += #""cdn_preload":{"manifest_id":"\#(campaign.name)","assets":["#
            for (i, a) in assets.enumerated() {
                let asset = campaign.assets[a]
                if i > 0 { s += "," }
                s += #"{"url":"\#(url(asset, nil))","type":"\#(asset.type.rawValue)","#
                s += #""priority":"\#(asset.priority.rawValue)","bytes":\#(asset.bytes)"#
                if !asset.variants.isEmpty {
                    s += #","variants":{"#
                    for (j, v) in asset.variants.enumerated() {
                        if j > 0 { s += "," }
                        s += #""\#(v.network)":{"url":"\#(url(asset, v.network))","bytes":\#(v.bytes)}"#
                    }
                    s += "}"
                }
                s += "}"
            }
            s += #"],"ttl":\#(campaign.ttlSeconds)"#
            if let signature { s += #","signature":"\#(signature)""# }
            s += "}}"
            return Array(s.utf8)
        }
        let unsigned = try PayloadValue.parseJSON(json(signature: nil), limits: options.limits)
        let canonical = try PayloadParser.canonicalForm(of: unsigned, options: options)
        let mac = HMACSHA256.mac(key: options.signingKey, message: canonical)
        var hex = "v1="
        for b in mac { hex += String(b, radix: 16).count == 1 ? "0" + String(b, radix: 16) : String(b, radix: 16) }
        return json(signature: hex)
    }

    /// PreloadKit's network class for an InfraModel class (LTE and 4G are both PreloadKit's 4G).
    public static func preloadNetwork(_ c: InfraModel.NetworkClass) -> PreloadKit.NetworkClass {
        switch c {
        case .wifi: return .wifi
        case .fiveG: return .cellular5G
        case .lte, .fourG: return .cellular4G
        case .threeG: return .cellular3G
        case .twoG: return .cellular2G
        case .slow2G: return .slow2G
        }
    }
}
