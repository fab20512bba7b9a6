/// The mobile platform a handler runs on.
public enum Platform: UInt8, Sendable, CaseIterable {
    case iOS
    case android
}

/// The kind of OS handler that woke up for the push. It decides the time budget.
public enum HandlerKind: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    /// iOS Notification Service Extension (`mutable-content: 1`): ~30 s wall clock, ~24 MB memory.
    case iOSServiceExtension
    /// iOS app woken in the background by a silent push (`content-available: 1`): ~30 s.
    case iOSSilentBackground
    /// Android `FirebaseMessagingService.onMessageReceived`: ~10 s before the process may be killed.
    case androidFCMHandler
    /// Android WorkManager job enqueued from the FCM handler: minutes, but deferred by Doze.
    case androidWorkManagerJob

    /// The platform this handler kind runs on.
    @inlinable
    public var platform: Platform {
        switch self {
        case .iOSServiceExtension, .iOSSilentBackground: return .iOS
        case .androidFCMHandler, .androidWorkManagerJob: return .android
        }
    }

    /// True for handlers woken by a silent / data push (no visible alert of their own).
    @inlinable
    public var isSilent: Bool {
        switch self {
        case .iOSSilentBackground, .androidWorkManagerJob: return true
        case .iOSServiceExtension, .androidFCMHandler: return false
        }
    }

    public var description: String {
        switch self {
        case .iOSServiceExtension: return "iOS notification service extension"
        case .iOSSilentBackground: return "iOS silent background push"
        case .androidFCMHandler: return "Android FCM handler"
        case .androidWorkManagerJob: return "Android WorkManager job"
        }
    }
}

/// The network class the device reports (NWPathMonitor / Network Information API
/// `effectiveType`, collapsed to the classes pre-staging policy cares about).
public enum NetworkClass: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    case wifi
    case cellular5G
    case cellular4G
    case cellular3G
    case cellular2G
    case slow2G
    case offline

    /// The key used for this class in a manifest's `variants` object.
    public var payloadKey: String {
        switch self {
        case .wifi: return "wifi"
        case .cellular5G: return "5g"
        case .cellular4G: return "4g"
        case .cellular3G: return "3g"
        case .cellular2G: return "2g"
        case .slow2G: return "slow-2g"
        case .offline: return "offline"
        }
    }

    /// The class named by a `variants` key (`wifi`, `5g`, `4g`, `3g`, `2g`, `slow-2g`), if any.
    /// `offline` is not a valid variant key.
    public init?(payloadKey: String) {
        switch payloadKey {
        case "wifi": self = .wifi
        case "5g": self = .cellular5G
        case "4g": self = .cellular4G
        case "3g": self = .cellular3G
        case "2g": self = .cellular2G
        case "slow-2g": self = .slow2G
        default: return nil
        }
    }

    /// True for mobile-network classes (5G down to slow-2G).
    @inlinable
    public var isCellular: Bool {
        switch self {
        case .cellular5G, .cellular4G, .cellular3G, .cellular2G, .slow2G: return true
        case .wifi, .offline: return false
        }
    }

    /// True where assets above the large-asset threshold may be fetched (Wi-Fi, 5G, 4G/LTE).
    @inlinable
    public var allowsLargeAssets: Bool {
        switch self {
        case .wifi, .cellular5G, .cellular4G: return true
        case .cellular3G, .cellular2G, .slow2G, .offline: return false
        }
    }

    /// True where pre-staging must not fetch at all (2G, slow-2G, offline).
    @inlinable
    public var forbidsPrefetch: Bool {
        switch self {
        case .cellular2G, .slow2G, .offline: return true
        case .wifi, .cellular5G, .cellular4G, .cellular3G: return false
        }
    }

    public var description: String { payloadKey }
}

/// What the device reports when the push wakes the handler. Supplied by the driver; validated by
/// the session when the push is received.
public struct DeviceContext: Sendable, Equatable {
    /// Which OS handler is running (decides the hard deadline).
    public var handlerKind: HandlerKind
    /// The current network class.
    public var network: NetworkClass
    /// iOS Low Data Mode (`NWPath.isConstrained`) or Android data saver.
    public var isConstrained: Bool
    /// The path is metered/expensive (`NWPath.isExpensive`, cellular or hotspot).
    public var isExpensive: Bool
    /// The user asked for reduced data (`Save-Data: on`).
    public var saveData: Bool
    /// Free bytes on the storage volume holding the preload store. Must be >= 0.
    public var freeStorageBytes: Int64
    /// A uniform variate in [0, 1) drawn by the driver (PreloadKit draws no randomness), used to
    /// jitter the delivery receipt.
    public var receiptJitterUniform: Double
    /// Battery, charging, Low Power Mode and the day's cellular use, as the OS reports them
    /// (read by the `threshold` and `budgeted` decision kinds only).
    public var inputs: DeviceInputs = .unknown
    /// The `budgeted` controller's state as the app persisted it after the previous push (read
    /// the new one from `PreloadSession.ledger`). Unused by the other decision kinds.
    public var ledger: PrestageLedger = .empty
    /// The link's estimated throughput, bits per second, if the app has one (e.g. Android's
    /// `NetworkCapabilities.getLinkDownstreamBandwidthKbps`, the Network Information API's
    /// `downlink`, or the app's own measurement); nil: `HLSPolicy`'s assumption for `network`.
    /// Read only to choose an HLS variant. Must be >= 0 (checked while `PreloadPolicy.hls` is on,
    /// the only reader).
    public var estimatedThroughputBitsPerSecond: Int64? = nil

    /// The platform, derived from the handler kind.
    @inlinable
    public var platform: Platform { handlerKind.platform }

    /// True when the cellular byte cap applies: a cellular network class or an expensive path.
    @inlinable
    public var isMetered: Bool { isExpensive || network.isCellular }

    public init(
        handlerKind: HandlerKind,
        network: NetworkClass,
        isConstrained: Bool = false,
        isExpensive: Bool = false,
        saveData: Bool = false,
        freeStorageBytes: Int64,
        receiptJitterUniform: Double,
        inputs: DeviceInputs = .unknown,
        ledger: PrestageLedger = .empty,
        estimatedThroughputBitsPerSecond: Int64? = nil
    ) {
        self.handlerKind = handlerKind
        self.network = network
        self.isConstrained = isConstrained
        self.isExpensive = isExpensive
        self.saveData = saveData
        self.freeStorageBytes = freeStorageBytes
        self.receiptJitterUniform = receiptJitterUniform
        self.inputs = inputs
        self.ledger = ledger
        self.estimatedThroughputBitsPerSecond = estimatedThroughputBitsPerSecond
    }
}
