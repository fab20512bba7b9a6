import Experiments
import Foundation
import ScenarioFormat

/// `prestage compare A B`.
struct CompareCommand: ParsableCommand {
    /// `--significant-only`.
    static let significantOnlyOption = Option.flag("significant-only", help: "only metrics whose difference interval excludes zero")
    /// `--format FORMAT`.
    static let formatOption = Option.string("format", valueName: "FORMAT", help: "text (default), md, csv (plain numbers) or json")
    /// `--fail-on-regression`.
    static let failOnRegressionOption = Option.flag("fail-on-regression", help: "exit 3 when a shown metric regressed significantly")
    /// `--threshold [METRIC=]X[%]`.
    static let thresholdOption = Option.strings("threshold", valueName: "[METRIC=]X[%]",
                                                help: "smallest change that counts for --fail-on-regression: X% for every metric, METRIC=X% or METRIC=X (its unit); default the bench gate's, else 0")
    /// `--allow-different`.
    static let allowDifferentOption = Option.flag("allow-different", help: "compare runs of different populations, horizons or replication plans anyway")

    static let configuration = CommandSpec(
        "compare", summary: "compare two result directories metric by metric (B − A with CIs and a verdict)",
        positionals: ["A", "B"], declaring: [
            MetricsOption.metrics.help("only these metrics (names as in summary.json)"),
            significantOnlyOption, formatOption, failOnRegressionOption, thresholdOption, allowDifferentOption,
            RunOptions.junit.help("also write each shown metric as a JUnit case to FILE (a regression beyond its threshold is a failed case)"),
        ], exitCodes: [ExitCodeDoc(.ok, "compared (also with regressions, unless --fail-on-regression)"),
                       ExitCodeDoc(.runFailed, "the comparison could not be written"),
                       ExitCodeDoc(.badInput, "a directory without a complete run, a bad option, or runs that are not comparable"),
                       ExitCodeDoc(.gateNotPassed, "a shown metric regressed significantly and beyond its threshold (--fail-on-regression)")])

    static let helpFooter = """

        A and B are result directories written by `prestage run` (each holding summary.json).
        With the same seed and replication count the runs used common random numbers, and the
        difference is a paired t interval; otherwise Welch's interval. The settings that differ
        between the two resolved scenarios are listed first. Runs of different populations or
        horizons (counts and bytes scale with them), or with one seed and different replication
        counts, are refused unless --allow-different. Rows: regressions, improvements, other
        significant differences, then the rest; Change is (B − A) / |A|.

        A significant change no larger than its threshold — max(relative · |A|, absolute) — reads
        "regression within threshold" (or "improvement within threshold") and does not fail
        --fail-on-regression. Each metric's threshold is its --threshold METRIC=…, else
        --threshold X%, else the bench gate's (docs/ci.md: tap-to-paint p50 and p95 +5 % or
        +20/50 ms, shares 1 point, …), else 0 (every significant change counts).

        examples:
          prestage compare results/default-seed1 results/warm-2min
          prestage compare A B --significant-only --format md
          prestage compare A B --metrics tapToPaint.p95Seconds,bytes.cdnEgress --fail-on-regression
          prestage compare A B --fail-on-regression --threshold 2% --threshold bytes.cdnEgress=5%
        """

    /// Largest summary.json read (10 000 replications × ~100 metrics fit easily).
    static let summaryBytesMax = 256 << 20

    /// A and B.
    let paths: [String]
    /// `--metrics`.
    let metrics: MetricsOption
    /// `--significant-only`.
    let significantOnly: Bool
    /// `--format` as given.
    let formatText: String?
    /// `--fail-on-regression`, `--junit`.
    let gate: GateOptions
    /// `--allow-different`.
    let allowDifferent: Bool
    /// `--threshold` values as given.
    let thresholdTexts: [String]

    init(parsed: ParsedCommand) {
        paths = parsed.positionals
        metrics = MetricsOption(parsed)
        significantOnly = parsed[Self.significantOnlyOption]
        formatText = parsed[Self.formatOption]
        gate = GateOptions(parsed, failOn: Self.failOnRegressionOption)
        allowDifferent = parsed[Self.allowDifferentOption]
        thresholdTexts = parsed[Self.thresholdOption]
    }

    func execute(environment env: CommandEnvironment) -> ExitCode {
        var summaries: [RunSummary] = []
        var failed = false
        for path in paths {
            switch Self.loadSummary(path) {
            case let .success(s): summaries.append(s)
            case let .failure(message):
                env.standardError.write("prestage compare: \(message)\n")
                failed = true
            }
        }
        guard !failed, summaries.count == 2 else { return .badInput }
        if let problem = gate.junitProblem {
            env.standardError.write("prestage compare: \(problem)\n")
            return .badInput
        }
        let format: CompareReport.Format
        if let text = formatText {
            guard let f = CompareReport.Format(rawValue: text) else {
                env.standardError.write("prestage compare: --format: expected one of \(CompareReport.Format.allCases.map(\.rawValue).joined(separator: ", ")), found \"\(text)\"\n")
                return .badInput
            }
            format = f
        } else {
            format = .text
        }
        var shown: [String]?
        if metrics.text != nil {
            switch metrics.chosen() {
            case let .success(m): shown = m
            case let .failure(message):
                env.standardError.write("prestage compare: \(message)\n")
                return .badInput
            }
        }
        let thresholds: CompareThresholds
        switch CompareThresholds.parse(thresholdTexts, known: Set(summaries.flatMap { $0.comparableMetrics.map(\.name) })) {
        case let .success(t): thresholds = t
        case let .failure(message):
            env.standardError.write("prestage compare: \(message)\n")
            return .badInput
        }
        do {
            let outcome = try CompareReport.run(
                baseline: summaries[0], variant: summaries[1],
                baselineScenario: Self.loadScenario(paths[0]), variantScenario: Self.loadScenario(paths[1]),
                baselineLabel: paths[0], variantLabel: paths[1], metrics: shown,
                significantOnly: significantOnly, format: format, allowDifferent: allowDifferent, thresholds: thresholds)
            if !outcome.refusals.isEmpty {
                env.standardError.write("prestage compare: the runs are not comparable:\n" + outcome.refusals.map { "  - " + $0 + "\n" }.joined()
                                        + "Compare runs of the same population, horizon and replication plan, or pass --allow-different to compare anyway.\n")
                return .badInput
            }
            env.standardOutput.write(outcome.output)
            if !gate.writeJUnit(outcome.junit, command: "compare", environment: env) { return .runFailed }
            return gate.failOn && outcome.regressions > 0 ? .gateNotPassed : .ok
        } catch {
            env.standardError.write("prestage compare: cannot write the comparison: \(error)\n")
            return .runFailed
        }
    }

    /// The resolved scenario next to a result's summary.json (DIR/scenario.json); nil when absent or unreadable.
    static func loadScenario(_ path: String) -> CompareReport.Document? {
        var url = URL(fileURLWithPath: path)
        if url.lastPathComponent == "summary.json" { url.deleteLastPathComponent() }
        let file = url.appendingPathComponent("scenario.json")
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? Int ?? 0
        guard size <= summaryBytesMax, let data = FileManager.default.contents(atPath: file.path) else { return nil }
        return try? JSONDecoder().decode(CompareReport.Document.self, from: data)
    }

    /// Reads DIR/summary.json (or a summary.json path), with a message naming the path on failure.
    static func loadSummary(_ path: String) -> Result<RunSummary, CommandMessage> {
        var url = URL(fileURLWithPath: path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            if FileManager.default.fileExists(atPath: url.path + ".partial") {
                return .failure(CommandMessage("\(path): the run did not complete (\(path).partial holds an INCOMPLETE marker)"))
            }
            return .failure(CommandMessage("\(path): expected a result directory, found nothing"))
        }
        if isDirectory.boolValue {
            if FileManager.default.fileExists(atPath: url.appendingPathComponent(ResultsDirectory.incompleteMarkerName).path) {
                return .failure(CommandMessage("\(path): the run did not complete (it holds an INCOMPLETE marker)"))
            }
            url = url.appendingPathComponent("summary.json")
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int ?? 0
        guard size <= summaryBytesMax else {
            return .failure(CommandMessage("\(url.path): expected a summary.json of at most \(summaryBytesMax) bytes, found \(size) bytes"))
        }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            return .failure(CommandMessage("\(url.path): expected a prestage summary.json, found no readable file"))
        }
        do {
            let summary = try JSONDecoder().decode(RunSummary.self, from: data)
            guard summary.format == RunSummary.formatName else {
                return .failure(CommandMessage("\(url.path): format: expected \"\(RunSummary.formatName)\", found \"\(summary.format)\""))
            }
            return .success(summary)
        } catch {
            return .failure(CommandMessage("\(url.path): expected a prestage summary.json, found a file that does not decode (\(DecodingErrorText.describe(error)))"))
        }
    }
}
