import Foundation
import InfraModel
import PushModel

// The scenario format of the simulated world (the top level of a scenario file, beside `name`,
// `question` and `run`).

extension PushWorldConfig: Decodable, Encodable, ConfigReadable {
    static var defaultValue: PushWorldConfig { PushWorldConfig() }

    static var fields: [ConfigField<PushWorldConfig>] {
        [
            .init("population", \.population),
            .init("platforms", \.platforms),
            .init("users", \.users),
            .init("campaigns", \.campaigns, .counts(1...PushWorldConfig.campaignsMax, "1...\(PushWorldConfig.campaignsMax) campaigns")),
            .init("preloadPolicy", \.preloadPolicy),
            .init("infra", \.infra),
            .init("horizonSeconds", \.horizonSeconds, .numbers(horizonSecondsRange, unit: "seconds")),
            // energy: written only when set, so scenarios without it encode and hash as before.
            .init("energy", \.energy, unwritten: EnergyConfig()),
            .init("costs", optional: \.costs),
            // providers
            .init("providers", optional: \.providers),
            .init("analytics", optional: \.analytics),
        ]
    }

    /// The horizons a scenario may have: 1 s to a week.
    static let horizonSecondsRange: ClosedRange<Double> = 1...604_800

    /// Campaign names, and the population's per-region weights against InfraModel's regions.
    static func relations(_ w: PushWorldConfig) -> [ConfigIssue] {
        var issues: [ConfigIssue] = []
        let names = w.campaigns.map(\.name)
        if Set(names).count != names.count {
            issues.append(ConfigIssue(key: "campaigns", expected: "distinct campaign names", found: "\(names)"))
        }
        for (c, campaign) in w.campaigns.enumerated() {
            // A campaign whose first send is at or after the horizon never sends: a run of it would
            // complete with nothing measured and exit 0.
            // (Checked against a valid horizon only: an invalid one has its own message.)
            if horizonSecondsRange.contains(w.horizonSeconds), campaign.sendStartSeconds >= w.horizonSeconds {
                issues.append(issue([.key("campaigns"), .index(c), .key("sendStartSeconds")],
                                    "a first send before horizonSeconds (\(ScenarioKnob.numberText(w.horizonSeconds)) s), or a longer horizonSeconds: the campaign would never send",
                                    ScenarioKnob.numberText(campaign.sendStartSeconds)))
            }
            for (i, asset) in campaign.assets.enumerated() {
                guard let from = asset.urlCampaign else { continue }
                if !w.campaigns[..<c].contains(where: { $0.name == from && $0.assets.contains { $0.name == asset.name } }) {
                    issues.append(issue([.key("campaigns"), .index(c), .key("assets"), .index(i), .key("urlCampaign")],
                                        "the name of an earlier campaign with an asset named \"\(asset.name)\"", "\"\(from)\""))
                }
            }
        }
        issues += calendarIssues(w)
        issues += providerFieldIssues(w)
        let regions = w.infra.topology.effectiveRegions.count
        if let costs = w.costs { issues += CostsConfig.regionIssues(costs, regions: regions) }
        if w.analytics != nil, !w.preloadPolicy.receiptsEnabled {
            issues.append(ConfigIssue(key: "analytics",
                                      expected: "preloadPolicy.receiptsEnabled = true (the endpoint's load is the delivery receipts), or no \"analytics\" section",
                                      found: "receipts off"))
        }
        if !w.population.regionWeights.isEmpty, w.population.regionWeights.count != regions {
            issues.append(ConfigIssue(key: "population", expected: "population.regionWeights with one weight per region (\(regions))",
                                      found: "\(w.population.regionWeights.count) weights"))
        }
        if w.population.regionWeights.isEmpty, w.infra.topology.effectiveRegions.reduce(0, { $0 + $1.audienceWeight }) <= 0 {
            issues.append(ConfigIssue(at: [.key("infra"), .key("topology"), .key("regions")],
                                      expected: "a positive total audienceWeight", found: "0"))
        }
        if let o = w.population.regionNetworkMix.first(where: { $0.region >= regions }) {
            issues.append(ConfigIssue(key: "population", expected: "population.regionNetworkMix regions in 0..<\(regions)",
                                      found: "\(o.region)"))
        }
        return issues
    }

    /// Campaign fields only the provider layer reads (`provider`, `sendAs`, `apnsPriority`, `collapsible`), set
    /// in a scenario without `providers`: bad input rather than silently ignored. Honouring them
    /// without `providers` would need the provider layer on (its quotas, latencies and routes for
    /// every campaign), which the scenario did not ask for.
    static func providerFieldIssues(_ w: PushWorldConfig) -> [ConfigIssue] {
        guard w.providers == nil else { return [] }
        let fix = "a \"providers\" section (\"providers\": {} for the published defaults), which this field needs"
        var issues: [ConfigIssue] = []
        for (c, campaign) in w.campaigns.enumerated() {
            let path: [JSONPath.Component] = [.key("campaigns"), .index(c)]
            if campaign.provider != .platform {
                issues.append(issue(path + [.key("provider")], fix + ", or provider \"platform\"", "\"\(campaign.provider.rawValue)\""))
            }
            if campaign.sendAs != .tokens {
                issues.append(issue(path + [.key("sendAs")], fix + ", or sendAs \"tokens\"", "\"\(campaign.sendAs.rawValue)\""))
            }
            if campaign.apnsPriority != CampaignConfig().apnsPriority {
                issues.append(issue(path + [.key("apnsPriority")], fix + ", or apnsPriority 10", "\(campaign.apnsPriority)"))
            }
            if campaign.collapsible {
                issues.append(issue(path + [.key("collapsible")], fix + ", or collapsible false", "true"))
            }
        }
        return issues
    }

    /// The InfraModel configuration a run uses: the section as written, with the per-second
    /// series stretched to cover the whole horizon.
    package var effectiveInfra: InfraConfig {
        var infra = self.infra
        infra.metricsHorizonSeconds = max(infra.metricsHorizonSeconds, Int(horizonSeconds.rounded(.up)))
        return infra
    }
}
