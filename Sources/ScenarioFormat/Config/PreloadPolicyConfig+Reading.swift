import Foundation
import PreloadKit
import PushModel

// The scenario format of PreloadKit's knobs (`preloadPolicy`). The rules here are the format's
// own (seconds that convert to microseconds, sizes the simulator holds, the store's limits);
// PreloadKit's ranges are checked by `PreloadPolicy.validate()` alone, its error mapped to the
// knob's key by `PolicyKnob`.

extension PreloadPolicyConfig: Codable, ConfigReadable {
    static var defaultValue: PreloadPolicyConfig { PreloadPolicyConfig() }
    static var fields: [ConfigField<PreloadPolicyConfig>] {
        [
            .init("criticalAssetsMax", \.criticalAssetsMax),
            .init("requestTimeoutSeconds", \.requestTimeoutSeconds, .numbers(0.001...3_600, unit: "seconds")),
            .init("fetchWindowMinSeconds", \.fetchWindowMinSeconds, .numbers(0...3_600, unit: "seconds")),
            .init("iosServiceExtensionDeadlineSeconds", \.iosServiceExtensionDeadlineSeconds, .numbers(0.001...3_600, unit: "seconds")),
            .init("iosSilentDeadlineSeconds", \.iosSilentDeadlineSeconds, .numbers(0.001...3_600, unit: "seconds")),
            .init("androidMessageHandlerDeadlineSeconds", \.androidMessageHandlerDeadlineSeconds, .numbers(0.001...3_600, unit: "seconds")),
            .init("androidJobDeadlineSeconds", \.androidJobDeadlineSeconds, .numbers(0.001...3_600, unit: "seconds")),
            .init("parallelFetches", \.parallelFetches),
            .init("fetchConcurrencyMax", \.fetchConcurrencyMax),
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
            .init("fallbackOnHandlerDeadline", \.fallbackOnHandlerDeadline),
            .init("storeCapacityBytes", \.storeCapacityBytes, .integers(0...(1 << 40))),
            .init("storeEntriesMax", \.storeEntriesMax, .integers(1...1_024)),
            // Written only when set: scenarios without receipts encode and hash as before.
            .init("receiptsEnabled", \.receiptsEnabled, unwritten: defaultValue.receiptsEnabled),
            .init("receiptJitterWindowSeconds", \.receiptJitterWindowSeconds, unwritten: defaultValue.receiptJitterWindowSeconds,
                  .numbers(0...86_400, unit: "seconds")),
            // decision kinds
            .init("decision", optional: \.decision),
            // HLS (written only when set, like receipts)
            .init("hlsSegmentsToPreStage", \.hlsSegmentsToPreStage, unwritten: defaultValue.hlsSegmentsToPreStage, .integers(1...16)),
        ]
    }

    /// PreloadKit's own validation of the policy these knobs describe (once every knob is within
    /// the format's bounds, so the policy can be built).
    static func relations(_ p: PreloadPolicyConfig) -> [ConfigIssue] {
        guard fields.allSatisfy({ $0.check(p) == nil }) else { return [] }
        // The manifest options are not the scenario's: a placeholder that passes their checks.
        let options = PayloadOptions(urlPolicy: URLPolicy(allowlist: []), signingKey: [0])
        do {
            try p.preloadPolicy(manifestOptions: options).validate()
            return []
        } catch {
            return [ConfigIssue(at: key(of: error.knob).map { [.key($0)] } ?? [], expected: error.expected,
                                found: key(of: error.knob) == nil ? "\(error.field) = \(error.value)" : nil)]
        }
    }

    /// The scenario key of a PreloadKit knob; nil for knobs the scenario does not set.
    private static func key(of knob: PolicyKnob?) -> String? {
        switch knob {
        case .criticalAssetsMax: return "criticalAssetsMax"
        case .requestTimeout: return "requestTimeoutSeconds"
        case .fetchWindowMin: return "fetchWindowMinSeconds"
        case .deadline(.iOSServiceExtension): return "iosServiceExtensionDeadlineSeconds"
        case .deadline(.iOSSilentBackground): return "iosSilentDeadlineSeconds"
        case .deadline(.androidFCMHandler): return "androidMessageHandlerDeadlineSeconds"
        case .deadline(.androidWorkManagerJob): return "androidJobDeadlineSeconds"
        case .fetchConcurrencyMax: return "fetchConcurrencyMax"
        case .memoryBudgetBytes: return "memoryBudgetBytes"
        case .memoryReservedBytes: return "memoryReservedBytes"
        case .fetchBufferBytes: return "fetchBufferBytes"
        case .largeAssetThresholdBytes: return "largeAssetThresholdBytes"
        case .meteredSessionBytesMax: return "meteredSessionBytesMax"
        case .assetBytesMax: return "assetBytesMax"
        case .freeStorageFloorBytes: return "freeStorageFloorBytes"
        case .receiptJitterWindow: return "receiptJitterWindowSeconds"
        case .decision: return "decision"
        case .hls: return "hlsSegmentsToPreStage"
        case .manifestBytesMax, .attachmentLimits, .manifestOptions, nil: return nil
        }
    }
}
