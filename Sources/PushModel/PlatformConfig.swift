import Foundation
import Stochastic

/// iOS delivery rules.
public struct IOSRulesConfig: Codable, Sendable, Equatable {
    /// Wall-clock budget of a Notification Service Extension (~30 s); the OS kills it then.
    public var serviceExtensionBudgetSeconds: Double = 30
    /// `serviceExtensionTimeWillExpire` arrives this long before the kill. Default 1 s.
    public var expiryWarningLeadSeconds: Double = 1
    /// Memory limit of the extension (~24 MB); exceeding it is an immediate kill.
    public var extensionMemoryLimitBytes: Int64 = 24 * 1_048_576
    /// Background time granted to an app woken by a silent push (~30 s).
    public var silentBackgroundSeconds: Double = 30
    /// Silent pushes the OS delivers per device per hour on average (~2–3).
    public var silentBudgetPerHour: Double = 2.5
    /// Silent pushes that may arrive back to back before the hourly rate applies.
    public var silentBurst: Int = 3
    /// Probability that the OS holds a (low-priority) silent push instead of delivering it at once.
    public var silentHoldProbability: Double = 0.3
    /// How long a held silent push waits. Held pushes for the same device coalesce: only the
    /// newest is delivered.
    public var silentHoldSeconds: Distribution = .lognormal(mu: log(300), sigma: 0.8)

    public init() {}

    enum CodingKeys: String, CodingKey {
        case serviceExtensionBudgetSeconds, expiryWarningLeadSeconds, extensionMemoryLimitBytes, silentBackgroundSeconds,
             silentBudgetPerHour, silentBurst, silentHoldProbability, silentHoldSeconds
    }

    public init(from decoder: any Decoder) throws {
        let d = IOSRulesConfig()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        serviceExtensionBudgetSeconds = try c.field(.serviceExtensionBudgetSeconds, d.serviceExtensionBudgetSeconds)
        expiryWarningLeadSeconds = try c.field(.expiryWarningLeadSeconds, d.expiryWarningLeadSeconds)
        extensionMemoryLimitBytes = try c.field(.extensionMemoryLimitBytes, d.extensionMemoryLimitBytes)
        silentBackgroundSeconds = try c.field(.silentBackgroundSeconds, d.silentBackgroundSeconds)
        silentBudgetPerHour = try c.field(.silentBudgetPerHour, d.silentBudgetPerHour)
        silentBurst = try c.field(.silentBurst, d.silentBurst)
        silentHoldProbability = try c.field(.silentHoldProbability, d.silentHoldProbability)
        silentHoldSeconds = try c.field(.silentHoldSeconds, d.silentHoldSeconds)
        try c.checkRange(serviceExtensionBudgetSeconds, 0.001...600, .serviceExtensionBudgetSeconds, unit: "seconds")
        try c.checkRange(expiryWarningLeadSeconds, 0...serviceExtensionBudgetSeconds, .expiryWarningLeadSeconds, unit: "seconds")
        try c.checkRange(extensionMemoryLimitBytes, 1...(1 << 34), .extensionMemoryLimitBytes)
        try c.checkRange(silentBackgroundSeconds, 0.001...600, .silentBackgroundSeconds, unit: "seconds")
        try c.checkRange(silentBudgetPerHour, 0.01...3_600, .silentBudgetPerHour)
        try c.checkRange(silentBurst, 1...100, .silentBurst)
        try c.checkProbability(silentHoldProbability, .silentHoldProbability)
    }
}

/// Android App Standby bucket limits (index: active, working set, frequent, rare, restricted).
public struct StandbyBucketLimitsConfig: Codable, Sendable, Equatable {
    /// Expedited WorkManager jobs a device may run per bucket during the run. Defaults:
    /// 100, 10, 10, 5, 1.
    public var expeditedJobs: [Int] = [100, 10, 10, 5, 1]
    /// Delay of a regular (non-expedited) job per bucket, seconds: the bucket's job deferral
    /// (up to 0, 2 h, 8 h, 24 h, 24 h). The delay is uniform in [0, value].
    public var regularJobDelayMaxSeconds: [Double] = [0, 7_200, 28_800, 86_400, 86_400]

    public init() {}

    enum CodingKeys: String, CodingKey { case expeditedJobs, regularJobDelayMaxSeconds }

    public init(from decoder: any Decoder) throws {
        let d = StandbyBucketLimitsConfig()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        expeditedJobs = try c.field(.expeditedJobs, d.expeditedJobs)
        regularJobDelayMaxSeconds = try c.field(.regularJobDelayMaxSeconds, d.regularJobDelayMaxSeconds)
        try c.check(expeditedJobs.count == 5, .expeditedJobs, expected: "5 integers (active, workingSet, frequent, rare, restricted)",
                    found: "\(expeditedJobs.count) values")
        for v in expeditedJobs { try c.checkRange(v, 0...255, .expeditedJobs) }
        try c.check(regularJobDelayMaxSeconds.count == 5, .regularJobDelayMaxSeconds,
                    expected: "5 numbers (active, workingSet, frequent, rare, restricted)", found: "\(regularJobDelayMaxSeconds.count) values")
        for v in regularJobDelayMaxSeconds { try c.checkRange(v, 0...604_800, .regularJobDelayMaxSeconds, unit: "seconds") }
    }
}

/// Android delivery rules.
public struct AndroidRulesConfig: Codable, Sendable, Equatable {
    /// Time in `onMessageReceived` before the process may be killed (~10 s).
    public var messageHandlerSeconds: Double = 10
    /// Longest run of a WorkManager job (10 min).
    public var jobSeconds: Double = 600
    /// A high-priority message is deprioritised to normal once this many of the app's recent
    /// high-priority messages to the device showed no notification.
    public var deprioritiseAfterSilentHighPriority: Int = 3
    /// Deep Doze: the first idle period after entering (60 min); each next one doubles...
    public var deepIdleFirstSeconds: Double = 3_600
    /// ... up to this (6 h).
    public var deepIdleMaxSeconds: Double = 21_600
    /// Length of a deep-Doze maintenance window (minutes).
    public var deepMaintenanceWindowSeconds: Double = 300
    /// Light Doze: maintenance windows every this many seconds.
    public var lightIdleSeconds: Double = 900
    /// Length of a light-Doze maintenance window.
    public var lightMaintenanceWindowSeconds: Double = 60
    /// Standby bucket limits.
    public var standbyBuckets = StandbyBucketLimitsConfig()

    public init() {}

    enum CodingKeys: String, CodingKey {
        case messageHandlerSeconds, jobSeconds, deprioritiseAfterSilentHighPriority, deepIdleFirstSeconds, deepIdleMaxSeconds,
             deepMaintenanceWindowSeconds, lightIdleSeconds, lightMaintenanceWindowSeconds, standbyBuckets
    }

    public init(from decoder: any Decoder) throws {
        let d = AndroidRulesConfig()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        messageHandlerSeconds = try c.field(.messageHandlerSeconds, d.messageHandlerSeconds)
        jobSeconds = try c.field(.jobSeconds, d.jobSeconds)
        deprioritiseAfterSilentHighPriority = try c.field(.deprioritiseAfterSilentHighPriority, d.deprioritiseAfterSilentHighPriority)
        deepIdleFirstSeconds = try c.field(.deepIdleFirstSeconds, d.deepIdleFirstSeconds)
        deepIdleMaxSeconds = try c.field(.deepIdleMaxSeconds, d.deepIdleMaxSeconds)
        deepMaintenanceWindowSeconds = try c.field(.deepMaintenanceWindowSeconds, d.deepMaintenanceWindowSeconds)
        lightIdleSeconds = try c.field(.lightIdleSeconds, d.lightIdleSeconds)
        lightMaintenanceWindowSeconds = try c.field(.lightMaintenanceWindowSeconds, d.lightMaintenanceWindowSeconds)
        standbyBuckets = try c.field(.standbyBuckets, d.standbyBuckets)
        try c.checkRange(messageHandlerSeconds, 0.001...600, .messageHandlerSeconds, unit: "seconds")
        try c.checkRange(jobSeconds, 0.001...3_600, .jobSeconds, unit: "seconds")
        try c.checkRange(deprioritiseAfterSilentHighPriority, 1...255, .deprioritiseAfterSilentHighPriority)
        try c.checkRange(deepIdleFirstSeconds, 1...86_400, .deepIdleFirstSeconds, unit: "seconds")
        try c.checkRange(deepIdleMaxSeconds, deepIdleFirstSeconds...86_400, .deepIdleMaxSeconds, unit: "seconds")
        try c.checkRange(deepMaintenanceWindowSeconds, 1...3_600, .deepMaintenanceWindowSeconds, unit: "seconds")
        try c.checkRange(lightIdleSeconds, 1...86_400, .lightIdleSeconds, unit: "seconds")
        try c.checkRange(lightMaintenanceWindowSeconds, 1...3_600, .lightMaintenanceWindowSeconds, unit: "seconds")
    }
}

/// OS rules per platform.
public struct PlatformsConfig: Codable, Sendable, Equatable {
    public var ios = IOSRulesConfig()
    public var android = AndroidRulesConfig()
    /// Pre-stage fetches reuse a warm connection to the CDN host (HTTP/3 0-RTT resumption or the
    /// OS's pooled connection): no DNS/TCP/TLS set-up round trips. Default false (cold handler).
    public var backgroundConnectionWarm: Bool = false

    public init() {}

    enum CodingKeys: String, CodingKey { case ios, android, backgroundConnectionWarm }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        ios = try c.field(.ios, IOSRulesConfig())
        android = try c.field(.android, AndroidRulesConfig())
        backgroundConnectionWarm = try c.field(.backgroundConnectionWarm, false)
    }
}

/// One user segment: a share of devices and their open probabilities.
public struct UserSegmentConfig: Codable, Sendable, Equatable {
    public var name: String = "all"
    /// Relative size of the segment.
    public var share: Double = 1
    /// Probability that an iOS user in this segment taps a shown notification.
    public var iosOpenProbability: Double = 0.35
    /// Probability that an Android user in this segment taps a shown notification.
    public var androidOpenProbability: Double = 0.32

    public init() {}

    enum CodingKeys: String, CodingKey { case name, share, iosOpenProbability, androidOpenProbability }

    public init(from decoder: any Decoder) throws {
        let d = UserSegmentConfig()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.field(.name, d.name)
        share = try c.field(.share, d.share)
        iosOpenProbability = try c.field(.iosOpenProbability, d.iosOpenProbability)
        androidOpenProbability = try c.field(.androidOpenProbability, d.androidOpenProbability)
        try c.check(name.utf8.count <= 64, .name, expected: "at most 64 bytes", found: "\(name.utf8.count) bytes")
        try c.check(share.isFinite && share >= 0, .share, expected: "a weight ≥ 0", found: "\(share)")
        try c.checkProbability(iosOpenProbability, .iosOpenProbability)
        try c.checkProbability(androidOpenProbability, .androidOpenProbability)
    }
}

/// Users: who opens, when, and how long the app takes to paint.
public struct UsersConfig: Codable, Sendable, Equatable {
    /// Segments (at least one, at most 64). Default: one segment, 35 % / 32 % open (60–70 % of
    /// pushes go unopened).
    public var segments: [UserSegmentConfig] = [UserSegmentConfig()]
    /// Time from the notification being shown to the tap: a burst in the first minute, most within
    /// hours, a long tail. Default mixture: 25 % exponential (mean 20 s), 50 % lognormal (median
    /// 20 min), 25 % lognormal (median 3 h).
    public var tapDelaySeconds: Distribution = .mixture(components: [
        .init(weight: 0.25, distribution: .exponential(mean: 20)),
        .init(weight: 0.50, distribution: .lognormal(mu: log(1_200), sigma: 1.0)),
        .init(weight: 0.25, distribution: .lognormal(mu: log(10_800), sigma: 0.8)),
    ])
    /// App launch plus render once every critical asset is on the device (lognormal, median
    /// 180 ms, p99 ≈ 400 ms).
    public var renderSeconds: Distribution = .lognormal(mu: log(0.18), sigma: 0.35)
    /// Timeout of a foreground fetch after a tap.
    public var foregroundTimeoutSeconds: Double = 30
    /// Foreground fetches after a tap reuse a warm connection (app already running). Default
    /// false: the app launches and pays DNS/TCP/TLS set-up.
    public var foregroundConnectionWarm: Bool = false

    public init() {}

    enum CodingKeys: String, CodingKey { case segments, tapDelaySeconds, renderSeconds, foregroundTimeoutSeconds, foregroundConnectionWarm }

    public init(from decoder: any Decoder) throws {
        let d = UsersConfig()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        segments = try c.field(.segments, d.segments)
        tapDelaySeconds = try c.field(.tapDelaySeconds, d.tapDelaySeconds)
        renderSeconds = try c.field(.renderSeconds, d.renderSeconds)
        foregroundTimeoutSeconds = try c.field(.foregroundTimeoutSeconds, d.foregroundTimeoutSeconds)
        foregroundConnectionWarm = try c.field(.foregroundConnectionWarm, d.foregroundConnectionWarm)
        try c.check((1...64).contains(segments.count), .segments, expected: "1...64 segments", found: "\(segments.count)")
        try c.checkWeights(segments.map(\.share), .segments)
        try c.checkRange(foregroundTimeoutSeconds, 0.001...600, .foregroundTimeoutSeconds, unit: "seconds")
    }
}
