import Foundation
import PushModel
import ScenarioKit

// The scenario format of PreloadKit's knobs (`preloadPolicy`).

extension PreloadPolicyConfig: Codable, ConfigReadable {
    static var defaultValue: PreloadPolicyConfig { PreloadPolicyConfig() }
    static var fields: [ConfigField<PreloadPolicyConfig>] {
        [
            .init("criticalAssetsMax", \.criticalAssetsMax, .integers(1...16)),
            .init("requestTimeoutSeconds", \.requestTimeoutSeconds, .numbers(0.001...3_600, unit: "seconds")),
            .init("fetchWindowMinSeconds", \.fetchWindowMinSeconds, .numbers(0...3_600, unit: "seconds")),
            .init("iosServiceExtensionDeadlineSeconds", \.iosServiceExtensionDeadlineSeconds, .numbers(0.001...3_600, unit: "seconds")),
            .init("iosSilentDeadlineSeconds", \.iosSilentDeadlineSeconds, .numbers(0.001...3_600, unit: "seconds")),
            .init("androidMessageHandlerDeadlineSeconds", \.androidMessageHandlerDeadlineSeconds, .numbers(0.001...3_600, unit: "seconds")),
            .init("androidJobDeadlineSeconds", \.androidJobDeadlineSeconds, .numbers(0.001...3_600, unit: "seconds")),
            .init("parallelFetches", \.parallelFetches),
            .init("fetchConcurrencyMax", \.fetchConcurrencyMax, .integers(1...16)),
            .init("memoryBudgetBytes", \.memoryBudgetBytes, .integers(1...(1 << 34))),
            .init("memoryReservedBytes", \.memoryReservedBytes, .integers(0...(1 << 34))),
            .init("fetchBufferBytes", \.fetchBufferBytes, .integers(1...(1 << 30))),
            .init("largeAssetThresholdBytes", \.largeAssetThresholdBytes, .integers(0...(1 << 34))),
            .init("meteredSessionBytesMax", \.meteredSessionBytesMax, .integers(0...(1 << 34))),
            .init("assetBytesMax", \.assetBytesMax, .integers(1...(1 << 34))),
            .init("prefetchInLowDataMode", \.prefetchInLowDataMode),
            .init("prefetchWithSaveData", \.prefetchWithSaveData),
            .init("freeStorageFloorBytes", \.freeStorageFloorBytes, .integers(0...(1 << 44))),
            .init("oneAssetPerSilentPush", \.oneAssetPerSilentPush),
            .init("attachMedia", \.attachMedia),
            .init("storeCapacityBytes", \.storeCapacityBytes, .integers(0...(1 << 40))),
            .init("storeEntriesMax", \.storeEntriesMax, .integers(1...1_024)),
        ]
    }

    /// At least one fetch buffer fits beside the reserve.
    static func relations(_ p: PreloadPolicyConfig) -> [ConfigIssue] {
        guard p.memoryReservedBytes >= 0, p.fetchBufferBytes >= 0, p.memoryReservedBytes <= 1 << 34, p.fetchBufferBytes <= 1 << 30,
              p.memoryReservedBytes + p.fetchBufferBytes > p.memoryBudgetBytes else { return [] }
        return [ConfigIssue(key: "fetchBufferBytes", expected: "memoryReservedBytes + fetchBufferBytes ≤ memoryBudgetBytes (\(p.memoryBudgetBytes))",
                            found: "\(p.fetchBufferBytes)")]
    }
}
