import Experiments
import Foundation
import ScenarioFormat

/// `prestage bench-instructions` (hidden): the workload the speed gate counts. `prestage bench`
/// runs it under callgrind with collection only inside `BenchInstructions.countedRun`; by hand it
/// gives the instructions per event of any scenario and size:
///
///     valgrind --tool=callgrind --toggle-collect='$s11Experiments17BenchInstructionsO10countedRun*' \
///       .build/release/prestage bench-instructions --scenario black-friday-flash-sale --devices 50000
enum BenchInstructionsCommand {
    /// The command's table entry (hidden from the command list).
    static let spec = CommandSpec(
        "bench-instructions", summary: "the workload prestage bench counts instructions of (run it under callgrind)",
        options: [
            OptionSpec("suite", .string, valueName: "DIR", help: "suite scenarios (default: scenarios/bench)"),
            OptionSpec("scenario", .string, valueName: "SCENARIO", repeatable: true, help: "count these scenarios instead of the suite"),
            OptionSpec("set", .string, valueName: "PATH=VALUE", repeatable: true, help: "override a field of every scenario"),
            OptionSpec("devices", .integer(1...ScenarioLimits.devicesMax), valueName: "N",
                       help: "population of every scenario (default: the file's, at most \(BenchInstructions.devicesMax))"),
            OptionSpec("extra-iterations", .integer(0...Int(Int32.max)), valueName: "N",
                       help: "test knob: extra work inside the counted region (about N × \(TextNumber.format(BenchInstructions.instructionsPerBurnIteration, significant: 3)) instructions)"),
        ], hidden: true, exitCodes: [ExitCodeDoc(.ok), ExitCodeDoc(.runFailed, "a suite scenario failed to run"), ExitCodeDoc(.badInput)])

    /// Loads the scenarios, runs `countedRun` once, prints `events N`.
    static func execute(_ parsed: ParsedCommand, environment env: CommandEnvironment) -> ExitCode {
        let paths: [String]
        if parsed.strings("scenario").isEmpty {
            let suite = BenchCommand.suiteURL(parsed, environment: env)
            guard let files = try? FileManager.default.contentsOfDirectory(atPath: suite.path) else {
                env.standardError.write("prestage bench-instructions: \(suite.path): expected a suite directory of scenario files, found none\n")
                return .badInput
            }
            paths = files.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.sorted().map { suite.appendingPathComponent($0).path }
        } else {
            paths = parsed.strings("scenario")
        }
        let library = ScenarioLibrary(directories: env.scenarioDirectories)
        var scenarios: [ScenarioFile] = []
        do {
            for path in paths {
                var s = try ScenarioLoader.load(path, library: library, set: parsed.strings("set"), flags: .init(devices: parsed.integer("devices"))).scenario
                if parsed.integer("devices") == nil, s.world.population.devices > BenchInstructions.devicesMax {
                    s = try ScenarioLoader.load(path, library: library, set: parsed.strings("set"), flags: .init(devices: BenchInstructions.devicesMax)).scenario
                }
                scenarios.append(s)
            }
        } catch {
            env.standardError.write(error.description + "\n")
            return .badInput
        }
        do {
            let events = try BenchInstructions.countedRun(scenarios, extraIterations: parsed.integer("extra-iterations") ?? 0)
            env.standardOutput.write("events \(events)\n")
            return .ok
        } catch {
            env.standardError.write("prestage bench-instructions: \(error)\n")
            return .runFailed
        }
    }
}
