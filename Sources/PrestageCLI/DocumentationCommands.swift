import Experiments
import Foundation

/// `prestage completion SHELL`: a completion script generated from the command table.
struct CompletionCommand: ParsableCommand {
    static let configuration = CommandSpec(
        "completion", summary: "print a shell completion script (bash, zsh or fish)", positionals: ["SHELL"], options: [],
        exitCodes: [ExitCodeDoc(.ok), ExitCodeDoc(.badInput, "an unknown shell")], positionalChoices: CommandLineDocs.Shell.allCases.map(\.rawValue))

    static let helpFooter = """

        examples:
          source <(prestage completion bash)
          prestage completion zsh > "${fpath[1]}/_prestage"
          prestage completion fish > ~/.config/fish/completions/prestage.fish
        """

    /// SHELL as given.
    let shellName: String

    init(parsed: ParsedCommand) { shellName = parsed.positionals[0] }

    func execute(environment env: CommandEnvironment) -> ExitCode {
        guard let shell = CommandLineDocs.Shell(rawValue: shellName) else {
            env.standardError.write("prestage completion: expected one of \(CommandLineDocs.Shell.allCases.map(\.rawValue).joined(separator: ", ")), found \"\(shellName)\"\n")
            return .badInput
        }
        env.standardOutput.write(CommandLineDocs.completionScript(PrestageCLI.spec, shell: shell))
        return .ok
    }
}

/// `prestage man`: the manual page generated from the command table and the help footers.
struct ManCommand: ParsableCommand {
    static let configuration = CommandSpec(
        "man", summary: "print the manual page (roff; view with `prestage man > prestage.1 && man -l prestage.1`)", options: [],
        exitCodes: [ExitCodeDoc(.ok), ExitCodeDoc(.badInput, "a bad command line")])

    static let helpFooter = ""

    init(parsed: ParsedCommand) {}

    func execute(environment env: CommandEnvironment) -> ExitCode {
        env.standardOutput.write(CommandLineDocs.manPage(PrestageCLI.spec, footer: PrestageCLI.helpFooter(for:)))
        return .ok
    }
}
