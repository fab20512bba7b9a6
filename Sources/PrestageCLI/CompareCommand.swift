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
        env.standardOutput.write(RunComparison.render(baseline: summaries[0], variant: summaries[1],
                                                      baselineLabel: parsed.positionals[0], variantLabel: parsed.positionals[1]))
        return .ok
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
