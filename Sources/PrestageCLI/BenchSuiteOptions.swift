import Experiments
import Foundation

/// `--suite DIR` with the `--set` and `--devices` applied to every suite scenario: what `bench`
/// and the `bench-instructions` workload it counts share.
struct BenchSuiteOptions: Equatable {
    /// `--suite DIR`.
    static let suite = Option.string("suite", valueName: "DIR", help: "suite scenarios (default: scenarios/bench)")

    /// `--suite` as given.
    var directory: String?
    /// `--set` assignments for every scenario.
    var sets: [String]
    /// `--devices` for every scenario.
    var devices: Int?

    /// Reads the group from a parsed command line.
    init(_ parsed: ParsedCommand) {
        directory = parsed[Self.suite]
        sets = parsed[ScenarioOptions.set]
        devices = parsed[ScenarioOptions.devices]
    }

    /// `--suite`, else the first scenario directory's `bench/` that exists.
    func url(environment env: CommandEnvironment) -> URL {
        if let directory { return URL(fileURLWithPath: directory, isDirectory: true) }
        let candidates = env.scenarioDirectories.map { $0.appendingPathComponent(BenchSuite.suiteSubdirectory, isDirectory: true) }
        return candidates.first { FileManager.default.fileExists(atPath: $0.path) } ?? candidates.first
            ?? URL(fileURLWithPath: "scenarios/bench", isDirectory: true)
    }

    /// The `bench-instructions` arguments that count the same suite with the same overrides.
    func childArguments(suite: URL) -> [String] {
        ["--suite", suite.path] + sets.flatMap { ["--set", $0] } + (devices.map { ["--devices", "\($0)"] } ?? [])
    }
}
