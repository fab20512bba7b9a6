/// The most the push model takes for each distribution-valued duration and size: its samplers
/// clamp a draw to [0, bound], and the scenario format refuses a distribution that reaches past
/// it (one unbounded above: whose mean is past it), so a valid scenario is never clamped. One
/// place for all of them, named by the field they bound; every figure is judgement, with its
/// reason. InfraModel's durations share one bound, its `sampledSecondsMax`.
package enum SampledBounds {
    /// `platforms.ios.silentHoldSeconds`: one day (iOS documents no bound; a silent push held
    /// longer than a day is as good as lost).
    package static let silentHoldSecondsMax: Double = 86_400
    /// `users.tapDelaySeconds`: one year (a later tap is outside any campaign's horizon).
    package static let tapDelaySecondsMax: Double = 31_536_000
    /// `users.renderSeconds`: 10 minutes (an app that takes longer has not painted at all).
    package static let renderSecondsMax: Double = 600
    /// `campaigns[].deliveryLatencySeconds`: one day (APNs and FCM keep an undelivered message
    /// up to its TTL, at most 28 days for FCM, but a day-late push is outside any campaign's
    /// horizon).
    package static let deliveryLatencySecondsMax: Double = 86_400
    /// `population.dozeNight.bedtimeSeconds`, seconds after the local midnight before the run: two
    /// days, so a bedtime falls on the run's first or second night.
    package static let bedtimeSecondsMax: Double = 172_800
    /// `population.dozeNight.idleSeconds`: just under a day, so a night ends before the next one
    /// begins.
    package static let idleSecondsMax: Double = 86_399
    /// `population.freeStorageBytes`: 9 × 10¹⁸ bytes, the representable limit of the store's byte
    /// counts.
    package static let freeStorageBytesMax: Double = 9e18
    /// `population.preexistingStoreBytes`: 1 TB (no app's preload store holds more).
    package static let preexistingStoreBytesMax: Double = 1e12
}
