/// The decision kind's metrics (`policy.*`), emitted only when the scenario sets
/// `preloadPolicy.decision` (so results without it are unchanged).
struct DecisionTally {
    var sessionsEnded: UInt64
    var sessionsSkipped: UInt64
    /// `budgeted` only: devices with a ledger, their final day's spending and the budgets.
    var budgetDevices: Int
    var spentBytes: Double
    var spentJoules: Double
    var dailyDataBytes: Double?
    var dailyEnergyJoules: Double?

    init(_ d: DecisionState) {
        sessionsEnded = d.sessionsEnded
        sessionsSkipped = d.sessionsSkipped
        let t = d.budgetTotals()
        budgetDevices = t.devices
        spentBytes = t.bytes
        spentJoules = t.joules
        dailyDataBytes = d.budget.map { Double($0.dailyDataBytes) }
        dailyEnergyJoules = d.budget.map(\.dailyEnergyJoules)
    }
}

extension PushMetrics {
    /// Appends `policy.*` (see `MetricTable`) when the decision kind is configured.
    func appendDecisionMetrics(to m: inout [Metric], bytes b: ByteCounts) {
        guard let t = decisionTally else { return }
        func add(_ id: MetricID, _ value: Double) { m.append(Metric(id.spec, value: value)) }
        let delivered = pushesTargeted > outcomes.notDelivered ? pushesTargeted - outcomes.notDelivered : 0
        add(.policyWastedBytesPer1000Deliveries, delivered > 0 ? Double(b.neverOpenedBytes) / Double(delivered) * 1_000 : 0)
        add(.policySkipShare, t.sessionsEnded > 0 ? Double(t.sessionsSkipped) / Double(t.sessionsEnded) : 0)
        if t.budgetDevices > 0, let data = t.dailyDataBytes, let energy = t.dailyEnergyJoules {
            if data > 0 { add(.policyBudgetSpentShare, min(1, t.spentBytes / (data * Double(t.budgetDevices)))) }
            if energy > 0 { add(.policyEnergyBudgetSpentShare, min(1, t.spentJoules / (energy * Double(t.budgetDevices)))) }
        }
    }
}
