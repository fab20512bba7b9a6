import Stochastic

// Per-provider delivery latency (`providers.fcm.deliveryLatencySeconds`,
// `providers.apns.deliveryLatencySeconds`). The latency of a push, from the provider's acceptance
// to the device's OS, is, in order of precedence:
// 1. its campaign's `deliveryLatencySeconds` when the campaign sets one other than the default;
// 2. else its provider's `deliveryLatencySeconds` when the scenario has `providers` and sets it;
// 3. else the campaign's (default) `deliveryLatencySeconds`, as without `providers`.
// A campaign "sets its own" when its value differs from the default distribution, so a scenario
// read, written and read again keeps its meaning (the default is written out like any value).

extension PushWorld {
    /// The latency samplers: one per campaign (index c, as without `providers`), then FCM's and
    /// APNs' when set; and, with `providers`, per campaign and provider (index 2c + p, p 0 FCM,
    /// 1 APNs) the sampler its pushes draw from.
    static func deliveryLatencies(_ config: PushWorldConfig) throws -> (samplers: [Sampler], byProvider: [Int]) {
        var samplers = try config.campaigns.enumerated().map { i, c in
            try Population.sampler(c.deliveryLatencySeconds, "campaigns[\(i)].deliveryLatencySeconds")
        }
        guard let providers = config.providers else { return (samplers, []) }
        var providerIndex = [Int?](repeating: nil, count: 2)
        for (p, (distribution, path)) in [(providers.fcm.deliveryLatencySeconds, "providers.fcm.deliveryLatencySeconds"),
                                          (providers.apns.deliveryLatencySeconds, "providers.apns.deliveryLatencySeconds")].enumerated() {
            guard let distribution else { continue }
            providerIndex[p] = samplers.count
            samplers.append(try Population.sampler(distribution, path))
        }
        let campaignDefault = CampaignConfig().deliveryLatencySeconds
        var byProvider: [Int] = []
        for (c, campaign) in config.campaigns.enumerated() {
            let own = campaign.deliveryLatencySeconds != campaignDefault
            for p in 0..<2 { byProvider.append(own ? c : providerIndex[p] ?? c) }
        }
        return (samplers, byProvider)
    }
}
