import Foundation
import PushModel
import ReportKit
import ScenarioFormat

/// The objectives as the report shows them: each metric by its title (as on its card) with the id in
/// small print, the threshold, mean and interval in the card's human units ("1.20 s", "88.4 %", not
/// "1.2" or "0.8838"), the verdict and the replications that would decide it. The terminal keeps
/// `SLOReport.rows`.
extension SLOReport {
    /// The measured unit of an objective's metric (seconds, shares, counts, req/s; plain numbers when unknown).
    static func displayUnit(_ metric: String) -> MeasuredUnit {
        ReportBuilder.measuredUnit(name: metric, unit: MetricTable.spec(named: metric)?.unit.rawValue ?? "")
    }

    /// "Tap to paint, p95 ≤ 1.20 s" (the metric's title, the operator as a sign, the threshold in human units).
    static func displayObjective(_ objective: ServiceLevelObjective) -> String {
        displayCondition(objective) + (objective.probability.map { " on ≥ " + HumanScale.format($0, unit: .ratio) + " of replications" } ?? "")
    }

    /// "Origin 503 rejections ≤ 0": the condition one replication meets (a chance constraint's trial).
    static func displayCondition(_ objective: ServiceLevelObjective) -> String {
        let title = MetricTable.spec(named: objective.metric)?.title ?? objective.metric
        let sign = objective.op == .atMost ? "≤" : "≥"
        return title + " " + sign + " " + HumanScale.format(objective.threshold, unit: displayUnit(objective.metric))
    }

    /// The mean in the unit scale the interval shares.
    static func displayScale(_ e: SLOEvaluation) -> HumanScale {
        HumanScale.choose(for: displayUnit(e.objective.metric), magnitude: e.mean ?? abs(e.objective.threshold))
    }

    /// "1.10 s – 1.30 s"; "0 in every replication" when every replication gave the same value; "—" without one.
    /// The bounds stop at the metric's range (no count below 0, no share above 100 %): SLOEvaluation clips them.
    static func displayInterval(_ e: SLOEvaluation) -> String {
        if let lo = e.shareLower, let hi = e.shareUpper {
            return "P " + HumanScale.format(lo, unit: .ratio) + " – " + HumanScale.format(hi, unit: .ratio)
        }
        // The evaluation's interval is already clipped to the metric's range (SLOEvaluation).
        guard let lo = e.lower, let hi = e.upper else { return "—" }
        let scale = displayScale(e)
        return e.lower == e.upper ? scale.text(lo) + " in every replication" : scale.text(lo) + " – " + scale.text(hi)
    }

    /// The report's table: Objective | ID | Confidence | Mean | Interval | Verdict | To decide.
    var displayTable: Table {
        let rows: [[TableCell]] = evaluations.map { e in
            [.text(Self.displayObjective(e.objective)), .code(e.objective.metric),
             .text(HumanScale.format(e.objective.confidence, unit: .ratio)),
             .text(e.mean.map { Self.displayScale(e).text($0) + (e.withinThreshold.map { k in " (\(k) of \(e.n) within)" } ?? "") } ?? "not produced"),
             .text(Self.displayInterval(e)),
             .text(e.verdictText), .text(e.replicationsToDecide.map { "≈ \(TextFormat.count($0)) replications" } ?? "—")]
        }
        return Table(caption: "Service-level objectives", columns: [
            Table.Column("Objective"), Table.Column("ID"), Table.Column("Confidence", alignment: .trailing),
            Table.Column("Mean", alignment: .trailing), Table.Column("Interval", alignment: .trailing),
            Table.Column("Verdict"), Table.Column("To decide"),
        ], rows: rows)
    }

    /// The report section: the verdict line (the binding objective's mean in human units), how a verdict
    /// is reached, and the table.
    package var displaySection: ReportSection {
        let mean = binding.flatMap { b in b.mean.map { " (mean " + Self.displayScale(b).text($0) + ")" } } ?? ""
        let headline = "Verdict: \(verdictWord) — \(tally)" + mean + "."
        let rule = "A mean objective passes only when its whole confidence interval lies on the good side of the threshold, "
            + "fails when it lies wholly on the bad side, and is undecided otherwise. "
            + "A chance constraint (\"on ≥ q of replications\") passes when the exact lower bound on the chance that a replication meets the threshold is at least q, "
            + "and fails when the upper bound is below q."
        return ReportSection(title: "Service-level objectives", blocks: [.paragraph(headline), .paragraph(rule), .table(displayTable)])
    }
}
