import PreloadKit

/// Pushes carrying the campaign service's open-probability hint (`users.openHint`): for each
/// campaign and part, the push signed with each whole-percent hint 0...100, parsed once by
/// PreloadKit like every other push (the hint is covered by the signature). A device's push is
/// the one with its hint (`hinted[c][part][percent]`): 101 shared requests per part instead of a
/// parse per push.
extension CampaignPlans {
    /// Plans for `campaigns`, with the hinted pushes when `hinted`.
    init(campaigns: [CampaignConfig], waveStartSeconds: [[Double]]? = nil, hinted: Bool,
         hlsSegmentsToPreStage: Int = HLSPolicy().segmentsToPreStage) throws {
        try self.init(campaigns: campaigns, waveStartSeconds: waveStartSeconds, hlsSegmentsToPreStage: hlsSegmentsToPreStage)
        if hinted { try addHintedRequests(campaigns: campaigns) }
    }

    /// Fills `hinted`.
    mutating func addHintedRequests(campaigns: [CampaignConfig]) throws {
        hinted = []
        for (c, campaign) in campaigns.enumerated() {
            let path = "campaigns[\(c)]"
            let groups: [[Int]] = campaign.carouselIntervalSeconds == nil ? [Array(campaign.assets.indices)] : campaign.assets.indices.map { [$0] }
            var parts: [[PreStageRequest]] = []
            for (part, group) in groups.enumerated() {
                var byPercent: [PreStageRequest] = []
                byPercent.reserveCapacity(101)
                for percent in 0...100 {
                    let document = CampaignPayload.pushDocument(campaign, form: campaign.payloadForm, assets: group,
                                                                silent: campaign.iosPush == .silent || groups.count > 1,
                                                                expirySeconds: CampaignPlans.expirySeconds(campaign, part: part, sendSeconds: waveStartSeconds[c][0]),
                                                                manifestURL: CampaignPlans.manifestURL(campaign), openPercent: percent,
                                                                url: CampaignPlans.assetURL(campaign))
                    byPercent.append(try CampaignPlans.parse(document, options: payloadOptions, path: path))
                }
                parts.append(byPercent)
            }
            hinted.append(parts)
        }
    }

    /// The push of campaign `c`, part `part`, for a device with hint `percent` (-1: none).
    @inline(__always)
    func request(campaign c: Int, part: Int, hintPercent percent: Int8) -> PreStageRequest {
        percent >= 0 && !hinted.isEmpty ? hinted[c][part][Int(percent)] : requests[c][part]
    }
}
