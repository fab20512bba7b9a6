/// How a campaign's message reaches its audience through the providers (with `providers`).
package enum CampaignSendAsConfig: String, Sendable, CaseIterable {
    /// One send per device token, each drawing on the provider's quota (FCM's project bucket,
    /// APNs' streams) at the campaign's send rate.
    case tokens
    /// One FCM topic (or condition) message: the sender makes one request, which takes one
    /// message of the project quota, and FCM fans it out to every audience device (iOS apps
    /// through its relay to APNs) at `providers.fcm.fanOutPerSecond`, shared by every topic
    /// send in flight; the campaign's own send rate does not apply.
    case topic
}
