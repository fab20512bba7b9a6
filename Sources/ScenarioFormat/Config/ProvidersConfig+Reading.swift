import Foundation
import PushModel

// The scenario format of the push providers (`providers`): optional; without it each campaign is
// paced by its own rate and `providerQuotaPerMinute` alone.

extension CampaignProviderConfig: Codable {}

extension ProvidersConfig: Codable, ConfigReadable {
    static var defaultValue: ProvidersConfig { ProvidersConfig() }
    static var fields: [ConfigField<ProvidersConfig>] {
        [
            .init("fcm", \.fcm),
            .init("apns", \.apns),
            .init("retry", \.retry),
            // outages: written only when set, so scenarios without them encode and hash as before.
            .init("outages", \.outages, unwritten: [], .counts(0...ProviderOutageConfig.outagesMax, "0…\(ProviderOutageConfig.outagesMax) outages")),
            .init("offline", optional: \.offline),
        ]
    }
}

extension ProviderOutageConfig.Provider: Codable {}

extension ProviderOutageConfig: Codable, ConfigReadable {
    static var defaultValue: ProviderOutageConfig { ProviderOutageConfig() }
    static var fields: [ConfigField<ProviderOutageConfig>] {
        [
            .init("provider", \.provider, required: true),
            .init("startSeconds", \.startSeconds, required: true, .numbers(0...604_800, unit: "seconds")),
            .init("durationSeconds", \.durationSeconds, required: true, .atLeast(0, exclusive: true, saying: "a duration > 0 seconds")),
        ]
    }
}

extension FCMProviderConfig: Codable, ConfigReadable {
    static var defaultValue: FCMProviderConfig { FCMProviderConfig() }
    static var fields: [ConfigField<FCMProviderConfig>] {
        [
            .init("projectQuotaPerMinute", \.projectQuotaPerMinute, .integers(1...1_000_000_000)),
            .init("bucketSeconds", \.bucketSeconds, .numbers(0.001...60, unit: "seconds")),
            // Added later: written only when set, so scenarios without them encode and hash as before.
            .init("unregisteredShare", \.unregisteredShare, unwritten: 0, .numbers(0...1)),
            .init("deliveryLatencySeconds", optional: \.deliveryLatencySeconds, .durations(atMost: SampledBounds.deliveryLatencySecondsMax)),
            .init("inactiveShare", \.inactiveShare, unwritten: 0, .numbers(0...1)),
            .init("fanOutPerSecond", \.fanOutPerSecond, unwritten: FCMProviderConfig().fanOutPerSecond, .integers(1...1_000_000_000)),
            .init("deviceMessagesPerMinuteMax", \.deviceMessagesPerMinuteMax, unwritten: FCMProviderConfig().deviceMessagesPerMinuteMax,
                  .integers(1...1_000_000)),
            .init("deviceMessagesPerHourMax", \.deviceMessagesPerHourMax, unwritten: FCMProviderConfig().deviceMessagesPerHourMax,
                  .integers(1...1_000_000)),
            .init("collapsibleBurstMessages", \.collapsibleBurstMessages, unwritten: FCMProviderConfig().collapsibleBurstMessages,
                  .integers(1...1_000_000)),
            .init("collapsibleRefillSeconds", \.collapsibleRefillSeconds, unwritten: FCMProviderConfig().collapsibleRefillSeconds,
                  .numbers(0.001...86_400, unit: "seconds")),
        ]
    }
}

extension APNsProviderConfig: Codable, ConfigReadable {
    static var defaultValue: APNsProviderConfig { APNsProviderConfig() }
    static var fields: [ConfigField<APNsProviderConfig>] {
        [
            .init("connections", \.connections, .integers(1...1_000)),
            .init("streamsPerConnection", \.streamsPerConnection, .integers(1...10_000)),
            .init("requestSeconds", \.requestSeconds, .numbers(0.001...60, unit: "seconds")),
            .init("unregisteredShare", \.unregisteredShare, unwritten: 0, .numbers(0...1)),
            .init("deliveryLatencySeconds", optional: \.deliveryLatencySeconds, .durations(atMost: SampledBounds.deliveryLatencySecondsMax)),
            .init("priority5BurstIntervalSeconds", \.priority5BurstIntervalSeconds, unwritten: APNsProviderConfig().priority5BurstIntervalSeconds,
                  .numbers(1...86_400, unit: "seconds")),
        ]
    }
}

extension ProviderRetryConfig: Codable, ConfigReadable {
    static var defaultValue: ProviderRetryConfig { ProviderRetryConfig() }
    static var fields: [ConfigField<ProviderRetryConfig>] {
        [
            .init("honourRetryAfter", \.honourRetryAfter),
            .init("initialBackoffSeconds", \.initialBackoffSeconds, .numbers(0.001...3_600, unit: "seconds")),
            .init("backoffMultiplier", \.backoffMultiplier, .numbers(1...10)),
            .init("maxBackoffSeconds", \.maxBackoffSeconds, .numbers(0.001...86_400, unit: "seconds")),
            .init("jitterShare", \.jitterShare, .numbers(0...1)),
        ]
    }

    /// The longest backoff is not shorter than the first.
    static func relations(_ r: ProviderRetryConfig) -> [ConfigIssue] {
        guard r.maxBackoffSeconds < r.initialBackoffSeconds else { return [] }
        return [ConfigIssue(key: "maxBackoffSeconds", expected: "maxBackoffSeconds ≥ initialBackoffSeconds (\(ScenarioKnob.numberText(r.initialBackoffSeconds)))",
                            found: ScenarioKnob.numberText(r.maxBackoffSeconds))]
    }
}
