import Foundation
import InfraModel

/// The whole simulated world except run settings (seed, replication, limits): devices, OS rules,
/// users, campaigns, the PreloadKit policy and the infrastructure. Every field has a default, so
/// `{}` decodes to a small valid world (2 000 devices, one campaign at t = 600 s, 2 h horizon).
///
/// Decoding validates every field and throws `DecodingError.dataCorrupted` with a description
/// `expected …, found …` (the `infra` section throws InfraModel's `InfraConfigError` naming the
/// path).
public struct PushWorldConfig: Codable, Sendable, Equatable {
    public var population = PopulationConfig()
    public var platforms = PlatformsConfig()
    public var users = UsersConfig()
    /// Campaigns (1...64), in any order; each is sent at its own `sendStartSeconds`.
    public var campaigns: [CampaignConfig] = [CampaignConfig()]
    public var preloadPolicy = PreloadPolicyConfig()
    public var infra = InfraConfig()
    /// Virtual time simulated, seconds (1...604 800). Pushes not resolved by then count as not
    /// delivered / deferred-then-expired / timed out; taps later than the horizon are not made.
    /// InfraModel's `metricsHorizonSeconds` is raised to the horizon if shorter.
    public var horizonSeconds: Double = 7_200

    public init() {}

    enum CodingKeys: String, CodingKey { case population, platforms, users, campaigns, preloadPolicy, infra, horizonSeconds }

    public init(from decoder: any Decoder) throws {
        let d = PushWorldConfig()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        population = try c.field(.population, d.population)
        platforms = try c.field(.platforms, d.platforms)
        users = try c.field(.users, d.users)
        campaigns = try c.field(.campaigns, d.campaigns)
        preloadPolicy = try c.field(.preloadPolicy, d.preloadPolicy)
        infra = try c.field(.infra, d.infra)
        horizonSeconds = try c.field(.horizonSeconds, d.horizonSeconds)
        try c.checkRange(horizonSeconds, 1...604_800, .horizonSeconds, unit: "seconds")
        try c.check((1...64).contains(campaigns.count), .campaigns, expected: "1...64 campaigns", found: "\(campaigns.count)")
        let names = campaigns.map(\.name)
        try c.check(Set(names).count == names.count, .campaigns, expected: "distinct campaign names", found: "\(names)")
        let regions = infra.topology.effectiveRegions.count
        if !population.regionWeights.isEmpty {
            try c.check(population.regionWeights.count == regions, .population,
                        expected: "population.regionWeights with one weight per region (\(regions))",
                        found: "\(population.regionWeights.count) weights")
        }
        for o in population.regionNetworkMix where o.region >= regions {
            try c.check(false, .population, expected: "population.regionNetworkMix regions in 0..<\(regions)", found: "\(o.region)")
        }
    }
}
