import SimKernel

/// A campaign's timeline and send rate as derived from its configuration, stated once: the
/// simulation schedules its warm, creative swap, re-warm and sends from these values, and reports,
/// the testbed and estimates read the same ones. Instants are given in seconds and in kernel
/// ticks (microseconds); the tick values are what the simulation uses (each configured time is
/// converted to ticks first, then combined), the seconds values the same combination in seconds.
package struct CampaignTiming: Sendable, Equatable {
    /// The first send, seconds (`CampaignConfig.sendStartSeconds`).
    package let sendStartSeconds: Double
    /// The effective send rate, pushes per minute: the marketing platform's rate, capped by the
    /// push provider's quota (the smaller of `sendRatePerMinute` and `providerQuotaPerMinute`).
    package let sendRatePerMinute: Double
    /// How long before the send the warm call is made, seconds (meaningful when the campaign warms).
    package let warmAheadSeconds: Double
    /// Whether the campaign warms its objects (`WarmConfig.mode` is not `none`).
    package let warms: Bool
    /// The creative swap's lead before the send, seconds; nil without a swap.
    package let swapBeforeSendSeconds: Double?
    /// How long after the swap's purge the new creative is re-warmed, seconds (the swap's
    /// `rewarmDelaySeconds`; `CreativeSwapConfig`'s default without a swap).
    package let rewarmDelaySeconds: Double
    /// Pushes each targeted device receives (carousel: one per asset).
    package let pushesPerDevice: Int
    /// Share of the population targeted.
    package let audienceShare: Double
    /// The carousel's spacing between a device's pushes, seconds; nil for a single push.
    package let carouselIntervalSeconds: Double?

    /// The timing of `campaign`.
    package init(_ campaign: CampaignConfig) {
        sendStartSeconds = campaign.sendStartSeconds
        sendRatePerMinute = min(campaign.sendRatePerMinute, campaign.providerQuotaPerMinute)
        warmAheadSeconds = campaign.warm.aheadSeconds
        warms = campaign.warm.mode != .none
        swapBeforeSendSeconds = campaign.creativeSwap?.secondsBeforeSend
        rewarmDelaySeconds = campaign.creativeSwap?.rewarmDelaySeconds ?? CreativeSwapConfig().rewarmDelaySeconds
        pushesPerDevice = campaign.pushesPerDevice
        audienceShare = campaign.audienceShare
        carouselIntervalSeconds = campaign.carouselIntervalSeconds
    }

    // MARK: - Rate

    /// The effective send rate, pushes per second (`sendRatePerMinute / 60`).
    package var sendRatePerSecond: Double { sendRatePerMinute / 60 }

    /// The pushes the campaign targets in a population of `devices`, as an expectation
    /// (`devices × audienceShare × pushesPerDevice`; the audience is drawn per device).
    package func pushesTargeted(devices: Int) -> Double {
        Double(devices) * audienceShare * Double(pushesPerDevice)
    }

    /// When the last of the expected pushes for `devices` devices leaves at the effective rate,
    /// seconds: the send start plus the expected pushes over the rate, plus the carousel spacing
    /// of the last parts (`partsAfterFirst` of them). An estimate from the configuration.
    package func sendEndSeconds(devices: Int, partsAfterFirst: Int) -> Double {
        var end = sendStartSeconds + pushesTargeted(devices: devices) / max(sendRatePerSecond, 1e-9)
        if let interval = carouselIntervalSeconds { end += interval * Double(max(0, partsAfterFirst)) }
        return end
    }

    // MARK: - Instants

    /// The first send, ticks.
    package var sendStartTicks: Int64 { SimDuration.seconds(sendStartSeconds).ticks }

    /// The warm call's instant, seconds: `warmAheadSeconds` before the send, not before 0.
    package var warmSeconds: Double { max(0, sendStartSeconds - warmAheadSeconds) }

    /// The warm call's instant, ticks (`warmSeconds` in the simulation's clock).
    package var warmTicks: Int64 { max(0, sendStartTicks - SimDuration.seconds(warmAheadSeconds).ticks) }

    /// The creative swap's purge instant, seconds: its lead before the send, not before 0; nil
    /// without a swap.
    package var swapSeconds: Double? { swapBeforeSendSeconds.map { max(0, sendStartSeconds - $0) } }

    /// The creative swap's purge instant, ticks (`swapSeconds` in the simulation's clock).
    package var swapTicks: Int64? { swapBeforeSendSeconds.map { max(0, sendStartTicks - SimDuration.seconds($0).ticks) } }

    /// The re-warm's delay after the swap, ticks.
    package var rewarmDelayTicks: Int64 { SimDuration.seconds(rewarmDelaySeconds).ticks }

    /// The re-warm's instant, seconds: `rewarmDelaySeconds` after the swap; nil when the campaign
    /// does not swap or does not warm.
    package var rewarmSeconds: Double? { warms ? swapSeconds.map { $0 + rewarmDelaySeconds } : nil }
}

extension CampaignConfig {
    /// The campaign's timeline and effective send rate (`CampaignTiming`).
    package var timing: CampaignTiming { CampaignTiming(self) }
}
