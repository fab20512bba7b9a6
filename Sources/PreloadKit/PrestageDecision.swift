/// Whether a push is worth pre-staging at all: the policy kinds, the device inputs they read and
/// the budget controller of `budgeted`. Pure functions of their inputs (the hint the push carries,
/// the OS's device inputs, the app's persisted `PrestageLedger`, `now`); the session applies them
/// per selected asset after the static gates (`PreloadSession+Selection.swift`).

/// What the OS tells the app about the device when a push arrives (iOS `UIDevice.batteryLevel`,
/// `batteryState`, `ProcessInfo.isLowPowerModeEnabled`; Android `BatteryManager`,
/// `PowerManager.isPowerSaveMode`, `NetworkStatsManager` for the day's cellular bytes). The
/// network class is `DeviceContext.network`. Unknown values stay nil; `criticalOnly` and `never`
/// read none of them. The session checks them (and the ledger) under every kind but `criticalOnly`,
/// which passes them through unchecked.
public struct DeviceInputs: Sendable, Equatable {
    /// Battery level in [0, 1]; nil when unknown (then no battery floor applies).
    public var batteryLevel: Double?
    /// The device is charging (or full on the charger).
    public var isCharging: Bool
    /// iOS Low Power Mode / Android battery saver.
    public var lowPowerMode: Bool
    /// Cellular bytes the device (all apps) used since the start of today; nil when unknown.
    public var cellularBytesUsedToday: Int64?
    /// Seconds the device's local time is ahead of UTC now (`TimeZone.current.secondsFromGMT()`,
    /// Java's `ZoneId.systemDefault().rules.getOffset(now)`): the `budgeted` kind's day starts at
    /// the device's local midnight. 0: UTC. At most `utcOffsetSecondsMax` either way.
    public var utcOffsetSeconds: Int32

    /// The largest UTC offset accepted, seconds: 18 h (ISO 8601 and `java.time.ZoneOffset`'s
    /// bound; real zones span −12 h … +14 h).
    public static let utcOffsetSecondsMax: Int32 = 64_800

    @inlinable
    public init(batteryLevel: Double? = nil, isCharging: Bool = false, lowPowerMode: Bool = false, cellularBytesUsedToday: Int64? = nil,
                utcOffsetSeconds: Int32 = 0) {
        self.batteryLevel = batteryLevel
        self.isCharging = isCharging
        self.lowPowerMode = lowPowerMode
        self.cellularBytesUsedToday = cellularBytesUsedToday
        self.utcOffsetSeconds = utcOffsetSeconds
    }

    /// Nothing known: full-power defaults. (Computed and inlinable, so a driver that passes it
    /// per push, as `DeviceContext`'s default does, builds the constant in place instead of
    /// calling a global's lazy accessor.)
    @inlinable
    public static var unknown: DeviceInputs { DeviceInputs() }
}

/// Which pushes are pre-staged (after the static gates of `PreloadPolicy`: network class, Low
/// Data Mode, Save-Data, storage, metered cap).
public enum PrestageDecisionKind: Sendable, Equatable {
    /// Every selected critical asset that passes the static gates (the default; the behaviour of
    /// a policy without a decision kind, byte for byte).
    case criticalOnly
    /// Nothing is fetched in the background (manifests neither); every asset waits for the tap.
    case never
    /// Pre-stage when the push's open-probability hint is at least `openProbabilityMin`. A push
    /// without a hint is pre-staged (as `criticalOnly`). Skipped in Low Power Mode or under the
    /// battery floor when not charging.
    case threshold(openProbabilityMin: Double)
    /// Informed Mobile Prefetching (Higgins et al., MobiSys 2012): pre-stage when the expected
    /// benefit, hint × latency saved, exceeds the weighted data and energy cost; the weights
    /// adapt so that the day's data and energy budgets are spent by the goal time.
    case budgeted(BudgetedPolicy)

    /// Checks the parameters; the error names the field.
    public func validate() throws(PolicyError) {
        switch self {
        case .criticalOnly, .never: return
        case .threshold(let p):
            if !(p >= 0 && p <= 1) {
                throw PolicyError(field: "decision.openProbabilityMin", value: "\(p)", expected: "a probability in [0, 1]")
            }
        case .budgeted(let b): try b.validate()
        }
    }
}

/// Why the decision policy did not pre-stage an asset (`SkipReason.decision`).
public enum DecisionSkip: Sendable, Equatable {
    /// The policy is `never`.
    case never
    /// The hint is below the threshold.
    case belowThreshold(hint: Double, min: Double)
    /// Low Power Mode / battery saver and not charging.
    case lowPowerMode
    /// Battery below the floor and not charging.
    case lowBattery(level: Double, floor: Double)
    /// The day's data budget has no room for the asset's cellular bytes.
    case dataBudgetExhausted(spentBytes: Int64, budgetBytes: Int64)
    /// The day's energy budget has no room for the fetch's estimated joules.
    case energyBudgetExhausted(spentJoules: Double, budgetJoules: Double)
    /// The device's cellular use today is at the cap.
    case cellularDayCapReached(usedBytes: Int64, capBytes: Int64)
    /// Expected benefit (seconds) does not exceed the weighted cost (seconds).
    case notWorthCost(benefitSeconds: Double, costSeconds: Double)
}

/// The app's own estimate of what a background fetch costs the phone's radio and what it saves
/// the user, per network class. An app cannot measure joules, so these are model figures:
/// - energy = `fetchOverheadJoules` (promotion + tail, once per push: a push's fetches share one
///   radio wake-up) + `joulesPerMegabyte` × MB;
/// - latency saved = `setupSeconds` + MB × 8 / `throughputMbps` (the foreground fetch the tap
///   would otherwise wait for).
public struct NetworkCostEstimate: Sendable, Equatable {
    public var fetchOverheadJoules: Double
    public var joulesPerMegabyte: Double
    public var setupSeconds: Double
    public var throughputMbps: Double

    public init(fetchOverheadJoules: Double, joulesPerMegabyte: Double, setupSeconds: Double, throughputMbps: Double) {
        self.fetchOverheadJoules = fetchOverheadJoules
        self.joulesPerMegabyte = joulesPerMegabyte
        self.setupSeconds = setupSeconds
        self.throughputMbps = throughputMbps
    }

    /// LTE (Huang et al., MobiSys 2012, as in AT&T Video Optimizer's `lte.conf`): promotion
    /// 0.26 s × 1.21 W + tail 10 s × 1.06 W ≈ 10.9 J per isolated fetch; per MB: 51.97 mW/Mbps
    /// × 8 Mb (0.42 J) + base 1.2 W over 0.8 s at the assumed 10 Mbps (0.96 J) ≈ 1.38 J. Setup:
    /// promotion 0.26 s + judgement 0.1 s RTT/TLS on a warm path; 10 Mbps judgement.
    public static let lte = NetworkCostEstimate(fetchOverheadJoules: 10.9, joulesPerMegabyte: 1.38, setupSeconds: 0.36, throughputMbps: 10)
    /// Wi-Fi (same paper): active 0.403 W, tail 0.25 s → ≈ 0.1 J per fetch; per MB 0.403 W over
    /// 0.4 s at the assumed 20 Mbps ≈ 0.16 J. Setup 0.05 s, 20 Mbps: judgement.
    public static let wifi = NetworkCostEstimate(fetchOverheadJoules: 0.1, joulesPerMegabyte: 0.16, setupSeconds: 0.05, throughputMbps: 20)
    /// 3G (Video Optimizer's i997 profile): promotion 2.0 s × 0.65 W + DCH tail 4 s × 1.30 W +
    /// FACH tail 10 s × 0.30 W = 9.5 J; per MB: DCH 1.30 W over 8 s at the assumed 1 Mbps ≈
    /// 10.4 J. Setup: promotion 2.0 s + 0.2 s (judgement).
    public static let threeG = NetworkCostEstimate(fetchOverheadJoules: 9.5, joulesPerMegabyte: 10.4, setupSeconds: 2.2, throughputMbps: 1)
    /// 5G NSA mid-band: power 2–3× that of 4G (Xu et al., SIGCOMM 2020), taken as 2.5× LTE's
    /// overhead and per-MB cost; timers as LTE's and 50 Mbps: judgement.
    public static let fiveG = NetworkCostEstimate(fetchOverheadJoules: 27.25, joulesPerMegabyte: 3.45, setupSeconds: 0.36, throughputMbps: 50)

    func validate(_ name: String) throws(PolicyError) {
        func need(_ ok: Bool, _ field: String, _ value: Double, _ expected: String) throws(PolicyError) {
            if !ok { throw PolicyError(field: "decision.costs.\(name).\(field)", value: "\(value)", expected: expected) }
        }
        try need(fetchOverheadJoules >= 0 && fetchOverheadJoules < 1e6, "fetchOverheadJoules", fetchOverheadJoules, "0 ..< 1000000")
        try need(joulesPerMegabyte >= 0 && joulesPerMegabyte < 1e6, "joulesPerMegabyte", joulesPerMegabyte, "0 ..< 1000000")
        try need(setupSeconds >= 0 && setupSeconds < 3600, "setupSeconds", setupSeconds, "0 ..< 3600")
        try need(throughputMbps > 0 && throughputMbps < 1e6, "throughputMbps", throughputMbps, "> 0 and < 1000000")
    }
}

/// The parameters of the `budgeted` decision kind. The daily budgets are what pre-staging may
/// spend (cellular bytes; estimated joules), reset at each day start; the controller raises a
/// weight when spending runs ahead of the pro-rata budget and lowers it when behind.
public struct BudgetedPolicy: Sendable, Equatable {
    /// Cellular bytes pre-staging may spend per day (Wi-Fi bytes cost no data). 5 MB: judgement
    /// (150 MB a month, 3 % of a 5 GB plan).
    public var dailyDataBytes: Int64 = 5_000_000
    /// Estimated joules pre-staging may spend per day. 200 J: judgement, ≈ 0.5 % of a typical
    /// 3 000 mAh × 3.85 V (41.6 kJ) battery.
    public var dailyEnergyJoules: Double = 200
    /// When the budgets should be spent, seconds after the day start (≤ one day). 86 400: the
    /// day's end.
    public var goalAfterDayStartSeconds: Int64 = 86_400
    /// Where UTC days start on the `Instant` timeline, microseconds after a multiple of one day
    /// (0 for Unix time). Each device's day starts its `DeviceInputs.utcOffsetSeconds` earlier: at
    /// its local midnight. 0.
    public var dayStartOffsetMicroseconds: Int64 = 0
    /// Open probability assumed for a push without a hint. 0.2: non-messaging notifications
    /// convert at ≈ 15–25 % (Pielot et al., MobileHCI 2018).
    public var assumedOpenProbability: Double = 0.2
    /// Below this battery level (and not charging) nothing is pre-staged. 0.2: the level at
    /// which iOS offers Low Power Mode.
    public var batteryFloor: Double = 0.2
    /// Skip when the device's cellular use today (`DeviceInputs.cellularBytesUsedToday`) reached
    /// this; nil: no cap.
    public var cellularDayCapBytes: Int64?
    /// Starting weights: seconds of latency one MB of cellular data / one joule is worth. 0.5 s/MB
    /// and 0.02 s/J: judgement (a 100 KB LTE fetch then costs ≈ 0.27 s against ≈ 0.4 s saved).
    public var initialDataWeightSecondsPerMegabyte: Double = 0.5
    public var initialEnergyWeightSecondsPerJoule: Double = 0.02
    /// Controller gain: each decision multiplies a weight by exp(gain × (spent / pro-rata − 1)),
    /// the exponent clamped to ±gain. 0.5: judgement (a weight halves or doubles in ≈ 2 pushes).
    public var controllerGain: Double = 0.5
    /// Weights stay in [weightMin, weightMax].
    public var weightMin: Double = 1e-6
    public var weightMax: Double = 1e6
    /// Cost estimates per network class.
    public var wifi = NetworkCostEstimate.wifi
    public var cellular5G = NetworkCostEstimate.fiveG
    public var cellular4G = NetworkCostEstimate.lte
    public var cellular3G = NetworkCostEstimate.threeG

    public init() {}

    /// One day, microseconds.
    public static let dayMicroseconds: Int64 = 86_400_000_000

    /// The estimate for `network` (2G and below never pre-stage: the static gates stop them; they
    /// use 3G's figures if asked).
    public func costs(_ network: NetworkClass) -> NetworkCostEstimate {
        switch network {
        case .wifi: return wifi
        case .cellular5G: return cellular5G
        case .cellular4G: return cellular4G
        case .cellular3G, .cellular2G, .slow2G, .offline: return cellular3G
        }
    }

    /// Where a device `utcOffsetSeconds` ahead of UTC starts its days on the `Instant` timeline.
    @inline(__always)
    func dayStartMicroseconds(utcOffsetSeconds: Int32) -> Int64 {
        dayStartOffsetMicroseconds &- Int64(utcOffsetSeconds) &* 1_000_000
    }

    /// The index of the day holding `now` on a device `utcOffsetSeconds` ahead of UTC.
    public func dayIndex(_ now: Instant, utcOffsetSeconds: Int32 = 0) -> Int64 {
        let shifted = now.microseconds &- dayStartMicroseconds(utcOffsetSeconds: utcOffsetSeconds)
        let q = shifted / BudgetedPolicy.dayMicroseconds
        return shifted < 0 && shifted % BudgetedPolicy.dayMicroseconds != 0 ? q - 1 : q
    }

    /// The share of the day's budget due by `now`: elapsed time since the (device's local) day
    /// start over the goal time, in (0, 1] (at least 1/1440, one minute of a day, so the first
    /// push of a day is not measured against an empty budget).
    public func proRataShare(_ now: Instant, utcOffsetSeconds: Int32 = 0) -> Double {
        let dayStart = dayIndex(now, utcOffsetSeconds: utcOffsetSeconds) &* BudgetedPolicy.dayMicroseconds
            &+ dayStartMicroseconds(utcOffsetSeconds: utcOffsetSeconds)
        let elapsed = Double(now.microseconds &- dayStart) / 1e6
        return min(1, max(1.0 / 1440, elapsed / Double(goalAfterDayStartSeconds)))
    }

    public func validate() throws(PolicyError) {
        func need(_ ok: Bool, _ field: String, _ value: String, _ expected: String) throws(PolicyError) {
            if !ok { throw PolicyError(field: "decision.\(field)", value: value, expected: expected) }
        }
        try need(dailyDataBytes >= 0, "dailyDataBytes", "\(dailyDataBytes)", ">= 0")
        try need(dailyEnergyJoules >= 0 && dailyEnergyJoules < 1e9, "dailyEnergyJoules", "\(dailyEnergyJoules)", "0 ..< 1e9")
        try need(goalAfterDayStartSeconds >= 60 && goalAfterDayStartSeconds <= 86_400, "goalAfterDayStartSeconds", "\(goalAfterDayStartSeconds)", "60...86400")
        try need(dayStartOffsetMicroseconds >= 0 && dayStartOffsetMicroseconds < BudgetedPolicy.dayMicroseconds,
                 "dayStartOffsetMicroseconds", "\(dayStartOffsetMicroseconds)", "0 ..< 86400000000")
        try need(assumedOpenProbability >= 0 && assumedOpenProbability <= 1, "assumedOpenProbability", "\(assumedOpenProbability)", "a probability in [0, 1]")
        try need(batteryFloor >= 0 && batteryFloor <= 1, "batteryFloor", "\(batteryFloor)", "a level in [0, 1]")
        if let cap = cellularDayCapBytes { try need(cap >= 0, "cellularDayCapBytes", "\(cap)", ">= 0") }
        try need(weightMin > 0 && weightMin <= weightMax && weightMax < 1e12, "weightMin", "\(weightMin)", "0 < weightMin <= weightMax < 1e12")
        try need(initialDataWeightSecondsPerMegabyte >= weightMin && initialDataWeightSecondsPerMegabyte <= weightMax,
                 "initialDataWeightSecondsPerMegabyte", "\(initialDataWeightSecondsPerMegabyte)", "in [weightMin, weightMax]")
        try need(initialEnergyWeightSecondsPerJoule >= weightMin && initialEnergyWeightSecondsPerJoule <= weightMax,
                 "initialEnergyWeightSecondsPerJoule", "\(initialEnergyWeightSecondsPerJoule)", "in [weightMin, weightMax]")
        try need(controllerGain >= 0 && controllerGain <= 10, "controllerGain", "\(controllerGain)", "0...10")
        try wifi.validate("wifi")
        try cellular5G.validate("cellular5G")
        try cellular4G.validate("cellular4G")
        try cellular3G.validate("cellular3G")
    }
}

/// The `budgeted` controller's state, which the app persists between pushes (UserDefaults,
/// SharedPreferences) and passes in `DeviceContext.ledger`; read the updated one from
/// `PreloadSession.ledger` after the push. 48 bytes.
public struct PrestageLedger: Sendable, Equatable {
    /// The day `spent…` belong to (`BudgetedPolicy.dayIndex`); `Int64.min`: never used.
    public var dayIndex: Int64
    /// Cellular bytes committed to pre-staging today.
    public var spentDataBytes: Int64
    /// Estimated joules committed to pre-staging today.
    public var spentEnergyJoules: Double
    /// Current weights (0: not yet set, the policy's initial weights apply). Carried across days.
    public var dataWeightSecondsPerMegabyte: Double
    public var energyWeightSecondsPerJoule: Double
    /// Decisions made today (this one included once adapted): today's pace, from which the
    /// decisions still to come before the goal are estimated.
    public var decisionsToday: Int

    @inlinable
    public init(dayIndex: Int64 = .min, spentDataBytes: Int64 = 0, spentEnergyJoules: Double = 0,
                dataWeightSecondsPerMegabyte: Double = 0, energyWeightSecondsPerJoule: Double = 0, decisionsToday: Int = 0) {
        self.decisionsToday = decisionsToday
        self.dayIndex = dayIndex
        self.spentDataBytes = spentDataBytes
        self.spentEnergyJoules = spentEnergyJoules
        self.dataWeightSecondsPerMegabyte = dataWeightSecondsPerMegabyte
        self.energyWeightSecondsPerJoule = energyWeightSecondsPerJoule
    }

    /// A fresh ledger. (Computed and inlinable, as `DeviceInputs.unknown`.)
    @inlinable
    public static var empty: PrestageLedger { PrestageLedger() }

    /// Rolls over to `now`'s day (spending and decisions back to 0, weights kept; unset weights
    /// take the policy's initial ones), counts the decision, then adapts the weights to the
    /// spending so far: each weight is
    /// multiplied by exp(g × clamp(spent / (budget × proRataShare) − 1, −1, 1)). A zero budget
    /// leaves its weight at the maximum (the budget check refuses every cellular byte anyway).
    public mutating func adapt(_ policy: BudgetedPolicy, now: Instant, utcOffsetSeconds: Int32 = 0) {
        let day = policy.dayIndex(now, utcOffsetSeconds: utcOffsetSeconds)
        if day != dayIndex {
            dayIndex = day
            spentDataBytes = 0
            spentEnergyJoules = 0
            decisionsToday = 0
        }
        if decisionsToday < Int.max { decisionsToday += 1 }
        if !(dataWeightSecondsPerMegabyte > 0) { dataWeightSecondsPerMegabyte = policy.initialDataWeightSecondsPerMegabyte }
        if !(energyWeightSecondsPerJoule > 0) { energyWeightSecondsPerJoule = policy.initialEnergyWeightSecondsPerJoule }
        let share = policy.proRataShare(now, utcOffsetSeconds: utcOffsetSeconds)
        func step(_ w: Double, spent: Double, budget: Double) -> Double {
            guard budget > 0 else { return policy.weightMax }
            let error = min(1, max(-1, spent / (budget * share) - 1))
            return min(policy.weightMax, max(policy.weightMin, w * (policy.controllerGain * error).exp))
        }
        dataWeightSecondsPerMegabyte = step(dataWeightSecondsPerMegabyte, spent: Double(spentDataBytes), budget: Double(policy.dailyDataBytes))
        energyWeightSecondsPerJoule = step(energyWeightSecondsPerJoule, spent: spentEnergyJoules, budget: policy.dailyEnergyJoules)
    }
}

extension Double {
    /// e^self, by the standard library's own means (PreloadKit imports no Foundation).
    var exp: Double {
        // e^x = 2^(x·log2 e): split into an integer power of two and a remainder in [0, 1)
        // evaluated by its Taylor series (|r·ln 2| < 0.7: 20 terms give full precision).
        guard self.isFinite else { return self > 0 ? .infinity : 0 }
        let y = self * 1.4426950408889634
        let k = y.rounded(.down)
        let r = (y - k) * 0.6931471805599453
        var term = 1.0, sum = 1.0
        for n in 1...20 {
            term *= r / Double(n)
            sum += term
        }
        guard k > -1074 else { return 0 }
        guard k < 1024 else { return .infinity }
        return Double(sign: .plus, exponent: Int(k), significand: sum)
    }
}

/// One decision of the policy for one asset: fetch, or skip and why.
public enum PrestageVerdict: Sendable, Equatable {
    case prestage
    case skip(DecisionSkip)
}

/// The decision rules, pure: `decide` for an asset, `decideManifest` for a referenced manifest.
public enum PrestageDecision {
    /// Whether to pre-stage an asset of `bytes` on `context` (network, device inputs) given the
    /// push's `hint` (nil: none), with `firstFetch` true when no fetch of this push is queued yet
    /// (it pays the radio's overhead). For `budgeted`, `ledger` is adapted at `now` and, on
    /// `.prestage`, charged with the asset's cellular bytes and estimated joules.
    ///
    /// Decision table (each row applies when the ones above did not decide):
    /// - `criticalOnly`: prestage.
    /// - `never`: skip `.never`.
    /// - `threshold(p)`, `budgeted`: Low Power Mode and not charging → `.lowPowerMode`; battery
    ///   known and below the floor (`threshold`: 0.2, `budgeted`: `batteryFloor`) and not
    ///   charging → `.lowBattery`.
    /// - `threshold(p)`: no hint → prestage; hint < p → `.belowThreshold`; else prestage.
    /// - `budgeted`: cellular use today ≥ `cellularDayCapBytes` → `.cellularDayCapReached`;
    ///   spent + cellular bytes > daily data budget → `.dataBudgetExhausted`; not charging and
    ///   spent + joules > daily energy budget → `.energyBudgetExhausted`; benefit = (hint ??
    ///   assumedOpenProbability) × latency saved ≤ cost = data weight × cellular MB + energy
    ///   weight × joules → `.notWorthCost`; else prestage. A cost term is 0 when charging (energy)
    ///   or when its budget is slack: what is left after this fetch still covers this fetch's
    ///   cost for each decision expected before the goal at today's pace (decisions today ×
    ///   (1 − s) / s for the pro-rata share s): a budget that cannot run out is spent, not kept.
    public static func decide(_ kind: PrestageDecisionKind, bytes: Int64, hint: Double?, context: DeviceContext,
                              firstFetch: Bool, ledger: inout PrestageLedger, now: Instant) -> PrestageVerdict {
        switch kind {
        case .criticalOnly: return .prestage
        case .never: return .skip(.never)
        case .threshold(let p):
            if let skip = powerSkip(context.inputs, floor: thresholdBatteryFloor) { return .skip(skip) }
            guard let hint else { return .prestage }
            return hint < p ? .skip(.belowThreshold(hint: hint, min: p)) : .prestage
        case .budgeted(let b):
            if let skip = powerSkip(context.inputs, floor: b.batteryFloor) { return .skip(skip) }
            ledger.adapt(b, now: now, utcOffsetSeconds: context.inputs.utcOffsetSeconds)
            if let cap = b.cellularDayCapBytes, let used = context.inputs.cellularBytesUsedToday, context.network.isCellular, used >= cap {
                return .skip(.cellularDayCapReached(usedBytes: used, capBytes: cap))
            }
            let size = max(0, bytes)
            let dataBytes = context.isMetered ? size : 0
            if dataBytes > 0 && ledger.spentDataBytes > b.dailyDataBytes - dataBytes {
                return .skip(.dataBudgetExhausted(spentBytes: ledger.spentDataBytes, budgetBytes: b.dailyDataBytes))
            }
            let c = b.costs(context.network)
            let megabytes = Double(size) / 1e6
            let joules = (firstFetch ? c.fetchOverheadJoules : 0) + c.joulesPerMegabyte * megabytes
            let charging = context.inputs.isCharging
            if !charging && ledger.spentEnergyJoules + joules > b.dailyEnergyJoules {
                return .skip(.energyBudgetExhausted(spentJoules: ledger.spentEnergyJoules, budgetJoules: b.dailyEnergyJoules))
            }
            let latencySaved = c.setupSeconds + megabytes * 8 / c.throughputMbps
            let benefit = (hint ?? b.assumedOpenProbability) * latencySaved
            let share = b.proRataShare(now, utcOffsetSeconds: context.inputs.utcOffsetSeconds)
            let later = Double(ledger.decisionsToday) * (1 - share) / share
            let dataSlack = Double(b.dailyDataBytes - ledger.spentDataBytes - dataBytes) >= later * Double(dataBytes)
            let energySlack = b.dailyEnergyJoules - ledger.spentEnergyJoules - joules >= later * joules
            let cost = (dataSlack ? 0 : ledger.dataWeightSecondsPerMegabyte * Double(dataBytes) / 1e6)
                + (charging || energySlack ? 0 : ledger.energyWeightSecondsPerJoule * joules)
            guard benefit > cost else { return .skip(.notWorthCost(benefitSeconds: benefit, costSeconds: cost)) }
            ledger.spentDataBytes += dataBytes
            if !charging { ledger.spentEnergyJoules += joules }
            return .prestage
        }
    }

    /// Whether to fetch a referenced manifest (small; delivery waits for it): `never` skips;
    /// `threshold` and `budgeted` apply their power rows and `threshold` its hint row; `budgeted`
    /// does not weigh or charge it (its assets are weighed once known).
    public static func decideManifest(_ kind: PrestageDecisionKind, hint: Double?, context: DeviceContext) -> PrestageVerdict {
        switch kind {
        case .criticalOnly: return .prestage
        case .never: return .skip(.never)
        case .threshold(let p):
            if let skip = powerSkip(context.inputs, floor: thresholdBatteryFloor) { return .skip(skip) }
            if let hint, hint < p { return .skip(.belowThreshold(hint: hint, min: p)) }
            return .prestage
        case .budgeted(let b):
            if let skip = powerSkip(context.inputs, floor: b.batteryFloor) { return .skip(skip) }
            return .prestage
        }
    }

    /// `threshold`'s battery floor: 0.2, the level at which iOS offers Low Power Mode.
    public static let thresholdBatteryFloor = 0.2

    static func powerSkip(_ inputs: DeviceInputs, floor: Double) -> DecisionSkip? {
        if inputs.isCharging { return nil }
        if inputs.lowPowerMode { return .lowPowerMode }
        if let level = inputs.batteryLevel, level < floor { return .lowBattery(level: level, floor: floor) }
        return nil
    }
}
