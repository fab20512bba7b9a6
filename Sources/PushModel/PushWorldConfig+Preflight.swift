import Foundation

extension PushWorldConfig {
    /// The checks a run makes while building its world that do not depend on the population or
    /// the seed, so that `validate` (and `run`, before any work) refuses what a run would: every
    /// campaign's payload is built, signed and parsed by PreloadKit exactly as a run does (its
    /// size limit, its per-asset and per-variant byte limits, its URL rules), the number of
    /// campaigns is at most `campaignsMax`, and every
    /// campaign's (and provider's) delivery-latency distribution is turned into a sampler.
    /// - Throws: `PushModelError` naming the campaign path and PreloadKit's reason.
    /// - Complexity: O(campaigns × assets); no per-device work.
    package func preflight() throws {
        try checkCampaignCount()
        _ = try CampaignPlans(campaigns: campaigns)
        _ = try PushWorld.deliveryLatencies(self)
    }

    /// Per campaign, the encoded bytes of its largest push as the provider carries it (signature
    /// included), in its payload form; nil for a campaign that does not pre-stage (a plain alert).
    /// What `preflight` checks against `CampaignPayload.pushBytesMax`, for planners to see the
    /// headroom.
    /// - Throws: what `preflight` throws for the campaigns.
    package func pushPayloadBytes() throws -> [Int?] {
        let plans = try CampaignPlans(campaigns: campaigns)
        return campaigns.indices.map { campaigns[$0].preStage ? plans.pushBytes[$0] : nil }
    }
}
