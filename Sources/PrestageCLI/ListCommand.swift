import Foundation
import ScenarioFormat

/// `prestage list`.
struct ListCommand: ParsableCommand {
    static let configuration = CommandSpec("list", summary: "list the scenario library with each scenario's question", options: [],
                                           exitCodes: [ExitCodeDoc(.ok), ExitCodeDoc(.badInput, "a bad command line")])

    static let helpFooter = ""

    init(parsed: ParsedCommand) {}

    func execute(environment env: CommandEnvironment) -> ExitCode {
        let library = ScenarioLibrary(directories: env.scenarioDirectories)
        let entries = library.entries()
        guard !entries.isEmpty else {
            env.standardError.write("prestage list: no scenario files found in \(env.scenarioDirectories.map(\.path).joined(separator: ", "))\n")
            return .badInput
        }
        let width = entries.map(\.name.count).max() ?? 0
        var text = ""
        for e in entries {
            text += e.name + String(repeating: " ", count: width - e.name.count + 2) + e.question + "\n"
        }
        env.standardOutput.write(text)
        return .ok
    }
}
