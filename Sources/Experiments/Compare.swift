import Foundation
import PushModel
import ScenarioFormat
import SimStats

/// One metric of `prestage compare`: both estimates and the difference (variant − baseline).
struct MetricComparison: Sendable, Equatable {
    /// How the difference interval was computed.
    enum Method: String, Sendable {
        /// Paired t interval on per-replication differences (same seed and replication count:
        /// replication r of both runs used the same random streams).
        case paired
        /// Welch's unpaired interval (different seeds or replication counts).
        case welch
    }

    /// The metric's name.
    var name: String
    /// Its unit.
    var unit: String
    /// The baseline's (A's) summary.
    var baseline: MetricSummary
    /// The variant's (B's) summary.
    var variant: MetricSummary
    /// The difference's interval; nil when either run lacks finite values for every replication
    /// or has fewer than two replications.
    var difference: ConfidenceInterval?
    /// How `difference` was computed.
    var method: Method
    /// "improvement", "regression", "no significant difference", "significant difference" (for
    /// metrics where neither direction is better), each of the significant ones followed by
    /// " within threshold" when the mean difference is no larger than `threshold`, or "not compared".
    var verdict: String
    /// The practical threshold applied, in the metric's unit (nil: not compared).
    var threshold: Double? = nil
}

/// The smallest change of a metric that `compare` counts as material: max(`relative` · |A's mean|,
/// `absolute`), in the metric's stored unit (the bench gate's rule).
package struct CompareThreshold: Sendable, Equatable {
    /// Share of A's mean (0.05: 5 %).
    package var relative: Double
    /// In the metric's stored unit (seconds, a ratio, a count, bytes).
    package var absolute: Double

    /// No threshold: every significant change counts.
    package static let zero = CompareThreshold(relative: 0, absolute: 0)

    package init(relative: Double, absolute: Double) {
        self.relative = relative
        self.absolute = absolute
    }

    /// The threshold for a metric whose mean in A is `baselineMean`.
    func value(baselineMean: Double) -> Double { max(relative * abs(baselineMean), absolute) }
}

/// `compare --threshold`: the threshold of each metric is the one given for it (`METRIC=X` or
/// `METRIC=X%`), else the one given for every metric (`X%`), else the metric table's bench gate
/// (tap-to-paint p50 and p95, instant-paint share, …; docs/ci.md), else zero.
package struct CompareThresholds: Sendable, Equatable {
    package var perMetric: [String: CompareThreshold] = [:]
    package var every: CompareThreshold? = nil

    package init() {}

    /// The threshold applied to `name`.
    func threshold(for name: String) -> CompareThreshold {
        if let t = perMetric[name] { return t }
        if let t = every { return t }
        if let gate = MetricTable.spec(named: name)?.gate { return CompareThreshold(relative: gate.relative, absolute: gate.absolute) }
        return .zero
    }

    /// Largest relative threshold accepted, in percent (a 1000 % change is never immaterial by default).
    static let percentMax = 1000.0

    /// Reads `--threshold` values: `X%` (every metric), `METRIC=X%` (relative) or `METRIC=X`
    /// (absolute, in the metric's stored unit: seconds, a ratio, a count); `known` are the metric
    /// names a threshold may name. A metric given twice, or an `X` without a metric (units differ
    /// between metrics), is refused.
    package static func parse(_ texts: [String], known: Set<String>) -> Result<CompareThresholds, CommandMessage> {
        var out = CompareThresholds()
        for text in texts {
            let name: String?, value: Substring
            if let eq = text.firstIndex(of: "=") {
                name = String(text[..<eq]).trimmingCharacters(in: .whitespaces)
                value = text[text.index(after: eq)...]
            } else {
                name = nil
                value = Substring(text)
            }
            let isPercent = value.hasSuffix("%")
            let number = Double(isPercent ? value.dropLast().trimmingCharacters(in: .whitespaces) : value.trimmingCharacters(in: .whitespaces))
            let shown = DisplayText.quoted(text)
            guard let number, number.isFinite, number >= 0, !isPercent || number <= percentMax else {
                return .failure(CommandMessage("--threshold: expected X% (every metric, 0...\(Int(percentMax))), METRIC=X% or METRIC=X (a number ≥ 0 in the metric's unit), found \(shown)"))
            }
            let threshold = isPercent ? CompareThreshold(relative: number / 100, absolute: 0) : CompareThreshold(relative: 0, absolute: number)
            guard let name else {
                guard isPercent else {
                    return .failure(CommandMessage("--threshold: \(shown): an absolute threshold needs its metric (METRIC=X: metrics have different units); for every metric give a relative one (X%)"))
                }
                guard out.every == nil else { return .failure(CommandMessage("--threshold: \(shown): a threshold for every metric is already given")) }
                out.every = threshold
                continue
            }
            guard known.contains(name) else {
                let hint = Spelling.closest(to: name, among: known.sorted()).map { "; did you mean \(DisplayText.quoted($0))?" } ?? ""
                return .failure(CommandMessage("--threshold: \(shown): expected a metric of the runs (names as in summary.json), found \(DisplayText.quoted(name))\(hint)"))
            }
            guard out.perMetric[name] == nil else { return .failure(CommandMessage("--threshold: \(shown): \(name) already has a threshold")) }
            out.perMetric[name] = threshold
        }
        return .success(out)
    }
}

/// `prestage compare A B`: per-metric comparisons of two result directories.
package enum RunComparison {
    /// Compares `variant` (B) with `baseline` (A), metric by metric (metrics present in both, by
    /// name). Paired when both used the same seed and replication count, Welch otherwise.
    /// - Complexity: O(metrics · replications).
    /// A significant difference no larger than the metric's threshold (`thresholds`) is "… within
    /// threshold": it is not counted as a regression.
    static func compare(baseline a: RunSummary, variant b: RunSummary, thresholds: CompareThresholds = CompareThresholds()) -> [MetricComparison] {
        let paired = a.seed == b.seed && a.replications == b.replications
        let level = a.confidenceLevel
        var out: [MetricComparison] = []
        for ma in a.comparableMetrics {
            guard let mb = b.metric(ma.name) else { continue }
            var row = MetricComparison(name: ma.name, unit: ma.unit, baseline: ma, variant: mb, difference: nil,
                                       method: paired ? .paired : .welch, verdict: "not compared")
            // Uncertain inputs drawn once per m replications: the draw means are the independent units.
            let perDraw = ma.varianceSplit?.replicationsPerDraw ?? mb.varianceSplit?.replicationsPerDraw ?? 1
            if let fa = ma.finiteValues, let fb = mb.finiteValues, case let xa = VarianceSplit.drawMeans(fa, perDraw: perDraw),
               case let xb = VarianceSplit.drawMeans(fb, perDraw: perDraw), xa.count >= 2, xb.count >= 2 {
                let direction = MetricBetter(rawValue: ma.better)?.direction ?? .lower
                if paired, let c = try? PairedComparison(baseline: xa, variant: xb, better: direction, level: level) {
                    row.difference = c.pairedDifference
                } else if let ra = try? RunningMoments(validating: xa), let rb = try? RunningMoments(validating: xb),
                          let w = try? PairedComparison.welch(baseline: ra, variant: rb, level: level) {
                    row.difference = w
                    row.method = .welch
                }
                if let d = row.difference {
                    let threshold = thresholds.threshold(for: ma.name).value(baselineMean: xa.reduce(0, +) / Double(xa.count))
                    row.threshold = threshold
                    row.verdict = verdict(d, better: ma.better)
                    if row.verdict != "no significant difference", abs(d.mean) <= threshold { row.verdict += " within threshold" }
                }
            }
            out.append(row)
        }
        return out
    }

    /// The verdict for a difference interval (variant − baseline).
    static func verdict(_ d: ConfidenceInterval, better: String) -> String {
        let side: Int = d.lower > 0 ? 1 : (d.upper < 0 ? -1 : 0)
        if side == 0 { return "no significant difference" }
        switch MetricBetter(rawValue: better)?.direction {
        case .higher: return side > 0 ? "improvement" : "regression"
        case .lower: return side < 0 ? "improvement" : "regression"
        case nil: return "significant difference"
        }
    }

    /// Metrics that only one of the runs has.
    static func unmatched(baseline a: RunSummary, variant b: RunSummary) -> (onlyBaseline: [String], onlyVariant: [String]) {
        let na = Set(a.comparableMetrics.map(\.name)), nb = Set(b.comparableMetrics.map(\.name))
        return (na.subtracting(nb).sorted(), nb.subtracting(na).sorted())
    }

    /// The lines naming both runs and the interval method.
    static func header(baseline a: RunSummary, variant b: RunSummary, baselineLabel: String, variantLabel: String) -> [String] {
        var lines: [String] = []
        lines.append("A: \(baselineLabel)  (\(a.scenarioName), seed \(a.seed), \(a.replications) replications)")
        lines.append("B: \(variantLabel)  (\(b.scenarioName), seed \(b.seed), \(b.replications) replications)")
        if a.seed == b.seed && a.replications == b.replications {
            lines.append("Same seed and replication count: paired differences over common random numbers (B − A), \(percent(a.confidenceLevel)) CIs.")
        } else {
            lines.append("Different seeds: Welch's unpaired interval for B − A, \(percent(a.confidenceLevel)) CIs.")
        }
        if a.confidenceLevel != b.confidenceLevel {
            lines.append("Note: the runs used different confidence levels; B's intervals are shown at its own level, differences at A's.")
        }
        return lines
    }

    /// The comparison as a fixed-width text table with a header explaining the method.
    package static func render(baseline a: RunSummary, variant b: RunSummary, baselineLabel: String, variantLabel: String) -> String {
        let rows = compare(baseline: a, variant: b)
        var lines = header(baseline: a, variant: b, baselineLabel: baselineLabel, variantLabel: variantLabel)
        lines.append("")
        var table: [[String]] = [["metric", "unit", "A", "B", "B − A", "verdict"]]
        for r in rows {
            table.append([r.name, r.unit, estimate(r.baseline), estimate(r.variant),
                          r.difference.map { number($0.mean) + " ± " + number($0.halfWidth) } ?? "n/a", r.verdict])
        }
        lines += alignedTable(table)
        let (onlyA, onlyB) = unmatched(baseline: a, variant: b)
        if !onlyA.isEmpty { lines.append("only in A: " + onlyA.joined(separator: ", ")) }
        if !onlyB.isEmpty { lines.append("only in B: " + onlyB.joined(separator: ", ")) }
        return lines.joined(separator: "\n") + "\n"
    }

    static func estimate(_ m: MetricSummary) -> String {
        guard let mean = m.mean else { return "n/a" }
        guard let ci = m.confidenceInterval else { return number(mean) }
        return number(mean) + " ± " + number(ci.halfWidth)
    }

    static func percent(_ level: Double) -> String { TextNumber.format(level * 100, significant: 3) + " %" }

    static func number(_ x: Double) -> String { TextNumber.format(x, significant: 4) }
}

/// Left-aligned first columns, right-aligned numbers: rows of equal length rendered with two spaces between columns.
package func alignedTable(_ rows: [[String]]) -> [String] {
    guard let width = rows.first?.count else { return [] }
    var widths = [Int](repeating: 0, count: width)
    for row in rows { for (i, cell) in row.enumerated() where i < width { widths[i] = max(widths[i], cell.count) } }
    return rows.map { row in
        row.enumerated().map { i, cell in
            let pad = String(repeating: " ", count: max(0, widths[i] - cell.count))
            return (i < 2 || i == width - 1) ? cell + pad : pad + cell
        }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
    }
}

/// Locale-independent number formatting for terminal output.
package enum TextNumber {
    /// `x` with about `significant` significant digits (trailing zeros dropped), in fixed notation
    /// for 1e-4 ≤ |x| < 1e5, else scientific.
    package static func format(_ x: Double, significant: Int) -> String {
        guard x.isFinite else { return x.isNaN ? "n/a" : (x > 0 ? "inf" : "-inf") }
        if x == 0 { return "0" }
        let magnitude = abs(x)
        if magnitude < 1e-4 || magnitude >= 1e5 { return String(format: "%.\(max(0, significant - 1))e", locale: nil, x) }
        let digitsBeforePoint = Int(floor(log10(magnitude))) + 1
        let decimals = max(0, significant - digitsBeforePoint)
        var text = String(format: "%.\(decimals)f", locale: nil, x)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text
    }
}
