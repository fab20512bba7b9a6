import PushModel

extension ServiceLevelObjective {
    /// The metric names a per-campaign objective may name after `campaign:NAME/`.
    static var perCampaignMetricNames: [String] { MetricTable.perCampaignMetrics.map(\.rawValue) }

    /// The problem with a `campaign:NAME/METRIC` name's METRIC (not reported per campaign), if any;
    /// nil for other names. The campaign is checked against the world (`campaignIssues`).
    static func campaignMetricIssue(_ name: String) -> ConfigIssue? {
        guard name.hasPrefix(MetricTable.campaignPrefix) else { return nil }
        guard let (campaign, metric) = MetricTable.campaignMetricParts(name), !campaign.isEmpty else {
            return ConfigIssue(key: "metric", expected: "campaign:NAME/METRIC with NAME a campaign's name and METRIC one of \(perCampaignMetricNames.joined(separator: ", "))",
                               found: "\"\(name)\"")
        }
        guard !perCampaignMetricNames.contains(metric) else { return nil }
        let hint = Spelling.closest(to: metric, among: perCampaignMetricNames).map { " (did you mean \"\($0)\"?)" } ?? ""
        return ConfigIssue(key: "metric", expected: "campaign:NAME/METRIC with METRIC a metric reported per campaign: \(perCampaignMetricNames.joined(separator: ", "))\(hint)",
                           found: "\"\(name)\"")
    }

    /// Per-campaign objectives a world cannot produce: a campaign the scenario does not have, any
    /// with fewer than two campaigns (no per-campaign rows then), and a campaign's time to 99 %
    /// allowed at or past the time from its first send to the horizon (a send that never reaches
    /// 99 % reads that time, and would pass).
    static func campaignIssues(_ objectives: [ServiceLevelObjective], in world: PushWorldConfig) -> [ConfigIssue] {
        var issues: [ConfigIssue] = []
        let names = world.campaigns.map(\.name)
        for (i, o) in objectives.enumerated() {
            guard let (campaign, metric) = MetricTable.campaignMetricParts(o.metric) else { continue }
            let at: [JSONPath.Component] = [.key("slo"), .index(i), .key("metric")]
            if names.count < 2 {
                issues.append(ConfigIssue(at: at, expected: "a metric this scenario can produce (campaign:NAME/METRIC needs two campaigns or more; with one, name the pooled metric \"\(metric)\")",
                                          found: "\"\(o.metric)\""))
                continue
            }
            guard let c = names.firstIndex(of: campaign) else {
                issues.append(ConfigIssue(at: at, expected: "campaign:NAME/METRIC with NAME a campaign of this scenario (\(names.joined(separator: ", ")))",
                                          found: "\"\(o.metric)\""))
                continue
            }
            let timeLeft = world.horizonSeconds - world.campaigns[c].sendStartSeconds
            if metric == MetricID.deliverySecondsTo99Percent.rawValue && o.op == .atMost && o.threshold >= timeLeft {
                issues.append(ConfigIssue(at: [.key("slo"), .index(i), .key("threshold")],
                                          expected: "less than the \(formatNumber(timeLeft)) s from campaign \(campaign)'s first send to the horizon (a send that never reaches 99 % reads that time, and would pass)",
                                          found: formatNumber(o.threshold)))
            }
        }
        return issues
    }

    /// The names of the per-campaign metrics, `campaign:NAME/METRIC`, as a JSON Schema pattern.
    static var campaignMetricPattern: String {
        "^campaign:[A-Za-z0-9._:-]{1,64}/(" + perCampaignMetricNames.map { $0.replacingOccurrences(of: ".", with: "\\.") }.joined(separator: "|") + ")$"
    }
}
