import Foundation
import Stochastic

/// Shares of the access-network classes (InfraModel's classes). Weights need not sum to 1; they
/// are normalised. JSON keys: `wifi`, `5g`, `lte`, `4g`, `3g`, `2g`, `slow-2g`.
public struct NetworkMixConfig: Codable, Sendable, Equatable {
    public var wifi: Double
    public var fiveG: Double
    public var lte: Double
    public var fourG: Double
    public var threeG: Double
    public var twoG: Double
    public var slow2G: Double

    /// Default mix: 45 % Wi-Fi, 10 % 5G, 30 % LTE, 8 % 4G, 5 % 3G, 1.5 % 2G, 0.5 % slow-2G
    /// (assumed shares for a mixed-market audience; replace with measured data).
    public init(wifi: Double = 0.45, fiveG: Double = 0.10, lte: Double = 0.30, fourG: Double = 0.08,
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
    public var weights: [Double] { [wifi, fiveG, lte, fourG, threeG, twoG, slow2G] }

    enum CodingKeys: String, CodingKey {
        case wifi, fiveG = "5g", lte, fourG = "4g", threeG = "3g", twoG = "2g", slow2G = "slow-2g"
    }

    public init(from decoder: any Decoder) throws {
        let d = NetworkMixConfig()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        wifi = try c.field(.wifi, d.wifi)
        fiveG = try c.field(.fiveG, d.fiveG)
        lte = try c.field(.lte, d.lte)
        fourG = try c.field(.fourG, d.fourG)
        threeG = try c.field(.threeG, d.threeG)
        twoG = try c.field(.twoG, d.twoG)
        slow2G = try c.field(.slow2G, d.slow2G)
        let keys: [CodingKeys] = [.wifi, .fiveG, .lte, .fourG, .threeG, .twoG, .slow2G]
        for (k, v) in zip(keys, weights) {
            try c.check(v.isFinite && v >= 0, k, expected: "a weight ≥ 0", found: "\(v)")
        }
        try c.check(weights.reduce(0, +) > 0, .wifi, expected: "weights with a positive sum", found: "all zero")
    }
}

/// A network mix for one region (overrides `PopulationConfig.networkMix` there).
public struct RegionNetworkMixConfig: Codable, Sendable, Equatable {
    /// Region index (InfraModel's effective regions).
    public var region: Int
    public var mix: NetworkMixConfig

    public init(region: Int, mix: NetworkMixConfig) {
        self.region = region
        self.mix = mix
    }

    enum CodingKeys: String, CodingKey { case region, mix }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        mix = try c.field(.mix, NetworkMixConfig())
        region = try c.decode(Int.self, forKey: .region)
        try c.checkRange(region, 0...999_999, .region)
    }
}

/// Android App Standby bucket shares (active, working set, frequent, rare, restricted).
public struct StandbyBucketSharesConfig: Codable, Sendable, Equatable {
    public var active: Double = 0.20
    public var workingSet: Double = 0.35
    public var frequent: Double = 0.25
    public var rare: Double = 0.15
    public var restricted: Double = 0.05

    public init() {}

    var weights: [Double] { [active, workingSet, frequent, rare, restricted] }

    enum CodingKeys: String, CodingKey { case active, workingSet, frequent, rare, restricted }

    public init(from decoder: any Decoder) throws {
        let d = StandbyBucketSharesConfig()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        active = try c.field(.active, d.active)
        workingSet = try c.field(.workingSet, d.workingSet)
        frequent = try c.field(.frequent, d.frequent)
        rare = try c.field(.rare, d.rare)
        restricted = try c.field(.restricted, d.restricted)
        try c.checkWeights(weights, .active)
    }
}

/// Android Doze state shares at the start of the run (awake/charging, light Doze, deep Doze).
public struct DozeSharesConfig: Codable, Sendable, Equatable {
    public var awake: Double = 0.45
    public var lightDoze: Double = 0.20
    public var deepDoze: Double = 0.35

    public init() {}

    var weights: [Double] { [awake, lightDoze, deepDoze] }

    enum CodingKeys: String, CodingKey { case awake, lightDoze, deepDoze }

    public init(from decoder: any Decoder) throws {
        let d = DozeSharesConfig()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        awake = try c.field(.awake, d.awake)
        lightDoze = try c.field(.lightDoze, d.lightDoze)
        deepDoze = try c.field(.deepDoze, d.deepDoze)
        try c.checkWeights(weights, .awake)
    }
}

/// The device population. Every attribute is derived on demand from
/// (seed, device id, purpose), so devices cost no storage until they are active.
public struct PopulationConfig: Codable, Sendable, Equatable {
    /// Number of devices (1...50 000 000). Default 2 000.
    public var devices: Int = 2_000
    /// Share of iOS devices; the rest are Android. Default 0.5.
    public var iosShare: Double = 0.5
    /// Share of iOS devices whose app the user force-quit: silent (content-available) pushes are
    /// not delivered to them. Default 0.08.
    public var iosForceQuitShare: Double = 0.08
    /// Relative device counts per region; empty = InfraModel's region `audienceWeight`s.
    public var regionWeights: [Double] = []
    /// Network class mix (all regions unless overridden).
    public var networkMix = NetworkMixConfig()
    /// Per-region network mixes.
    public var regionNetworkMix: [RegionNetworkMixConfig] = []
    /// Share with iOS Low Data Mode / Android data saver on. Default 0.05.
    public var lowDataModeShare: Double = 0.05
    /// Share sending `Save-Data: on`. Default 0.03.
    public var saveDataShare: Double = 0.03
    /// Android standby bucket shares.
    public var standbyBuckets = StandbyBucketSharesConfig()
    /// Android Doze state shares.
    public var doze = DozeSharesConfig()
    /// A device in deep Doze entered it up to this long before t = 0 (uniform), seconds. Default 8 h.
    public var deepDozeElapsedMaxSeconds: Double = 28_800
    /// Free storage on the device, bytes (lognormal, median 8 GB, p90 ≈ 42 GB by default).
    public var freeStorageBytes: Distribution = .lognormal(mu: log(8e9), sigma: 1.3)
    /// Bytes of older pre-staged content already in the preload store at t = 0 (one LRU-oldest
    /// entry, usable for 4 h). Default: none.
    public var preexistingStoreBytes: Distribution = .constant(value: 0)

    public init() {}

    enum CodingKeys: String, CodingKey {
        case devices, iosShare, iosForceQuitShare, regionWeights, networkMix, regionNetworkMix, lowDataModeShare,
             saveDataShare, standbyBuckets, doze, deepDozeElapsedMaxSeconds, freeStorageBytes, preexistingStoreBytes
    }

    public init(from decoder: any Decoder) throws {
        let d = PopulationConfig()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        devices = try c.field(.devices, d.devices)
        iosShare = try c.field(.iosShare, d.iosShare)
        iosForceQuitShare = try c.field(.iosForceQuitShare, d.iosForceQuitShare)
        regionWeights = try c.field(.regionWeights, d.regionWeights)
        networkMix = try c.field(.networkMix, d.networkMix)
        regionNetworkMix = try c.field(.regionNetworkMix, d.regionNetworkMix)
        lowDataModeShare = try c.field(.lowDataModeShare, d.lowDataModeShare)
        saveDataShare = try c.field(.saveDataShare, d.saveDataShare)
        standbyBuckets = try c.field(.standbyBuckets, d.standbyBuckets)
        doze = try c.field(.doze, d.doze)
        deepDozeElapsedMaxSeconds = try c.field(.deepDozeElapsedMaxSeconds, d.deepDozeElapsedMaxSeconds)
        freeStorageBytes = try c.field(.freeStorageBytes, d.freeStorageBytes)
        preexistingStoreBytes = try c.field(.preexistingStoreBytes, d.preexistingStoreBytes)
        try c.checkRange(devices, 1...50_000_000, .devices)
        try c.checkProbability(iosShare, .iosShare)
        try c.checkProbability(iosForceQuitShare, .iosForceQuitShare)
        if !regionWeights.isEmpty { try c.checkWeights(regionWeights, .regionWeights) }
        try c.checkProbability(lowDataModeShare, .lowDataModeShare)
        try c.checkProbability(saveDataShare, .saveDataShare)
        try c.checkRange(deepDozeElapsedMaxSeconds, 0...604_800, .deepDozeElapsedMaxSeconds, unit: "seconds")
    }
}
