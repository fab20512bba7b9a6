import Experiments
import Foundation
import ScenarioFormat

/// `prestage compare A B`.
enum CompareCommand {
    /// Largest summary.json read (10 000 replications × ~100 metrics fit easily).
    static let summaryBytesMax = 256 << 20

    static func execute(_ parsed: ParsedCommand, environment env: CommandEnvironment) -> ExitCode {
        var summaries: [RunSummary] = []
        var failed = false
        for path in parsed.positionals {
            switch loadSummary(path) {
            case let .success(s): summaries.append(s)
            case let .failure(message):
                env.standardError.write("prestage compare: \(message)\n")
                failed = true
            }
        }
        guard !failed, summaries.count == 2 else { return .badInput }
        let format: CompareReport.Format
        if let text = parsed.string("format") {
            guard let f = CompareReport.Format(rawValue: text) else {
                env.standardError.write("prestage compare: --format: expected one of \(CompareReport.Format.allCases.map(\.rawValue).joined(separator: ", ")), found \"\(text)\"\n")
                return .badInput
            }
            format = f
        } else {
            format = .text
        }
        var metrics: [String]?
        if parsed.string("metrics") != nil {
            switch SweepCommand.chosenMetrics(parsed) {
            case let .success(m): metrics = m
            case let .failure(message):
                env.standardError.write("prestage compare: \(message)\n")
                return .badInput
            }
        }
        do {
            let outcome = try CompareReport.run(
                baseline: summaries[0], variant: summaries[1],
                baselineScenario: loadScenario(parsed.positionals[0]), variantScenario: loadScenario(parsed.positionals[1]),
                baselineLabel: parsed.positionals[0], variantLabel: parsed.positionals[1], metrics: metrics,
                significantOnly: parsed.flag("significant-only"), format: format, allowDifferent: parsed.flag("allow-different"))
            if !outcome.refusals.isEmpty {
                env.standardError.write("prestage compare: the runs are not comparable:\n" + outcome.refusals.map { "  - " + $0 + "\n" }.joined()
                                        + "Compare runs of the same population, horizon and replication plan, or pass --allow-different to compare anyway.\n")
                return .badInput
            }
            env.standardOutput.write(outcome.output)
            return parsed.flag("fail-on-regression") && outcome.regressions > 0 ? .gateNotPassed : .ok
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
