import Foundation
import ScenarioFormat
import PushModel

/// `prestage validate FILE...`.
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandSpec(
        "validate", summary: "check scenario files strictly and report every problem found",
        positionals: ["FILE..."], declaring: [ScenarioOptions.set.help("apply an override before checking"), ScenarioOptions.overlay],
        exitCodes: [ExitCodeDoc(.ok, "every file is valid"), ExitCodeDoc(.badInput, "a file has problems (all are listed), or a bad command line")])

    static let helpFooter = "\nEvery problem is reported as PATH: expected …, found … (unknown keys with a suggestion)."

    /// FILE...: paths or library names.
    let files: [String]
    /// `--set`, `--overlay`.
    let scenarioOptions: ScenarioOptions

    init(parsed: ParsedCommand) {
        files = parsed.positionals
        scenarioOptions = ScenarioOptions(parsed)
    }

    func execute(environment env: CommandEnvironment) -> ExitCode {
        let library = ScenarioLibrary(directories: env.scenarioDirectories)
        var bad = 0
        for file in files {
            do {
                let (url, scenario) = try ScenarioLoader.load(file, library: library, set: try scenarioOptions.assignments())
                env.standardOutput.write("\(url.path): ok (\(scenario.name): \(scenario.question))\n")
                for (i, bytes) in ((try? scenario.world.pushPayloadBytes()) ?? []).enumerated() {  // the load ran the same checks
                    guard let bytes else { continue }
                    let c = scenario.world.campaigns[i]
                    env.standardOutput.write("  campaigns[\(i)] \(c.name): \(c.payloadForm.rawValue) push of \(bytes) bytes "
                                             + "(APNs/FCM limit \(CampaignPayload.pushBytesMax))\n")
                }
                // The published push-provider limits the plan would exceed (warnings: still valid).
                for line in scenario.world.providerLimitWarnings() { env.standardOutput.write("  \(line)\n") }
                // The published CDN API limits (`infra.cdnApi`) its purges and warms would exceed or that bind.
                for line in scenario.world.cdnApiLimitWarnings() { env.standardOutput.write("  \(line)\n") }
            } catch {
                bad += 1
                let count = error.problemCount
                env.standardError.write(error.description + "\n")
                if count > 0 { env.standardError.write("\(file): \(count) problem\(count == 1 ? "" : "s")\n") }
            }
        }
        if bad > 0 {
            env.standardError.write("prestage validate: \(bad) of \(files.count) file\(files.count == 1 ? "" : "s") invalid\n")
            return .badInput
        }
        return .ok
    }
}
