import Experiments
import Foundation
import ScenarioFormat

/// What a command needs from the outside world; tests substitute buffers, directories and a fixed
/// amount of available memory.
package struct CommandEnvironment: Sendable {
    /// Results, listings, reports.
    var standardOutput: any TextOutput
    /// Errors and progress.
    var standardError: any TextOutput
    /// Whether standard error is a terminal (live progress line) or not (one line per replication).
    var errorIsTerminal: Bool
    /// The width of the terminal on standard error, asked at each redraw of the live line (nil:
    /// unknown, 80 assumed).
    var errorColumns: @Sendable () -> Int? = { nil }
    /// Where a bare scenario name is looked up and what `list` lists, in order.
    var scenarioDirectories: [URL]
    /// Parent of result directories when `--out` is not given.
    var resultsParent: URL
    /// The memory available for a run (called only by `run`).
    var availableMemory: @Sendable () -> AvailableMemory
    /// Threads for replications when `--jobs` is not given.
    var processorCount: Int
    /// Whether `run` installs a SIGINT handler (the real process: yes; tests: no).
    var handlesInterrupts: Bool
    /// The command line being run, recorded as the owner of a results directory.
    var commandLine = "prestage"

    /// An environment; see the properties.
    init(standardOutput: any TextOutput, standardError: any TextOutput, errorIsTerminal: Bool,
         scenarioDirectories: [URL], resultsParent: URL, availableMemory: @escaping @Sendable () -> AvailableMemory,
         processorCount: Int, handlesInterrupts: Bool) {
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.errorIsTerminal = errorIsTerminal
        self.scenarioDirectories = scenarioDirectories
        self.resultsParent = resultsParent
        self.availableMemory = availableMemory
        self.processorCount = processorCount
        self.handlesInterrupts = handlesInterrupts
    }

    /// The real process: stdout/stderr, `./scenarios` (then the `scenarios/` of the package the
    /// executable was built in), `./results`, /proc/meminfo, all cores.
    /// SIGPIPE is ignored: a closed pipe on standard output or error (`prestage run … | head`)
    /// makes writes fail quietly instead of killing the run.
    package static func process(executablePath: String) -> CommandEnvironment {
        signal(SIGPIPE, SIG_IGN)
        let err = FileDescriptorOutput(descriptor: 2)
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
        var directories = [cwd.appendingPathComponent("scenarios", isDirectory: true)]
        // A build directory lies inside the package (.build/<triple>/<config>/prestage): the
        // nearest ancestor holding Package.swift and scenarios/ is the package.
        var ancestor = URL(fileURLWithPath: executablePath).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<6 {
            let candidate = ancestor.appendingPathComponent("scenarios", isDirectory: true)
            if FileManager.default.fileExists(atPath: ancestor.appendingPathComponent("Package.swift").path),
               FileManager.default.fileExists(atPath: candidate.path) {
                if candidate.standardizedFileURL.path != directories[0].standardizedFileURL.path { directories.append(candidate) }
                break
            }
            ancestor = ancestor.deletingLastPathComponent()
        }
        var environment = CommandEnvironment(
            standardOutput: FileDescriptorOutput(descriptor: 1), standardError: err, errorIsTerminal: err.isTerminal,
            scenarioDirectories: directories, resultsParent: cwd.appendingPathComponent("results", isDirectory: true),
            availableMemory: { AvailableMemory.probe() }, processorCount: max(1, ProcessInfo.processInfo.activeProcessorCount),
            handlesInterrupts: true)
        environment.errorColumns = { err.columns }
        return environment
    }

    /// The owner record of a results directory this command writes.
    func owner() -> OutputOwner { OutputOwner.current(command: commandLine) }
}

/// The `prestage` command line: a list of command types, whose declarations make the table
/// `CommandLineSpec` parses (and help, completion scripts and the man page are generated from).
package enum PrestageCLI {
    /// Most threads for replications.
    static let jobsMax = OutputOptions.jobsMax

    /// Every command, in the order of the command list: what a user does first (find a scenario,
    /// run it, check a file, compare two runs, answer the capacity question), then many runs at
    /// once, calibration, CI, and the tools.
    static let commands: [any ParsableCommand.Type] = [
        ListCommand.self, RunCommand.self, ValidateCommand.self, CompareCommand.self, PlanCommand.self, SensitivityCommand.self, SweepCommand.self, MergeCommand.self,
        FitCommand.self, BenchCommand.self, TestbedCommand.self, SwarmCommand.self, SchemaCommand.self, CompletionCommand.self,
        ManCommand.self, BenchInstructionsCommand.self,
    ]

    /// The command table.
    static let spec = CommandLineSpec(programName: "prestage", version: ToolVersion.number, commands: commands.map { $0.configuration })

    /// The program's help footer, and the one of commands without their own: where the documentation is.
    static let documentationFooter = "\nScenario format: docs/scenario-format.md. Commands, reports and exit codes: docs/cli.md, `prestage man`."

    /// Exit codes of the commands that run simulations.
    static let runExitCodes = [ExitCodeDoc(.ok), ExitCodeDoc(.runFailed), ExitCodeDoc(.badInput), ExitCodeDoc(.interrupted), ExitCodeDoc(.quit), ExitCodeDoc(.terminated)]

    /// "prestage 0.1.0 (source 3f2a9c01b7de)"; the revision is left out when unknown.
    static var versionText: String { ToolVersion.text + (SourceRevision.current.map { " (source " + $0 + ")" } ?? "") }

    /// The command type named `name`.
    static func command(named name: String) -> (any ParsableCommand.Type)? {
        commands.first { $0.configuration.name == name }
    }

    /// Extra help after `CommandLineSpec`'s generated text, per command (nil: the program).
    static func helpFooter(for command: String?) -> String {
        guard let type = command.flatMap(Self.command(named:)) else { return documentationFooter }
        return type.helpFooter
    }

    /// Runs the command line `arguments` (without the program name).
    package static func main(_ arguments: [String], environment: CommandEnvironment) -> ExitCode {
        var env = environment
        env.commandLine = (["prestage"] + arguments).joined(separator: " ")
        let (forParser, extraPositionals) = splitVariadic(arguments)
        switch spec.parse(forParser) {
        case let .failure(error):
            // Bare `prestage`: the usage, not just a one-line error.
            if case .missingCommand = error { env.standardError.write(spec.helpText(for: nil) + "\n") }
            env.standardError.write("prestage: \(error)\n")
            return .badInput
        case .success(.version):
            env.standardOutput.write(versionText + "\n")
            return .ok
        case let .success(.help(command)):
            let footer = helpFooter(for: command)
            env.standardOutput.write(spec.helpText(for: command) + "\n" + (footer.isEmpty ? "" : footer + "\n"))
            return .ok
        case let .success(.run(parsed)):
            guard let type = command(named: parsed.command) else {
                env.standardError.write("prestage: unknown command \(parsed.command)\n")
                return .badInput
            }
            let all = ParsedCommand(command: parsed.command, positionals: parsed.positionals + extraPositionals, values: parsed.values)
            return type.init(parsed: all).execute(environment: env)
        }
    }

    /// For variadic commands (`validate FILE...`, `merge DIR...`, `fit LOG...`): keeps the first positional for the parser (which takes
    /// exactly one) and returns the rest, skipping option values (`--set X`).
    static func splitVariadic(_ arguments: [String]) -> (parser: [String], extra: [String]) {
        guard let name = arguments.first, let command = spec.commands.first(where: { $0.name == name }), command.isVariadic else {
            return (arguments, [])
        }
        var kept = [name], extra: [String] = []
        var seenPositional = false, optionsEnded = false
        var i = 1
        while i < arguments.count {
            let arg = arguments[i]
            i += 1
            if optionsEnded || !arg.hasPrefix("-") || arg == "-" {
                if seenPositional { extra.append(arg) } else { kept.append(arg); seenPositional = true }
                continue
            }
            if arg == "--" { optionsEnded = true; kept.append(arg); continue }
            kept.append(arg)
            let name = String(arg.drop(while: { $0 == "-" }))
            if !name.contains("="), let option = command.options.first(where: { $0.name == name }), option.kind != .flag, i < arguments.count {
                kept.append(arguments[i])
                i += 1
            }
        }
        return (kept, extra)
    }
}
