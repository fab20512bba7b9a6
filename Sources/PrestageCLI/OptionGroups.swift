import Experiments
import Foundation
import LogFit
import ScenarioFormat

/// `--set`, `--overlay`, `--devices`, `--seed`, `--replications`: how a command changes the
/// scenario it loads. Each command declares the members it takes (with its own help wording where
/// it differs); members it does not declare read as absent.
struct ScenarioOptions: Equatable {
    /// `--set PATH=VALUE` (repeatable).
    static let set = Option.strings("set", valueName: "PATH=VALUE", help: "override a scenario field")
    /// `--overlay FILE`.
    static let overlay = Option.string("overlay", valueName: "FILE", help: "apply a `prestage fit` overlay before the --set overrides")
    /// `--devices N`.
    static let devices = Option.integer("devices", 1...ScenarioLimits.devicesMax, valueName: "N", help: "population size (overrides the file)")
    /// `--seed S`.
    static let seed = Option.unsignedInteger("seed", valueName: "S", help: "master seed")
    /// `--replications N`.
    static let replications = Option.integer("replications", 1...ScenarioLimits.replicationsMax, valueName: "N",
                                             help: "number of independent replications")

    /// The `--set` assignments, in command-line order.
    var sets: [String]
    /// The `--overlay` file.
    var overlay: String?
    /// `--devices`.
    var devices: Int?
    /// `--seed`.
    var seed: UInt64?
    /// `--replications`.
    var replications: Int?

    /// Reads the group from a parsed command line.
    init(_ parsed: ParsedCommand) {
        sets = parsed[Self.set]
        overlay = parsed[Self.overlay]
        devices = parsed[Self.devices]
        seed = parsed[Self.seed]
        replications = parsed[Self.replications]
    }

    /// `--devices`, `--seed` and `--replications` as the loader's flag overrides.
    /// The changes to the scenario file as typed, for reports: the flags, then each `--set`.
    func overridesText(includingReplications: Bool = true) -> [String] {
        var overrides: [String] = []
        if let devices { overrides.append("--devices \(devices)") }
        if let seed { overrides.append("--seed \(seed)") }
        if includingReplications, let replications { overrides.append("--replications \(replications)") }
        return overrides + sets.map { "--set " + $0 }
    }

    var flags: ScenarioLoader.FlagOverrides {
        ScenarioLoader.FlagOverrides(devices: devices, seed: seed, replications: replications)
    }

    /// The overlay's assignments, then the `--set`s (applied in order, so a `--set` of the same path wins).
    /// The overlay's text is checked as strictly as a scenario file's first (duplicate keys,
    /// trailing commas and the rest are refused with their line and column), so an overlay
    /// cannot say two things where the last would silently win.
    func assignments() throws(ScenarioLoadError) -> [String] {
        guard let overlay else { return sets }
        let data: Data
        do { data = try ScenarioOverlay.contents(of: overlay) } catch { throw ScenarioLoadError("--overlay \(error.description)") }
        do { _ = try JSONParser.parse(data) } catch { throw ScenarioLoadError("--overlay \(overlay): \(error.description)") }
        do { return try ScenarioOverlay.assignments(data: data, label: overlay) + sets } catch { throw ScenarioLoadError("--overlay \(error.description)") }
    }
}

/// `--out DIR` and `--jobs N`: where a command's results go and how many runs it does at once.
struct OutputOptions: Equatable {
    /// Most threads for replications.
    static let jobsMax = 512
    /// `--out DIR`.
    static let out = Option.string("out", valueName: "DIR", help: "results directory")
    /// `--jobs N`.
    static let jobs = Option.integer("jobs", 1...jobsMax, valueName: "N", help: "replications run at once (default: all cores)")

    /// `--out`.
    var out: String?
    /// `--jobs`.
    var jobs: Int?

    /// Reads the group from a parsed command line.
    init(_ parsed: ParsedCommand) {
        out = parsed[Self.out]
        jobs = parsed[Self.jobs]
    }

    /// The parent directory and name of the results: `--out` (standardised), else `defaultName` in `resultsParent`.
    func location(resultsParent: URL, defaultName: () -> String) -> (parent: URL, name: String) {
        guard let out else { return (resultsParent, defaultName()) }
        let url = URL(fileURLWithPath: out).standardizedFileURL
        return (url.deletingLastPathComponent(), url.lastPathComponent)
    }
}

/// `--metrics NAME,...` of compare, sweep and merge.
struct MetricsOption: Equatable {
    /// The declaration (sweep's and merge's wording; compare words it its own way).
    static let metrics = Option.string("metrics", valueName: "NAME,...",
                                       help: "metrics in the report and the table printed (default: \(SweepReportBuilder.defaultMetrics.joined(separator: ",")))")

    /// The list as given.
    var text: String?

    /// Reads the option from a parsed command line.
    init(_ parsed: ParsedCommand) { text = parsed[Self.metrics] }

    /// The metrics chosen (default `SweepReportBuilder.defaultMetrics`), or a message.
    func chosen() -> Result<[String], CommandMessage> {
        guard let text else { return .success(SweepReportBuilder.defaultMetrics) }
        return SweepReportBuilder.checkMetrics(text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
    }
}

/// Options several simulating commands share word for word.
enum RunOptions {
    /// `--force-memory`.
    static let forceMemory = Option.flag("force-memory", help: "run even if the memory estimate exceeds the available memory")
    /// `--fail-on-slo` (the help says what failing means for the command).
    static let failOnSLO = Option.flag("fail-on-slo", help: "exit 3 when a service-level objective (slo) fails or is undecided")
    /// `--junit FILE` of run, compare and plan (the help says which verdicts).
    static let junit = Option.string("junit", valueName: "FILE", help: "also write the gate's verdicts as JUnit XML to FILE (for CI)")
}

/// A CI gate's options as a command reads them: whether to exit 3 when the gate does not pass
/// (`--fail-on-slo`, compare's `--fail-on-regression`) and where its verdicts go as JUnit XML.
struct GateOptions: Equatable {
    /// `--fail-on-slo` or `--fail-on-regression`.
    var failOn: Bool
    /// `--junit FILE`.
    var junit: String?

    /// Reads the group; `failOn` is the command's fail flag.
    init(_ parsed: ParsedCommand, failOn option: Option<Bool> = RunOptions.failOnSLO) {
        failOn = parsed[option]
        junit = parsed[RunOptions.junit]
    }

    /// Why `--junit FILE` cannot be written (checked before any work); nil when it can or is not given.
    var junitProblem: String? { junit.flatMap { OutputFilePath.problem(option: "junit", path: $0) } }

    /// Writes `document` to `--junit FILE` when given; false after saying why it could not.
    func writeJUnit(_ document: @autoclosure () -> JUnitXML, command: String, environment env: CommandEnvironment) -> Bool {
        guard let junit else { return true }
        return document().write(to: junit, command: command, environment: env)
    }
}

extension JUnitXML {
    /// Writes the document to `path` (atomically); false after saying why on `env`'s standard error.
    func write(to path: String, command: String, environment env: CommandEnvironment) -> Bool {
        do {
            try AtomicWriter.write(Data(text.utf8), to: URL(fileURLWithPath: path))
            return true
        } catch {
            env.standardError.write("prestage \(command): --junit: cannot write \(path): \(error)\n")
            return false
        }
    }
}
