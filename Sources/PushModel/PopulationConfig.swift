import Foundation
import Stochastic

/// Shares of the access-network classes (InfraModel's classes). Weights need not sum to 1; they
/// are normalised.
package struct NetworkMixConfig: Sendable, Equatable {
    package var wifi: Double
    package var fiveG: Double
    package var lte: Double
    package var fourG: Double
    package var threeG: Double
    package var twoG: Double
    package var slow2G: Double

    /// Default mix: 45 % Wi-Fi, 10 % 5G, 30 % LTE, 8 % 4G, 5 % 3G, 1.5 % 2G, 0.5 % slow-2G
    /// (assumed shares for a mixed-market audience; replace with measured data).
    package init(wifi: Double = 0.45, fiveG: Double = 0.10, lte: Double = 0.30, fourG: Double = 0.08,
                threeG: Double = 0.05, twoG: Double = 0.015, slow2G: Double = 0.005) {
        self.wifi = wifi
        self.fiveG = fiveG
        self.lte = lte
        self.fourG = fourG
        self.threeG = threeG
        self.twoG = twoG
        self.slow2G = slow2G
    }

    /// The weights in InfraModel `NetworkClass` raw-value order.
    package var weights: [Double] { [wifi, fiveG, lte, fourG, threeG, twoG, slow2G] }
}

/// A network mix for one region (overrides `PopulationConfig.networkMix` there).
package struct RegionNetworkMixConfig: Sendable, Equatable {
    /// Region index (InfraModel's effective regions).
    package var region: Int
    package var mix: NetworkMixConfig

    package init(region: Int, mix: NetworkMixConfig) {
        self.region = region
        self.mix = mix
    }
}

/// Android App Standby bucket shares (active, working set, frequent, rare, restricted).
package struct StandbyBucketSharesConfig: Sendable, Equatable {
    package var active: Double = 0.20
    package var workingSet: Double = 0.35
    package var frequent: Double = 0.25
    package var rare: Double = 0.15
    package var restricted: Double = 0.05

    package init() {}

    var weights: [Double] { [active, workingSet, frequent, rare, restricted] }
}

/// Android Doze state shares at the start of the run (awake/charging, light Doze, deep Doze).
package struct DozeSharesConfig: Sendable, Equatable {
    package var awake: Double = 0.45
    package var lightDoze: Double = 0.20
    package var deepDoze: Double = 0.35

    package init() {}

    var weights: [Double] { [awake, lightDoze, deepDoze] }
}

/// Devices that change network over time: Wi-Fi <-> cellular switches and cellular handovers, a
/// continuous-time Markov process per device (see `NetworkChanges`). Default: off (0, 0), so a
/// scenario that does not ask for it keeps every device on its network class from push to tap.
///
/// No published per-device transition rate was found to cite; the figures a scenario sets are
/// engineering judgement. A phone that moves between home Wi-Fi, a commute on cellular and
/// office Wi-Fi makes about 4 Wi-Fi <-> cellular switches a day; a cellular
/// handover that breaks a connection (a change of radio technology, e.g. LTE -> 3G) is rarer than
/// the cell changes of a moving phone, which keep the IP address.
package struct NetworkChangesConfig: Sendable, Equatable {
    /// Wi-Fi <-> cellular switches per device per day, in the long run (0: none). The two
    /// directions' rates follow from the region's Wi-Fi share w so that share stays the share of
    /// devices on Wi-Fi at every instant: Wi-Fi -> cellular r / (2w), cellular -> Wi-Fi r / (2(1 − w)).
    package var switchesPerDay: Double = 0
    /// Cellular handovers per day spent on cellular (0: none): the device moves to a cellular
    /// class drawn from the region's cellular mix and its open connections break.
    package var handoversPerDay: Double = 0

    package init() {}

    /// Whether devices change network at all.
    package var isOn: Bool { switchesPerDay > 0 || handoversPerDay > 0 }
}

/// Android devices whose Doze state follows a night: the screen goes off at bedtime with the
/// device unplugged, it enters light Doze and later deep Doze (`AndroidRulesConfig`'s
/// `lightDozeAfterScreenOffSeconds` and `deepDozeAfterScreenOffSeconds`), runs deferred work in
/// the maintenance windows `DozeSchedule` describes, and wakes when the user picks it up in the
/// morning; during the day it is awake. The rest of the Android devices keep a fixed Doze state
/// drawn from `PopulationConfig.doze`. Default share 0: no device follows the night.
///
/// Behaviour from Android's "Optimize for Doze and App Standby"
/// (developer.android.com/training/monitoring-device-state/doze-standby). The bedtime and idle
/// length defaults are engineering judgement (a bedtime around 23:00 give or take an hour, about
/// 7.5 h with the screen off), not a published measurement.
package struct DozeNightConfig: Sendable, Equatable {
    /// Share of Android devices that follow the night cycle (screen off and unplugged overnight).
    /// Default 0.
    package var deviceShare: Double = 0
    /// UTC clock time at virtual t = 0, seconds after midnight; a region's local clock is this plus
    /// its `utcOffsetSeconds` (every offset 0 by default, so local time is UTC). Default 0 (t = 0 is
    /// midnight).
    package var clockAtStartSeconds: Double = 0
    /// Bedtime (screen off), seconds after midnight; values above 86 400 are after the next
    /// midnight. Default normal, mean 23:00, sd 1 h, truncated to 19:00...03:00.
    package var bedtimeSeconds: Distribution = .normal(mean: 82_800, sd: 3_600, lower: 68_400, upper: 97_200)
    /// How long the screen stays off from bedtime until the morning pick-up, seconds. Default
    /// normal, mean 7.5 h, sd 1 h, truncated to 4...12 h.
    package var idleSeconds: Distribution = .normal(mean: 27_000, sd: 3_600, lower: 14_400, upper: 43_200)

    package init() {}
}

/// The device population. Every attribute is derived on demand from
/// (seed, device id, purpose), so devices cost no storage until they are active.
package struct PopulationConfig: Sendable, Equatable {
    /// Number of devices (1...50 000 000). Default 2 000.
    package var devices: Int = 2_000
    /// Share of iOS devices; the rest are Android. Default 0.5.
    package var iosShare: Double = 0.5
    /// Share of iOS devices whose app the user force-quit: silent (content-available) pushes are
    /// not delivered to them. Default 0.08.
    package var iosForceQuitShare: Double = 0.08
    /// Relative device counts per region; empty = InfraModel's region `audienceWeight`s.
    package var regionWeights: [Double] = []
    /// Network class mix (all regions unless overridden).
    package var networkMix = NetworkMixConfig()
    /// Per-region network mixes.
    package var regionNetworkMix: [RegionNetworkMixConfig] = []
    /// Share with iOS Low Data Mode / Android data saver on. Default 0.05.
    package var lowDataModeShare: Double = 0.05
    /// Share sending `Save-Data: on`. Default 0.03.
    package var saveDataShare: Double = 0.03
    /// Android standby bucket shares.
    package var standbyBuckets = StandbyBucketSharesConfig()
    /// Android Doze state shares.
    package var doze = DozeSharesConfig()
    /// A device in deep Doze entered it up to this long before t = 0 (uniform), seconds. Default 8 h.
    package var deepDozeElapsedMaxSeconds: Double = 28_800
    /// Android devices that follow a night of Doze instead of a fixed state.
    package var dozeNight = DozeNightConfig()
    /// Network changes over time.
    package var networkChanges = NetworkChangesConfig()
    /// Free storage on the device, bytes (lognormal, median 8 GB, p90 ≈ 42 GB by default).
    package var freeStorageBytes: Distribution = .lognormal(mu: log(8e9), sigma: 1.3)
    /// Bytes of older pre-staged content already in the preload store at t = 0 (one LRU-oldest
    /// entry, usable for 4 h). Default: none.
    package var preexistingStoreBytes: Distribution = .constant(value: 0)
    // decision kinds
    /// Battery, charging and Low Power Mode as the OS reports them (`DevicePowerConfig`); nil: not reported.
    package var devicePower: DevicePowerConfig?

    package init() {}
}
