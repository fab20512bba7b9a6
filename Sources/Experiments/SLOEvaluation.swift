import Foundation
import PushModel
import ReportKit
import ScenarioFormat
import SimStats

/// An objective's verdict from a confidence interval.
package enum SLOVerdict: String, Codable, Sendable, Equatable {
    /// The whole interval lies on the good side of the threshold.
    case pass
    /// The whole interval lies on the bad side.
    case fail
    /// The interval straddles the threshold (or there are too few values for one).
    case undecided
}

/// One objective checked against replication values.
///
/// The interval is the two-sided Student t interval at the objective's confidence. With every
/// value equal (e.g. no 503 in any replication) the interval is that value. When undecided, the
/// replications that would decide it follow from the observed spread: the half-width t·s/√n falls
/// below |mean − threshold| once n ≥ (t·s / |mean − threshold|)², with t and s as observed now
/// (an estimate, not a promise: both move as replications are added).
///
/// An objective whose threshold is at the edge of the metric's range (`origin.rejected503 <= 0`:
/// a count cannot go below 0; a ratio `>= 1`) fails as soon as one replication is off that edge:
/// a mean over a variable bounded by the threshold stays on the threshold only if every value
/// does, so one value beyond it shows the objective fails, with certainty rather than 95 %
/// (the t interval would call it undecided and ask for more replications).
package struct SLOEvaluation: Codable, Sendable, Equatable {
    /// The objective.
    package let objective: ServiceLevelObjective
    /// Replications with a value of the metric.
    package let n: Int
    /// The mean (nil: the metric was not produced).
    package let mean: Double?
    /// The interval's lower bound (nil: fewer than 2 values).
    package let lower: Double?
    /// The interval's upper bound (nil: fewer than 2 values).
    package let upper: Double?
    /// The verdict.
    package let verdict: SLOVerdict
    /// For an undecided verdict: the replications the observed spread says would decide it (nil
    /// when the mean sits on the threshold, so no count would).
    package let replicationsToDecide: Int?

    /// Checks `objective` against `values` (one per replication; NaN = not produced there);
    /// `bounds` is the metric's range of values when known (see `SLOReport`).
    package init(_ objective: ServiceLevelObjective, values: [Double], bounds: ClosedRange<Double>? = nil) {
        self.objective = objective
        let finite = values.filter(\.isFinite)
        n = finite.count
        guard !finite.isEmpty else {
            mean = nil; lower = nil; upper = nil; verdict = .undecided; replicationsToDecide = nil
            return
        }
        let m = finite.reduce(0, +) / Double(finite.count)
        mean = m
        let allEqual = finite.allSatisfy { $0 == finite[0] }
        var t = 0.0, s = 0.0
        if allEqual && finite.count >= 2 {
            lower = m; upper = m
        } else if let ci = try? ConfidenceInterval.studentT(sample: finite, level: objective.confidence) {
            lower = ci.lower; upper = ci.upper
            let variance = finite.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(finite.count - 1)
            s = variance.squareRoot()
            t = s > 0 ? ci.halfWidth * Double(finite.count).squareRoot() / s : 0
        } else {
            lower = nil; upper = nil
        }
        guard let lo = lower, let hi = upper else {
            verdict = .undecided
            replicationsToDecide = 2
            return
        }
        let offTheEdge = bounds.map { objective.isCrossedAtTheEdge(of: $0, by: finite) } ?? false
        verdict = objective.holds(lower: lo, upper: hi) ? .pass
            : (objective.fails(lower: lo, upper: hi) || offTheEdge ? .fail : .undecided)
        let gap = abs(m - objective.threshold)
        if verdict == .undecided, gap > 0, t > 0 {
            let needed = (t * s / gap) * (t * s / gap)
            replicationsToDecide = needed < 1e9 ? max(finite.count + 1, Int(needed.rounded(.up))) : nil
        } else {
            replicationsToDecide = nil
        }
    }

    /// The verdict for a table: "fail (beyond the metric's edge)" when one replication beyond the
    /// edge of the metric's range decided a failure the interval alone would leave undecided.
    package var verdictText: String {
        guard verdict == .fail, let lo = lower, let hi = upper else { return verdict.rawValue }
        return objective.fails(lower: lo, upper: hi) ? verdict.rawValue : "fail (a replication beyond the metric's edge)"
    }

    /// How far the mean is on the bad side, as a share of the threshold's magnitude (negative:
    /// on the good side); ranks the binding objective.
    package var violation: Double {
        guard let mean else { return .infinity }
        let scale = max(abs(objective.threshold), 1e-9)
        switch objective.op {
        case .atMost: return (mean - objective.threshold) / scale
        case .atLeast: return (objective.threshold - mean) / scale
        }
    }
}

/// Every objective of a scenario checked at once.
package struct SLOReport: Codable, Sendable, Equatable {
    /// In the scenario's order.
    package let evaluations: [SLOEvaluation]

    /// Checks `objectives` against a run's metric values.
    package init(_ objectives: [ServiceLevelObjective], aggregate: RunAggregate) {
        self.init(objectives) { name in
            aggregate.metrics.first { $0.name == name }.map { $0.values.map { $0 ?? .nan } } ?? []
        }
    }

    /// Checks `objectives` against `valuesOf(metric)` (one value per replication), each with its
    /// metric's range from `MetricTable` (ratios 0…1, every other unit ≥ 0).
    package init(_ objectives: [ServiceLevelObjective], valuesOf: (String) -> [Double]) {
        evaluations = objectives.map { SLOEvaluation($0, values: valuesOf($0.metric), bounds: MetricTable.spec(named: $0.metric)?.unit.bounds) }
    }

    /// Pass only if every objective passes; fail if any fails; else undecided.
    package var verdict: SLOVerdict {
        if evaluations.contains(where: { $0.verdict == .fail }) { return .fail }
        return evaluations.allSatisfy { $0.verdict == .pass } ? .pass : .undecided
    }

    /// The objective that decides a non-passing verdict: a failed one before an undecided one,
    /// then the largest violation.
    package var binding: SLOEvaluation? {
        let candidates = evaluations.filter { $0.verdict != .pass }
        return candidates.max { a, b in
            if (a.verdict == .fail) != (b.verdict == .fail) { return b.verdict == .fail }
            return a.violation < b.violation
        }
    }

    /// Rows for a text or Markdown table: objective, mean, interval, verdict, replications to decide.
    package var rows: [[String]] {
        [["objective", "mean", "interval", "verdict", "to decide"]] + evaluations.map { e in
            [e.objective.text, e.mean.map { TextNumber.format($0, significant: 4) } ?? "not produced",
             e.lower.flatMap { lo in e.upper.map { "[\(TextNumber.format(lo, significant: 4)), \(TextNumber.format($0, significant: 4))]" } } ?? "—",
             e.verdictText, e.replicationsToDecide.map { "≈\($0) replications" } ?? "—"]
        }
    }
}

extension SLOReport {
    /// The verdict as the terminal and the report lead with it: "pass", "FAIL" or "UNDECIDED".
    package var verdictWord: String { verdict == .pass ? "pass" : verdict.rawValue.uppercased() }

    /// "0 of 1 objectives pass; origin.rejected503 <= 0 at 95 % is fail" (the binding objective last).
    package var tally: String {
        "\(evaluations.filter { $0.verdict == .pass }.count) of \(evaluations.count) objectives pass"
            + (binding.map { "; \($0.objective.text) is \($0.verdictText)" } ?? "")
    }

    /// The report section: one row per objective.
    package var reportSection: ReportSection {
        let all = rows
        let columns = all[0].enumerated().map { i, title in Table.Column(title, alignment: i == 1 ? .trailing : .leading) }
        let table = Table(caption: "Service-level objectives", columns: columns, rows: all.dropFirst().map { $0.map { TableCell.text($0) } })
        let headline = "Verdict: \(verdictWord) — \(tally)" + (binding?.mean.map { " (mean \(TextNumber.format($0, significant: 4)))" } ?? "") + "."
        let rule = "Each objective passes only when its whole confidence interval lies on the good side of the threshold, "
            + "fails when it lies wholly on the bad side, and is undecided otherwise."
        return ReportSection(title: "Service-level objectives", blocks: [.paragraph(headline), .paragraph(rule), .table(table)])
    }
}

extension ServiceLevelObjective {
    /// Whether the interval [lower, upper] lies wholly on the good side of the threshold.
    func holds(lower: Double, upper: Double) -> Bool { op == .atMost ? upper <= threshold : lower >= threshold }

    /// Whether the interval [lower, upper] lies wholly on the bad side of the threshold.
    func fails(lower: Double, upper: Double) -> Bool { op == .atMost ? lower > threshold : upper < threshold }

    /// Whether the threshold sits at the edge of the metric's range `bounds` (at or below its
    /// floor for "at most", at or above its ceiling for "at least") and one of `values` is beyond it.
    func isCrossedAtTheEdge(of bounds: ClosedRange<Double>, by values: [Double]) -> Bool {
        switch op {
        case .atMost: return threshold <= bounds.lowerBound && values.contains { $0 > threshold }
        case .atLeast: return threshold >= bounds.upperBound && values.contains { $0 < threshold }
        }
    }
}

extension MetricUnit {
    /// The values a metric of this unit can take: a ratio is a share (0…1); counts, bytes, seconds
    /// and rates are never negative.
    var bounds: ClosedRange<Double> { self == .ratio ? 0...1 : 0...Double.infinity }
}
