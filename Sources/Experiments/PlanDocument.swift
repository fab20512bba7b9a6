import Foundation
import PushModel
import ReportKit
import ScenarioFormat

/// One plan along the varied knob, for one value of the `--for` knob (or the only one).
package struct PlanFrontierPoint: Codable, Sendable, Equatable {
    /// The `--for` value (nil without `--for`).
    package let forValue: Double?
    /// Every value evaluated, in the order tried, with its final replication count.
    package let evaluations: [PlanEvaluation]
    /// What was found.
    package let answer: PlanAnswer
    /// Replications behind this answer (distinct: each value's replications 0..<n).
    package let replicationsUsed: Int
    /// What a full grid at the same resolution would use (see `PlanSearch.gridReplications`).
    package let gridReplications: Int
    /// The scaled pilot that chose the first full-size bracket (`plan --pilot-scale K`; nil without one).
    package var pilot: PlanPilotRecord? = nil

    package init(forValue: Double?, evaluations: [PlanEvaluation], answer: PlanAnswer, replicationsUsed: Int, gridReplications: Int) {
        self.forValue = forValue
        self.evaluations = evaluations
        self.answer = answer
        self.replicationsUsed = replicationsUsed
        self.gridReplications = gridReplications
    }
}

/// plan.json: the question, every evaluation and the answer (deterministic: no wall time).
package struct PlanDocument: Codable, Sendable, Equatable {
    package let toolVersion: String
    package let scenarioName: String
    package let question: String
    /// Hash of the scenario as given (overrides applied, knob as in the file).
    package let scenarioHash: String
    package let seed: UInt64
    /// The population the plan ran at.
    package let devices: Int
    /// The population the scenario file states (its question is asked of it).
    package let scenarioDevices: Int
    /// Every change to the scenario file, as typed ("--devices 200000", "--set …").
    package let overrides: [String]
    package let knob: ScenarioKnob
    package let goal: PlanGoal
    package let tolerance: PlanTolerance
    package let forKnob: ScenarioKnobList?
    package let objectives: [ServiceLevelObjective]
    package let initialReplications: Int
    package let maxReplications: Int
    package let frontier: [PlanFrontierPoint]
    /// `--pilot-scale K` and the margin its brackets were widened by (nil without pilots).
    package var pilotScale: Int? = nil
    package var pilotMargin: Double? = nil
    /// `--for-trend`: how the user stated the objectives move with the `--for` knob (nil without
    /// one: no verdict was carried).
    package var forTrend: PlanForTrend? = nil
    /// `--provisional-midpoints`: values that only steered the bisection were judged on their
    /// first replications (true; nil without it).
    package var provisional: Bool? = nil

    package init(toolVersion: String, scenarioName: String, question: String, scenarioHash: String, seed: UInt64, devices: Int,
                scenarioDevices: Int, overrides: [String], knob: ScenarioKnob, goal: PlanGoal, tolerance: PlanTolerance, forKnob: ScenarioKnobList?,
                objectives: [ServiceLevelObjective], initialReplications: Int, maxReplications: Int, frontier: [PlanFrontierPoint]) {
        self.toolVersion = toolVersion
        self.scenarioName = scenarioName
        self.question = question
        self.scenarioHash = scenarioHash
        self.seed = seed
        self.devices = devices
        self.scenarioDevices = scenarioDevices
        self.overrides = overrides
        self.knob = knob
        self.goal = goal
        self.tolerance = tolerance
        self.forKnob = forKnob
        self.objectives = objectives
        self.initialReplications = initialReplications
        self.maxReplications = maxReplications
        self.frontier = frontier
    }

    /// The warning when the plan ran at another size than the scenario's question names; nil at
    /// the same size.
    package var sizeWarning: String? {
        guard devices != scenarioDevices else { return nil }
        return "Warning: this plan ran at \(TextFormat.count(devices)) devices, but the scenario's question is asked of \(TextFormat.count(scenarioDevices)). "
            + "Send rates, origin load and queues scale with the audience, so the answer holds for \(TextFormat.count(devices)) devices, not for the question's size."
    }

    /// Whether every answer has a passing value (the `--fail-on-slo` test).
    package var everyAnswerPasses: Bool { frontier.allSatisfy { $0.answer.lastPass != nil } }

    /// The answer lines for stdout and plan.md.
    package var answerLines: [String] {
        frontier.map { p in
            (p.forValue.map { "\(forKnob?.path ?? "")=\(ScenarioKnob.numberText($0)): " } ?? "")
                + p.answer.sentence(knob: knob.path, goal: goal, tolerance: tolerance)
                + " [\(p.replicationsUsed) replications; a full grid at this resolution: \(p.gridReplications)]"
                + (p.pilot.map { " " + pilotText($0) } ?? "")
        }
    }

    /// plan.csv: one row per evaluation; per objective its mean, interval and verdict.
    package var csv: String {
        var header = ["for", "value", "replications", "verdict"] + (forTrend == nil ? [] : ["carried from"]) + (provisional == true ? ["provisional"] : [])
        for o in objectives { header += ["\(o.metric) mean", "\(o.metric) lower", "\(o.metric) upper", "\(o.metric) verdict"] }
        var lines = [header.map(csvField).joined(separator: ",")]
        for p in frontier {
            for e in p.evaluations {
                var row = [p.forValue.map(ScenarioKnob.numberText) ?? "", ScenarioKnob.numberText(e.value), "\(e.replications)", e.verdict.rawValue]
                if forTrend != nil { row.append(e.carriedFrom.map(ScenarioKnob.numberText) ?? "") }
                if provisional == true { row.append(Self.provisionalCell(e)) }
                for s in e.slo.evaluations {
                    row += [s.mean.map(ResultFiles.csvNumber) ?? "", s.lower.map(ResultFiles.csvNumber) ?? "",
                            s.upper.map(ResultFiles.csvNumber) ?? "", s.verdict.rawValue]
                }
                lines.append(row.map(csvField).joined(separator: ","))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func csvField(_ s: String) -> String {
        s.contains(",") || s.contains("\"") ? "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : s
    }

    /// The report (plan.md and plan.html): the answer, the evaluations, and per objective its
    /// metric against the knob with the interval's bounds and the threshold, the answer marked.
    package var report: Report {
        var sections: [ReportSection] = []
        let goalText = goal == .maximize ? "highest" : "lowest"
        // The decision first, in the knob's words and units (after the warning when the plan ran at another size
        // than the question's, so the answer cannot be read without it); the method and the raw answers after it.
        sections.append(ReportSection(title: "Answer", blocks: (sizeWarning.map { [ReportBlock.paragraph($0)] } ?? [])
                                      + decisionLines.map { ReportBlock.paragraph($0) } + [.paragraph(decisionContext)] + [
            .paragraph("The \(goalText) \(knob.path) in \(ScenarioKnob.numberText(knob.lower))…\(ScenarioKnob.numberText(knob.upper)) meeting every objective "
                       + "with its stated confidence (tolerance \(tolerance.text), \(initialReplications)–\(maxReplications) replications per value, "
                       + "common random numbers: replication r uses the same streams at every value)."),
        ] + answerLines.map { ReportBlock.paragraph($0) } + (trendText.map { [ReportBlock.paragraph($0)] } ?? [])
            + (provisionalText.map { [ReportBlock.paragraph($0)] } ?? [])))
        for p in frontier {
            let title = p.forValue.map { "\(forKnob?.path ?? "") = \(ScenarioKnob.numberText($0))" } ?? "Evaluations"
            var blocks: [ReportBlock] = [.table(evaluationTable(p, caption: title))]
            let sorted = p.evaluations.sorted { $0.value < $1.value }
            let axis = knobAxis
            for (i, o) in objectives.enumerated() {
                // Every interval drawn is already inside the metric's range (SLOEvaluation clips it), so
                // the axis never shows impossible values.
                let points = sorted.compactMap { e -> LinePoint? in
                    let s = e.slo.evaluations[i]
                    // A chance constraint is drawn as the share of replications meeting it, with its exact bounds.
                    if o.probability != nil, let k = s.withinThreshold, s.n > 0 {
                        return LinePoint(x: e.value * axis.multiplier, y: Double(k) / Double(s.n), lower: s.shareLower, upper: s.shareUpper)
                    }
                    return s.mean.map { LinePoint(x: e.value * axis.multiplier, y: $0, lower: s.lower, upper: s.upper) }
                }
                let markers = [p.answer.lastPass.map { ChartMarker(at: $0 * axis.multiplier, label: "last pass") },
                               p.answer.firstFail.map { ChartMarker(at: $0 * axis.multiplier, label: "first fail") }]
                let chance = o.probability
                let within = "Share of replications with " + SLOReport.displayCondition(o)
                blocks.append(.chart(.line(LineChart(
                    title: (chance == nil ? (MetricTable.spec(named: o.metric)?.title ?? o.metric) : within) + " against " + knobTitle + " (" + knob.path + ")"
                        + (p.forValue.map { ", " + forText([$0]).lowercased() } ?? ""),
                    summary: chance == nil
                        ? "Mean and \(Int((o.confidence * 100).rounded())) % interval of \(o.metric) at each evaluated value of \(axis.axis.title); threshold \(o.op.rawValue) \(ScenarioKnob.numberText(o.threshold))."
                        : "The \(within) at each evaluated value of \(axis.axis.title), with its exact one-sided \(Int((o.confidence * 100).rounded())) % bounds; it must be at least \(ScenarioKnob.numberText(chance ?? 0)).",
                    xAxis: axis.axis, yAxis: ValueAxis(label: chance == nil ? o.metric : "share of replications", unit: ""), xDecimals: axis.decimals, yDecimals: 3,
                    series: [LineSeries(name: chance == nil ? "mean" : "share within", points: points)],
                    referenceLines: [chance.map { ReferenceLine(value: $0, label: "at least \(ScenarioKnob.numberText($0))", kind: .target) }
                                     ?? ReferenceLine(value: o.threshold, label: "threshold \(o.op.rawValue) \(ScenarioKnob.numberText(o.threshold))", kind: .target)],
                    markers: markers.compactMap { $0 }))))
            }
            sections.append(ReportSection(title: title, blocks: blocks))
        }
        return Report(title: "Plan: \(scenarioName)", scenario: ScenarioSummary(name: scenarioName, question: question),
                      provenance: RunProvenance(seed: seed, replications: initialReplications, toolVersion: toolVersion, scenarioHash: scenarioHash,
                                                facts: [RunFact("Devices", TextFormat.count(devices))], overrides: overrides),
                      headlines: [], sections: sections)
    }

    /// The charts' horizontal axis: the knob's path in its declared unit, scaled for people (bytes
    /// in kB/MB/GB, seconds below one as ms, fractions as %); `multiplier` takes a knob value there.
    var knobAxis: (axis: ValueAxis, multiplier: Double, decimals: Int) {
        let magnitude = max(abs(knob.lower), abs(knob.upper))
        func scaled(_ unit: MeasuredUnit) -> (axis: ValueAxis, multiplier: Double, decimals: Int) {
            let scale = HumanScale.choose(for: unit, magnitude: magnitude)
            return (ValueAxis(label: knob.path, unit: scale.unit), scale.multiplier, scale.decimals)
        }
        switch knob.unit {
        case .seconds: return scaled(.seconds)
        case .bytes: return scaled(.bytes)
        case .fraction: return scaled(.ratio)
        case .none: return (ValueAxis(label: knob.path, unit: ""), 1, 2)
        case .bitsPerSecond, .pushesPerMinute, .pushesPerHour, .count: return (ValueAxis(label: knob.path, unit: knob.unit.text), 1, 0)
        }
    }

    private func evaluationTable(_ p: PlanFrontierPoint, caption: String) -> Table {
        var columns = [Table.Column("value", alignment: .trailing), Table.Column("replications", alignment: .trailing), Table.Column("verdict")]
        // Each objective as its card names it, its mean and interval in the card's units (see SLOReport+Display);
        // a chance constraint reads "22 of 22 within (P 90.1 % – 100.0 %) pass".
        for o in objectives { columns.append(Table.Column(SLOReport.displayObjective(o))) }
        let rows: [[TableCell]] = p.evaluations.sorted { $0.value < $1.value }.map { e in
            let carried: String? = e.carriedFrom.map { "\(e.replications), carried from \(forKnob?.path ?? "")=\(ScenarioKnob.numberText($0))" }
            let replications: TableCell = (carried ?? Self.provisionalText(e)).map { TableCell.text($0) } ?? .count(e.replications)
            return [.text(tolerance.display(e.value)), replications, .text(e.verdict.rawValue)] + e.slo.evaluations.map { s in
                .text(s.withinThreshold.map { "\($0) of \(s.n) within (" + SLOReport.displayInterval(s) + ") " + s.verdictText }
                      ?? ((s.mean.map { SLOReport.displayScale(s).text($0) } ?? "—")
                          + (s.lower == nil ? "" : " (" + SLOReport.displayInterval(s) + ")") + " " + s.verdictText))
            }
        }
        return Table(caption: caption, columns: columns, rows: rows)
    }
}

extension PlanDocument {
    /// With `--for-trend`: what was carried and on whose word (nil without).
    var trendText: String? {
        guard let forTrend, let path = forKnob?.path else { return nil }
        let carried = frontier.reduce(0) { $0 + $1.evaluations.filter { $0.carriedFrom != nil }.count }
        let way = forTrend == .better ? "no worse" : "no better"
        return "Stated, not checked: the objectives get \(way) as \(path) grows (--for-trend \(forTrend.rawValue)). "
            + "\(carried) verdict\(carried == 1 ? "" : "s") carried from the previous \(path) value without running replications "
            + "(its last pass where the objectives improve, its first fail where they worsen); every other verdict ran here."
    }
}
