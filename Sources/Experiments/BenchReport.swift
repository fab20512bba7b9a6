import Foundation
import ReportKit
import ScenarioFormat

/// Everything one gate run decided, rendered as a terminal table, Markdown (a PR comment) and
/// JUnit XML (one testcase per scenario × metric, per fingerprint, the instruction count and the
/// informational CPU-time ratio).
package struct BenchReport: Sendable, Equatable {
    /// Metric checks, by scenario (suite order) then `BenchSuite.gates` order.
    package var metrics: [BenchMetricCheck]
    /// One fingerprint check per scenario.
    package var fingerprints: [BenchFingerprintCheck]
    /// The speed gate: instructions of the counted workload.
    package var instructions: BenchInstructionCheck
    /// The CPU-time ratio (informational).
    package var speed: BenchSpeedCheck
    /// Problems that fail the gate without a check of their own (e.g. a scenario with no baseline).
    package var errors: [String]
    /// Remarks that do not fail the gate (changed scenario hashes, stale baseline files).
    package var notes: [String]

    /// A report of these checks, errors and notes.
    package init(metrics: [BenchMetricCheck], fingerprints: [BenchFingerprintCheck], instructions: BenchInstructionCheck, speed: BenchSpeedCheck,
                errors: [String], notes: [String]) {
        self.metrics = metrics
        self.fingerprints = fingerprints
        self.instructions = instructions
        self.speed = speed
        self.errors = errors
        self.notes = notes
    }

    /// Whether the gate fails.
    package var fails: Bool { !errors.isEmpty || failures.count > 0 }

    /// "scenario metric: note" for every failing check, in report order.
    var failures: [String] {
        metrics.filter { $0.verdict.fails }.map { "\($0.scenario) \($0.gate.name): \($0.verdict.rawValue) (\($0.note))" }
            + fingerprints.filter { $0.verdict.fails }.map { "\($0.scenario) fingerprint: changed (\($0.baseline.events) → \($0.now.events) events)" }
            + (instructions.verdict.fails ? ["instructions: \(instructions.verdict.rawValue) (\(instructions.note))"] : [])
    }

    // MARK: Cells

    static func number(_ x: Double?) -> String { x.map { TextNumber.format($0, significant: 4) } ?? "n/a" }

    static func signed(_ x: Double) -> String { (x > 0 ? "+" : "") + TextNumber.format(x, significant: 3) }

    static func interval(_ c: BenchMetricCheck) -> String {
        guard let d = c.difference else { return "—" }
        return "[" + signed(d.lower) + ", " + signed(d.upper) + "]"
    }

    static func thresholdCell(_ c: BenchMetricCheck) -> String {
        guard let t = c.threshold else { return c.gate.thresholdText }
        return (c.gate.better == .lower ? "+" : "−") + TextNumber.format(t, significant: 3)
    }

    static func verdictCell(_ v: BenchVerdict) -> String { v.fails ? v.rawValue.uppercased() : v.rawValue }

    static func shortHash(_ f: BenchFingerprint) -> String { String(f.sha256.dropFirst("sha256:".count).prefix(12)) }

    // MARK: Terminal

    /// Fixed-width tables for the terminal / CI log.
    package func text() -> String {
        var lines: [String] = []
        let level = TextNumber.format(BenchSuite.confidenceLevel * 100, significant: 3)
        lines.append("Model metrics: now − baseline, paired over the baseline's replication seeds, \(level) % CI; a regression is significant AND worse than the threshold.")
        for scenario in scenarioOrder {
            lines.append("")
            lines.append(scenario)
            var rows = [["metric", "unit", "baseline", "now", "difference", "CI", "threshold", "verdict"]]
            for c in metrics where c.scenario == scenario {
                rows.append([c.gate.name, c.unit, Self.number(c.baselineMean), Self.number(c.nowMean),
                             c.difference.map { Self.signed($0.mean) } ?? "—", Self.interval(c), Self.thresholdCell(c),
                             Self.verdictCell(c.verdict) + " (" + c.note + ")"])
            }
            lines += alignedTable(rows).map { "  " + $0 }
        }
        lines.append("")
        lines.append("Fingerprints (SHA-256 of replication 0's full event trace):")
        var rows = [["scenario", "events", "baseline", "now", "verdict"]]
        for f in fingerprints {
            rows.append([f.scenario, "\(f.now.events)", Self.shortHash(f.baseline), Self.shortHash(f.now),
                         f.verdict == .skipped ? "changed, not judged" : Self.verdictCell(f.verdict)])
        }
        lines += alignedTable(rows).map { "  " + $0 }
        lines.append("")
        lines.append("Speed gate (instructions of replication 0 of each scenario, at most \(BenchInstructions.devicesMax) devices, callgrind): " + instructionLine)
        if !instructions.modules.isEmpty {
            var rows = [["module", "baseline", "now", "change"]]
            for m in instructions.modules { rows.append([m.name, Self.count(m.baseline), Self.count(m.now), Self.change(m)]) }
            lines += alignedTable(rows).map { "  " + $0 }
        }
        lines.append("CPU-time ratio to the calibration loop (informational, median of \(BenchSuite.speedRounds) rounds): " + speedLine)
        for n in notes { lines.append("note: " + n) }
        for e in errors { lines.append("error: " + e) }
        lines.append("")
        lines.append(fails ? "bench: FAILED — " + (failures + errors).joined(separator: "; ") : "bench: passed (\(metrics.count) metric checks, \(fingerprints.count) fingerprints, instructions \(instructions.verdict.rawValue))")
        return lines.joined(separator: "\n") + "\n"
    }

    var speedLine: String {
        var s = "baseline \(Self.number(speed.baselineRatio)), now \(Self.number(speed.nowRatio))"
        if let f = speed.factor { s += ", ×" + TextNumber.format(f, significant: 3) }
        return s + ": " + speed.verdict.rawValue + " (" + speed.note + ")"
    }

    var instructionLine: String {
        let i = instructions
        var s = "baseline \(Self.count(i.baseline)), now \(Self.count(i.now))"
        if let f = i.factor {
            s += ", " + Self.signed((f - 1) * 100) + " % (margin +" + TextNumber.format((BenchSuite.instructionMarginFactor - 1) * 100, significant: 3) + " %)"
        }
        if let e = i.eventsNow, let n = i.now, e > 0 { s += ", " + TextNumber.format(Double(n) / Double(e), significant: 4) + " per event" }
        return s + ": " + Self.verdictCell(i.verdict) + " (" + i.note + ")"
    }

    /// "1,234,567", or "—".
    static func count(_ x: UInt64?) -> String {
        guard let x else { return "—" }
        var digits = Array(String(x)), out: [Character] = []
        while digits.count > 3 { out = [","] + digits.suffix(3) + out; digits.removeLast(3) }
        return String(digits + out)
    }

    /// "+12,345 (+1.2 %)", or "new" without a baseline figure.
    static func change(_ r: BenchInstructionCheck.Row) -> String {
        guard let c = r.change, let b = r.baseline else { return "not in the baseline's list" }
        let sign = c > 0 ? "+" : (c < 0 ? "−" : "")
        let pct = b == 0 ? "" : " (" + sign + TextNumber.format(Double(c.magnitude) / Double(b) * 100, significant: 3) + " %)"
        return sign + count(c.magnitude) + pct
    }

    var scenarioOrder: [String] {
        var seen: [String] = []
        for c in metrics where !seen.contains(c.scenario) { seen.append(c.scenario) }
        for f in fingerprints where !seen.contains(f.scenario) { seen.append(f.scenario) }
        return seen
    }

    // MARK: Markdown

    /// A Markdown report for a pull-request comment.
    package func markdown() -> String {
        func cell(_ s: String) -> String { s.replacingOccurrences(of: "|", with: "\\|") }
        var md = ["## Prestage regression bench: " + (fails ? "❌ failed" : "✅ passed"), ""]
        if fails {
            for f in failures + errors { md.append("- **" + cell(f) + "**") }
            md.append("")
        }
        let level = TextNumber.format(BenchSuite.confidenceLevel * 100, significant: 3)
        md.append("Model metrics: now − baseline, paired over the baseline's replication seeds (common random numbers), \(level) % CI. "
                  + "A regression is statistically significant **and** worse than the practical threshold.")
        for scenario in scenarioOrder {
            md.append("")
            md.append("### " + scenario)
            md.append("")
            md.append("| metric | unit | baseline | now | difference | CI | threshold | verdict |")
            md.append("|---|---|---:|---:|---:|---|---:|---|")
            for c in metrics where c.scenario == scenario {
                let v = c.verdict.fails ? "**" + c.verdict.rawValue + "**" : c.verdict.rawValue
                md.append("| `\(c.gate.name)` | \(c.unit) | \(Self.number(c.baselineMean)) | \(Self.number(c.nowMean)) | "
                          + "\(c.difference.map { Self.signed($0.mean) } ?? "—") | \(Self.interval(c)) | \(cell(Self.thresholdCell(c))) | \(v) (\(c.note)) |")
            }
        }
        md.append("")
        md.append("### Fingerprints")
        md.append("")
        md.append("SHA-256 over every processed event (time, kind, target, payload) of replication 0.")
        md.append("")
        md.append("| scenario | events (baseline → now) | baseline | now | verdict |")
        md.append("|---|---:|---|---|---|")
        for f in fingerprints {
            md.append("| \(f.scenario) | \(f.baseline.events) → \(f.now.events) | `\(Self.shortHash(f.baseline))` | `\(Self.shortHash(f.now))` | \(f.verdict.fails ? "**changed**" : f.verdict == .skipped ? "changed, not judged" : "pass") |")
        }
        md.append("")
        md.append("### Speed: instructions")
        md.append("")
        md.append("Instructions (callgrind) of replication 0 of each scenario at most \(BenchInstructions.devicesMax) devices, counted inside the simulation only: " + cell(instructionLine))
        if !instructions.modules.isEmpty {
            md.append("")
            md.append("| module (self instructions) | baseline | now | change |")
            md.append("|---|---:|---:|---:|")
            for m in instructions.modules { md.append("| `\(cell(m.name))` | \(Self.count(m.baseline)) | \(Self.count(m.now)) | \(Self.change(m)) |") }
        }
        if !instructions.functions.isEmpty {
            md.append("")
            md.append("| function that moved most (self instructions) | baseline | now | change |")
            md.append("|---|---:|---:|---:|")
            for f in instructions.functions { md.append("| `\(cell(f.name))` | \(Self.count(f.baseline)) | \(Self.count(f.now)) | \(Self.change(f)) |") }
        }
        md.append("")
        md.append("CPU-time ratio of the scenarios' replication 0 to a fixed calibration loop (informational, median of \(BenchSuite.speedRounds) rounds): " + speedLine)
        if !notes.isEmpty {
            md.append("")
            for n in notes { md.append("- " + cell(n)) }
        }
        md.append("")
        md.append("An intended change? Regenerate the baselines with `make bench-baseline` and commit `results/baseline/`.")
        return md.joined(separator: "\n") + "\n"
    }

    // MARK: JUnit

    /// JUnit XML: a testsuite per scenario (its metrics and fingerprint), one for speed (the
    /// instruction count and the informational CPU-time ratio).
    package func junitXML() -> String {
        typealias Case = JUnitXML.Case
        var suites: [JUnitXML.Suite] = []
        for scenario in scenarioOrder {
            var cases: [Case] = []
            for c in metrics where c.scenario == scenario {
                let detail = "baseline \(Self.number(c.baselineMean)), now \(Self.number(c.nowMean)), difference "
                    + (c.difference.map { Self.signed($0.mean) } ?? "—") + ", CI \(Self.interval(c)), threshold \(Self.thresholdCell(c)) \(c.unit): \(c.note)"
                cases.append(Case(name: c.gate.name, failure: c.verdict.fails ? "\(c.verdict.rawValue): " + detail : nil,
                                  skipped: c.verdict == .skipped ? c.note : nil, output: detail))
            }
            for f in fingerprints where f.scenario == scenario {
                let detail = "baseline \(f.baseline.sha256) (\(f.baseline.events) events), now \(f.now.sha256) (\(f.now.events) events)"
                cases.append(Case(name: "fingerprint", failure: f.verdict.fails ? "changed: " + detail + "; regenerate with `make bench-baseline` if intended" : nil,
                                  skipped: f.verdict == .skipped ? "changed, not judged (--policy-check)" : nil, output: detail))
            }
            suites.append(JUnitXML.Suite(name: scenario, cases: cases))
        }
        suites.append(JUnitXML.Suite(name: "speed", cases: [
            Case(name: "instructions", failure: instructions.verdict.fails ? instructionLine : nil,
                 skipped: instructions.verdict == .skipped ? instructions.note : nil, output: instructionLine),
            Case(name: "cpuTimeRatio", skipped: speed.verdict == .skipped ? speed.note : nil, output: speedLine)]))
        if !errors.isEmpty {
            suites.append(JUnitXML.Suite(name: "errors", cases: errors.enumerated().map { Case(name: "error\($0.offset + 1)", failure: $0.element, output: $0.element) }))
        }
        return JUnitXML(name: "prestage bench", classPrefix: "prestage.bench", suites: suites).text
    }
}
