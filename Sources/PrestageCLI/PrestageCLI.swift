import Experiments
import Foundation
import ScenarioFormat

/// What a command needs from the outside world; tests substitute buffers, directories and a fixed
/// amount of available memory.
public struct CommandEnvironment: Sendable {
    /// Results, listings, reports.
    var standardOutput: any TextOutput
    /// Errors and progress.
    var standardError: any TextOutput
    /// Whether standard error is a terminal (live progress line) or not (one line per replication).
    var errorIsTerminal: Bool
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
    public static func process(executablePath: String) -> CommandEnvironment {
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
        return CommandEnvironment(
            standardOutput: FileDescriptorOutput(descriptor: 1), standardError: err, errorIsTerminal: err.isTerminal,
            scenarioDirectories: directories, resultsParent: cwd.appendingPathComponent("results", isDirectory: true),
            availableMemory: { AvailableMemory.probe() }, processorCount: max(1, ProcessInfo.processInfo.activeProcessorCount),
            handlesInterrupts: true)
    }
}

/// The `prestage` command line: a table of commands parsed by `CommandLineSpec`.
public enum PrestageCLI {
    /// Most threads for replications.
    static let jobsMax = 512

    /// The command table.
    static let spec = CommandLineSpec(programName: "prestage", version: ToolVersion.number, commands: [
        CommandSpec("run", summary: "run a scenario's replications and write summary, time series, histograms and reports",
                    positionals: ["SCENARIO"], options: [
                        OptionSpec("out", .string, valueName: "DIR", help: "results directory (default: results/NAME-seedS)"),
                        OptionSpec("replications", .integer(1...ScenarioLimits.replicationsMax), valueName: "N", help: "number of independent replications"),
                        OptionSpec("seed", .unsignedInteger, valueName: "S", help: "master seed (replication r uses streams derived from S and r)"),
                        OptionSpec("set", .string, valueName: "PATH=VALUE", repeatable: true,
                                   help: "override a scenario field, e.g. campaigns[0].warm.aheadSeconds=300"),
                        OptionSpec("overlay", .string, valueName: "FILE", help: "apply a `prestage fit` overlay before the --set overrides"),
                        OptionSpec("devices", .integer(1...ScenarioLimits.devicesMax), valueName: "N", help: "population size (overrides the file)"),
                        OptionSpec("jobs", .integer(1...jobsMax), valueName: "N", help: "replications run at once (default: all cores)"),
                        OptionSpec("force-memory", .flag, help: "run even if the memory estimate exceeds the available memory"),
                        OptionSpec("fail-on-slo", .flag, help: "exit 3 when a service-level objective (slo) fails or is undecided"),
                    ]),
        CommandSpec("validate", summary: "check scenario files strictly and report every problem found",
                    positionals: ["FILE..."], options: [
                        OptionSpec("set", .string, valueName: "PATH=VALUE", repeatable: true, help: "apply an override before checking"),
                        OptionSpec("overlay", .string, valueName: "FILE", help: "apply a `prestage fit` overlay before the --set overrides"),
                    ]),
        CommandSpec("compare", summary: "compare two result directories metric by metric (B − A with CIs and a verdict)",
                    positionals: ["A", "B"], options: []),
        CommandSpec("list", summary: "list the scenario library with each scenario's question", options: []),
        CommandSpec("sweep", summary: "run a grid of scenario variants × replications (resumable; --shard i/N for clusters)",
                    positionals: ["FILE"], options: [
                        OptionSpec("out", .string, valueName: "DIR", help: "results directory (default: results/FILE-NAME)"),
                        OptionSpec("jobs", .integer(1...jobsMax), valueName: "N", help: "work items run at once (default: all cores)"),
                        OptionSpec("shard", .string, valueName: "i/N", help: "run only the work items k with k mod N = i (then prestage merge)"),
                        OptionSpec("force-memory", .flag, help: "run even if the memory estimate exceeds the available memory"),
                    ]),
        CommandSpec("merge", summary: "combine the shard directories of one sweep into its complete results",
                    positionals: ["DIR..."], options: [
                        OptionSpec("out", .string, valueName: "DIR", help: "where the merged results go (required)"),
                    ]),
        BenchCommand.spec,
        TestbedCommand.spec,
        FitCommand.spec,
        BenchInstructionsCommand.spec,
        PlanCommand.spec,
    ])

    /// Extra help after `CommandLineSpec`'s generated text, per command (nil: the program).
    static func helpFooter(for command: String?) -> String {
        let exitCodes = """
        exit codes:
          0    ok
          1    the run failed (simulation error, results could not be written)
          2    bad input (command line, scenario file, override, result directory, memory guard)
          3    run --fail-on-slo / plan --fail-on-slo: an objective failed or is undecided
          130  interrupted (Ctrl-C); the results stay in NAME.partial/ with an INCOMPLETE marker
        """
        switch command {
        case "run":
            return """

            SCENARIO is a path to a JSON file or a bare name from scenarios/ (see `prestage list`).
            Results go to DIR (default results/NAME-seedS): summary.json, run-info.json,
            timeseries.csv, histograms.csv, report.md and report.html. While running, the
            directory is DIR.partial with an INCOMPLETE marker; it is renamed when complete.

            examples:
              prestage run default
              prestage run black-friday-flash-sale --devices 100000 --replications 5
              prestage run warm-ahead-sweep --set campaigns[0].warm.aheadSeconds=120 --out results/warm-2min

            \(exitCodes)
            """
        case "validate":
            return """

            Every problem is reported as PATH: expected …, found … (unknown keys with a suggestion).

            \(exitCodes)
            """
        case "compare":
            return """

            A and B are result directories written by `prestage run` (each holding summary.json).
            With the same seed and replication count the runs used common random numbers, and the
            difference is a paired t interval; otherwise Welch's interval.

            \(exitCodes)
            """
        case "sweep":
            return SweepHelp.sweep + "\n\(exitCodes)"
        case "merge":
            return SweepHelp.merge + "\n\(exitCodes)"
        case "list":
            return "\n\(exitCodes)"
        case "bench":
            return BenchCommand.helpFooter
        case "testbed":
            return TestbedCommand.helpFooter
        case "fit":
            return FitCommand.helpFooter
        case "plan":
            return PlanCommand.helpFooter
        default:
            return "\n\(exitCodes)\n\nScenario format: docs/scenario-format.md. Run `prestage COMMAND --help` for a command's options."
        }
    }

    /// Runs the command line `arguments` (without the program name).
    public static func main(_ arguments: [String], environment env: CommandEnvironment) -> ExitCode {
        let (forParser, extraPositionals) = splitVariadic(arguments)
        switch spec.parse(forParser) {
        case let .failure(error):
            env.standardError.write("prestage: \(error)\n")
            return .badInput
        case .success(.version):
            env.standardOutput.write(ToolVersion.text + "\n")
            return .ok
        case let .success(.help(command)):
            env.standardOutput.write(spec.helpText(for: command) + "\n" + helpFooter(for: command) + "\n")
            return .ok
        case let .success(.run(parsed)):
            switch parsed.command {
            case "run": return RunCommand.execute(parsed, environment: env)
            case "validate": return ValidateCommand.execute(files: parsed.positionals + extraPositionals, parsed: parsed, environment: env)
            case "compare": return CompareCommand.execute(parsed, environment: env)
            case "list": return ListCommand.execute(environment: env)
            case "sweep": return SweepCommand.execute(parsed, environment: env)
            case "merge": return MergeCommand.execute(directories: parsed.positionals + extraPositionals, parsed: parsed, environment: env)
            case "bench": return BenchCommand.execute(parsed, environment: env)
            case "testbed": return TestbedCommand.execute(parsed, environment: env)
            case "fit": return FitCommand.execute(logs: parsed.positionals + extraPositionals, parsed: parsed, environment: env)
            case "bench-instructions": return BenchInstructionsCommand.execute(parsed, environment: env)
            case "plan": return PlanCommand.execute(parsed, environment: env)
            default:
                env.standardError.write("prestage: unknown command \(parsed.command)\n")
                return .badInput
            }
        }
    }

    /// For the variadic `validate FILE...`, `merge DIR...` and `fit LOG...`: keeps the first positional for the parser (which takes
    /// exactly one) and returns the rest, skipping option values (`--set X`).
    static func splitVariadic(_ arguments: [String]) -> (parser: [String], extra: [String]) {
        guard let name = arguments.first, name == "validate" || name == "merge" || name == "fit",
              let command = spec.commands.first(where: { $0.name == name }) else { return (arguments, []) }
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
