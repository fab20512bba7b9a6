import InfraModel

extension PushMetrics {
    /// The radio energy metrics (`energy.*`), only when the scenario's energy model is on, so a
    /// run without it emits exactly what it did before. Formulas: docs/metrics.md ("Radio energy").
    func appendEnergyMetrics(to m: inout [Metric]) {
        let e = energy
        guard e.enabled else { return }
        func add(_ id: MetricID, _ value: Double) { m.append(Metric(id.spec, value: value)) }
        let pushes = Double(max(1, pushesTargeted))
        let devices = Double(max(1, e.state.count))
        let total = e.joules { _, _, _, _ in true }
        add(.energyJoules, total)
        add(.energyJoulesPerPush, total / pushes)
        add(.energyJoulesPerDevice, total / devices)
        add(.energyBatteryShare, min(1, total / devices / e.batteryJoules))
        let background = e.joules { _, fg, _, _ in !fg }
        add(.energyBackgroundJoulesPerPush, background / pushes)
        add(.energyBackgroundPromotionJoulesPerPush, e.joules { _, fg, _, k in !fg && k == .promotion } / pushes)
        add(.energyBackgroundTransferJoulesPerPush, e.joules { _, fg, _, k in !fg && k == .transfer } / pushes)
        add(.energyBackgroundTailJoulesPerPush, e.joules { _, fg, _, k in !fg && k == .tail } / pushes)
        add(.energyForegroundJoulesPerPush, e.joules { _, fg, _, _ in fg } / pushes)
        add(.energyForegroundPromotionJoulesPerPush, e.joules { _, fg, _, k in fg && k == .promotion } / pushes)
        add(.energyForegroundTransferJoulesPerPush, e.joules { _, fg, _, k in fg && k == .transfer } / pushes)
        add(.energyForegroundTailJoulesPerPush, e.joules { _, fg, _, k in fg && k == .tail } / pushes)
        let neverOpened = e.joules { _, fg, no, _ in !fg && no }
        add(.energyNeverOpenedJoules, neverOpened)
        add(.energyNeverOpenedShare, background > 0 ? neverOpened / background : 0)
        add(.energyPromotions, Double(e.promotions[0] + e.promotions[1]))
        for c in InfraNetworkClass.allCases {
            let j = e.joules { cls, _, _, _ in cls == Int(c.rawValue) }
            m.append(Metric(MetricTable.energy(network: c.description), value: j))
        }
    }
}
