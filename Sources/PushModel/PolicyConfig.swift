import Foundation
import PreloadKit

/// PreloadKit's `PreloadPolicy` knobs in scenario form (seconds and bytes), plus the device store
/// limits. Every default is read from PreloadKit (`PreloadPolicy` and `PreloadStore`), so a
/// scenario that omits a knob gets exactly what an app shipping PreloadKit gets.
///
/// Delivery receipts are off by default, as in practice: an SDK's delivery report is something
/// the app turns on (Firebase Cloud Messaging exports delivery data only after
/// `setDeliveryMetricsExportToBigQuery(true)`, and on iOS only from a notification service
/// extension the app adds the call to). The 300 s jitter window is engineering judgement, not a
/// published figure: receipts feed analytics that are processed in batches (Firebase states its
/// delivery reports can lag by up to 24 hours), so five minutes of spread cost nothing, while a
/// send that reaches a million devices within a minute would otherwise receipt at ~17 000/s.
package struct PreloadPolicyConfig: Sendable, Equatable {
    /// PreloadKit's default knobs. The manifest options are a placeholder: only the knobs are read.
    private static let kit = PreloadPolicy(manifestOptions: PayloadOptions(urlPolicy: URLPolicy(allowlist: []), signingKey: []))
    /// PreloadKit's default store limits.
    private static let kitStore = PreloadStore()

    package var criticalAssetsMax: Int = kit.criticalAssetsMax
    package var requestTimeoutSeconds: Double = seconds(kit.requestTimeoutMicroseconds)
    package var fetchWindowMinSeconds: Double = seconds(kit.fetchWindowMinMicroseconds)
    /// Hard deadlines per handler kind (PreloadKit delivers by then; fail open).
    package var iosServiceExtensionDeadlineSeconds: Double = seconds(kit.deadlines.iOSServiceExtensionMicroseconds)
    package var iosSilentDeadlineSeconds: Double = seconds(kit.deadlines.iOSSilentBackgroundMicroseconds)
    package var androidMessageHandlerDeadlineSeconds: Double = seconds(kit.deadlines.androidFCMHandlerMicroseconds)
    package var androidJobDeadlineSeconds: Double = seconds(kit.deadlines.androidWorkManagerJobMicroseconds)
    /// `true`: up to `fetchConcurrencyMax` fetches at once; `false`: one at a time.
    package var parallelFetches: Bool = kit.fetchMode == .parallel
    package var fetchConcurrencyMax: Int = kit.fetchConcurrencyMax
    package var memoryBudgetBytes: Int64 = kit.memoryBudgetBytes
    package var memoryReservedBytes: Int64 = kit.memoryReservedBytes
    package var fetchBufferBytes: Int64 = kit.fetchBufferBytes
    package var largeAssetThresholdBytes: Int64 = kit.largeAssetThresholdBytes
    package var meteredSessionBytesMax: Int64 = kit.meteredSessionBytesMax
    package var assetBytesMax: Int64 = kit.assetBytesMax
    package var prefetchInLowDataMode: Bool = kit.prefetchInLowDataMode
    package var prefetchWithSaveData: Bool = kit.prefetchWithSaveData
    package var freeStorageFloorBytes: Int64 = kit.freeStorageFloorBytes
    package var oneAssetPerSilentPush: Bool = kit.oneAssetPerSilentPush
    package var attachMedia: Bool = kit.attachMedia
    /// Android: enqueue a WorkManager job when the FCM handler's deadline comes with critical
    /// assets missing (`PreloadPolicy.fallbackOnHandlerDeadline`). Default false.
    package var fallbackOnHandlerDeadline: Bool = kit.fallbackOnHandlerDeadline
    /// Preload store capacity (25 MB, the low end of practice's 25–50 MB) and entry limit.
    package var storeCapacityBytes: Int64 = kitStore.capacityBytes
    package var storeEntriesMax: Int = kitStore.entriesMax
    /// Each delivered push schedules a delivery receipt to the analytics endpoint.
    package var receiptsEnabled: Bool = kit.receiptsEnabled
    /// A receipt is sent at delivery + uniform × this window (the device's own uniform draw).
    package var receiptJitterWindowSeconds: Double = seconds(kit.receiptJitterWindowMicroseconds)
    // decision kinds
    /// Which pushes are worth pre-staging (`PreloadPolicy.decision`); nil: `criticalOnly`.
    package var decision: DecisionConfig?
    /// Segments pre-staged after an HLS playlist (`PreloadPolicy.hls.segmentsToPreStage`); read
    /// when a campaign asset has `variantsKbps` (which turns `PreloadPolicy.hls` on).
    package var hlsSegmentsToPreStage: Int = kit.hls.segmentsToPreStage

    package init() {}

    /// The PreloadKit policy these knobs describe.
    package func preloadPolicy(manifestOptions: PayloadOptions, clockAtStartSeconds: Double = 0) -> PreloadPolicy {
        var p = PreloadPolicy(manifestOptions: manifestOptions)
        p.criticalAssetsMax = criticalAssetsMax
        p.requestTimeoutMicroseconds = Self.micros(requestTimeoutSeconds)
        p.fetchWindowMinMicroseconds = Self.micros(fetchWindowMinSeconds)
        p.deadlines.iOSServiceExtensionMicroseconds = Self.micros(iosServiceExtensionDeadlineSeconds)
        p.deadlines.iOSSilentBackgroundMicroseconds = Self.micros(iosSilentDeadlineSeconds)
        p.deadlines.androidFCMHandlerMicroseconds = Self.micros(androidMessageHandlerDeadlineSeconds)
        p.deadlines.androidWorkManagerJobMicroseconds = Self.micros(androidJobDeadlineSeconds)
        p.fetchMode = parallelFetches ? .parallel : .sequential
        p.fetchConcurrencyMax = fetchConcurrencyMax
        p.memoryBudgetBytes = memoryBudgetBytes
        p.memoryReservedBytes = memoryReservedBytes
        p.fetchBufferBytes = fetchBufferBytes
        p.largeAssetThresholdBytes = largeAssetThresholdBytes
        p.meteredSessionBytesMax = meteredSessionBytesMax
        p.assetBytesMax = assetBytesMax
        p.prefetchInLowDataMode = prefetchInLowDataMode
        p.prefetchWithSaveData = prefetchWithSaveData
        p.freeStorageFloorBytes = freeStorageFloorBytes
        p.oneAssetPerSilentPush = oneAssetPerSilentPush
        p.attachMedia = attachMedia
        p.receiptsEnabled = receiptsEnabled
        p.receiptJitterWindowMicroseconds = Self.micros(receiptJitterWindowSeconds)
        p.fallbackOnHandlerDeadline = fallbackOnHandlerDeadline
        p.emitsLogEvents = false  // the driver ignores them
        if let decision { p.decision = decision.kit(clockAtStartSeconds: clockAtStartSeconds) }
        p.hls.segmentsToPreStage = hlsSegmentsToPreStage
        return p
    }

    static func micros(_ seconds: Double) -> Int64 { Int64((seconds * 1e6).rounded()) }
    static func seconds(_ micros: Int64) -> Double { Double(micros) / 1e6 }
}
