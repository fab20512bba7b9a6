import Foundation
import ScenarioFormat

/// Everything one gate run decided, rendered as a terminal table, Markdown (a PR comment) and
/// JUnit XML (one testcase per scenario × metric, per fingerprint, and the speed check).
public struct BenchReport: Sendable, Equatable {
    /// Metric checks, by scenario (suite order) then `BenchSuite.gates` order.
    public var metrics: [BenchMetricCheck]
    /// One fingerprint check per scenario.
    public var fingerprints: [BenchFingerprintCheck]
    /// The speed check.
    public var speed: BenchSpeedCheck
    /// Problems that fail the gate without a check of their own (e.g. a scenario with no baseline).
    public var errors: [String]
    /// Remarks that do not fail the gate (changed scenario hashes, stale baseline files).
    public var notes: [String]

    /// A report of these checks, errors and notes.
    public init(metrics: [BenchMetricCheck], fingerprints: [BenchFingerprintCheck], speed: BenchSpeedCheck, errors: [String], notes: [String]) {
        self.metrics = metrics
        self.fingerprints = fingerprints
        self.speed = speed
        self.errors = errors
        self.notes = notes
    }

    /// Whether the gate fails.
    public var fails: Bool { !errors.isEmpty || failures.count > 0 }

    /// "scenario metric: note" for every failing check, in report order.
    var failures: [String] {
        metrics.filter { $0.verdict.fails }.map { "\($0.scenario) \($0.gate.name): \($0.verdict.rawValue) (\($0.note))" }
            + fingerprints.filter { $0.verdict.fails }.map { "\($0.scenario) fingerprint: changed (\($0.baseline.events) → \($0.now.events) events)" }
            + (speed.verdict.fails ? ["speed: regression (\(speed.note))"] : [])
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
    public func text() -> String {
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
            rows.append([f.scenario, "\(f.now.events)", Self.shortHash(f.baseline), Self.shortHash(f.now), Self.verdictCell(f.verdict)])
        }
        lines += alignedTable(rows).map { "  " + $0 }
        lines.append("")
        lines.append("Speed (CPU-time ratio to the calibration loop, median of \(BenchSuite.speedRounds) rounds): " + speedLine)
        for n in notes { lines.append("note: " + n) }
        for e in errors { lines.append("error: " + e) }
        lines.append("")
        lines.append(fails ? "bench: FAILED — " + (failures + errors).joined(separator: "; ") : "bench: passed (\(metrics.count) metric checks, \(fingerprints.count) fingerprints, speed \(speed.verdict.rawValue))")
        return lines.joined(separator: "\n") + "\n"
    }

    var speedLine: String {
        var s = "baseline \(Self.number(speed.baselineRatio)), now \(Self.number(speed.nowRatio))"
        if let f = speed.factor { s += ", ×" + TextNumber.format(f, significant: 3) + " (margin ×" + TextNumber.format(BenchSuite.speedMarginFactor, significant: 3) + ")" }
        return s + ": " + Self.verdictCell(speed.verdict) + " (" + speed.note + ")"
    }

    var scenarioOrder: [String] {
        var seen: [String] = []
        for c in metrics where !seen.contains(c.scenario) { seen.append(c.scenario) }
        for f in fingerprints where !seen.contains(f.scenario) { seen.append(f.scenario) }
        return seen
    }

    // MARK: Markdown

    /// A Markdown report for a pull-request comment.
    public func markdown() -> String {
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
            md.append("| \(f.scenario) | \(f.baseline.events) → \(f.now.events) | `\(Self.shortHash(f.baseline))` | `\(Self.shortHash(f.now))` | \(f.verdict.fails ? "**changed**" : "pass") |")
        }
        md.append("")
        md.append("### Speed")
        md.append("")
        md.append("CPU-time ratio of the scenarios' replication 0 to a fixed calibration loop (median of \(BenchSuite.speedRounds) rounds): " + speedLine)
        if !notes.isEmpty {
            md.append("")
            for n in notes { md.append("- " + cell(n)) }
        }
        md.append("")
        md.append("An intended change? Regenerate the baselines with `make bench-baseline` and commit `results/baseline/`.")
        return md.joined(separator: "\n") + "\n"
    }

    // MARK: JUnit

    /// JUnit XML: a testsuite per scenario (its metrics and fingerprint), one for speed.
    public func junitXML() -> String {
        struct Case { let name: String; let failure: String?; let skipped: String?; let output: String }
        var suites: [(String, [Case])] = []
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
                                  skipped: nil, output: detail))
            }
            suites.append((scenario, cases))
        }
        suites.append(("speed", [Case(name: "cpuTimeRatio", failure: speed.verdict.fails ? speedLine : nil,
                                      skipped: speed.verdict == .skipped ? speed.note : nil, output: speedLine)]))
        if !errors.isEmpty {
            suites.append(("errors", errors.enumerated().map { Case(name: "error\($0.offset + 1)", failure: $0.element, skipped: nil, output: $0.element) }))
        }
        let total = suites.reduce(0) { $0 + $1.1.count }
        let failed = suites.reduce(0) { $0 + $1.1.filter { $0.failure != nil }.count }
        var x = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
                 "<testsuites name=\"prestage bench\" tests=\"\(total)\" failures=\"\(failed)\">"]
        for (name, cases) in suites {
            let f = cases.filter { $0.failure != nil }.count, s = cases.filter { $0.skipped != nil }.count
            x.append("  <testsuite name=\"\(Self.xml(name))\" tests=\"\(cases.count)\" failures=\"\(f)\" skipped=\"\(s)\">")
            for c in cases {
                x.append("    <testcase classname=\"prestage.bench.\(Self.xml(name))\" name=\"\(Self.xml(c.name))\">")
                if let failure = c.failure { x.append("      <failure message=\"\(Self.xml(failure))\">\(Self.xml(failure))</failure>") }
                if let skipped = c.skipped { x.append("      <skipped message=\"\(Self.xml(skipped))\"/>") }
                x.append("      <system-out>\(Self.xml(c.output))</system-out>")
                x.append("    </testcase>")
            }
            x.append("  </testsuite>")
        }
        x.append("</testsuites>")
        return x.joined(separator: "\n") + "\n"
    }

    /// `s` escaped for XML text and attribute values; characters XML 1.0 forbids are dropped.
    static func xml(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.count)
        for u in s.unicodeScalars {
            switch u {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n", "\r": out.unicodeScalars.append(u)
            default:
                if u.value < 0x20 || u.value == 0xFFFE || u.value == 0xFFFF { continue }
                out.unicodeScalars.append(u)
            }
        }
        return out
    }
}
