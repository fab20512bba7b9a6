import InfraModel
import Stochastic

// Reading `infra.cdnApi`: the profile first, then every other field over that profile's values.

extension CdnApiProfile: Codable {}
extension CdnPurgeUnit: Codable {}
extension CdnWarmMethod: Codable {}
extension CdnItemPacing: Codable {}

/// A rate in (0, `CdnApiConfig.ratePerSecondMax`] per second.
private var ratePerSecond: ConfigRule<Double> {
    let top = CdnApiConfig.ratePerSecondMax
    return ConfigRule("a rate in (0, \(Int(top))] per second", schema: ["exclusiveMinimum": .integer(0), "maximum": .number(top)]) {
        $0.isFinite && $0 > 0 && $0 <= top
    }
}

extension CdnApiConfig: Decodable, Encodable, ConfigReadable {
    static var defaultValue: CdnApiConfig { CdnApiConfig() }

    /// Reads `profile` (default `generic`), then the other fields over `standard(profile)`.
    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: ConfigKey.self)
        let profile = try c.decodeIfPresent(CdnApiProfile.self, forKey: ConfigKey("profile")) ?? .generic
        self = try Self.read(from: decoder, defaults: .standard(profile))
    }

    static var fields: [ConfigField<CdnApiConfig>] {
        [
            .init("profile", \.profile),
            .init("purgeBy", \.purgeBy),
            .init("purgeRequestsPerSecond", \.purgeRequestsPerSecond, ratePerSecond),
            .init("purgeRequestBurst", \.purgeRequestBurst, .integers(1...CdnApiConfig.burstMax)),
            .init("purgeItemsPerRequest", \.purgeItemsPerRequest, .integers(1...CdnApiConfig.batchMax)),
            .init("purgeItemsPerSecond", \.purgeItemsPerSecond, ratePerSecond),
            .init("purgeItemsBurst", \.purgeItemsBurst, .integers(1...CdnApiConfig.burstMax)),
            .init("purgeItemsPacing", \.purgeItemsPacing),
            .init("purgeItemsInProgressMax", \.purgeItemsInProgressMax, .integers(0...CdnApiConfig.burstMax)),
            .init("purgePropagationSeconds", \.purgePropagationSeconds, .durations(atMost: sampledSecondsMax)),
            .init("warmMethod", \.warmMethod),
            .init("warmRequestsPerSecond", \.warmRequestsPerSecond, ratePerSecond),
            .init("warmItemsPerRequest", \.warmItemsPerRequest, .integers(1...CdnApiConfig.batchMax)),
            .init("warmPropagationSeconds", \.warmPropagationSeconds, .durations(atMost: sampledSecondsMax)),
            .init("failureProbability", \.failureProbability,
                  ConfigRule("a probability in [0, 1)", schema: ["minimum": .integer(0), "exclusiveMaximum": .integer(1)]) {
                      $0 >= 0 && $0 < 1
                  }),
            .init("retryBaseSeconds", \.retryBaseSeconds, .numbers(0...3_600, unit: "seconds")),
            .init("attemptsMax", \.attemptsMax, .integers(1...CdnApiConfig.attemptsLimit)),
        ]
    }

    /// A batch fits the item bucket and the in-progress limit.
    static func relations(_ c: CdnApiConfig) -> [ConfigIssue] {
        var issues: [ConfigIssue] = []
        if c.purgeItemsBurst < c.purgeItemsPerRequest {
            issues.append(ConfigIssue(key: "purgeItemsBurst", expected: "at least purgeItemsPerRequest (\(c.purgeItemsPerRequest)): a bucket holding one batch",
                                      found: "\(c.purgeItemsBurst)"))
        }
        if c.purgeItemsInProgressMax > 0 && c.purgeItemsInProgressMax < c.purgeItemsPerRequest {
            issues.append(ConfigIssue(key: "purgeItemsInProgressMax",
                                      expected: "0 or at least purgeItemsPerRequest (\(c.purgeItemsPerRequest)): room for one batch",
                                      found: "\(c.purgeItemsInProgressMax)"))
        }
        return issues
    }
}
