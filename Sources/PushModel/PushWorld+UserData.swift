import InfraModel

// Users' data: the pushes that reached a handler, by the device's region and network class and
// whether its user opens it (the denominators of the `userData.*` metrics; the bytes are
// `PushMetrics.attribution`'s).
extension PushWorld {
    /// Push `w` reached a handler on device `d` (attributes `a`, before any network change): counted
    /// once, opened when its user opens it (`opens`, or drawn here for a push without a pre-stage).
    mutating func notePushReached(_ d: DeviceID, _ w: PushWord, attributes a: DeviceAttributes, opens: Bool?) {
        let opened = opens ?? population.user(d, campaign: w.campaignID, audienceShare: 1, isIOS: a.isIOS, segment: a.segment).opens
        metrics.attribution.notePush(region: a.region, network: a.network, opened: opened)
        metrics.pushBytes.noteReached(device: d.index, campaign: w.campaign, region: a.region, network: a.network, opened: opened)
    }
}
