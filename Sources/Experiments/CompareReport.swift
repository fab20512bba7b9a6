import Foundation
import PushModel
import ReportKit
import SimStats

/// What `prestage compare` says beyond the per-metric intervals: which settings of the two resolved
/// scenarios differ, whether the runs may be compared at all, and the comparison as a table for
/// people (titles, human units, relative change, ordered by verdict) in text, Markdown, CSV or JSON.
package enum CompareReport {
    /// Output formats of `prestage compare --format`.
    package enum Format: String, Sendable, CaseIterable {
        case text, md, csv, json
    }

    /// What the comparison printed and found.
    package struct Outcome: Sendable, Equatable {
        /// The text for standard output.
        package let output: String
        /// Why the runs may not be compared (empty: they may, or `allowDifferent` was given).
        package let refusals: [String]
        /// Shown metrics with the verdict "regression" (significant and beyond the threshold).
        package let regressions: Int
        /// The shown metrics as JUnit cases: failed for a regression, skipped when not compared.
        package var junit = JUnitXML(name: "prestage compare", classPrefix: "prestage.compare", suites: [])
    }

    /// Compares B with A: refuses incomparable runs unless `allowDifferent`, else renders the shown
    /// rows in `format`. `baselineScenario`/`variantScenario` are the parsed resolved scenarios (nil: unknown).
    package static func run(baseline a: RunSummary, variant b: RunSummary, baselineScenario: Document?, variantScenario: Document?,
                           baselineLabel: String, variantLabel: String, metrics: [String]?, significantOnly: Bool,
                           format: Format, allowDifferent: Bool, thresholds: CompareThresholds = CompareThresholds()) throws -> Outcome {
        let differences = settingDifferences(baseline: baselineScenario, variant: variantScenario)
        let reasons = refusals(baseline: a, variant: b, differences: differences)
        if !reasons.isEmpty && !allowDifferent {
            return Outcome(output: "", refusals: reasons, regressions: 0)
        }
        let rows = ordered(RunComparison.compare(baseline: a, variant: b, thresholds: thresholds), selection: Selection(metrics: metrics, significantOnly: significantOnly))
        let regressions = rows.filter { $0.verdict == "regression" }.count
        let output: String
        switch format {
        case .json:
            output = try json(rows, differences: differences, baselineLabel: baselineLabel, variantLabel: variantLabel, level: a.confidenceLevel)
        case .csv:
            output = TableText.csv(csvTable(rows))
        case .text, .md:
            var lines = RunComparison.header(baseline: a, variant: b, baselineLabel: baselineLabel, variantLabel: variantLabel)
            if !reasons.isEmpty { lines.append("Compared anyway (--allow-different): " + reasons.joined(separator: "; ") + ".") }
            lines.append("")
            lines.append(differences.isEmpty ? "The resolved scenarios are identical." : "What differs between the resolved scenarios (A → B):")
            for difference in differences.prefix(settingDifferencesShownMax) {
                lines.append("  " + difference.path + ": " + difference.baseline + " → " + difference.variant)
            }
            if differences.count > settingDifferencesShownMax {
                lines.append("  … and \(differences.count - settingDifferencesShownMax) more (see --format json)")
            }
            lines.append("")
            let shown = table(rows)
            let body = format == .md ? TableText.markdown(shown) : TableText.plain(shown)
            var text = (format == .md ? lines.map { $0.isEmpty ? "" : $0 + "  " } : lines).joined(separator: "\n") + "\n" + body
            let (onlyA, onlyB) = RunComparison.unmatched(baseline: a, variant: b)
            if !onlyA.isEmpty { text += "only in A: " + onlyA.joined(separator: ", ") + "\n" }
            if !onlyB.isEmpty { text += "only in B: " + onlyB.joined(separator: ", ") + "\n" }
            if rows.isEmpty { text += "(no metric to show" + (significantOnly ? " with a significant difference" : "") + ")\n" }
            output = text
        }
        let cases = rows.map { row -> JUnitXML.Case in
            let detail = "A \(row.baseline.mean.map(plain) ?? "n/a"), B \(row.variant.mean.map(plain) ?? "n/a"), B − A "
                + (row.difference.map { "\(plain($0.mean)) [\(plain($0.lower)), \(plain($0.upper))]" } ?? "n/a")
                + (row.threshold.map { ", threshold \(plain($0))" } ?? "") + " \(row.unit): \(row.verdict)"
            return JUnitXML.Case(name: row.name, failure: row.verdict == "regression" ? detail : nil,
                                 skipped: row.verdict == "not compared" ? "not compared: a run lacks a value for some replication" : nil, output: detail)
        }
        var outcome = Outcome(output: output, refusals: [], regressions: regressions)
        outcome.junit.suites = [JUnitXML.Suite(name: "\(baselineLabel) → \(variantLabel)", cases: cases)]
        return outcome
    }

    /// Most setting differences listed in text output.
    static let settingDifferencesShownMax = 40

    /// One setting that differs between the two resolved scenarios.
    struct SettingDifference: Sendable, Equatable {
        /// JSON path, e.g. "population.devices" or "campaigns[0].warm.aheadSeconds".
        var path: String
        /// The value in A as compact JSON; "(absent)" when A lacks it.
        var baseline: String
        /// The value in B.
        var variant: String
    }

    /// A JSON document as decoded for the settings diff (booleans kept apart from numbers).
    package indirect enum Document: Decodable, Sendable, Equatable {
        case null, bool(Bool), integer(Int64), double(Double), string(String), array([Document]), object([String: Document])

        package init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if c.decodeNil() { self = .null }
            else if let b = try? c.decode(Bool.self) { self = .bool(b) }
            else if let i = try? c.decode(Int64.self) { self = .integer(i) }
            else if let d = try? c.decode(Double.self) { self = .double(d) }
            else if let s = try? c.decode(String.self) { self = .string(s) }
            else if let a = try? c.decode([Document].self) { self = .array(a) }
            else { self = .object(try c.decode([String: Document].self)) }
        }
    }

    /// Every leaf of two JSON documents that differs, sorted by path (arrays by index, objects by key).
    static func settingDifferences(baseline a: Document?, variant b: Document?) -> [SettingDifference] {
        guard let a, let b else { return [] }
        var leavesA: [String: String] = [:], leavesB: [String: String] = [:]
        flatten(a, path: "", into: &leavesA)
        flatten(b, path: "", into: &leavesB)
        return Set(leavesA.keys).union(leavesB.keys).sorted().compactMap { path in
            let x = leavesA[path] ?? "(absent)", y = leavesB[path] ?? "(absent)"
            return x == y ? nil : SettingDifference(path: path, baseline: x, variant: y)
        }
    }

    private static func flatten(_ value: Document, path: String, into leaves: inout [String: String]) {
        switch value {
        case .object(let object):
            if object.isEmpty { leaves[path] = "{}" }
            for key in object.keys.sorted() { flatten(object[key] ?? .null, path: path.isEmpty ? key : path + "." + key, into: &leaves) }
        case .array(let array):
            if array.isEmpty { leaves[path] = "[]" }
            for (index, element) in array.enumerated() { flatten(element, path: path + "[\(index)]", into: &leaves) }
        case .string(let string): leaves[path] = "\"" + string + "\""
        case .bool(let bool): leaves[path] = bool ? "true" : "false"
        case .integer(let integer): leaves[path] = String(integer)
        case .double(let double): leaves[path] = "\(double)"
        case .null: leaves[path] = "null"
        }
    }

    /// Settings that make totals or intervals of two runs incomparable: population size and horizon
    /// (counts and bytes scale with them), and one seed with different replication counts (the first
    /// replications share random streams, so the runs are neither paired nor independent).
    static func refusals(baseline a: RunSummary, variant b: RunSummary, differences: [SettingDifference]) -> [String] {
        var reasons: [String] = []
        for difference in differences where difference.path == "population.devices" || difference.path == "horizonSeconds" {
            reasons.append("\(difference.path) differs (A \(difference.baseline), B \(difference.variant)): counts and bytes scale with it")
        }
        if a.seed == b.seed && a.replications != b.replications {
            reasons.append("same seed \(a.seed) with \(a.replications) and \(b.replications) replications: the first \(min(a.replications, b.replications)) share random streams, so the runs are neither paired nor independent")
        }
        return reasons
    }

    /// Which rows to show.
    struct Selection: Sendable, Equatable {
        /// Only these metric names (in this order of preference); nil: every metric.
        var metrics: [String]?
        /// Only rows whose difference interval excludes zero.
        var significantOnly: Bool

        /// Creates the value from its properties (see their documentation).
        init(metrics: [String]? = nil, significantOnly: Bool = false) {
            self.metrics = metrics
            self.significantOnly = significantOnly
        }
    }

    /// Rows ordered for reading: regressions, then improvements, then other significant differences,
    /// then the rest; within a group by the size of the relative change (largest first), then by name.
    static func ordered(_ rows: [MetricComparison], selection: Selection) -> [MetricComparison] {
        var kept = rows
        if let names = selection.metrics { kept = kept.filter { names.contains($0.name) } }
        if selection.significantOnly { kept = kept.filter { isSignificant($0) } }
        func rank(_ row: MetricComparison) -> Int {
            switch row.verdict {
            case "regression": return 0
            case "improvement": return 1
            case "significant difference", "regression within threshold", "improvement within threshold",
                 "significant difference within threshold": return 2
            default: return 3
            }
        }
        return kept.sorted { x, y in
            let rx = rank(x), ry = rank(y)
            if rx != ry { return rx < ry }
            let cx = abs(relativeChange(x) ?? 0), cy = abs(relativeChange(y) ?? 0)
            if cx != cy { return cx > cy }
            return x.name < y.name
        }
    }

    /// Whether the difference interval excludes zero.
    static func isSignificant(_ row: MetricComparison) -> Bool {
        guard let d = row.difference else { return false }
        return d.lower > 0 || d.upper < 0
    }

    /// (B − A) / |A|; nil when A's mean is 0 or missing.
    static func relativeChange(_ row: MetricComparison) -> Double? {
        guard let a = row.baseline.mean, let b = row.variant.mean, a != 0 else { return nil }
        return (b - a) / abs(a)
    }

    /// `--format csv`: one row per metric, plain numbers in the stored units, one value per column.
    static func csvTable(_ rows: [MetricComparison]) -> Table {
        let names = ["metric", "title", "unit", "a", "aHalfWidth", "b", "bHalfWidth", "difference", "differenceLower", "differenceUpper",
                     "relativeChange", "method", "verdict", "threshold"]
        let body: [[TableCell]] = rows.map { row in
            let numbers: [Double?] = [row.baseline.mean, row.baseline.confidenceInterval?.halfWidth, row.variant.mean,
                                      row.variant.confidenceInterval?.halfWidth, row.difference?.mean, row.difference?.lower,
                                      row.difference?.upper, relativeChange(row)]
            return [.text(row.name), .text(MetricTable.spec(named: row.name)?.title ?? row.name), .text(row.unit)]
                + numbers.map { .text($0.map(plain) ?? "") } + [.text(row.method.rawValue), .text(row.verdict), .text(row.threshold.map(plain) ?? "")]
        }
        return Table(caption: "", columns: names.map { Table.Column($0) }, rows: body)
    }

    /// The table people read: title, id, A and B with intervals, B − A with its interval, the relative
    /// change, the verdict, in human units.
    static func table(_ rows: [MetricComparison]) -> Table {
        let columns = [Table.Column("Metric"), Table.Column("ID"), Table.Column("A", alignment: .trailing), Table.Column("B", alignment: .trailing),
                       Table.Column("B − A", alignment: .trailing), Table.Column("Change", alignment: .trailing), Table.Column("Verdict")]
        let body: [[TableCell]] = rows.map { row in
            let unit = ReportBuilder.measuredUnit(name: row.name, unit: row.unit)
            let scale = HumanScale.choose(for: unit, magnitude: max(abs(row.baseline.mean ?? 0), abs(row.variant.mean ?? 0)))
            func estimate(_ m: MetricSummary) -> String {
                guard let mean = m.mean else { return "n/a" }
                return scale.text(mean) + (m.confidenceInterval.map { " ± " + scale.number($0.halfWidth) } ?? "")
            }
            // A difference of shares reads in percentage points.
            let differenceUnit = unit == .ratio ? "pp" : scale.unit
            let difference = row.difference.map { d -> String in
                (d.mean >= 0 ? "+" : "") + scale.number(d.mean) + (differenceUnit.isEmpty ? "" : " " + differenceUnit) + " ± " + scale.number(d.halfWidth)
            } ?? "n/a"
            let change = relativeChange(row).map { (($0 >= 0) ? "+" : "") + TextFormat.fixed($0 * 100, decimals: 1) + " %" } ?? "—"
            return [.text(MetricTable.spec(named: row.name)?.title ?? row.name), .code(row.name),
                    .text(estimate(row.baseline)), .text(estimate(row.variant)), .text(difference), .text(change), .text(row.verdict)]
        }
        return Table(caption: "", columns: columns, rows: body)
    }

    /// Shortest round-trip form for machine-readable output.
    static func plain(_ x: Double) -> String {
        guard x.isFinite else { return "" }
        if x == x.rounded(), abs(x) < 1e15 { return String(Int64(x)) }
        return "\(x)"
    }

    /// One row of `--format json`: raw numbers in the stored units.
    struct JSONRow: Encodable {
        let name: String
        let title: String
        let unit: String
        let better: String
        let a: Double?
        let aHalfWidth: Double?
        let b: Double?
        let bHalfWidth: Double?
        let difference: Double?
        let differenceLower: Double?
        let differenceUpper: Double?
        let relativeChange: Double?
        let method: String
        let verdict: String
        let threshold: Double?
    }

    struct JSONDocument: Encodable {
        let baseline: String
        let variant: String
        let confidenceLevel: Double
        let settingDifferences: [[String: String]]
        let metrics: [JSONRow]
    }

    /// `--format json`: the labels, the setting differences and every shown row.
    static func json(_ rows: [MetricComparison], differences: [SettingDifference], baselineLabel: String, variantLabel: String,
                            level: Double) throws -> String {
        let document = JSONDocument(
            baseline: baselineLabel, variant: variantLabel, confidenceLevel: level,
            settingDifferences: differences.map { ["path": $0.path, "a": $0.baseline, "b": $0.variant] },
            metrics: rows.map { row in
                JSONRow(name: row.name, title: MetricTable.spec(named: row.name)?.title ?? row.name, unit: row.unit, better: row.baseline.better,
                        a: row.baseline.mean, aHalfWidth: row.baseline.confidenceInterval?.halfWidth,
                        b: row.variant.mean, bHalfWidth: row.variant.confidenceInterval?.halfWidth,
                        difference: row.difference?.mean, differenceLower: row.difference?.lower, differenceUpper: row.difference?.upper,
                        relativeChange: relativeChange(row), method: row.method.rawValue, verdict: row.verdict, threshold: row.threshold)
            })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(document), as: UTF8.self) + "\n"
    }
}
