import Foundation
import PushModel

// The scenario format of the campaign calendar: a campaign's `audience` rule, and the checks that
// relate its `regions`, `segments` and `audience` to the rest of the scenario (PushModel's
// `CalendarRules`, one definition for the format and the world).

extension AudienceRuleConfig: Codable {}

extension CampaignAudienceConfig: Codable, ConfigReadable {
    static var defaultValue: CampaignAudienceConfig { CampaignAudienceConfig() }
    static var fields: [ConfigField<CampaignAudienceConfig>] {
        [
            .init("rule", \.rule),
            .init("campaign", optional: \.campaign, nameRule(colon: true)),
        ]
    }
}

extension CalendarIssue {
    /// The issue in the scenario format's terms.
    var configIssue: ConfigIssue {
        ConfigIssue(at: path.map { step -> JSONPath.Component in
            switch step {
            case .key(let k): .key(k)
            case .index(let i): .index(i)
            }
        }, expected: expected, found: found)
    }
}

extension PushWorldConfig {
    /// The calendar's issues (unknown region or segment, audience rule without a campaign, cycle,
    /// infeasible share), each at its path.
    static func calendarIssues(_ w: PushWorldConfig) -> [ConfigIssue] {
        CalendarRules.issues(w).map(\.configIssue)
    }
}
