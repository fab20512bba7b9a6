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
    public static func process(executablePath: String) -> CommandEnvironment {
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
        return CommandEnvironment(
            standardOutput: FileDescriptorOutput(descriptor: 1), standardError: err, errorIsTerminal: err.isTerminal,
            scenarioDirectories: directories, resultsParent: cwd.appendingPathComponent("results", isDirectory: true),
            availableMemory: { AvailableMemory.probe() }, processorCount: max(1, ProcessInfo.processInfo.activeProcessorCount),
            handlesInterrupts: true)
    }

    /// The owner record of a results directory this command writes.
    func owner() -> OutputOwner { OutputOwner.current(command: commandLine) }
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
                    ], exitCodes: runExitCodes + [ExitCodeDoc(.gateNotPassed, "--fail-on-slo: an objective failed or is undecided (the results are written)")]),
        CommandSpec("validate", summary: "check scenario files strictly and report every problem found",
                    positionals: ["FILE..."], options: [
                        OptionSpec("set", .string, valueName: "PATH=VALUE", repeatable: true, help: "apply an override before checking"),
                        OptionSpec("overlay", .string, valueName: "FILE", help: "apply a `prestage fit` overlay before the --set overrides"),
                    ], exitCodes: [ExitCodeDoc(.ok, "every file is valid"), ExitCodeDoc(.badInput, "a file has problems (all are listed), or a bad command line")]),
        CommandSpec("compare", summary: "compare two result directories metric by metric (B − A with CIs and a verdict)",
                    positionals: ["A", "B"], options: [
                        OptionSpec("metrics", .string, valueName: "NAME,...", help: "only these metrics (names as in summary.json)"),
                        OptionSpec("significant-only", .flag, help: "only metrics whose difference interval excludes zero"),
                        OptionSpec("format", .string, valueName: "FORMAT", help: "text (default), md, csv (plain numbers) or json"),
                        OptionSpec("fail-on-regression", .flag, help: "exit 3 when a shown metric regressed significantly"),
                        OptionSpec("allow-different", .flag, help: "compare runs of different populations, horizons or replication plans anyway"),
                    ], exitCodes: [ExitCodeDoc(.ok, "compared (also with regressions, unless --fail-on-regression)"),
                                   ExitCodeDoc(.runFailed, "the comparison could not be written"),
                                   ExitCodeDoc(.badInput, "a directory without a complete run, a bad option, or runs that are not comparable"),
                                   ExitCodeDoc(.gateNotPassed, "a shown metric regressed significantly (--fail-on-regression)")]),
        CommandSpec("list", summary: "list the scenario library with each scenario's question", options: [],
                    exitCodes: [ExitCodeDoc(.ok), ExitCodeDoc(.badInput, "a bad command line")]),
        CommandSpec("sweep", summary: "run a grid of scenario variants × replications (resumable; --shard i/N for clusters)",
                    positionals: ["FILE"], options: [
                        OptionSpec("out", .string, valueName: "DIR", help: "results directory (default: results/FILE-NAME)"),
                        OptionSpec("jobs", .integer(1...jobsMax), valueName: "N", help: "work items run at once (default: all cores)"),
                        OptionSpec("shard", .string, valueName: "i/N", help: "run only the work items k with k mod N = i (then prestage merge)"),
                        OptionSpec("metrics", .string, valueName: "NAME,...", help: "metrics in the report and the table printed (default: \(SweepReportBuilder.defaultMetrics.joined(separator: ",")))"),
                        OptionSpec("force-memory", .flag, help: "run even if the memory estimate exceeds the available memory"),
                    ], exitCodes: runExitCodes),
        CommandSpec("merge", summary: "combine the shard directories of one sweep into its complete results",
                    positionals: ["DIR..."], options: [
                        OptionSpec("out", .string, valueName: "DIR", help: "where the merged results go (required)"),
                        OptionSpec("metrics", .string, valueName: "NAME,...", help: "metrics in the report and the table printed (default: \(SweepReportBuilder.defaultMetrics.joined(separator: ",")))"),
                    ], exitCodes: [ExitCodeDoc(.ok), ExitCodeDoc(.runFailed, "the merged results could not be written"),
                                   ExitCodeDoc(.badInput, "a missing, incomplete, foreign or duplicate shard, or a bad option")]),
        BenchCommand.spec,
        TestbedCommand.spec,
        FitCommand.spec,
        BenchInstructionsCommand.spec,
        CommandSpec("completion", summary: "print a shell completion script (bash, zsh or fish)", positionals: ["SHELL"], options: [],
                    exitCodes: [ExitCodeDoc(.ok), ExitCodeDoc(.badInput, "an unknown shell")], positionalChoices: CommandLineDocs.Shell.allCases.map(\.rawValue)),
        CommandSpec("man", summary: "print the manual page (roff; view with `prestage man > prestage.1 && man -l prestage.1`)", options: [],
                    exitCodes: [ExitCodeDoc(.ok), ExitCodeDoc(.badInput, "a bad command line")]),
        PlanCommand.spec,
        SchemaCommand.spec,
        SwarmCommand.spec,
    ])

    /// Exit codes of the commands that run simulations.
    static let runExitCodes = [ExitCodeDoc(.ok), ExitCodeDoc(.runFailed), ExitCodeDoc(.badInput), ExitCodeDoc(.interrupted), ExitCodeDoc(.terminated)]

    /// "prestage 0.1.0 (source 3f2a9c01b7de)"; the revision is left out when unknown.
    static var versionText: String { ToolVersion.text + (SourceRevision.current.map { " (source " + $0 + ")" } ?? "") }

    /// Extra help after `CommandLineSpec`'s generated text, per command (nil: the program).
    static func helpFooter(for command: String?) -> String {
        switch command {
        case "run":
            return """

            SCENARIO is a path to a JSON file or a bare name from scenarios/ (see `prestage list`).
            Results go to DIR (default results/NAME-seedS): summary.json, run-info.json,
            timeseries.csv, tap-to-paint-windows.csv, histograms.csv, pops.csv,
            region-misses.csv, report.md and report.html. While running, the directory is
            DIR.partial with an INCOMPLETE marker; it is renamed when complete.

            examples:
              prestage run default
              prestage run black-friday-flash-sale --devices 100000 --replications 5
              prestage run warm-ahead-sweep --set campaigns[0].warm.aheadSeconds=120 --out results/warm-2min
            """
        case "validate":
            return "\nEvery problem is reported as PATH: expected …, found … (unknown keys with a suggestion)."
        case "compare":
            return """

            A and B are result directories written by `prestage run` (each holding summary.json).
            With the same seed and replication count the runs used common random numbers, and the
            difference is a paired t interval; otherwise Welch's interval. The settings that differ
            between the two resolved scenarios are listed first. Runs of different populations or
            horizons (counts and bytes scale with them), or with one seed and different replication
            counts, are refused unless --allow-different. Rows: regressions, improvements, other
            significant differences, then the rest; Change is (B − A) / |A|.

            examples:
              prestage compare results/default-seed1 results/warm-2min
              prestage compare A B --significant-only --format md
              prestage compare A B --metrics tapToPaint.p95Seconds,bytes.cdnEgress --fail-on-regression
            """
        case "sweep":
            return SweepHelp.sweep
        case "merge":
            return SweepHelp.merge
        case "bench":
            return BenchCommand.helpFooter
        case "completion":
            return """

            examples:
              source <(prestage completion bash)
              prestage completion zsh > "${fpath[1]}/_prestage"
              prestage completion fish > ~/.config/fish/completions/prestage.fish
            """
        case "list", "man":
            return ""
        case "testbed":
            return TestbedCommand.helpFooter
        case "fit":
            return FitCommand.helpFooter
        case "plan":
            return PlanCommand.helpFooter
        case "schema":
            return SchemaCommand.helpFooter
        case "swarm":
            return SwarmCommand.helpFooter
        default:
            return "\nScenario format: docs/scenario-format.md. Commands, reports and exit codes: docs/cli.md, `prestage man`."
        }
    }

    /// Runs the command line `arguments` (without the program name).
    public static func main(_ arguments: [String], environment: CommandEnvironment) -> ExitCode {
        var env = environment
        env.commandLine = (["prestage"] + arguments).joined(separator: " ")
        let (forParser, extraPositionals) = splitVariadic(arguments)
        switch spec.parse(forParser) {
        case let .failure(error):
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
            switch parsed.command {
            case "run": return RunCommand.execute(parsed, environment: env)
            case "validate": return ValidateCommand.execute(files: parsed.positionals + extraPositionals, parsed: parsed, environment: env)
            case "compare": return CompareCommand.execute(parsed, environment: env)
            case "list": return ListCommand.execute(environment: env)
            case "sweep": return SweepCommand.execute(parsed, environment: env)
            case "merge": return MergeCommand.execute(directories: parsed.positionals + extraPositionals, parsed: parsed, environment: env)
            case "bench": return BenchCommand.execute(parsed, environment: env)
            case "completion":
                guard let shell = CommandLineDocs.Shell(rawValue: parsed.positionals[0]) else {
                    env.standardError.write("prestage completion: expected one of \(CommandLineDocs.Shell.allCases.map(\.rawValue).joined(separator: ", ")), found \"\(parsed.positionals[0])\"\n")
                    return .badInput
                }
                env.standardOutput.write(CommandLineDocs.completionScript(spec, shell: shell))
                return .ok
            case "man":
                env.standardOutput.write(CommandLineDocs.manPage(spec, footer: helpFooter(for:)))
                return .ok
            case "testbed": return TestbedCommand.execute(parsed, environment: env)
            case "fit": return FitCommand.execute(logs: parsed.positionals + extraPositionals, parsed: parsed, environment: env)
            case "bench-instructions": return BenchInstructionsCommand.execute(parsed, environment: env)
            case "plan": return PlanCommand.execute(parsed, environment: env)
            case "schema": return SchemaCommand.execute(parsed, environment: env)
            case "swarm": return SwarmCommand.execute(parsed, environment: env)
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
