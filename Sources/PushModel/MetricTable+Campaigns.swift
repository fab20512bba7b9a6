// The per-campaign metrics: `campaign:NAME/METRIC`, the pooled metric METRIC restricted to
// campaign NAME's pushes (its targeted pushes, the taps on its notifications, the requests its
// pre-stages made). Emitted only when the scenario has two campaigns or more.

extension MetricTable {
    /// "campaign:".
    package static let campaignPrefix = "campaign:"

    /// The pooled metrics that are also reported per campaign, in the order of the campaigns table.
    package static let perCampaignMetrics: [MetricID] = [
        .pushesTargeted, .deliverySecondsTo99Percent,
        .outcomesCompletedShare, .outcomesPartialShare, .outcomesFetchTimedOutShare, .outcomesFetchFailedShare,
        .outcomesTimedOutOrKilledShare, .outcomesSkippedByPolicyShare, .outcomesDeferredThenCompletedShare,
        .outcomesDeferredThenExpiredShare, .outcomesPayloadExpiredShare, .outcomesNotDeliveredShare,
        .edgePrestageHitRatio, .extensionFetchesStarted, .extensionFetchSuccessRatio, .extensionFetchTimeoutShare, .extensionTimeoutShare,
        .tapsCount, .tapsInstantShare, .tapToPaintCount, .tapToPaintP50, .tapToPaintP90, .tapToPaintP95, .tapToPaintP99,
        .tapToPaintShareUnder500ms, .tapsAbandoned, .tapsAbandonedShare, .readsCount,
        .bytesBackground, .bytesForeground, .bytesCellular, .bytesNeverOpened,
    ] + cdnApiPerCampaign

    /// Campaign `campaign`'s `metric`: `campaign:NAME/METRIC`, the pooled row's unit, direction and
    /// ratio (numerator and denominator both restricted to the campaign).
    package static func campaign(_ campaign: String, _ metric: MetricID) -> MetricSpec {
        let pooled = metric.spec
        return MetricSpec(campaignMetricName(campaign, metric.rawValue), pooled.unit, pooled.better, "Campaign \(campaign): \(pooled.title)",
                          ratio: pooled.ratio.map { ($0.numerator + " (campaign \(campaign))", $0.denominator + " (campaign \(campaign))") })
    }

    /// `campaign:NAME/METRIC`.
    package static func campaignMetricName(_ campaign: String, _ metric: String) -> String {
        campaignPrefix + campaign + "/" + metric
    }

    /// The campaign name and pooled metric of a `campaign:NAME/METRIC` name (nil for any other
    /// name; the metric may be one that is not reported per campaign). Campaign names hold no "/".
    package static func campaignMetricParts(_ name: String) -> (campaign: String, metric: String)? {
        guard name.hasPrefix(campaignPrefix) else { return nil }
        let rest = name.dropFirst(campaignPrefix.count)
        guard let slash = rest.firstIndex(of: "/") else { return nil }
        return (String(rest[..<slash]), String(rest[rest.index(after: slash)...]))
    }

    /// The per-campaign row named `name`, when its metric is reported per campaign.
    static func campaignSpec(named name: String) -> MetricSpec? {
        guard let (c, m) = campaignMetricParts(name), !c.isEmpty, let id = MetricID(rawValue: m), perCampaignMetrics.contains(id) else { return nil }
        return campaign(c, id)
    }
}
