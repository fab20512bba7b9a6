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
/// **A mean objective** reads the two-sided Student t interval at the objective's confidence,
/// clipped to the metric's range (a count's interval never goes below 0, a share's stays in
/// [0, 1]; clipping removes only values the mean cannot take, so the coverage is the t
/// interval's). With every value equal the interval is that value. When undecided, the
/// replications that would decide it follow from the observed spread: the half-width t·s/√n
/// falls below |mean − threshold| once n ≥ (t·s / |mean − threshold|)², with t and s as observed
/// now (an estimate, not a promise: both move as replications are added).
///
/// **A chance constraint** counts the replications whose value meets the threshold, k of n, and
/// reads exact one-sided Clopper–Pearson bounds on the chance p that a replication meets it, each
/// at the objective's confidence: pass when the lower bound is ≥ q, fail when the upper bound is
/// < q, undecided otherwise. Each decision is wrong with probability ≤ 1 − confidence. When
/// undecided, the replications that would decide it assume later replications meet the
/// threshold at the observed share k/n (all clean so far: n ≥ ln(1 − confidence) / ln q).
package struct SLOEvaluation: Codable, Sendable, Equatable {
    /// The objective.
    package let objective: ServiceLevelObjective
    /// Replications with a value of the metric.
    package let n: Int
    /// The metric's mean (nil: the metric was not produced).
    package let mean: Double?
    /// A mean objective: the interval's lower bound (nil: fewer than 2 values; a chance constraint).
    package let lower: Double?
    /// A mean objective: the interval's upper bound.
    package let upper: Double?
    /// A chance constraint: the replications whose value met the threshold.
    package let withinThreshold: Int?
    /// A chance constraint: the one-sided lower Clopper–Pearson bound on the chance a replication meets it.
    package let shareLower: Double?
    /// A chance constraint: the one-sided upper bound.
    package let shareUpper: Double?
    /// The verdict.
    package let verdict: SLOVerdict
    /// For an undecided verdict: the replications the observed values say would decide it (nil
    /// when the estimate sits on the threshold, so no count would).
    package let replicationsToDecide: Int?

    /// Most replications `replicationsToDecide` looks ahead to.
    static let replicationsToDecideMax = 100_000

    /// Checks `objective` against `values` (one per replication; NaN = not produced there);
    /// `bounds` is the metric's range of values when known (see `SLOReport`).
    package init(_ objective: ServiceLevelObjective, values: [Double], bounds: ClosedRange<Double>? = nil) {
        self.objective = objective
        let finite = values.filter(\.isFinite)
        n = finite.count
        guard !finite.isEmpty else {
            mean = nil; lower = nil; upper = nil; withinThreshold = nil; shareLower = nil; shareUpper = nil
            verdict = .undecided; replicationsToDecide = nil
            return
        }
        let m = finite.reduce(0, +) / Double(finite.count)
        mean = m
        if let q = objective.probability {
            lower = nil; upper = nil
            let k = finite.filter { objective.isMet(by: $0) }.count
            withinThreshold = k
            let level = objective.confidence
            guard let cp = try? ClopperPearson(successes: k, trials: finite.count, level: level) else {
                shareLower = nil; shareUpper = nil; verdict = .undecided; replicationsToDecide = nil
                return
            }
            shareLower = cp.lower
            shareUpper = cp.upper
            verdict = cp.lower >= q ? .pass : (cp.upper < q ? .fail : .undecided)
            replicationsToDecide = verdict == .undecided ? Self.replicationsToDecide(share: cp.share, from: finite.count, q: q, level: level) : nil
            return
        }
        withinThreshold = nil; shareLower = nil; shareUpper = nil
        let allEqual = finite.allSatisfy { $0 == finite[0] }
        var t = 0.0, s = 0.0
        if allEqual && finite.count >= 2 {
            lower = m; upper = m
        } else if let ci = try? ConfidenceInterval.studentT(sample: finite, level: objective.confidence) {
            let clipped = ci.clipped(to: bounds ?? -Double.infinity...Double.infinity)
            lower = clipped.lower
            upper = clipped.upper
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
        verdict = objective.holds(lower: lo, upper: hi) ? .pass : (objective.fails(lower: lo, upper: hi) ? .fail : .undecided)
        let gap = abs(m - objective.threshold)
        if verdict == .undecided, gap > 0, t > 0 {
            let needed = (t * s / gap) * (t * s / gap)
            replicationsToDecide = needed < 1e9 ? max(finite.count + 1, Int(needed.rounded(.up))) : nil
        } else {
            replicationsToDecide = nil
        }
    }

    /// The fewest replications N > n at which k' = share·N successes (rounded toward the verdict
    /// it would give) decide "p ≥ q" either way; nil if the share is q or none up to the cap does.
    static func replicationsToDecide(share: Double, from n: Int, q: Double, level: Double) -> Int? {
        if share == 1 { return max(n + 1, ClopperPearson.cleanTrialsNeeded(toShowAtLeast: q, level: level)) }
        guard share != q else { return nil }
        func decides(_ total: Int) -> Bool {
            if share > q {
                let k = Int((share * Double(total)).rounded(.down))
                return (try? ClopperPearson(successes: k, trials: total, level: level))?.lower ?? 0 >= q
            }
            let k = Int((share * Double(total)).rounded(.up))
            return (try? ClopperPearson(successes: min(k, total), trials: total, level: level))?.upper ?? 1 < q
        }
        // Doubling, then bisection between the last count that did not decide and the first that did.
        var low = n, high = n + 1
        while !decides(high) {
            low = high
            high *= 2
            if high > replicationsToDecideMax { return nil }
        }
        while high - low > 1 {
            let mid = (low + high) / 2
            if decides(mid) { high = mid } else { low = mid }
        }
        return high
    }

    /// The verdict for a table.
    package var verdictText: String { verdict.rawValue }

    /// How far the estimate is on the bad side, as a share of the threshold's magnitude (a chance
    /// constraint: of q; negative: on the good side); ranks the binding objective.
    package var violation: Double {
        guard let mean else { return .infinity }
        if let q = objective.probability, let k = withinThreshold, n > 0 {
            return (q - Double(k) / Double(n)) / q
        }
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
    package init(_ objectives: [ServiceLevelObjective], aggregate: RunAggregate, perDraw: Int = 1) {
        self.init(objectives, perDraw: perDraw) { name in
            aggregate.metrics.first { $0.name == name }.map { $0.values.map { $0 ?? .nan } } ?? []
        }
    }

    /// Checks `objectives` against `valuesOf(metric)` (one value per replication), each with its
    /// metric's range from `MetricTable` (ratios 0…1, every other unit ≥ 0). With `perDraw` ≥ 2
    /// (uncertain inputs drawn once per that many consecutive replications), mean objectives are
    /// judged on the draw means, the independent units of that design (a scenario with
    /// chance constraints is refused such a design at load).
    package init(_ objectives: [ServiceLevelObjective], perDraw: Int = 1, valuesOf: (String) -> [Double]) {
        evaluations = objectives.map { o in
            let values = valuesOf(o.metric)
            let units = o.probability == nil && values.allSatisfy(\.isFinite) ? VarianceSplit.drawMeans(values, perDraw: perDraw) : values
            return SLOEvaluation(o, values: units, bounds: MetricTable.spec(named: o.metric)?.unit.bounds)
        }
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
            [e.objective.text, e.meanText, e.intervalText, e.verdictText, e.replicationsToDecide.map { "≈\($0) replications" } ?? "—"]
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
}

extension SLOEvaluation {
    /// The mean column: the metric's mean; for a chance constraint also how many replications met it
    /// ("0 (3 of 3 within)").
    package var meanText: String {
        guard let mean else { return "not produced" }
        let value = TextNumber.format(mean, significant: 4)
        return withinThreshold.map { "\(value) (\($0) of \(n) within)" } ?? value
    }

    /// The interval column: the mean's interval, or for a chance constraint the bounds on the chance
    /// a replication meets the threshold ("P in [0.368, 1]").
    package var intervalText: String {
        func f(_ x: Double) -> String { TextNumber.format(x, significant: 4) }
        if let lo = shareLower, let hi = shareUpper { return "P in [\(f(lo)), \(f(hi))]" }
        return lower.flatMap { lo in upper.map { "[\(f(lo)), \(f($0))]" } } ?? "—"
    }
}

extension ServiceLevelObjective {
    /// For a chance constraint: the fewest replications, all meeting the threshold, that show it
    /// passes (ln(1 − confidence) / ln q rounded up: 22 for q = 0.9 at 90 %, 59 for 0.95 at 95 %);
    /// nil for a mean objective.
    package var cleanReplicationsToPass: Int? {
        probability.map { ClopperPearson.cleanTrialsNeeded(toShowAtLeast: $0, level: confidence) }
    }

    /// Whether one replication's value meets the threshold (a chance constraint's trial).
    func isMet(by value: Double) -> Bool { op == .atMost ? value <= threshold : value >= threshold }

    /// Whether the interval [lower, upper] lies wholly on the good side of the threshold.
    func holds(lower: Double, upper: Double) -> Bool { op == .atMost ? upper <= threshold : lower >= threshold }

    /// Whether the interval [lower, upper] lies wholly on the bad side of the threshold.
    func fails(lower: Double, upper: Double) -> Bool { op == .atMost ? lower > threshold : upper < threshold }
}
