import Foundation
import PushModel
import ReportKit
import ScenarioFormat
import SimStats

/// Maps a run's aggregate into a ReportKit `Report` (rendered to report.md and report.html). Titles,
/// units, better directions and alarm levels come from PushModel's `MetricTable`; the charts are in
/// `ReportBuilder+Charts.swift`.
package enum ReportBuilder {
    /// Metrics shown as headlines when present, in this order (others appear in the full table).
    package static let headlineOrder: [String] = ([.tapToPaintP50, .tapToPaintP95, .tapToPaintShareUnder500ms,
                                                  .edgePrestageHitRatio, .extensionDownloadP95, .originPeakRequestsPerSecond,
                                                  .originRejected503, .outcomesCompletedShare] as [MetricID]).map(\.rawValue)
    /// Most headline metrics.
    package static let headlinesMax = 8
    /// Most points per time-series line over a chart's focus (seconds are binned to stay under it).
    static let timePointsMax = 720
    /// Most points per time-series line over the whole horizon (the overview).
    static let horizonPointsMax = 20_000
    /// Instant-paint reference on the tap-to-paint CDF, milliseconds.
    static let instantPaintMilliseconds = 500.0

    /// What the report says about how the run was invoked, beyond the resolved scenario.
    package struct Invocation: Sendable, Equatable {
        /// Every change to the scenario file, as typed: "--devices 500000", "--set run.seed=7".
        package var overrides: [String]
        /// Whether `--devices` changed the population (the scenario's name may then mislead).
        package var devicesOverridden: Bool

        /// Creates the value from its properties (see their documentation).
        package init(overrides: [String] = [], devicesOverridden: Bool = false) {
            self.overrides = overrides
            self.devicesOverridden = devicesOverridden
        }
    }

    package static func build(scenario: ScenarioFile, hash: String, aggregate: RunAggregate, tables: PopAndRegionTables,
                             results: [ReplicationResult], invocation: Invocation = Invocation()) -> Report {
        let level = scenario.run.confidenceLevel
        var headlineMetrics = headlineOrder.compactMap { name in aggregate.metrics.first { $0.name == name } }
        if headlineMetrics.isEmpty { headlineMetrics = Array(aggregate.metrics.prefix(headlinesMax)) }
        let headlines = headlineMetrics.prefix(headlinesMax).compactMap { headline($0, level: level) }
        var sections: [ReportSection] = []
        sections.append(ReportSection(title: "Tap to paint", blocks: tapToPaintCharts(aggregate).map { .chart(.cdf($0)) }
                                          + [.chart(.timeSeries(tapToPaintOverTimeChart(scenario: scenario, aggregate: aggregate)))]))
        sections.append(ReportSection(title: "CDN and origin over time", blocks: timeCharts(scenario: scenario, aggregate: aggregate).map { .chart(.timeSeries($0)) }))
        sections.append(popsAndRegionsSection(scenario: scenario, tables: tables))
        sections.append(ReportSection(title: "Preload outcomes", blocks: [.chart(.breakdown(outcomeChart(aggregate)))]))
        sections.append(ReportSection(title: "Bytes", blocks: [.chart(.groupedBars(bytesChart(aggregate)))]))
        if let faults = faultsSection(scenario: scenario, aggregate: aggregate) { sections.append(faults) }
        if let cdnApi = cdnApiSection(scenario: scenario, aggregate: aggregate) { sections.append(cdnApi) }
        if let uncertain = uncertaintySection(scenario: scenario, aggregate: aggregate) { sections.append(uncertain) }
        if let energy = energySection(aggregate) { sections.append(energy) }
        if let cost = costSection(scenario: scenario, aggregate: aggregate) { sections.append(cost) }
        sections.append(userDataSection(scenario: scenario, aggregate: aggregate, results: results))
        if let campaigns = campaignsSection(scenario: scenario, aggregate: aggregate) { sections.append(campaigns) }
        sections.append(ReportSection(title: "All metrics", blocks: [
            .paragraph("Means over \(aggregate.replications) replication(s) with \(Int((level * 100).rounded())) % t confidence intervals; per-replication values are in summary.json. "
                       + "Replications needed: the estimated count for a half-width of \(TextNumber.format(scenario.run.relativeHalfWidthTarget * 100, significant: 3)) % of the mean (run.relativeHalfWidthTarget; from this run's spread; > \(ScenarioLimits.replicationsMax) or a zero mean: —)."),
            .table(metricsTable(aggregate.pooledMetrics, relativeTarget: scenario.run.relativeHalfWidthTarget)),
        ]))
        let events = results.reduce(UInt64(0)) { $0 &+ $1.eventsProcessed }
        let reasons = Dictionary(grouping: results.map(\.stopReason), by: { $0 }).keys.sorted()
        sections.append(ReportSection(title: "Run", blocks: [
            .paragraph("\(TextFormat.count(scenario.world.population.devices)) devices, \(scenario.world.campaigns.count) campaign(s), horizon \(TextFormat.count(Int(scenario.world.horizonSeconds))) s; \(TextFormat.count(Int(clamping: events))) events over \(aggregate.replications) replication(s); stop reason(s): \(reasons.joined(separator: ", "))."),
        ]))
        let devices = scenario.world.population.devices
        let title = invocation.devicesOverridden
            ? scenario.name + " — run with " + TextFormat.count(devices) + " devices (--devices)" : scenario.name
        let facts = [RunFact("Devices", TextFormat.count(devices)), RunFact("Campaigns", TextFormat.count(scenario.world.campaigns.count)),
                     RunFact("Horizon", horizonText(scenario.world.horizonSeconds)),
                     RunFact("Confidence level", HumanScale.format(level, unit: .ratio))]
        return Report(title: title, scenario: ScenarioSummary(name: scenario.name, question: scenario.question),
                      provenance: RunProvenance(seed: scenario.run.seed, replications: scenario.run.replications,
                                                toolVersion: ToolVersion.text, scenarioHash: hash, sourceRevision: SourceRevision.current ?? "",
                                                facts: facts, overrides: invocation.overrides),
                      headlines: Array(headlines), sections: sections)
    }

    /// "1,800 s (30 min)"; seconds alone below two minutes.
    static func horizonText(_ seconds: Double) -> String {
        let text = TextFormat.fixed(seconds, decimals: 0, grouping: true) + " s"
        guard seconds >= 120 else { return text }
        let minutes = seconds / 60
        return text + " (" + (minutes >= 120 ? TextFormat.fixed(minutes / 60, decimals: 1) + " h" : TextFormat.fixed(minutes, decimals: 0) + " min") + ")"
    }

    /// The measured unit of a metric for display: origin rates are requests per second.
    package static func measuredUnit(name: String, unit: String) -> MeasuredUnit {
        if unit == MetricUnit.perSecond.rawValue && name.hasPrefix("origin.") { return .perSecond(noun: "req") }
        return MeasuredUnit(code: unit)
    }

    /// A headline card: the table's title, the id in small print, human units, the table's alarm level.
    static func headline(_ m: MetricSummary, level: Double) -> HeadlineMetric? {
        guard let mean = m.mean else { return nil }
        let spec = MetricTable.spec(named: m.name)
        let threshold = spec?.alarm.map { Threshold(value: $0.value, alarmWhen: $0.when == .above ? .above : .below) }
        var notes: [String] = []
        if let ratio = spec?.ratio { notes.append(ratio.numerator + " ÷ " + ratio.denominator + ".") }
        if m.name == MetricID.originPeakRequestsPerSecond.rawValue {
            notes.append("Each replication's busiest 1-second bin, averaged over replications; the origin chart plots the per-second mean over replications (bin width in its description), so its peak can be lower.")
        }
        if m.better != "none" { notes.append(m.better.prefix(1).uppercased() + m.better.dropFirst() + " is better.") }
        var card = HeadlineMetric(name: spec?.title ?? m.name, id: m.name, measuredValue: mean, measured: measuredUnit(name: m.name, unit: m.unit),
                                  ciHalfWidth: m.confidenceInterval?.halfWidth, ciLevel: level, threshold: threshold,
                                  note: notes.joined(separator: " "))
        card.lookAt = spec?.alarm?.lookAt ?? ""
        return card
    }

    /// Every metric: its title with the id in small print, mean and interval in human units.
    static func metricsTable(_ metrics: [MetricSummary], relativeTarget: Double) -> Table {
        let rows: [[TableCell]] = metrics.map { m in
            let unit = measuredUnit(name: m.name, unit: m.unit)
            let scale = HumanScale.choose(for: unit, magnitude: m.mean ?? 0)
            return [.text(MetricTable.spec(named: m.name)?.title ?? m.name), .code(m.name),
                    m.mean.map { .text(scale.text($0)) } ?? .text("n/a"),
                    m.confidenceInterval.map { .text($0.text(scale.number)) } ?? .text("—"),
                    .text(m.better),
                    m.precision?.replicationsNeeded.map { .count($0) } ?? .text("—")]
        }
        return Table(caption: "Every metric", columns: [
            Table.Column("Metric"), Table.Column("ID"), Table.Column("Mean", alignment: .trailing),
            Table.Column("± CI", alignment: .trailing), Table.Column("Better"),
            Table.Column("Replications for ± \(TextNumber.format(relativeTarget * 100, significant: 3)) %", alignment: .trailing),
        ], rows: rows)
    }
}
