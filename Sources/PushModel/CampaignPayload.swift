import Foundation
import InfraModel
import PreloadKit

/// A campaign's push as the campaign service sends it: an inline `cdn_preload` manifest, signed
/// with the app's key (PreloadKit's canonical form, HMAC-SHA256, `v1=` hex), and the mapping of
/// the model's network classes onto PreloadKit's. Used by the simulation's campaign plans and by
/// the loopback testbed's real devices, so both receive the same payloads.
public enum CampaignPayload {
    /// The signed push JSON for `assets` (indices into `campaign.assets`); each asset's URL is
    /// `url(asset, variantNetwork)` (nil: the asset's own URL). The manifest is bound to the
    /// campaign (`campaign_id`) and, with `expirySeconds`, expires then (`exp`, whole seconds on
    /// PreloadKit's `Instant` timeline), both covered by the signature.
    /// - Throws: PreloadKit's rejection when the unsigned document is not a valid payload.
    public static func signedJSON(_ campaign: CampaignConfig, assets: [Int], silent: Bool, expirySeconds: Int64?, options: PayloadOptions,
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
            s += #"],"ttl":\#(campaign.ttlSeconds),"campaign_id":"\#(campaign.name)""#
            if let expirySeconds { s += #","exp":\#(expirySeconds)"# }
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

    /// The path of an asset (or of its variant for `network`) on the CDN host:
    /// `/preload/CAMPAIGN/ASSET[-NETWORK].EXT`.
    public static func path(campaign: String, asset: AssetConfig, network: String?) -> String {
        "/preload/\(asset.urlCampaign ?? campaign)/\(asset.name)\(network.map { "-\($0)" } ?? "").\(fileExtension(asset.type))"
    }

    /// The file extension of a declared type's URLs.
    public static func fileExtension(_ t: AssetTypeConfig) -> String {
        switch t {
        case .image: return "jpg"
        case .video: return "mp4"
        case .audio: return "mp3"
        case .hls: return "m3u8"
        case .json: return "json"
        }
    }

    /// The Content-Type and the first body bytes served for a declared type (PreloadKit checks
    /// both: MIME and magic bytes).
    public static func media(_ t: AssetTypeConfig) -> (contentType: String, prefix: [UInt8]) {
        switch t {
        case .image: return ("image/jpeg", [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01])
        case .video: return ("video/mp4", [0x00, 0x00, 0x00, 0x18, 0x66, 0x74, 0x79, 0x70, 0x69, 0x73, 0x6F, 0x6D])
        case .audio: return ("audio/mpeg", [0x49, 0x44, 0x33, 0x03, 0, 0, 0, 0, 0, 0, 0, 0])
        case .hls: return ("application/vnd.apple.mpegurl", Array("#EXTM3U\n#EXT".utf8))
        case .json: return ("application/json", Array("{\"items\":[1]".utf8))
        }
    }

    /// The Cache-Control header value of a campaign's assets.
    public static func cacheControl(_ c: CacheControlConfig) -> String { c.headerValue }

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
