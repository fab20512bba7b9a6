import Foundation
import PreloadKit
import PushModel

// The scenario format of campaigns (`campaigns[i]`): keys, ranges and their wording.

extension AssetTypeConfig: Codable {}
extension AssetPriorityConfig: Codable {}
extension WarmModeConfig: Codable {}
extension IOSPushKindConfig: Codable {}
extension AndroidPriorityConfig: Codable {}
extension AndroidHandlerConfig: Codable {}
extension PayloadFormConfig: Codable {}

/// A name of 1–64 bytes from `[A-Za-z0-9._-]` (plus `:` when `colon`).
func nameRule(colon: Bool) -> ConfigRule<String> {
    ConfigRule("1–64 characters from [A-Za-z0-9._\(colon ? ":" : "")-]", found: { "\"\($0)\"" },
               schema: ["pattern": .string("^[A-Za-z0-9._\(colon ? ":" : "")-]{1,64}$")]) { name in
        !name.isEmpty && name.utf8.count <= 64 && name.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2E || b == 0x5F || b == 0x2D
                || (colon && b == 0x3A)
        }
    }
}

/// Bytes of one asset or rendition.
/// The payload limits every campaign's push must meet (PreloadKit's, the one definition).
private let payloadLimits = PayloadLimits()
/// An asset's or variant's bytes: what PreloadKit accepts in a payload.
private var assetBytes: ConfigRule<Int64> { .integers(1...payloadLimits.declaredBytesMax) }

extension AssetVariantConfig: Codable, ConfigReadable {
    static var defaultValue: AssetVariantConfig { AssetVariantConfig(network: "", bytes: 0) }
    static var fields: [ConfigField<AssetVariantConfig>] {
        [
            .init("network", \.network, required: true,
                  ConfigRule("one of \(networkKeys.joined(separator: ", "))", found: { "\"\($0)\"" },
                             schema: ["enum": .array(networkKeys.map(JSONValue.string))]) { networkKeys.contains($0) }),
            .init("bytes", \.bytes, required: true, assetBytes),
        ]
    }
}

extension AssetConfig: Codable, ConfigReadable {
    static var defaultValue: AssetConfig { AssetConfig() }
    static var fields: [ConfigField<AssetConfig>] {
        [
            .init("name", \.name, nameRule(colon: false)),
            .init("type", \.type),
            .init("priority", \.priority),
            .init("bytes", \.bytes, assetBytes),
            .init("variants", \.variants, .counts(0...payloadLimits.variantsMax, "at most \(payloadLimits.variantsMax) variants")),
            .init("urlCampaign", optional: \.urlCampaign, nameRule(colon: false)),
            // HLS playlists of variants (written only when set: other assets encode as before)
            .init("variantsKbps", \.variantsKbps, unwritten: defaultValue.variantsKbps, hlsVariantRule),
            .init("segmentSeconds", \.segmentSeconds, unwritten: defaultValue.segmentSeconds, .numbers(0.5...60, unit: "seconds")),
            .init("segmentCount", \.segmentCount, unwritten: defaultValue.segmentCount, .integers(1...1_000)),
            .init("audioKbps", optional: \.audioKbps, .integers(1...1_000)),
            .init("hlsByteRanges", \.hlsByteRanges, unwritten: defaultValue.hlsByteRanges),
        ]
    }

    /// At most 16 variants of 1...100 000 kbit/s (100 Mbit/s).
    private static var hlsVariantRule: ConfigRule<[Int]> {
        let element = ConfigRule<Int>.integers(1...100_000)
        return ConfigRule<[Int]>.counts(0...16, "at most 16 variant bit rates (kbit/s)", found: { "\($0.count) values" })
            .then { values in values.lazy.compactMap(element.verdict).first }
            .adding(["items": .object(element.schema)])
    }

    static func relations(_ a: AssetConfig) -> [ConfigIssue] {
        var issues: [ConfigIssue] = []
        let nets = a.variants.map(\.network)
        if Set(nets).count != nets.count {
            issues.append(ConfigIssue(key: "variants", expected: "at most one variant per network", found: "\(nets.sorted())"))
        }
        if a.hlsByteRanges && !a.isHLSPlaylist {
            issues.append(ConfigIssue(key: "hlsByteRanges", expected: "only with \"variantsKbps\" (byte ranges of a playlist of variants' files)", found: "no variantsKbps"))
        }
        if a.audioKbps != nil && !a.isHLSPlaylist {
            issues.append(ConfigIssue(key: "audioKbps", expected: "only with \"variantsKbps\" (an audio rendition of a playlist of variants)", found: "no variantsKbps"))
        }
        if a.isHLSPlaylist {
            if a.type != .hls {
                issues.append(ConfigIssue(key: "variantsKbps", expected: "only on an asset of type \"hls\"", found: "type \"\(a.type.rawValue)\""))
            }
            if !a.variants.isEmpty {
                issues.append(ConfigIssue(key: "variantsKbps", expected: "no per-network \"variants\" as well (the playlist's variants are chosen by bandwidth)",
                                          found: "\(a.variants.count) variants"))
            }
            if a.urlCampaign != nil {
                issues.append(ConfigIssue(key: "variantsKbps", expected: "no \"urlCampaign\" as well", found: "urlCampaign \"\(a.urlCampaign ?? "")\""))
            }
            if let audio = a.audioKbps, a.variantsKbps.contains(where: { $0 <= audio }) {
                issues.append(ConfigIssue(key: "audioKbps", expected: "below every variant's bit rate (a variant's BANDWIDTH includes its audio)",
                                          found: "\(audio) with variants \(a.variantsKbps)"))
            }
            if Set(a.variantsKbps).count != a.variantsKbps.count {
                issues.append(ConfigIssue(key: "variantsKbps", expected: "distinct bit rates", found: "\(a.variantsKbps)"))
            }
        }
        return issues
    }
}

extension WarmConfig: Codable, ConfigReadable {
    static var defaultValue: WarmConfig { WarmConfig() }
    static var fields: [ConfigField<WarmConfig>] {
        [
            .init("mode", \.mode),
            .init("aheadSeconds", \.aheadSeconds, .numbers(0...604_800, unit: "seconds")),
            .init("topPops", \.topPops, .integers(1...10_000)),
        ]
    }
}

extension CacheControlConfig: Codable, ConfigReadable {
    static var defaultValue: CacheControlConfig { CacheControlConfig() }
    static var fields: [ConfigField<CacheControlConfig>] {
        [
            .init("maxAgeSeconds", \.maxAgeSeconds, .integers(0...31_536_000)),
            .init("staleWhileRevalidateSeconds", \.staleWhileRevalidateSeconds, .integers(0...31_536_000)),
            .init("staleIfErrorSeconds", \.staleIfErrorSeconds, .integers(0...31_536_000)),
        ]
    }
}

extension CreativeSwapConfig: Codable, ConfigReadable {
    static var defaultValue: CreativeSwapConfig { CreativeSwapConfig() }
    static var fields: [ConfigField<CreativeSwapConfig>] {
        [
            .init("secondsBeforeSend", \.secondsBeforeSend, .numbers(0...604_800, unit: "seconds")),
            .init("rewarmDelaySeconds", \.rewarmDelaySeconds, .numbers(0...3_600, unit: "seconds")),
        ]
    }
}

extension CampaignSendAsConfig: Codable {}

extension CampaignConfig: Codable, ConfigReadable {
    static var defaultValue: CampaignConfig { CampaignConfig() }
    static var fields: [ConfigField<CampaignConfig>] {
        [
            .init("name", \.name, nameRule(colon: true)),
            .init("audienceShare", \.audienceShare, .probability),
            .init("sendStartSeconds", \.sendStartSeconds, .numbers(0...604_800, unit: "seconds")),
            .init("sendRatePerMinute", \.sendRatePerMinute, .numbers(1...1e9)),
            .init("providerQuotaPerMinute", \.providerQuotaPerMinute, .numbers(1...1e9)),
            .init("deliveryLatencySeconds", \.deliveryLatencySeconds, .durations(atMost: SampledBounds.deliveryLatencySecondsMax)),
            .init("preStage", \.preStage),
            .init("iosPush", \.iosPush),
            .init("androidPriority", \.androidPriority),
            .init("androidHandler", \.androidHandler),
            .init("messageTtlSeconds", \.messageTtlSeconds, .numbers(0...2_419_200, unit: "seconds")),
            .init("assets", \.assets, .counts(1...payloadLimits.assetsMax, "1...\(payloadLimits.assetsMax) assets")),
            .init("ttlSeconds", \.ttlSeconds, .integers(60...86_400)),
            .init("cacheControl", \.cacheControl),
            .init("tokenLifetimeSeconds", \.tokenLifetimeSeconds, .numbers(1...604_800, unit: "seconds")),
            .init("warm", \.warm),
            .init("carouselIntervalSeconds", optional: \.carouselIntervalSeconds, .numbers(0...86_400, unit: "seconds")),
            .init("creativeSwap", optional: \.creativeSwap),
            .init("payloadLifetimeSeconds", optional: \.payloadLifetimeSeconds, .numbers(1...2_419_200, unit: "seconds")),
            .init("payloadForm", \.payloadForm),
            // providers: written only when set, so scenarios without it encode and hash as before.
            .init("provider", \.provider, unwritten: .platform),
            // offline windows: written only when set, so scenarios without it encode and hash as before.
            .init("collapsible", \.collapsible, unwritten: false),
            .init("collapseKey", optional: \.collapseKey, nameRule(colon: false)),
            .init("sendAs", \.sendAs, unwritten: .tokens),
            .init("apnsPriority", \.apnsPriority, unwritten: CampaignConfig().apnsPriority, apnsPriorityRule),
            // calendar: written only when set, so scenarios without it encode and hash as before.
            .init("sendAtLocalSeconds", optional: \.sendAtLocalSeconds, .numbers(CalendarRules.sendAtLocalSecondsRange, unit: "seconds after local midnight")),
            .init("sendOnLocalDay", optional: \.sendOnLocalDay, .integers(0...6)),
            .init("regions", \.regions, unwritten: []),
            .init("segments", \.segments, unwritten: []),
            .init("audience", \.audience, unwritten: CampaignAudienceConfig()),
        ]
    }

    /// APNs' two priorities a campaign may send with (`apns-priority` 10 or 5).
    static var apnsPriorityRule: ConfigRule<Int> { ConfigRule<Int>("10 or 5", schema: ["enum": .array([.integer(10), .integer(5)])]) { $0 == 10 || $0 == 5 } }

    /// Distinct asset names; warming and a creative swap not before t = 0.
    static func relations(_ c: CampaignConfig) -> [ConfigIssue] {
        var issues: [ConfigIssue] = []
        let names = c.assets.map(\.name)
        if Set(names).count != names.count {
            issues.append(ConfigIssue(key: "assets", expected: "distinct asset names", found: "\(names)"))
        }
        if c.warm.mode != .none, c.warm.aheadSeconds > c.sendStartSeconds {
            issues.append(ConfigIssue(key: "warm", expected: "warm.aheadSeconds ≤ sendStartSeconds (\(c.sendStartSeconds)) so the warm call is not before t = 0",
                                      found: "\(c.warm.aheadSeconds)"))
        }
        if c.sendAs == .topic, c.provider == .apns {
            issues.append(ConfigIssue(key: "sendAs", expected: "provider \"platform\" or \"fcm\" with sendAs \"topic\" (topics are FCM's; APNs has none)",
                                      found: "\"topic\" with provider \"apns\""))
        }
        if let key = c.collapseKey, !c.collapsible {
            issues.append(ConfigIssue(key: "collapseKey", expected: "collapsible true with a collapseKey (a key marks a collapsible message)",
                                      found: "\"\(key)\" with collapsible false"))
        }
        if let swap = c.creativeSwap, swap.secondsBeforeSend > c.sendStartSeconds {
            issues.append(ConfigIssue(key: "creativeSwap", expected: "creativeSwap.secondsBeforeSend ≤ sendStartSeconds (\(c.sendStartSeconds))",
                                      found: "\(swap.secondsBeforeSend)"))
        }
        return issues
    }
}
