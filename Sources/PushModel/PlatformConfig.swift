import Foundation
import Stochastic

/// iOS delivery rules.
package struct IOSRulesConfig: Sendable, Equatable {
    /// Wall-clock budget of a Notification Service Extension (~30 s); the OS kills it then.
    package var serviceExtensionBudgetSeconds: Double = 30
    /// `serviceExtensionTimeWillExpire` arrives this long before the kill. Default 1 s.
    package var expiryWarningLeadSeconds: Double = 1
    /// Memory limit of the extension (~24 MB); exceeding it is an immediate kill.
    package var extensionMemoryLimitBytes: Int64 = 24 * 1_048_576
    /// Background time granted to an app woken by a silent push (~30 s).
    package var silentBackgroundSeconds: Double = 30
    /// Silent pushes the OS delivers per device per hour on average (~2–3).
    package var silentBudgetPerHour: Double = 2.5
    /// Silent pushes that may arrive back to back before the hourly rate applies.
    package var silentBurst: Int = 3
    /// Probability that the OS holds a (low-priority) silent push instead of delivering it at once.
    package var silentHoldProbability: Double = 0.3
    /// How long a held silent push waits. Held pushes for the same device coalesce: only the
    /// newest is delivered.
    package var silentHoldSeconds: Distribution = .lognormal(mu: log(300), sigma: 0.8)

    package init() {}
}

/// Android App Standby bucket limits (index: active, working set, frequent, rare, restricted).
package struct StandbyBucketLimitsConfig: Sendable, Equatable {
    /// Expedited WorkManager jobs a device may run per bucket during the run. Defaults:
    /// 100, 10, 10, 5, 1.
    package var expeditedJobs: [Int] = [100, 10, 10, 5, 1]
    /// Delay of a regular (non-expedited) job per bucket, seconds: the bucket's job deferral
    /// (up to 0, 2 h, 8 h, 24 h, 24 h). The delay is uniform in [0, value].
    package var regularJobDelayMaxSeconds: [Double] = [0, 7_200, 28_800, 86_400, 86_400]

    package init() {}
}

/// Android delivery rules.
package struct AndroidRulesConfig: Sendable, Equatable {
    /// Time in `onMessageReceived` before the process may be killed (~10 s).
    package var messageHandlerSeconds: Double = 10
    /// Longest run of a WorkManager job (10 min).
    package var jobSeconds: Double = 600
    /// A high-priority message is deprioritised to normal once this many of the app's recent
    /// high-priority messages to the device showed no notification.
    package var deprioritiseAfterSilentHighPriority: Int = 3
    /// Deep Doze: the first idle period after entering (60 min); each next one doubles...
    package var deepIdleFirstSeconds: Double = 3_600
    /// ... up to this (6 h).
    package var deepIdleMaxSeconds: Double = 21_600
    /// Length of a deep-Doze maintenance window (minutes).
    package var deepMaintenanceWindowSeconds: Double = 300
    /// Light Doze: maintenance windows every this many seconds.
    package var lightIdleSeconds: Double = 900
    /// Length of a light-Doze maintenance window.
    package var lightMaintenanceWindowSeconds: Double = 60
    /// Standby bucket limits.
    package var standbyBuckets = StandbyBucketLimitsConfig()
    /// Night-cycle devices (`PopulationConfig.dozeNight`): light Doze begins this long after the
    /// screen goes off unplugged. Default 300 s (AOSP DeviceIdleController's light-idle-after-
    /// inactive timeout, 3–5 min across releases).
    package var lightDozeAfterScreenOffSeconds: Double = 300
    /// Night-cycle devices: deep Doze begins this long after the screen goes off, the device lying
    /// still. Default 1 800 s (AOSP DeviceIdleController's 30 min inactive timeout; the few
    /// minutes of motion sensing after it are left out).
    package var deepDozeAfterScreenOffSeconds: Double = 1_800

    package init() {}
}

/// OS rules per platform.
package struct PlatformsConfig: Sendable, Equatable {
    package var ios = IOSRulesConfig()
    package var android = AndroidRulesConfig()
    /// Pre-stage fetches reuse a warm connection to the CDN host (HTTP/3 0-RTT resumption or the
    /// OS's pooled connection): no DNS/TCP/TLS set-up round trips. Default false (cold handler).
    package var backgroundConnectionWarm: Bool = false

    package init() {}
}

/// One user segment: a share of devices and their open probabilities.
package struct UserSegmentConfig: Sendable, Equatable {
    package var name: String = "all"
    /// Relative size of the segment.
    package var share: Double = 1
    /// Probability that an iOS user in this segment taps a shown notification.
    package var iosOpenProbability: Double = 0.35
    /// Probability that an Android user in this segment taps a shown notification.
    package var androidOpenProbability: Double = 0.32

    package init() {}
}

/// Users: who opens, when, and how long the app takes to paint.
package struct UsersConfig: Sendable, Equatable {
    /// Segments (at least one, at most 64). Default: one segment, 35 % / 32 % open (60–70 % of
    /// pushes go unopened).
    package var segments: [UserSegmentConfig] = [UserSegmentConfig()]
    /// Time from the notification being shown to the tap: a burst in the first minute, most within
    /// hours, a long tail. Default mixture: 25 % exponential (mean 20 s), 50 % lognormal (median
    /// 20 min), 25 % lognormal (median 3 h).
    package var tapDelaySeconds: Distribution = .mixture(components: [
        .init(weight: 0.25, distribution: .exponential(mean: 20)),
        .init(weight: 0.50, distribution: .lognormal(mu: log(1_200), sigma: 1.0)),
        .init(weight: 0.25, distribution: .lognormal(mu: log(10_800), sigma: 0.8)),
    ])
    /// App launch plus render once every critical asset is on the device (lognormal, median
    /// 180 ms, p99 ≈ 400 ms).
    package var renderSeconds: Distribution = .lognormal(mu: log(0.18), sigma: 0.35)
    /// Timeout of a foreground fetch after a tap.
    package var foregroundTimeoutSeconds: Double = 30
    /// Foreground fetches after a tap reuse a warm connection (app already running). Default
    /// false: the app launches and pays DNS/TCP/TLS set-up.
    package var foregroundConnectionWarm: Bool = false
    /// An asset fetched in the foreground after a tap is written to the device's preload store
    /// through PreloadKit (`PreloadStore.admitForeground`, the checks a pre-staged response
    /// passes), as an app keeps what it downloaded, so a later push naming the same URL paints
    /// from the store. Default true (what an app with an on-disk cache does).
    package var foregroundFetchesKept: Bool = true
    // decision kinds
    /// Per-user open probabilities and the hint pushes carry (`OpenHintConfig`); nil: none.
    package var openHint: OpenHintConfig?
    /// Tappers who leave before the screen paints, as a function of the wait.
    package var abandonment = AbandonmentConfig()
    /// Probability that a tapper whose screen painted before they left reads the article ("push
    /// to article read"). Default 1: the reference account reports only the relative change of
    /// the read rate, which a read probability independent of latency cancels out of.
    package var readProbability: Double = 1

    package init() {}
}

/// How long tappers wait for the screen: the share who have left by wait w (tap to first paint),
/// a piecewise-linear CDF through (0, 0) and the points (`waitSeconds[i]`, `leftShare[i]`), flat
/// after the last point (those tappers wait for the paint or its failure).
///
/// Default shape from Google/SOASTA's mobile benchmarks (Think with Google, 2017: "as page load
/// time goes from 1 s to 3 s the probability of bounce increases 32 %; 1 s to 5 s, 90 %; 1 s to
/// 6 s, 106 %; 1 s to 10 s, 123 %"): the share left at w is k · (that increase), 0 up to 1 s.
/// The web figures transfer in shape only: a user who tapped a push asked for this article and
/// waits longer than a search visitor, so the scale k is not the web's but is calibrated to the
/// reference account (pre-staging lifted "push to article read" by 23 % when the LTE
/// tap-to-paint went from 2.7 s median / 5.8 s p90 to under 400 ms): k = 0.44, i.e. 14 % have
/// left at 3 s, 40 % at 5 s, 54 % at 10 s (k solves reads(on) / reads(off) = 1.23 on the
/// calibration world, scenarios/calibration.json; CalibrationTests checks that the simulator
/// reproduces the +23 %). Engineering judgement, stated: the flat tail after 10 s (the web
/// figures stop there) and the share 0 up to 1 s (their baseline).
package struct AbandonmentConfig: Sendable, Equatable {
    /// Waits (tap to first paint), strictly increasing, seconds.
    package var waitSeconds: [Double] = [1, 3, 5, 6, 10]
    /// Share of tappers who have left by each wait, non-decreasing, in [0, 1].
    package var leftShare: [Double] = [0, 0.141, 0.396, 0.466, 0.541]

    package init() {}

    package init(waitSeconds: [Double], leftShare: [Double]) {
        self.waitSeconds = waitSeconds
        self.leftShare = leftShare
    }

    /// Whether no tapper ever leaves (every share 0).
    package var isOff: Bool { leftShare.allSatisfy { $0 == 0 } }

    /// The share of tappers who have left by `waitSeconds` (the curve at that wait).
    /// - Complexity: O(points); no allocation.
    package func leftShare(at wait: Double) -> Double {
        var w0 = 0.0, f0 = 0.0
        for i in waitSeconds.indices {
            let w1 = waitSeconds[i], f1 = leftShare[i]
            if wait < w1 { return wait <= w0 ? f0 : f0 + (f1 - f0) * (wait - w0) / (w1 - w0) }
            w0 = w1
            f0 = f1
        }
        return f0
    }
}
