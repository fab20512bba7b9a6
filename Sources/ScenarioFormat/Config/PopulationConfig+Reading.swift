import Foundation
import PushModel

// The scenario format of the device population (`population`).

/// A share: finite and ≥ 0.
private var weight: ConfigRule<Double> { .atLeast(0, saying: "a weight ≥ 0") }

/// `weights` (already checked one by one where each has its own key) have a positive sum;
/// reported at `key`.
private func positiveSum(_ weights: [Double], at key: String) -> [ConfigIssue] {
    guard weights.allSatisfy({ $0.isFinite && $0 >= 0 }), weights.reduce(0, +) <= 0 else { return [] }
    return [ConfigIssue(key: key, expected: "weights with a positive sum", found: "all zero")]
}

extension NetworkMixConfig: Codable, ConfigReadable {
    static var defaultValue: NetworkMixConfig { NetworkMixConfig() }
    /// Keyed by InfraModel's network class names.
    static var fields: [ConfigField<NetworkMixConfig>] {
        [
            .init("wifi", \.wifi, weight),
            .init("5g", \.fiveG, weight),
            .init("lte", \.lte, weight),
            .init("4g", \.fourG, weight),
            .init("3g", \.threeG, weight),
            .init("2g", \.twoG, weight),
            .init("slow-2g", \.slow2G, weight),
        ]
    }

    static func relations(_ m: NetworkMixConfig) -> [ConfigIssue] { positiveSum(m.weights, at: "wifi") }
}

extension RegionNetworkMixConfig: Codable, ConfigReadable {
    static var defaultValue: RegionNetworkMixConfig { RegionNetworkMixConfig(region: 0, mix: NetworkMixConfig()) }
    static var fields: [ConfigField<RegionNetworkMixConfig>] {
        [
            .init("mix", \.mix),
            .init("region", \.region, required: true, .integers(0...999_999)),
        ]
    }
}

extension StandbyBucketSharesConfig: Codable, ConfigReadable {
    static var defaultValue: StandbyBucketSharesConfig { StandbyBucketSharesConfig() }
    static var fields: [ConfigField<StandbyBucketSharesConfig>] {
        [
            .init("active", \.active),
            .init("workingSet", \.workingSet),
            .init("frequent", \.frequent),
            .init("rare", \.rare),
            .init("restricted", \.restricted),
        ]
    }

    /// The shares together, reported at the first.
    static func relations(_ s: StandbyBucketSharesConfig) -> [ConfigIssue] {
        shares([s.active, s.workingSet, s.frequent, s.rare, s.restricted], at: "active")
    }
}

extension DozeSharesConfig: Codable, ConfigReadable {
    static var defaultValue: DozeSharesConfig { DozeSharesConfig() }
    static var fields: [ConfigField<DozeSharesConfig>] {
        [
            .init("awake", \.awake),
            .init("lightDoze", \.lightDoze),
            .init("deepDoze", \.deepDoze),
        ]
    }

    /// The shares together, reported at the first.
    static func relations(_ s: DozeSharesConfig) -> [ConfigIssue] { shares([s.awake, s.lightDoze, s.deepDoze], at: "awake") }
}

extension NetworkChangesConfig: Codable, ConfigReadable {
    static var defaultValue: NetworkChangesConfig { NetworkChangesConfig() }
    static var fields: [ConfigField<NetworkChangesConfig>] {
        [
            .init("switchesPerDay", \.switchesPerDay, .numbers(0...86_400, unit: "per day")),
            .init("handoversPerDay", \.handoversPerDay, .numbers(0...86_400, unit: "per day")),
        ]
    }
}

extension DozeNightConfig: Codable, ConfigReadable {
    static var defaultValue: DozeNightConfig { DozeNightConfig() }
    static var fields: [ConfigField<DozeNightConfig>] {
        [
            .init("deviceShare", \.deviceShare, .probability),
            .init("clockAtStartSeconds", \.clockAtStartSeconds, .numbers(0...86_400, unit: "seconds")),
            .init("bedtimeSeconds", \.bedtimeSeconds, .durations(atMost: SampledBounds.bedtimeSecondsMax)),
            .init("idleSeconds", \.idleSeconds, .durations(atMost: SampledBounds.idleSecondsMax)),
        ]
    }
}

/// `values` as shares (`ConfigRule.weights`), reported at `key`.
private func shares(_ values: [Double], at key: String) -> [ConfigIssue] {
    ConfigRule<[Double]>.weights.verdict(values).map { [ConfigIssue(key: key, expected: $0.expected, found: $0.found)] } ?? []
}

extension PopulationConfig: Codable, ConfigReadable {
    static var defaultValue: PopulationConfig { PopulationConfig() }
    static var fields: [ConfigField<PopulationConfig>] {
        [
            .init("devices", \.devices, .integers(1...ScenarioLimits.devicesMax)),
            .init("iosShare", \.iosShare, .probability),
            .init("iosForceQuitShare", \.iosForceQuitShare, .probability),
            .init("regionWeights", \.regionWeights, ConfigRule(schema: ConfigRule<[Double]>.weights.schema, verdict: { $0.isEmpty ? nil : ConfigRule<[Double]>.weights.verdict($0) })),
            .init("networkMix", \.networkMix),
            .init("regionNetworkMix", \.regionNetworkMix),
            .init("lowDataModeShare", \.lowDataModeShare, .probability),
            .init("saveDataShare", \.saveDataShare, .probability),
            .init("standbyBuckets", \.standbyBuckets),
            .init("doze", \.doze),
            .init("deepDozeElapsedMaxSeconds", \.deepDozeElapsedMaxSeconds, .numbers(0...604_800, unit: "seconds")),
            .init("dozeNight", \.dozeNight),
            .init("networkChanges", \.networkChanges),
            // decision kinds
            .init("devicePower", optional: \.devicePower),
            .init("freeStorageBytes", \.freeStorageBytes, .magnitudes("bytes", atMost: SampledBounds.freeStorageBytesMax)),
            .init("preexistingStoreBytes", \.preexistingStoreBytes, .magnitudes("bytes", atMost: SampledBounds.preexistingStoreBytesMax)),
        ]
    }
}
