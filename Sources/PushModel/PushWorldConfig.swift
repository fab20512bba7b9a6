import Foundation
import InfraModel

/// The whole simulated world except run settings (seed, replication, limits): devices, OS rules,
/// users, campaigns, the PreloadKit policy and the infrastructure. Every field has a default, so
/// `PushWorldConfig()` is a small valid world (2 000 devices, one campaign at t = 600 s, 2 h
/// horizon). The scenario format reads and checks it (Scenario module).
package struct PushWorldConfig: Sendable, Equatable {
    package var population = PopulationConfig()
    package var platforms = PlatformsConfig()
    package var users = UsersConfig()
    /// Campaigns (1...`campaignsMax`), in any order; each is sent at its own `sendStartSeconds`.
    package var campaigns: [CampaignConfig] = [CampaignConfig()]
    package var preloadPolicy = PreloadPolicyConfig()
    package var infra = InfraConfig()
    /// Virtual time simulated, seconds (1...604 800). Pushes not resolved by then count as not
    /// delivered / deferred-then-expired / timed out; taps later than the horizon are not made.
    /// InfraModel's `metricsHorizonSeconds` should cover it (the scenario format sees to that).
    package var horizonSeconds: Double = 7_200
    /// The radio energy model of every device (off by default).
    package var energy = EnergyConfig()
    /// Prices (`CostsConfig`); nil: no money anywhere, results as without it.
    package var costs: CostsConfig?
    /// The push providers shared by every campaign (`ProvidersConfig`); nil: each campaign paced
    /// by its own rate and `providerQuotaPerMinute`, results as without it.
    package var providers: ProvidersConfig?
    /// The analytics endpoint's capacity and queue (`AnalyticsConfig`); nil: receipts are only
    /// counted, results as without it.
    package var analytics: AnalyticsConfig?

    package init() {}
}
