import Foundation

/// How a campaign draws its audience relative to another campaign's (`campaigns[].audience`).
package enum AudienceRuleConfig: String, Sendable, CaseIterable {
    /// Each targeted device is drawn independently with probability `audienceShare` (audiences of
    /// two campaigns overlap by chance).
    case independent
    /// Only devices not in the other campaign's audience, drawn so that the campaign still
    /// reaches `audienceShare` of its targeted devices: probability share / (1 − other's share).
    case disjointFrom
    /// Only devices in the other campaign's audience, drawn with probability share / other's share.
    case nestedIn
}

/// A campaign's audience rule: `independent`, or `disjointFrom` / `nestedIn` another campaign.
package struct CampaignAudienceConfig: Sendable, Equatable {
    package var rule: AudienceRuleConfig = .independent
    /// The other campaign's `name` (required by `disjointFrom` and `nestedIn`).
    package var campaign: String? = nil

    package init(rule: AudienceRuleConfig = .independent, campaign: String? = nil) {
        self.rule = rule
        self.campaign = campaign
    }
}

extension CampaignConfig {
    /// Whether the campaign uses any calendar field (local send time, targeting, an audience rule).
    package var usesCalendar: Bool {
        sendAtLocalSeconds != nil || !regions.isEmpty || !segments.isEmpty || audience.rule != .independent
    }
}

/// One step of a configuration path (`campaigns[2].regions[0]`), for the calendar's issues.
package enum CalendarPathStep: Sendable, Equatable {
    case key(String)
    case index(Int)
}

/// What is wrong with a scenario's calendar fields: the path, what was expected, what was found.
package struct CalendarIssue: Sendable, Equatable {
    package var path: [CalendarPathStep]
    package var expected: String
    package var found: String

    /// The path as a dotted string (`campaigns[2].regions[0]`).
    package var pathText: String {
        var s = ""
        for step in path {
            switch step {
            case .key(let k): s += s.isEmpty ? k : "." + k
            case .index(let i): s += "[\(i)]"
            }
        }
        return s
    }
}
