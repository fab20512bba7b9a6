import Experiments
import Foundation
import ScenarioFormat

/// `prestage bench-instructions` (hidden): the workload the speed gate counts. `prestage bench`
/// runs it under callgrind with collection only inside `BenchInstructions.countedRun`; by hand it
/// gives the instructions per event of any scenario and size:
///
///     valgrind --tool=callgrind --toggle-collect='$s11Experiments17BenchInstructionsO10countedRun*' \
///       .build/release/prestage bench-instructions --scenario black-friday-flash-sale --devices 50000
struct BenchInstructionsCommand: ParsableCommand {
    /// `--scenario SCENARIO` (repeatable).
    static let scenarioOption = Option.strings("scenario", valueName: "SCENARIO", help: "count these scenarios instead of the suite")
    /// `--extra-iterations N`.
    static let extraIterationsOption = Option.integer(
        "extra-iterations", 0...Int(Int32.max), valueName: "N",
        help: "test knob: extra work inside the counted region (about N × \(TextNumber.format(BenchInstructions.instructionsPerBurnIteration, significant: 3)) instructions)")

    /// The command's table entry (hidden from the command list).
    static let configuration = CommandSpec(
        "bench-instructions", summary: "the workload prestage bench counts instructions of (run it under callgrind)",
        declaring: [
            BenchSuiteOptions.suite,
            scenarioOption,
            ScenarioOptions.set.help("override a field of every scenario"),
            ScenarioOptions.devices.help("population of every scenario (default: the file's, at most \(BenchInstructions.devicesMax))"),
            extraIterationsOption,
        ], hidden: true, exitCodes: [ExitCodeDoc(.ok), ExitCodeDoc(.runFailed, "a suite scenario failed to run"), ExitCodeDoc(.badInput)])

    /// `--suite`, `--set`, `--devices`.
    let suite: BenchSuiteOptions
    /// `--scenario`.
    let scenarios: [String]
    /// `--extra-iterations`.
    let extraIterations: Int?

    init(parsed: ParsedCommand) {
        suite = BenchSuiteOptions(parsed)
        scenarios = parsed[Self.scenarioOption]
        extraIterations = parsed[Self.extraIterationsOption]
    }

    /// Loads the scenarios, runs `countedRun` once, prints `events N`.
    func execute(environment env: CommandEnvironment) -> ExitCode {
        let paths: [String]
        if scenarios.isEmpty {
            let suiteURL = suite.url(environment: env)
            guard let files = try? FileManager.default.contentsOfDirectory(atPath: suiteURL.path) else {
                env.standardError.write("prestage bench-instructions: \(suiteURL.path): expected a suite directory of scenario files, found none\n")
                return .badInput
            }
            paths = files.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.sorted().map { suiteURL.appendingPathComponent($0).path }
        } else {
            paths = scenarios
        }
        let library = ScenarioLibrary(directories: env.scenarioDirectories)
        var scenarios: [ScenarioFile] = []
        do {
            for path in paths {
                var s = try ScenarioLoader.load(path, library: library, set: suite.sets, flags: .init(devices: suite.devices)).scenario
                if suite.devices == nil, s.world.population.devices > BenchInstructions.devicesMax {
                    s = try ScenarioLoader.load(path, library: library, set: suite.sets, flags: .init(devices: BenchInstructions.devicesMax)).scenario
                }
                scenarios.append(s)
            }
        } catch {
            env.standardError.write(error.description + "\n")
            return .badInput
        }
        do {
            let events = try BenchInstructions.countedRun(scenarios, extraIterations: extraIterations ?? 0)
            env.standardOutput.write("events \(events)\n")
            return .ok
        } catch {
            env.standardError.write("prestage bench-instructions: \(error)\n")
            return .runFailed
        }
    }
}
