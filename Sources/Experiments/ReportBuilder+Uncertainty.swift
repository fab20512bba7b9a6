import PushModel
import ReportKit
import ScenarioFormat
import SimStats
import Stochastic

// The report's "Uncertain inputs" section: which inputs were drawn, from what, and how much of
// each metric's spread they cause.

extension ReportBuilder {
    /// Metrics shown in the split table: the headline ones that have a split, then the objectives'.
    static let uncertaintyTableRowsMax = 24

    /// The section, nil when the scenario has no uncertain inputs.
    static func uncertaintySection(scenario: ScenarioFile, aggregate: RunAggregate) -> ReportSection? {
        let u = scenario.uncertain
        guard !u.isEmpty else { return nil }
        var blocks: [ReportBlock] = []
        let inputs = Table(caption: "Inputs drawn (one world per draw, from its own stream: the same draws at every knob value)", columns: [
            Table.Column("Field"), Table.Column("Plausible values"), Table.Column("Source"),
        ], rows: u.all.map { [.code($0.path), .text(distributionText($0.distribution)), .text($0.source)] })
        blocks.append(.table(inputs))
        guard u.replicationsPerDraw >= 2 else {
            blocks.append(.paragraph("Each replication drew its own inputs, so every interval already spans the plausible worlds as well as the simulation's own randomness. "
                                     + "To see how much of each metric's spread the inputs cause, set uncertain.replicationsPerDraw to 2 or more."))
            return ReportSection(title: "Uncertain inputs", blocks: blocks)
        }
        let wanted = Set(headlineOrder + scenario.slo.map(\.metric))
        let split = aggregate.metrics.filter { wanted.contains($0.name) && $0.varianceSplit?.inputShare != nil }
            .sorted { ($0.varianceSplit?.inputShare ?? 0) > ($1.varianceSplit?.inputShare ?? 0) }
            .prefix(uncertaintyTableRowsMax)
        let draws = split.first?.varianceSplit?.draws ?? aggregate.replications / u.replicationsPerDraw
        blocks.append(.paragraph("\(draws) draws of the inputs × \(u.replicationsPerDraw) replications each. Per metric, one day's variance splits into the part the inputs cause "
                                 + "and the simulation's own (one-way random-effects analysis of variance over the draws); intervals and mean objectives are over the \(draws) draw means. "
                                 + "A large input share says better knowledge of the inputs narrows the answer more than more replications would."))
        blocks.append(.table(Table(caption: "Where the spread comes from", columns: [
            Table.Column("Metric"), Table.Column("ID"), Table.Column("Inputs' share", alignment: .trailing),
            Table.Column("Simulation's share", alignment: .trailing), Table.Column("SD (inputs)", alignment: .trailing),
            Table.Column("SD (simulation)", alignment: .trailing),
        ], rows: split.map { m in
            let v = m.varianceSplit!
            let scale = HumanScale.choose(for: measuredUnit(name: m.name, unit: m.unit), magnitude: m.mean ?? 0)
            let share = v.inputShare ?? 0
            return [.text(MetricTable.spec(named: m.name)?.title ?? m.name), .code(m.name), .percent(share, decimals: 0), .percent(1 - share, decimals: 0),
                    .text(scale.text(v.inputVariance.squareRoot())), .text(scale.text(v.simulationVariance.squareRoot()))]
        })))
        return ReportSection(title: "Uncertain inputs", blocks: blocks)
    }

    /// "uniform 4 … 64", "normal 10 ± 2 in [4, 16]", else the kind and its support.
    static func distributionText(_ d: Distribution) -> String {
        func n(_ x: Double) -> String { TextNumber.format(x, significant: 4) }
        switch d {
        case let .uniform(lo, hi): return "uniform \(n(lo)) … \(n(hi))"
        case let .normal(mean, sd, lo, hi): return "normal \(n(mean)) ± \(n(sd))" + (lo != nil || hi != nil ? " in [\(lo.map(n) ?? "−∞"), \(hi.map(n) ?? "∞")]" : "")
        case let .categorical(values, _): return "one of " + values.map(n).joined(separator: ", ")
        default:
            let (lo, hi) = d.supportBounds
            return "a distribution on [\(n(lo)), \(n(hi))]"
        }
    }
}
