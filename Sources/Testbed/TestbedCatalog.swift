import Foundation
import PreloadKit
import PushModel

/// The campaign's objects as the testbed's origin serves them and devices receive them in their
/// signed payloads: `http://127.0.0.1:PORT/preload/CAMPAIGN/ASSET[-NETWORK].EXT?token=T`, where
/// PORT is the device's link (its network class in front of its PoP).
///
/// Plain http to 127.0.0.1 is accepted only through PreloadKit's `URLPolicy.plainHTTPHosts`,
/// which PreloadKit's policy validation limits to loopback hosts: the production policy stays
/// https-only (see docs/testbed.md, "Why plain http").
package struct TestbedCatalog: Sendable {
    package struct Object: Sendable, Equatable {
        package var path: String
        package var bytes: Int64
        package var contentType: String
        package var prefix: [UInt8]
        package var cacheControl: String
    }

    /// HMAC key of the testbed's campaign service and devices.
    package static let signingKey: [UInt8] = Array("prestage-testbed-campaign-key".utf8)
    package static let host = "127.0.0.1"

    package let campaign: CampaignConfig
    /// Every path served: each asset and each of its variants, in campaign order.
    package let objects: [Object]
    /// The surrogate key every object of the campaign carries (purged by a creative swap).
    package var surrogateKey: String { "campaign-" + campaign.name }

    package init(campaign: CampaignConfig) {
        self.campaign = campaign
        let cacheControl = CampaignPayload.cacheControl(campaign.cacheControl)
        var objects: [Object] = []
        for asset in campaign.assets {
            let (type, prefix) = CampaignPayload.media(asset.type)
            objects.append(Object(path: Self.path(campaign.name, asset, network: nil), bytes: asset.bytes, contentType: type,
                                  prefix: prefix, cacheControl: cacheControl))
            for v in asset.variants {
                objects.append(Object(path: Self.path(campaign.name, asset, network: v.network), bytes: v.bytes, contentType: type,
                                      prefix: prefix, cacheControl: cacheControl))
            }
        }
        self.objects = objects
    }

    /// The campaign with every asset renamed `cal-NAME`: objects of the same sizes and types that
    /// only the calibration devices fetch.
    package static func calibrationCampaign(_ campaign: CampaignConfig) -> CampaignConfig {
        var c = campaign
        for i in c.assets.indices { c.assets[i].name = String(("cal-" + c.assets[i].name).prefix(64)) }
        return c
    }

    static func path(_ campaign: String, _ asset: AssetConfig, network: String?) -> String {
        CampaignPayload.path(campaign: campaign, asset: asset, network: network)
    }

    /// The payload options of the testbed's devices: the loopback host, plain http for it only,
    /// signatures required.
    package static func payloadOptions() -> PayloadOptions {
        let policy = URLPolicy(allowlist: [host], plainHTTPHosts: [host])
        return PayloadOptions(urlPolicy: policy, signingKey: signingKey, signatureRequirement: .required)
    }

    /// The signed push JSON for a device whose link listens on `port`, with its own `token`
    /// (built by PushModel's `CampaignPayload`, as the simulation's pushes are).
    package func payload(port: Int, token: String) throws(TestbedError) -> Data {
        let options = Self.payloadOptions()
        do {
            let signed = try CampaignPayload.signedJSON(campaign, assets: Array(campaign.assets.indices), silent: false, expirySeconds: nil, options: options) { asset, network in
                "http://\(Self.host):\(port)\(Self.path(campaign.name, asset, network: network))?token=\(token)"
            }
            _ = try PayloadParser.parse(json: signed, options: options)
            return Data(signed)
        } catch {
            throw .unsupportedScenario(path: "campaigns[0]", found: "a payload PreloadKit refuses (\(error))", expected: "a valid campaign")
        }
    }

    /// A device's signed-URL token (what a campaign service would mint per recipient).
    package static func token(device: Int) -> String {
        hex(Array(HMACSHA256.mac(key: signingKey, message: Array("device-\(device)".utf8)).prefix(12)))
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
