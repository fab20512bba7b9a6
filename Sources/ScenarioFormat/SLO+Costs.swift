import InfraModel
import PushModel

extension ServiceLevelObjective {
    /// Objectives on money metrics a world cannot produce: any `cost.*` without `costs`, a
    /// campaign's cost of a campaign the scenario does not have, the commit's without a commit, the
    /// users' cellular cost without cellular prices.
    static func costIssues(_ objectives: [ServiceLevelObjective], in world: PushWorldConfig) -> [ConfigIssue] {
        var issues: [ConfigIssue] = []
        let names = Set(world.campaigns.map(\.name))
        for (i, o) in objectives.enumerated() where o.metric.hasPrefix("cost.") {
            let at: [JSONPath.Component] = [.key("slo"), .index(i), .key("metric")]
            guard let costs = world.costs else {
                issues.append(ConfigIssue(at: at, expected: "a metric this scenario can produce (money metrics need a \"costs\" section)",
                                          found: "\"\(o.metric)\""))
                continue
            }
            if o.metric.hasPrefix("cost.campaign."),
               !names.contains(where: { n in MetricTable.CampaignCostPart.allCases.contains { o.metric == "cost.campaign.\(n).\($0.rawValue)" } }) {
                issues.append(ConfigIssue(at: at, expected: "cost.campaign.NAME.PART with NAME a campaign of this scenario (\(names.sorted().joined(separator: ", ")))",
                                          found: "\"\(o.metric)\""))
            }
            if [MetricID.costCommit, .costCommitOverage, .costCommitUtilisation].contains(where: { o.metric == $0.rawValue }) && costs.commit == nil {
                issues.append(ConfigIssue(at: at, expected: "a metric this scenario can produce (the commit's cost and utilisation need costs.commit)", found: "\"\(o.metric)\""))
            }
            if o.metric.hasSuffix("usersCellular") && costs.cellular.isEmpty {
                issues.append(ConfigIssue(at: at, expected: "a metric this scenario can produce (users' cellular cost needs costs.cellular)", found: "\"\(o.metric)\""))
            }
        }
        return issues
    }
}

extension ServiceLevelObjective {
    /// The users' data metrics per network class (`userData.NETWORK.openedMeanBytes`, …).
    static var userDataNetworkMetrics: [String] {
        NetworkClass.allCases.flatMap { c in [true, false].map { MetricTable.userData(network: c.description, opened: $0).name } }
    }

    /// The names of the per-campaign money metrics, `cost.campaign.NAME.PART` (NAME a campaign's
    /// name), as a JSON Schema pattern.
    static var campaignCostMetricPattern: String {
        "^cost\\.campaign\\.[A-Za-z0-9._:-]{1,64}\\.(" + MetricTable.CampaignCostPart.allCases.map(\.rawValue).joined(separator: "|") + ")$"
    }
}
