import Foundation
import Glibc
import ReportKit
import ScenarioFormat
import Stochastic

/// sensitivity.json: the study's question, sizes and results (deterministic: no wall time).
package struct SensitivityDocument: Codable, Sendable, Equatable {
    /// Identifies the file format.
    package static let formatName = "prestage-sensitivity/1"

    package var format = SensitivityDocument.formatName
    package var toolVersion: String
    package var scenarioName: String
    package var question: String
    /// Hash of the scenario as given (overrides applied, factors as in the file).
    package var scenarioHash: String
    package var seed: UInt64
    package var devices: Int
    /// Every change to the scenario file, as typed.
    package var overrides: [String]
    package var factors: [ScenarioKnob]
    package var settings: SensitivitySettings
    /// Design points evaluated (each `settings.replications` replications).
    package var designPoints: Int
    /// One per `--metric`, in the order given.
    package var results: [SensitivityMetricResult]

    package init(toolVersion: String, scenarioName: String, question: String, scenarioHash: String, seed: UInt64, devices: Int,
                 overrides: [String], factors: [ScenarioKnob], settings: SensitivitySettings, designPoints: Int, results: [SensitivityMetricResult]) {
        self.toolVersion = toolVersion
        self.scenarioName = scenarioName
        self.question = question
        self.scenarioHash = scenarioHash
        self.seed = seed
        self.devices = devices
        self.overrides = overrides
        self.factors = factors
        self.settings = settings
        self.designPoints = designPoints
        self.results = results
    }

    /// Replications behind the study.
    package var replications: Int { designPoints * settings.replications }

    static func number(_ x: Double) -> String { x.isFinite ? TextNumber.format(x, significant: 4) : "—" }

    /// The ranked lines for the terminal, per metric.
    package var summaryLines: [String] {
        results.flatMap { r in
            ["\(r.metric) (midpoint \(Self.number(r.midpoint.mean))):"] + r.morris.enumerated().map { n, m in
                let sobol = r.sobol.first { $0.factor == m.factor }.map { "  S1 \(Self.number($0.first.value)) ST \(Self.number($0.total.value))" } ?? ""
                return "  \(n + 1). \(m.factor): μ* \(Self.number(m.muStar)) [\(Self.number(m.muStarLower)), \(Self.number(m.muStarUpper))] σ \(Self.number(m.sigma))" + sobol
            }
        }
    }

    /// sensitivity.csv: one row per (metric, factor).
    package var csv: String {
        let header = ["metric", "factor", "rank", "mu", "muStar", "muStarLower", "muStarUpper", "sigma", "lowMean", "lowLower", "lowUpper",
                      "highMean", "highLower", "highUpper", "swing", "S1", "S1Lower", "S1Upper", "ST", "STLower", "STUpper"]
        var lines = [header.joined(separator: ",")]
        func n(_ x: Double?) -> String { x.map { $0.isFinite ? ResultFiles.csvNumber($0) : "" } ?? "" }
        for r in results {
            for (rank, m) in r.morris.enumerated() {
                let t = r.tornado.first { $0.factor == m.factor }, s = r.sobol.first { $0.factor == m.factor }
                let row = [r.metric, m.factor, "\(rank + 1)", n(m.mu), n(m.muStar), n(m.muStarLower), n(m.muStarUpper), n(m.sigma),
                           n(t?.low.mean), n(t?.low.lower), n(t?.low.upper), n(t?.high.mean), n(t?.high.lower), n(t?.high.upper), n(t?.swing),
                           n(s?.first.value), n(s?.first.lower), n(s?.first.upper), n(s?.total.value), n(s?.total.lower), n(s?.total.upper)]
                lines.append(row.map { $0.contains(",") || $0.contains("\"") ? "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : $0 }
                    .joined(separator: ","))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The report (sensitivity.md and .html): per metric the ranked table, the tornado chart and
    /// its table with intervals, and the Sobol indices.
    package var report: Report {
        let level = "\(TextNumber.format(settings.confidence * 100, significant: 3)) %"
        var sections = [ReportSection(title: "Method", blocks: [
            .paragraph("Morris screening over \(factors.count) factors (\(settings.trajectories) trajectories, \(settings.levels) levels), "
                       + "the tornado (each factor at its low and high end, the others at their midpoints), "
                       + (settings.sobolSamples > 0 ? "and Sobol indices on the \(min(settings.sobolFactors, factors.count)) factors with the highest μ* of \(results.first?.metric ?? "") "
                          + "(Saltelli design, N = \(settings.sobolSamples); S1 by Saltelli 2010, ST by Jansen). " : "without a Sobol step. ")
                       + "\(designPoints) design points × \(settings.replications) replications = \(replications) replications; every point runs replications "
                       + "0..\(settings.replications - 1) with seed \(seed) (common random numbers). Intervals: \(level); μ*, S1 and ST by the normal bootstrap "
                       + "(\(settings.bootstrap) resamples), the tornado's by Student's t over replications."),
            .paragraph("μ*: the mean absolute change of the metric when the factor moves by a step of its range, scaled to the whole range; "
                       + "σ: how much that change varies (interactions, non-linearity). S1: the share of the metric's variance the factor explains alone; "
                       + "ST: with its interactions."),
            .table(Table(caption: "Factors", columns: [Table.Column("factor"), Table.Column("low", alignment: .trailing), Table.Column("high", alignment: .trailing)],
                         rows: factors.map { [.code($0.path), .text(ScenarioKnob.numberText($0.lower)), .text(ScenarioKnob.numberText($0.upper))] })),
        ])]
        for r in results {
            var blocks: [ReportBlock] = []
            blocks.append(.table(Table(
                caption: "Ranking by μ* (\(r.metric))",
                columns: [Table.Column("rank", alignment: .trailing), Table.Column("factor"), Table.Column("μ*", alignment: .trailing),
                          Table.Column("μ* \(level) interval", alignment: .trailing), Table.Column("μ", alignment: .trailing), Table.Column("σ", alignment: .trailing),
                          Table.Column("S1", alignment: .trailing), Table.Column("ST", alignment: .trailing)],
                rows: r.morris.enumerated().map { n, m in
                    let s = r.sobol.first { $0.factor == m.factor }
                    func e(_ x: SensitivityDesign.Estimate?) -> TableCell {
                        x.map { .text("\(Self.number($0.value)) [\(Self.number($0.lower)), \(Self.number($0.upper))]") } ?? .text("—")
                    }
                    return [.count(n + 1), .code(m.factor), .text(Self.number(m.muStar)), .text("[\(Self.number(m.muStarLower)), \(Self.number(m.muStarUpper))]"),
                            .text(Self.number(m.mu)), .text(Self.number(m.sigma)), e(s?.first), e(s?.total)]
                })))
            let swings = r.tornado.flatMap { [$0.low.mean - r.midpoint.mean, $0.high.mean - r.midpoint.mean] }.map(abs).filter(\.isFinite)
            let largest = swings.max() ?? 0
            blocks.append(.chart(.groupedBars(GroupedBarChart(
                title: "Tornado: \(r.metric)",
                summary: "Change of \(r.metric) from its midpoint value \(Self.number(r.midpoint.mean)) with each factor at its low and high end (the others at their midpoints), widest swing first.",
                valueLabel: "\(r.metric) − midpoint", valueFormat: .number(unit: "", decimals: largest >= 100 ? 0 : largest >= 1 ? 2 : 4),
                groups: r.tornado.map(\.factor),
                series: [BarSeries(name: "at low end", color: .blue, values: r.tornado.map { $0.low.mean - r.midpoint.mean }),
                         BarSeries(name: "at high end", color: .orange, values: r.tornado.map { $0.high.mean - r.midpoint.mean })]))))
            blocks.append(.table(Table(
                caption: "Tornado with \(level) intervals (\(r.metric); midpoint \(Self.number(r.midpoint.mean)) [\(Self.number(r.midpoint.lower)), \(Self.number(r.midpoint.upper))])",
                columns: [Table.Column("factor"), Table.Column("at low end", alignment: .trailing), Table.Column("at high end", alignment: .trailing),
                          Table.Column("swing", alignment: .trailing)],
                rows: r.tornado.map { t in
                    [.code(t.factor), .text("\(Self.number(t.low.mean)) [\(Self.number(t.low.lower)), \(Self.number(t.low.upper))]"),
                     .text("\(Self.number(t.high.mean)) [\(Self.number(t.high.lower)), \(Self.number(t.high.upper))]"), .text(Self.number(t.swing))]
                })))
            sections.append(ReportSection(title: r.metric, blocks: blocks))
        }
        return Report(title: "Sensitivity: \(scenarioName)", scenario: ScenarioSummary(name: scenarioName, question: question),
                      provenance: RunProvenance(seed: seed, replications: settings.replications, toolVersion: toolVersion, scenarioHash: scenarioHash,
                                                facts: [RunFact("Devices", TextFormat.count(devices)), RunFact("Design points", TextFormat.count(designPoints))],
                                                overrides: overrides),
                      headlines: [], sections: sections)
    }
}

/// A sensitivity study's results directory `DIR`: `sensitivity.json`, `.csv`, `.md`, `.html`
/// and `evaluations/` (one checked file per replication of a design point, as a plan keeps
/// them), under the rules of every results directory: one live owner, work in `DIR.partial/`,
/// one rename when written, only earlier sensitivity results replaced. A rerun (or a run after
/// Ctrl-C) reuses every stored replication.
package struct SensitivityResults: Sendable {
    package static let documentName = "sensitivity.json"
    package static let ownFiles: Set<String> = [documentName, "sensitivity.csv", "sensitivity.md", "sensitivity.html", PlanResults.evaluationsDirectory]
    package static let earlierResults = ResultsDirectory.Replaceable(files: ownFiles, marker: documentName)

    package let directory: ResultsDirectory
    package let carried: Int

    package var evaluationsURL: URL { directory.partialURL.appendingPathComponent(PlanResults.evaluationsDirectory, isDirectory: true) }

    /// Opens `NAME` in `parent` for `owner` as `PlanResults.open` does, for sensitivity results.
    package static func open(in parent: URL, name: String, owner: OutputOwner) throws(FileOutputError) -> SensitivityResults {
        let (directory, carried) = try ResultsDirectory.openCarryingEvaluations(in: parent, name: name, owner: owner, replacing: earlierResults,
                                                                                 ownFiles: ownFiles, what: "sensitivity evaluations")
        return SensitivityResults(directory: directory, carried: carried)
    }

    /// Writes the study's files (`sensitivity.json` last) and commits `DIR.partial/` as `DIR/`.
    @discardableResult
    package func commit(document: Data, csv: Data, markdown: Data, html: Data) throws(FileOutputError) -> URL {
        try directory.write(csv, named: "sensitivity.csv")
        try directory.write(markdown, named: "sensitivity.md")
        try directory.write(html, named: "sensitivity.html")
        try directory.write(document, named: Self.documentName)
        return try directory.commit(replacing: Self.earlierResults)
    }
}
