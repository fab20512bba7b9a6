import InfraModel
import SimKernel

/// A push packed in an event payload: bits 56–63 campaign (`campaignBits`; a world has at most `PushWorldConfig.campaignsMax`), 48–55 part (≤ 16
/// carousel parts), 40–47 flags, 0–39 the send instant in microseconds.
struct PushWord {
    var campaign: Int
    var part: Int
    var flags: UInt8
    var sendTicks: Int64

    /// The OS held the push (Doze, a deferred job, an iOS silent hold).
    static let flagDeferred: UInt8 = 1
    /// Android: runs in a WorkManager job.
    static let flagJob: UInt8 = 2
    /// Android: delivered as a high-priority message (counts toward deprioritisation).
    static let flagHighPriority: UInt8 = 4
    /// Android: a fallback WorkManager job PreloadKit enqueued at the FCM handler's deadline.
    static let flagFallback: UInt8 = 8
    /// The provider stored the push while the device was offline; it comes back at the reconnect
    /// (`PushWorld+Offline.swift`; cleared before the OS sees the push).
    static let flagStored: UInt8 = 16
    /// iOS: the push waited for its device's APNs priority-5 burst (`PushWorld+Priority5.swift`),
    /// so iOS does not hold it again as a low-priority silent push (`DeliveryRules.arrive`).
    static let flagPriority5: UInt8 = 32
    /// Android: a collapsible FCM message Doze holds, tracked so a newer one of its collapse key
    /// can replace it (`PushWorld+DozeCollapse.swift`; cleared when the hold ends).
    static let flagDozeTracked: UInt8 = 64
    /// Android: FCM held the collapsible message for its device's burst (`PushWorld+DeviceCaps.swift`),
    /// so on delivery it is `delayedMessageThrottled` in the Data API (cleared before the OS sees it).
    static let flagThrottled: UInt8 = 128
    /// Bits of the campaign field (56–63).
    static let campaignBits = 8
    /// Send instants are stored in 40 bits of microseconds (≈ 12.7 days ≥ the 7-day horizon limit).
    static let sendMask: UInt64 = (1 << 40) - 1

    init(campaign: Int, part: Int, flags: UInt8, sendTicks: Int64) {
        self.campaign = campaign
        self.part = part
        self.flags = flags
        self.sendTicks = sendTicks
    }

    init(_ p: UInt64) {
        campaign = Int(p >> 56)
        part = Int((p >> 48) & 0xFF)
        flags = UInt8((p >> 40) & 0xFF)
        sendTicks = Int64(p & PushWord.sendMask)
    }

    /// The campaign as a typed id.
    var campaignID: CampaignID { CampaignID(rawValue: UInt32(truncatingIfNeeded: campaign)) }

    var raw: UInt64 {
        UInt64(campaign) << 56 | UInt64(part) << 48 | UInt64(flags) << 40 | (UInt64(sendTicks) & PushWord.sendMask)
    }
}

/// A campaign's scalars for the hot path (a plain struct: reading it retains nothing).
struct CampaignRuntime {
    var pushesPerDevice: Int
    /// iOS pushes are silent (`content-available`): a silent campaign or a carousel.
    var silentOnIOS: Bool
    var androidHigh: Bool
    var androidJob: Bool
    var preStage: Bool
    var messageTtlSeconds: Double
    var tokenLifetimeTicks: Int64
    var audienceShare: Double

    init(_ c: CampaignConfig) {
        pushesPerDevice = c.pushesPerDevice
        silentOnIOS = c.iosPush == .silent || c.pushesPerDevice > 1
        androidHigh = c.androidPriority == .high
        androidJob = c.androidHandler == .workManager
        preStage = c.preStage
        messageTtlSeconds = c.messageTtlSeconds
        tokenLifetimeTicks = SimDuration.seconds(c.tokenLifetimeSeconds).ticks
        audienceShare = c.audienceShare
    }
}

/// OS rules in ticks for the hot path.
struct RulesRuntime {
    var nseBudgetTicks: Int64
    var nseWarningLeadTicks: Int64
    var nseMemoryLimitBytes: Int64
    var silentBackgroundTicks: Int64
    var silentIntervalSeconds: Int32
    var silentBurst: Int32
    var silentHoldProbability: Double
    var handlerTicks: Int64
    var jobTicks: Int64
    var deprioritiseAfter: Int
    var backgroundWarm: Bool
    var foregroundWarm: Bool
    var foregroundTimeout: SimDuration
    var storeCapacityBytes: Int64
    var storeEntriesMax: Int

    init(_ c: PushWorldConfig) {
        let ios = c.platforms.ios, android = c.platforms.android
        nseBudgetTicks = SimDuration.seconds(ios.serviceExtensionBudgetSeconds).ticks
        nseWarningLeadTicks = SimDuration.seconds(ios.expiryWarningLeadSeconds).ticks
        nseMemoryLimitBytes = ios.extensionMemoryLimitBytes
        silentBackgroundTicks = SimDuration.seconds(ios.silentBackgroundSeconds).ticks
        silentIntervalSeconds = Int32(clamping: Int64((3_600 / ios.silentBudgetPerHour).rounded()))
        silentBurst = Int32(ios.silentBurst)
        silentHoldProbability = ios.silentHoldProbability
        handlerTicks = SimDuration.seconds(android.messageHandlerSeconds).ticks
        jobTicks = SimDuration.seconds(android.jobSeconds).ticks
        deprioritiseAfter = android.deprioritiseAfterSilentHighPriority
        backgroundWarm = c.platforms.backgroundConnectionWarm
        foregroundWarm = c.users.foregroundConnectionWarm
        foregroundTimeout = .seconds(c.users.foregroundTimeoutSeconds)
        storeCapacityBytes = c.preloadPolicy.storeCapacityBytes
        storeEntriesMax = c.preloadPolicy.storeEntriesMax
    }
}
