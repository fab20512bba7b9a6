/// The offline-storage limit a scenario's plan can exceed, as a `prestage validate` warning
/// (`providerLimitWarnings`): with offline windows, an Android device may be sent more
/// non-collapsible FCM messages than FCM stores for it while it is offline.
extension PushWorldConfig {
    /// The most non-collapsible FCM messages one Android device can be sent: every campaign that
    /// reaches Android through FCM and is not collapsible, all its parts.
    var nonCollapsibleFcmMessagesPerDeviceMax: Int {
        campaigns.filter { $0.provider != .apns && !$0.collapsible && $0.audienceShare > 0 }.reduce(0) { $0 + $1.pushesPerDevice }
    }

    /// One line when offline windows are on and an offline Android device can be sent more than
    /// FCM's 100 pending non-collapsible messages; empty otherwise.
    func offlineLimitWarnings() -> [String] {
        guard providers?.offline != nil else { return [] }
        let most = nonCollapsibleFcmMessagesPerDeviceMax
        let limit = Int(OfflineState.fcmPendingMax)
        guard most > limit else { return [] }
        return ["warning: an Android device offline for the whole send can be sent up to \(most) non-collapsible FCM messages, "
                + "above the \(limit) FCM stores for an offline device: at the \(limit + 1)st it drops them all "
                + "(provider.fcm.dataApi.droppedTooManyPendingMessages). Mark campaigns collapsible (campaigns[].collapsible) or send fewer."]
    }
}
