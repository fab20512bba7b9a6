/// Hard deadlines per handler kind, measured from the push's wake-up instant. At the deadline the
/// notification is delivered with whatever is ready and every fetch is cancelled.
public struct HandlerDeadlines: Sendable, Equatable {
    /// iOS NSE: 22 s, well under the ~30 s the OS allows.
    public var iOSServiceExtensionMicroseconds: Int64 = 22_000_000
    /// iOS silent background push: 22 s of the ~30 s background budget.
    public var iOSSilentBackgroundMicroseconds: Int64 = 22_000_000
    /// Android FCM handler: 8 s of the ~10 s before the process may be killed.
    public var androidFCMHandlerMicroseconds: Int64 = 8_000_000
    /// Android WorkManager job: 120 s ("a few minutes"; the job itself may run up to 10 min).
    public var androidWorkManagerJobMicroseconds: Int64 = 120_000_000

    public init() {}

    /// The deadline for `kind`, microseconds after wake-up.
    public subscript(kind: HandlerKind) -> Int64 {
        get {
            switch kind {
            case .iOSServiceExtension: return iOSServiceExtensionMicroseconds
            case .iOSSilentBackground: return iOSSilentBackgroundMicroseconds
            case .androidFCMHandler: return androidFCMHandlerMicroseconds
            case .androidWorkManagerJob: return androidWorkManagerJobMicroseconds
            }
        }
        set {
            switch kind {
            case .iOSServiceExtension: iOSServiceExtensionMicroseconds = newValue
            case .iOSSilentBackground: iOSSilentBackgroundMicroseconds = newValue
            case .androidFCMHandler: androidFCMHandlerMicroseconds = newValue
            case .androidWorkManagerJob: androidWorkManagerJobMicroseconds = newValue
            }
        }
    }
}

/// iOS notification attachment size limits (UNNotificationAttachment).
public struct AttachmentLimits: Sendable, Equatable {
    public var imageBytesMax: Int64 = 10_000_000
    public var audioBytesMax: Int64 = 5_000_000
    public var videoBytesMax: Int64 = 50_000_000

    public init() {}

    public subscript(category: AttachmentCategory) -> Int64 {
        switch category {
        case .image: return imageBytesMax
        case .audio: return audioBytesMax
        case .video: return videoBytesMax
        }
    }
}

/// Sequential or parallel asset fetches.
public enum FetchMode: UInt8, Sendable, CaseIterable {
    /// One fetch at a time, in priority order.
    case sequential
    /// Up to `PreloadPolicy.fetchConcurrencyMax` at once (further bounded by the memory budget).
    case parallel
}

/// Every knob of a pre-stage session, with defaults from practice. Validate with `validate()`
/// (the session does so on creation).
public struct PreloadPolicy: Sendable, Equatable {
    /// Most assets pre-staged per push (of the eligible ones, most urgent first). Default 2.
    public var criticalAssetsMax: Int = 2
    /// Least urgent priority pre-staged. Default `.critical`: only critical assets; everything
    /// else waits for the foreground.
    public var eligiblePriority: AssetPriority = .critical
    /// Per-request timeout; the effective one is `min(this, time left to the hard deadline)`. 8 s.
    public var requestTimeoutMicroseconds: Int64 = 8_000_000
    /// A fetch is not started with less than this left before the hard deadline. 0.5 s.
    public var fetchWindowMinMicroseconds: Int64 = 500_000
    /// Hard deadline per handler kind.
    public var deadlines = HandlerDeadlines()
    /// Sequential or parallel fetching.
    public var fetchMode: FetchMode = .parallel
    /// Most concurrent fetches in `.parallel` mode. 2.
    public var fetchConcurrencyMax: Int = 2
    /// Memory the handler may use (iOS NSE ≈ 24 MB).
    public var memoryBudgetBytes: Int64 = 24 * 1_048_576
    /// Memory the handler needs besides fetch buffers (process, decoder, notification). 16 MiB.
    public var memoryReservedBytes: Int64 = 16 * 1_048_576
    /// Buffer per running fetch: bytes are streamed to storage through it, never accumulated.
    /// Concurrency is capped so `reserved + concurrency × buffer ≤ budget`. 1 MiB.
    public var fetchBufferBytes: Int64 = 1_048_576
    /// Assets above this size are fetched only on Wi-Fi, 5G or 4G. 250 KB.
    public var largeAssetThresholdBytes: Int64 = 250_000
    /// Bytes one push may fetch on a metered (cellular/expensive) path. 500 KB.
    public var meteredSessionBytesMax: Int64 = 500_000
    /// Largest asset fetched at all. 10 MB.
    public var assetBytesMax: Int64 = 10_000_000
    /// Largest referenced manifest document accepted. 16 KiB.
    public var manifestBytesMax: Int = 16_384
    /// Pre-stage on a constrained path (Low Data Mode / data saver). Default false: honour it.
    public var prefetchInLowDataMode: Bool = false
    /// Pre-stage when the user asked for `Save-Data`. Default false: honour it.
    public var prefetchWithSaveData: Bool = false
    /// Nothing is fetched or stored when fewer free bytes than this would remain. 64 MB.
    public var freeStorageFloorBytes: Int64 = 64_000_000
    /// A silent push (or a silent-push handler) pre-stages at most one asset.
    public var oneAssetPerSilentPush: Bool = true
    /// Attach a pre-staged image/audio/video to a visible notification (rich push: the `au`
    /// asset; manifests: the first ready critical asset that can be attached).
    public var attachMedia: Bool = true
    /// iOS attachment size limits.
    public var attachmentLimits = AttachmentLimits()
    /// Schedule a delivery receipt.
    public var receiptsEnabled: Bool = false
    /// Receipts are sent at `delivery + uniform × window`. 300 s.
    public var receiptJitterWindowMicroseconds: Int64 = 300_000_000
    /// Emit `.log` actions. A driver that discards them (the simulator, at millions of pushes)
    /// turns this off to save building, queueing and polling them; every other action is the same.
    public var emitsLogEvents: Bool = true
    /// Android: when the FCM handler's hard deadline arrives before every selected critical asset
    /// is stored, emit `.enqueueFallback` so the app enqueues expedited WorkManager work that
    /// pre-stages the push again (the notification is still delivered now). Firebase's "Receive
    /// messages" guide: `onMessageReceived` work that may not finish in its ~10 s is to be
    /// scheduled with WorkManager; expedited work runs at once while the app's standby-bucket
    /// quota lasts. Default false.
    public var fallbackOnHandlerDeadline: Bool = false
    /// How referenced manifests are parsed and verified (URL policy, signing key, limits).
    public var manifestOptions: PayloadOptions
    /// Which pushes are worth pre-staging (`criticalOnly`, `never`, `threshold`, `budgeted`),
    /// applied after the static gates above. Default `.criticalOnly`: every gated critical asset.
    public var decision: PrestageDecisionKind = .criticalOnly
    /// HLS assets: read the playlist and pre-stage the first segments of the variant the network
    /// allows (`HLSPolicy`). Default off: a playlist is one object.
    public var hls = HLSPolicy()

    public init(manifestOptions: PayloadOptions) {
        self.manifestOptions = manifestOptions
    }

    /// The number of fetches that may run at once: the mode's limit, capped by the memory budget.
    public var effectiveConcurrency: Int {
        let modeLimit = fetchMode == .sequential ? 1 : fetchConcurrencyMax
        guard fetchBufferBytes > 0 else { return 0 }
        let byMemory = (memoryBudgetBytes - memoryReservedBytes) / fetchBufferBytes
        return Int(min(Int64(modeLimit), max(0, byMemory)))
    }

    /// Checks every knob; the error names the field, its value and what was expected.
    public func validate() throws(PolicyError) {
        func need(_ ok: Bool, _ knob: PolicyKnob, _ field: String, _ value: Int64, _ expected: String) throws(PolicyError) {
            if !ok { throw PolicyError(field: field, value: "\(value)", expected: expected, knob: knob) }
        }
        try need(criticalAssetsMax >= 1 && criticalAssetsMax <= 16, .criticalAssetsMax, "criticalAssetsMax", Int64(criticalAssetsMax), "1...16")
        try need(requestTimeoutMicroseconds > 0, .requestTimeout, "requestTimeoutMicroseconds", requestTimeoutMicroseconds, "> 0")
        try need(fetchWindowMinMicroseconds >= 0, .fetchWindowMin, "fetchWindowMinMicroseconds", fetchWindowMinMicroseconds, ">= 0")
        for kind in HandlerKind.allCases {
            try need(deadlines[kind] > 0 && deadlines[kind] <= 3_600_000_000, .deadline(kind), "deadlines[\(kind)]", deadlines[kind], "1...3600000000 microseconds")
        }
        try need(fetchConcurrencyMax >= 1 && fetchConcurrencyMax <= 16, .fetchConcurrencyMax, "fetchConcurrencyMax", Int64(fetchConcurrencyMax), "1...16")
        try need(memoryBudgetBytes > 0, .memoryBudgetBytes, "memoryBudgetBytes", memoryBudgetBytes, "> 0")
        try need(memoryReservedBytes >= 0, .memoryReservedBytes, "memoryReservedBytes", memoryReservedBytes, ">= 0")
        try need(fetchBufferBytes > 0, .fetchBufferBytes, "fetchBufferBytes", fetchBufferBytes, "> 0")
        try need(memoryReservedBytes + fetchBufferBytes <= memoryBudgetBytes, .fetchBufferBytes, "fetchBufferBytes", fetchBufferBytes,
                 "memoryReservedBytes + fetchBufferBytes <= memoryBudgetBytes (\(memoryBudgetBytes)) so at least one fetch fits")
        try need(largeAssetThresholdBytes >= 0, .largeAssetThresholdBytes, "largeAssetThresholdBytes", largeAssetThresholdBytes, ">= 0")
        try need(meteredSessionBytesMax >= 0, .meteredSessionBytesMax, "meteredSessionBytesMax", meteredSessionBytesMax, ">= 0")
        try need(assetBytesMax > 0, .assetBytesMax, "assetBytesMax", assetBytesMax, "> 0")
        try need(manifestBytesMax > 0 && manifestBytesMax <= 1_048_576, .manifestBytesMax, "manifestBytesMax", Int64(manifestBytesMax), "1...1048576")
        try need(freeStorageFloorBytes >= 0, .freeStorageFloorBytes, "freeStorageFloorBytes", freeStorageFloorBytes, ">= 0")
        try need(attachmentLimits.imageBytesMax >= 0, .attachmentLimits, "attachmentLimits.imageBytesMax", attachmentLimits.imageBytesMax, ">= 0")
        try need(attachmentLimits.audioBytesMax >= 0, .attachmentLimits, "attachmentLimits.audioBytesMax", attachmentLimits.audioBytesMax, ">= 0")
        try need(attachmentLimits.videoBytesMax >= 0, .attachmentLimits, "attachmentLimits.videoBytesMax", attachmentLimits.videoBytesMax, ">= 0")
        try need(receiptJitterWindowMicroseconds >= 0 && receiptJitterWindowMicroseconds <= 86_400_000_000, .receiptJitterWindow,
                 "receiptJitterWindowMicroseconds", receiptJitterWindowMicroseconds, "0...86400000000 (one day)")
        try need(requestTimeoutMicroseconds <= 3_600_000_000, .requestTimeout, "requestTimeoutMicroseconds", requestTimeoutMicroseconds, "<= 3600000000 (one hour)")
        try hls.validate()
        do {
            try decision.validate()
        } catch {
            throw PolicyError(field: error.field, value: error.value, expected: error.expected, knob: .decision)
        }
        do {
            try manifestOptions.validate()
        } catch {
            throw PolicyError(field: "manifestOptions.\(error.field)", value: error.value, expected: error.expected, knob: .manifestOptions)
        }
    }
}

/// The policy knobs `PreloadPolicy.validate()` checks, so a caller that sets them from its own
/// configuration can name its own field without reading `PolicyError.field`.
public enum PolicyKnob: Hashable, Sendable {
    case criticalAssetsMax, requestTimeout, fetchWindowMin, deadline(HandlerKind), fetchConcurrencyMax
    case memoryBudgetBytes, memoryReservedBytes, fetchBufferBytes, largeAssetThresholdBytes, meteredSessionBytesMax
    case assetBytesMax, manifestBytesMax, freeStorageFloorBytes, attachmentLimits, receiptJitterWindow, manifestOptions
    // decision kinds
    case decision
    // HLS
    case hls
}

/// A policy knob out of range: which field, its value, what was expected.
public struct PolicyError: Error, Sendable, Equatable, CustomStringConvertible {
    public var field: String
    public var value: String
    public var expected: String
    /// The knob, when the error comes from `PreloadPolicy.validate()`.
    public var knob: PolicyKnob?

    public init(field: String, value: String, expected: String, knob: PolicyKnob? = nil) {
        self.field = field
        self.value = value
        self.expected = expected
        self.knob = knob
    }

    public var description: String { "policy field \(field) is \(value), expected \(expected)" }
}
