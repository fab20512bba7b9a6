import PreloadKit

/// A device's `budgeted` ledger between pushes, compact: 24 bytes (day, cellular bytes
/// committed today, estimated joules and the two weights as 32-bit values, decisions today in
/// 16 bits, padded). What an app persists
/// in `UserDefaults` as PreloadKit's `PrestageLedger`; the simulator rounds the weights and the
/// joules to `Float` between pushes (deterministic, and far below the controller's own steps).
struct CompactLedger {
    var day: Int32 = .min
    var spentBytes: UInt32 = 0
    var spentJoules: Float = 0
    var dataWeight: Float = 0
    var energyWeight: Float = 0
    var decisions: UInt16 = 0

    init() {}

    init(_ l: PrestageLedger) {
        day = l.dayIndex == .min ? .min : Int32(clamping: l.dayIndex)
        spentBytes = UInt32(clamping: l.spentDataBytes)
        spentJoules = Float(l.spentEnergyJoules)
        dataWeight = Float(l.dataWeightSecondsPerMegabyte)
        energyWeight = Float(l.energyWeightSecondsPerJoule)
        decisions = UInt16(clamping: l.decisionsToday)
    }

    var ledger: PrestageLedger {
        PrestageLedger(dayIndex: day == .min ? .min : Int64(day), spentDataBytes: Int64(spentBytes), spentEnergyJoules: Double(spentJoules),
                       dataWeightSecondsPerMegabyte: Double(dataWeight), energyWeightSecondsPerJoule: Double(energyWeight),
                       decisionsToday: Int(decisions))
    }
}

/// The decision kind's state in the driver (nil when `preloadPolicy.decision` is absent): each
/// device's ledger (`budgeted` only: 24 bytes a device, none otherwise) and the counts behind the
/// `policy.*` metrics.
struct DecisionState {
    let budget: BudgetedPolicy?
    var ledgers: [CompactLedger]
    /// Per region: its `utcOffsetSeconds`, what each device's OS reports as its time zone (the
    /// `budgeted` day starts at the device's local midnight).
    let regionUTCOffsets: [Int32]
    /// Sessions that ended, and those in which the decision kind skipped at least one asset or
    /// manifest.
    var sessionsEnded: UInt64 = 0
    var sessionsSkipped: UInt64 = 0

    init?(policy: PreloadPolicy, devices: Int, configured: Bool, regionUTCOffsets: [Int32]) {
        guard configured else { return nil }
        self.regionUTCOffsets = regionUTCOffsets
        if case .budgeted(let b) = policy.decision {
            budget = b
            ledgers = [CompactLedger](repeating: CompactLedger(), count: devices)
        } else {
            budget = nil
            ledgers = []
        }
    }

    /// The final day's spending of every device that decided at least once under `budgeted`:
    /// devices, cellular bytes, estimated joules.
    func budgetTotals() -> (devices: Int, bytes: Double, joules: Double) {
        var n = 0
        var bytes = 0.0, joules = 0.0
        for l in ledgers where l.day != .min {
            n += 1
            bytes += Double(l.spentBytes)
            joules += Double(l.spentJoules)
        }
        return (n, bytes, joules)
    }
}

extension SessionDriver {
    /// The device inputs and ledger of device `d` (attributes `a`) for its push: battery, charging
    /// and Low Power Mode as drawn (`population.devicePower`; unknown without it), the time zone
    /// its region's `utcOffsetSeconds`. The simulation
    /// models no other apps' traffic, so the day's cellular use stays unknown (no cellular cap).
    /// Without a decision kind it tests one stored flag (`decisionOn`), nothing else. Mutating
    /// (though it changes nothing) so that calling it from `start` passes the driver by address:
    /// a non-mutating call there copied the whole driver (2.8 kB) per push.
    @inline(__always)
    mutating func decisionContext(_ context: inout DeviceContext, device d: Int, attributes a: DeviceAttributes) {
        if decisionOn { decisionInputs(&context, device: d, attributes: a) }
    }

    @inline(never)
    mutating func decisionInputs(_ context: inout DeviceContext, device d: Int, attributes a: DeviceAttributes) {
        guard let decision else { return }
        let r = Int(a.region)
        context.inputs = DeviceInputs(batteryLevel: a.batteryLevel, isCharging: a.charging, lowPowerMode: a.lowPowerMode,
                                      utcOffsetSeconds: r < decision.regionUTCOffsets.count ? decision.regionUTCOffsets[r] : 0)
        if !decision.ledgers.isEmpty { context.ledger = decision.ledgers[d].ledger }
    }

    /// Session `s` of device `d` ends: its ledger is kept and its decisions counted.
    @inline(__always)
    mutating func noteDecision(_ s: Int, device d: Int) {
        if decisionOn { countDecision(s, device: d) }
    }

    @inline(never)
    mutating func countDecision(_ s: Int, device d: Int) {
        guard decision != nil else { return }
        decision!.sessionsEnded += 1
        if sessions[s].decisionSkippedCount > 0 { decision!.sessionsSkipped += 1 }
        if !decision!.ledgers.isEmpty { decision!.ledgers[d] = CompactLedger(sessions[s].ledger) }
    }
}
