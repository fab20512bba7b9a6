import Foundation
import PushModel

// The scenario format of the OS rules (`platforms`) and users (`users`).

/// `value` in [lower, upper] seconds, where `upper` is another field's value (checked only once
/// that field is itself valid, so the range exists).
private func secondsUpTo(_ value: Double, lower: Double, upper: Double, key: String) -> [ConfigIssue] {
    guard upper.isFinite, upper >= lower, !(value.isFinite && value >= lower && value <= upper) else { return [] }
    return [ConfigIssue(key: key, expected: "a number in \(lower)...\(upper) seconds", found: "\(value)")]
}

extension IOSRulesConfig: Codable, ConfigReadable {
    static var defaultValue: IOSRulesConfig { IOSRulesConfig() }
    static var fields: [ConfigField<IOSRulesConfig>] {
        [
            .init("serviceExtensionBudgetSeconds", \.serviceExtensionBudgetSeconds, .numbers(0.001...600, unit: "seconds")),
            .init("expiryWarningLeadSeconds", \.expiryWarningLeadSeconds),
            .init("extensionMemoryLimitBytes", \.extensionMemoryLimitBytes, .integers(1...(1 << 34))),
            .init("silentBackgroundSeconds", \.silentBackgroundSeconds, .numbers(0.001...600, unit: "seconds")),
            .init("silentBudgetPerHour", \.silentBudgetPerHour, .numbers(0.01...3_600)),
            .init("silentBurst", \.silentBurst, .integers(1...100)),
            .init("silentHoldProbability", \.silentHoldProbability, .probability),
            .init("silentHoldSeconds", \.silentHoldSeconds, .durations(atMost: SampledBounds.silentHoldSecondsMax)),
        ]
    }

    /// The expiry warning comes within the extension's budget.
    static func relations(_ r: IOSRulesConfig) -> [ConfigIssue] {
        secondsUpTo(r.expiryWarningLeadSeconds, lower: 0, upper: r.serviceExtensionBudgetSeconds, key: "expiryWarningLeadSeconds")
    }
}

/// One value per standby bucket, each meeting `element`.
private func perBucket<V>(_ what: String, _ element: ConfigRule<V>) -> ConfigRule<[V]> {
    ConfigRule<[V]>.counts(5...5, "5 \(what) (active, workingSet, frequent, rare, restricted)", found: { "\($0.count) values" })
        .then { values in values.lazy.compactMap(element.verdict).first }
        .adding(["items": .object(element.schema)])
}

extension StandbyBucketLimitsConfig: Codable, ConfigReadable {
    static var defaultValue: StandbyBucketLimitsConfig { StandbyBucketLimitsConfig() }
    static var fields: [ConfigField<StandbyBucketLimitsConfig>] {
        [
            .init("expeditedJobs", \.expeditedJobs, perBucket("integers", .integers(0...255))),
            .init("regularJobDelayMaxSeconds", \.regularJobDelayMaxSeconds, perBucket("numbers", .numbers(0...604_800, unit: "seconds"))),
        ]
    }
}

extension AndroidRulesConfig: Codable, ConfigReadable {
    static var defaultValue: AndroidRulesConfig { AndroidRulesConfig() }
    static var fields: [ConfigField<AndroidRulesConfig>] {
        [
            .init("messageHandlerSeconds", \.messageHandlerSeconds, .numbers(0.001...600, unit: "seconds")),
            .init("jobSeconds", \.jobSeconds, .numbers(0.001...3_600, unit: "seconds")),
            .init("deprioritiseAfterSilentHighPriority", \.deprioritiseAfterSilentHighPriority, .integers(1...255)),
            .init("deepIdleFirstSeconds", \.deepIdleFirstSeconds, .numbers(1...86_400, unit: "seconds")),
            .init("deepIdleMaxSeconds", \.deepIdleMaxSeconds),
            .init("deepMaintenanceWindowSeconds", \.deepMaintenanceWindowSeconds, .numbers(1...3_600, unit: "seconds")),
            .init("lightIdleSeconds", \.lightIdleSeconds, .numbers(1...86_400, unit: "seconds")),
            .init("lightMaintenanceWindowSeconds", \.lightMaintenanceWindowSeconds, .numbers(1...3_600, unit: "seconds")),
            .init("standbyBuckets", \.standbyBuckets),
            .init("lightDozeAfterScreenOffSeconds", \.lightDozeAfterScreenOffSeconds, .numbers(0...86_400, unit: "seconds")),
            .init("deepDozeAfterScreenOffSeconds", \.deepDozeAfterScreenOffSeconds),
        ]
    }

    /// Deep Doze's longest idle period is at least its first; deep Doze begins no earlier than
    /// light Doze after the screen goes off.
    static func relations(_ r: AndroidRulesConfig) -> [ConfigIssue] {
        secondsUpTo(r.deepIdleMaxSeconds, lower: r.deepIdleFirstSeconds, upper: 86_400, key: "deepIdleMaxSeconds")
            + secondsUpTo(r.deepDozeAfterScreenOffSeconds, lower: r.lightDozeAfterScreenOffSeconds, upper: 86_400,
                          key: "deepDozeAfterScreenOffSeconds")
    }
}

extension PlatformsConfig: Codable, ConfigReadable {
    static var defaultValue: PlatformsConfig { PlatformsConfig() }
    static var fields: [ConfigField<PlatformsConfig>] {
        [
            .init("ios", \.ios),
            .init("android", \.android),
            .init("backgroundConnectionWarm", \.backgroundConnectionWarm),
        ]
    }
}

extension UserSegmentConfig: Codable, ConfigReadable {
    static var defaultValue: UserSegmentConfig { UserSegmentConfig() }
    static var fields: [ConfigField<UserSegmentConfig>] {
        [
            .init("name", \.name, ConfigRule("at most 64 bytes", found: { "\($0.utf8.count) bytes" }) { $0.utf8.count <= 64 }),
            .init("share", \.share, .atLeast(0, saying: "a weight ≥ 0")),
            .init("iosOpenProbability", \.iosOpenProbability, .probability),
            .init("androidOpenProbability", \.androidOpenProbability, .probability),
        ]
    }
}

extension UsersConfig: Codable, ConfigReadable {
    static var defaultValue: UsersConfig { UsersConfig() }
    static var fields: [ConfigField<UsersConfig>] {
        [
            .init("segments", \.segments, ConfigRule.counts(1...64, "1...64 segments").then { segments in
                ConfigRule<[Double]>.weights.verdict(segments.map(\.share))
            }),
            .init("tapDelaySeconds", \.tapDelaySeconds, .durations(atMost: SampledBounds.tapDelaySecondsMax)),
            .init("renderSeconds", \.renderSeconds, .durations(atMost: SampledBounds.renderSecondsMax)),
            .init("foregroundTimeoutSeconds", \.foregroundTimeoutSeconds, .numbers(0.001...600, unit: "seconds")),
            .init("foregroundConnectionWarm", \.foregroundConnectionWarm),
            .init("foregroundFetchesKept", \.foregroundFetchesKept, unwritten: defaultValue.foregroundFetchesKept),
            .init("abandonment", \.abandonment, unwritten: defaultValue.abandonment),
            .init("readProbability", \.readProbability, unwritten: defaultValue.readProbability, .probability),
            // decision kinds
            .init("openHint", optional: \.openHint),
        ]
    }
}

extension AbandonmentConfig: Codable, ConfigReadable {
    static var defaultValue: AbandonmentConfig { AbandonmentConfig() }
    static var fields: [ConfigField<AbandonmentConfig>] {
        [
            .init("waitSeconds", \.waitSeconds, ConfigRule.counts(1...64, "1...64 waits").then { waits in
                if let bad = waits.first(where: { !($0.isFinite && $0 > 0 && $0 <= 3_600) }) { return ("waits in (0, 3600] seconds", "\(bad)") }
                return zip(waits, waits.dropFirst()).allSatisfy { $0 < $1 } ? nil : ("strictly increasing waits", "\(waits)")
            }.adding(["items": .object(["exclusiveMinimum": .integer(0), "maximum": .integer(3_600)])])),
            .init("leftShare", \.leftShare, ConfigRule.counts(1...64, "1...64 shares").then { shares in
                if let bad = shares.first(where: { !($0 >= 0 && $0 <= 1) }) { return ("shares in [0, 1]", "\(bad)") }
                return zip(shares, shares.dropFirst()).allSatisfy { $0 <= $1 } ? nil : ("non-decreasing shares", "\(shares)")
            }.adding(["items": .object(["minimum": .integer(0), "maximum": .integer(1)])])),
        ]
    }

    /// One share per wait.
    static func relations(_ a: AbandonmentConfig) -> [ConfigIssue] {
        guard a.waitSeconds.count != a.leftShare.count else { return [] }
        return [ConfigIssue(key: "leftShare", expected: "one share per wait (\(a.waitSeconds.count))", found: "\(a.leftShare.count) shares")]
    }
}
