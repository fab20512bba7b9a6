import Foundation
import InfraModel
import PreloadKit

/// A campaign's push as the campaign service sends it, in one of PreloadKit's four payload forms
/// (`PayloadFormConfig`), signed with the app's key (PreloadKit's canonical form, HMAC-SHA256,
/// `v1=` hex); the manifest a `manifestReference` push points at; and the mapping of the model's
/// network classes onto PreloadKit's. Used by the simulation's campaign plans and by the loopback
/// testbed's real devices, so both receive the same payloads.
package enum CampaignPayload {
    /// The largest push payload the providers deliver, bytes: "APNs still caps you at 4KB … FCM is
    /// similarly strict at around 4KB" (the reference article); Apple documents 4 096 bytes for a
    /// regular remote notification, the figure taken for both.
    package static let pushBytesMax = 4_096

    /// A document built around its signature field (nil: unsigned).
    package typealias Document = (_ signature: String?) -> [UInt8]

    /// The push JSON of `form` for `assets` (indices into `campaign.assets`; `silentURL` and
    /// `richAttachment` use the first); each asset's URL is `url(asset, variantNetwork)` (nil: the
    /// asset's own URL); `manifestURL` is the referenced manifest's (`manifestReference` only).
    /// The push is bound to the campaign (`campaign_id`) and, with `expirySeconds`, expires then
    /// (`exp`, whole seconds on PreloadKit's `Instant` timeline), both covered by the signature.
    package static func pushDocument(_ campaign: CampaignConfig, form: PayloadFormConfig, assets: [Int], silent: Bool, expirySeconds: Int64?,
                                    manifestURL: String = "", openPercent: Int? = nil, extraAssets: String = "",
                                    url: @escaping (AssetConfig, String?) -> String) -> Document {
        let aps = silent ? #""aps":{"content-available":1}"# : #""aps":{"alert":{"title":"New","body":"Tap to see"},"mutable-content":1}"#
        let replay = replayMembers(campaign, expirySeconds: expirySeconds) + hintMember(openPercent)
        return { signature in
            var s = "{" + aps + ","
            switch form {
            case .inline:
                s += #""cdn_preload":"# + inlineManifest(campaign, assets: assets, expirySeconds: expirySeconds, openPercent: openPercent,
                                                         signature: signature, extraAssets: extraAssets, url: url)
            case .manifestReference:
                s += #""cdn_preload":{"manifest_id":"\#(campaign.name)","manifest_url":"\#(manifestURL)""# + replay
                    + signatureMember(signature) + "}"
            case .silentURL:
                let asset = campaign.assets[assets[0]]
                s += #""pre_stage_url":"\#(url(asset, nil))","pre_stage_id":"\#(campaign.name)","pre_stage_type":"\#(asset.type.rawValue)""#
                    + replay + signatureMember(signature)
            case .richAttachment:
                let asset = campaign.assets[assets[0]]
                s += #""au":"\#(url(asset, nil))","at":"\#(fileExtension(asset.type))""# + replay + signatureMember(signature)
            }
            return Array((s + "}").utf8)
        }
    }

    /// The manifest document a `manifestReference` push points at: the inline manifest of every
    /// asset (`{"cdn_preload":{...}}`), bound to the campaign and expiring like the push.
    package static func manifestDocument(_ campaign: CampaignConfig, expirySeconds: Int64?, url: @escaping (AssetConfig, String?) -> String) -> Document {
        { signature in
            Array((#"{"cdn_preload":"# + inlineManifest(campaign, assets: Array(campaign.assets.indices), expirySeconds: expirySeconds,
                                                        signature: signature, url: url) + "}").utf8)
        }
    }

    /// The signed inline-manifest push JSON for `assets` (`pushDocument` of the `inline` form, signed).
    /// - Throws: PreloadKit's rejection when the unsigned document is not a valid payload.
    package static func signedJSON(_ campaign: CampaignConfig, assets: [Int], silent: Bool, expirySeconds: Int64?, options: PayloadOptions,
                                  url: @escaping (AssetConfig, String?) -> String) throws(PayloadRejection) -> [UInt8] {
        try signed(pushDocument(campaign, form: .inline, assets: assets, silent: silent, expirySeconds: expirySeconds, url: url), options: options)
    }

    /// `document` signed with `options.signingKey`.
    /// - Throws: PreloadKit's rejection when the unsigned document is not a valid payload.
    package static func signed(_ document: Document, options: PayloadOptions) throws(PayloadRejection) -> [UInt8] {
        let unsigned = try PayloadValue.parseJSON(document(nil), limits: options.limits)
        let canonical = try PayloadParser.canonicalForm(of: unsigned, options: options)
        let mac = HMACSHA256.mac(key: options.signingKey, message: canonical)
        let digits = Array("0123456789abcdef".utf8)
        var hex = Array("v1=".utf8)
        for b in mac { hex += [digits[Int(b >> 4)], digits[Int(b & 0x0F)]] }
        return document(String(decoding: hex, as: UTF8.self))
    }

    /// The bytes of `document` once signed: a `v1` signature is always `v1=` and 64 hex digits, so
    /// the size is known before signing (and before PreloadKit's own document limit is applied).
    package static func signedBytes(_ document: Document) -> Int {
        document("v1=" + String(repeating: "0", count: 64)).count
    }

    /// The members of an inline manifest object, `{` to `}`.
    /// `extraAssets`: further asset members (JSON objects, comma-separated) after `assets`.
    static func inlineManifest(_ campaign: CampaignConfig, assets: [Int], expirySeconds: Int64?, openPercent: Int? = nil, signature: String?,
                               extraAssets: String = "", url: (AssetConfig, String?) -> String) -> String {
        var s = #"{"manifest_id":"\#(campaign.name)","assets":["#
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
        if !extraAssets.isEmpty { s += (assets.isEmpty ? "" : ",") + extraAssets }
        s += #"],"ttl":\#(campaign.ttlSeconds)"# + replayMembers(campaign, expirySeconds: expirySeconds) + hintMember(openPercent)
            + signatureMember(signature)
        return s + "}"
    }

    /// `,"campaign_id":…` and, with an expiry, `,"exp":…`.
    static func replayMembers(_ campaign: CampaignConfig, expirySeconds: Int64?) -> String {
        #","campaign_id":"\#(campaign.name)""# + (expirySeconds.map { #","exp":\#($0)"# } ?? "")
    }

    /// `,"open_pct":…` with a hint (whole percent), else nothing.
    static func hintMember(_ openPercent: Int?) -> String {
        openPercent.map { #","open_pct":\#($0)"# } ?? ""
    }

    static func signatureMember(_ signature: String?) -> String {
        signature.map { #","signature":"\#($0)""# } ?? ""
    }

    /// The path of a campaign's referenced manifest on the CDN host: `/manifests/CAMPAIGN.json`
    /// (outside `/preload/`, so no asset's path can be the same).
    package static func manifestPath(campaign: String) -> String { "/manifests/\(campaign).json" }

    /// The path of an asset (or of its variant for `network`) on the CDN host:
    /// `/preload/CAMPAIGN/ASSET[-NETWORK].EXT`.
    package static func path(campaign: String, asset: AssetConfig, network: String?) -> String {
        "/preload/\(asset.urlCampaign ?? campaign)/\(asset.name)\(network.map { "-\($0)" } ?? "").\(fileExtension(asset.type))"
    }

    /// The file extension of a declared type's URLs.
    package static func fileExtension(_ t: AssetTypeConfig) -> String {
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
    package static func media(_ t: AssetTypeConfig) -> (contentType: String, prefix: [UInt8]) {
        switch t {
        case .image: return ("image/jpeg", [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01])
        case .video: return ("video/mp4", [0x00, 0x00, 0x00, 0x18, 0x66, 0x74, 0x79, 0x70, 0x69, 0x73, 0x6F, 0x6D])
        case .audio: return ("audio/mpeg", [0x49, 0x44, 0x33, 0x03, 0, 0, 0, 0, 0, 0, 0, 0])
        case .hls: return ("application/vnd.apple.mpegurl", Array("#EXTM3U\n#EXT".utf8))
        case .json: return ("application/json", Array("{\"items\":[1]".utf8))
        }
    }

    /// The Cache-Control header value of a campaign's assets.
    package static func cacheControl(_ c: CacheControlConfig) -> String { c.headerValue }

    /// The `variants` keys of PreloadKit's classes for InfraModel's network classes, in InfraModel's
    /// order, each once (`wifi`, `5g`, `4g`, `3g`, `2g`, `slow-2g`: LTE and 4G share `4g`).
    static let variantNetworkKeys: [String] = {
        var keys: [String] = []
        for c in InfraModel.NetworkClass.allCases {
            let key = preloadNetwork(c).payloadKey
            if !keys.contains(key) { keys.append(key) }
        }
        return keys
    }()

    /// PreloadKit's network class for an InfraModel class (LTE and 4G are both PreloadKit's 4G).
    package static func preloadNetwork(_ c: InfraModel.NetworkClass) -> PreloadKit.NetworkClass {
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
