import PushModel
import ReportKit
import SimStats

extension ReportBuilder {
    /// The "Battery cost" section: joules per push split by fetch kind and component, joules per
    /// network class, and a paragraph with the battery share and the energy spent on pushes never
    /// opened. Nil when the run has no energy metrics (the scenario's energy model is off).
    static func energySection(_ aggregate: RunAggregate) -> ReportSection? {
        func mean(_ name: String) -> Double? { aggregate.metrics.first { $0.name == name }?.mean }
        guard let perPush = mean(MetricID.energyJoulesPerPush.rawValue) else { return nil }
        let components = ["promotion", "transfer", "tail"]
        let split = GroupedBarChart(
            title: "Radio energy per push",
            summary: "Mean joules per push targeted, pre-stage (background) and foreground fetches at tap, split into promotion, transfer and tail.",
            valueLabel: "Joules per push", valueFormat: .number(unit: "J", decimals: 2), groups: components,
            series: ["background", "foreground"].map { kind in
                BarSeries(name: kind, values: components.map { mean("energy.\(kind).\($0)JoulesPerPush") ?? .nan })
            })
        let networks = MetricTable.networkNames
        let byNetwork = GroupedBarChart(
            title: "Radio energy per network class",
            summary: "Mean joules per replication of every fetch on each network class.",
            valueLabel: "Joules", valueFormat: .number(unit: "J", decimals: 0), groups: networks,
            series: [BarSeries(name: "mean per replication", values: networks.map { mean(MetricTable.energy(network: $0).name) ?? .nan })])
        var text = "Radio energy of the fetches: \(TextNumber.format(perPush, significant: 3)) J per push"
        if let device = mean(MetricID.energyJoulesPerDevice.rawValue), let share = mean(MetricID.energyBatteryShare.rawValue) {
            text += ", \(TextNumber.format(device, significant: 3)) J per device (\(TextNumber.format(share * 100, significant: 2)) % of a battery)"
        }
        if let never = mean(MetricID.energyNeverOpenedShare.rawValue) {
            text += "; \(TextNumber.format(never * 100, significant: 3)) % of the pre-stage energy went on pushes never opened"
        }
        text += ". Promotion, transfer (base power while connected plus the per-megabit term) and the tail after the last byte, as docs/metrics.md (Radio energy) states them."
        return ReportSection(title: "Battery cost", blocks: [.paragraph(text), .chart(.groupedBars(split)), .chart(.groupedBars(byNetwork))])
    }
}
