import Foundation
import PushModel
import ReportKit
import Experiments
import ScenarioFormat
import Testbed

/// `prestage testbed SCENARIO [--devices N] [--seconds T] [--replications R] [--out DIR]`: the
/// scaled scenario on real software on 127.0.0.1 and in the model, compared
/// (`testbed-report.md`, `.html`, `testbed-results.json`, `testbed-devices.json`, and the
/// components' logs and VCL in `components/`).
struct TestbedCommand: ParsableCommand {
    /// `--devices N`: emulated devices, not the model's population.
    static let devicesOption = Option.integer("devices", TestbedOptions.devicesRange, valueName: "N", help: "emulated devices (default 200)")
    /// `--seconds T`.
    static let secondsOption = Option.integer("seconds", 20...900, valueName: "T", help: "length of the scaled run, seconds (default 60)")
    /// `--replications R`: the model's replications.
    static let replicationsOption = Option.integer("replications", 1...100, valueName: "R", help: "model replications (default 5)")

    static let configuration = CommandSpec(
        "testbed", summary: "run a scaled-down scenario on real software (Varnish, origin, links, PreloadKit devices) and in the model, and compare",
        positionals: ["SCENARIO"], declaring: [
            devicesOption, secondsOption, replicationsOption,
            ScenarioOptions.seed.help("master seed (default: the scenario's)"),
            ScenarioOptions.set.help("override a scenario field before scaling"),
            OutputOptions.out.help("results directory (default results/NAME-testbed)"),
        ], exitCodes: [ExitCodeDoc(.ok, "both runs completed (the verdicts are in the report)"),
                       ExitCodeDoc(.runFailed, "a component failed or a run could not complete (named in the message)"),
                       ExitCodeDoc(.badInput, "bad input (command line, scenario, a scenario the testbed cannot scale, missing Varnish)"),
                       ExitCodeDoc(.interrupted, "interrupted (Ctrl-C); every component was stopped")])

    static let helpFooter = """

    Needs Varnish with varnish-modules (xkey) and python3: `make deps` installs them. Every
    component listens on 127.0.0.1 on a free port and is stopped on success, failure or Ctrl-C.
    The scaling applied to both runs, the tolerances and the measured agreement: docs/testbed.md.

    examples:
      prestage testbed default
      prestage testbed black-friday-flash-sale --devices 300 --seconds 90 --out results/bf-testbed
    """

    /// SCENARIO.
    let scenarioArgument: String
    /// `--devices`.
    let devices: Int?
    /// `--seconds`.
    let seconds: Int?
    /// `--replications`.
    let replications: Int?
    /// `--seed`, `--set` (its `devices` and `replications` read this command's own options of
    /// those names: use `devices` and `replications` above).
    let scenarioOptions: ScenarioOptions
    /// `--out`.
    let output: OutputOptions

    init(parsed: ParsedCommand) {
        scenarioArgument = parsed.positionals[0]
        devices = parsed[Self.devicesOption]
        seconds = parsed[Self.secondsOption]
        replications = parsed[Self.replicationsOption]
        scenarioOptions = ScenarioOptions(parsed)
        output = OutputOptions(parsed)
    }

    func execute(environment env: CommandEnvironment) -> ExitCode {
        let err = env.standardError
        let library = ScenarioLibrary(directories: env.scenarioDirectories)
        let loaded: (url: URL, scenario: ScenarioFile)
        do {
            loaded = try ScenarioLoader.load(scenarioArgument, library: library, set: scenarioOptions.sets,
                                         flags: .init(seed: scenarioOptions.seed))
        } catch {
            err.write("prestage testbed: \(error)\n")
            return .badInput
        }
        let options = TestbedOptions(devices: devices ?? 200, seconds: Double(seconds ?? 60), replications: replications ?? 5)
        let plan: TestbedPlan
        do { plan = try TestbedPlan(scenario: loaded.scenario, options: options) } catch {
            err.write("prestage testbed: \(error)\n")
            return .badInput
        }
        // DIR is a results directory like a run's: owned, refused (before anything is checked or
        // started) unless it is an earlier testbed's results, written in DIR.partial, committed at the end.
        let (parent, name) = output.location(resultsParent: env.resultsParent) { plan.scaled.name }
        let lock: OutputLock
        do {
            lock = try ResultsDirectory.claim(in: parent, name: name, owner: env.owner(), replacing: Self.earlierResults)
        } catch {
            err.write("prestage testbed: --out: \(error)\n")
            return .badInput
        }
        do { try TestbedRunner.checkPrograms(python: "python3") } catch {
            lock.removeAndRelease()
            err.write("prestage testbed: \(error)\n")
            return .badInput
        }
        let directory: ResultsDirectory
        do { directory = try ResultsDirectory.begin(lock, ownFiles: Self.earlierResults.files) } catch {
            err.write("prestage testbed: --out: \(error)\n")
            return .badInput
        }
        let out = directory.partialURL
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("prestage-testbed-\(getpid())-\(UInt32.random(in: 0...UInt32.max))",
                                                                                 isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        } catch {
            err.write("prestage testbed: \(work.path): cannot create the work directory: \(error.localizedDescription)\n")
            RunCommand.markIncomplete(directory, reason: "The work directory could not be created: \(error.localizedDescription)")
            return .runFailed
        }
        defer { try? FileManager.default.removeItem(at: work) }
        let interrupt = InterruptFlag()
        if env.handlesInterrupts { interrupt.install() }
        defer { if env.handlesInterrupts { interrupt.uninstall() } }

        for note in plan.adjustments { err.write("prestage testbed: scaled: \(note)\n") }
        let runner = TestbedRunner(plan: plan, workDirectory: work, log: { err.write("prestage testbed: \($0)\n") })
        let measurement: TestbedMeasurement
        do {
            measurement = try runner.run(interrupt: interrupt)
        } catch {
            Self.keepComponentFiles(from: work, in: out)
            err.write("prestage testbed: \(error)\n")
            RunCommand.markIncomplete(directory, reason: error == .interrupted ? "It was interrupted; every component was stopped." : "The testbed failed: \(error)")
            err.write("prestage testbed: every component was stopped; logs in \(out.appendingPathComponent("components").path) (INCOMPLETE)\n")
            return error == .interrupted ? .interrupted : .runFailed
        }
        Self.keepComponentFiles(from: work, in: out)

        err.write("prestage testbed: real run done; running the model (\(plan.scaled.run.replications) replications)\n")
        let results: [ReplicationResult]
        do {
            let board = ProgressBoard(output: err, live: false, replications: plan.scaled.run.replications, horizonSeconds: plan.options.seconds)
            results = try ReplicationRunner(scenario: plan.scaled, jobs: max(1, min(2, env.processorCount))).run(progress: board)
            board.finish()
        } catch {
            err.write("prestage testbed: \(TestbedError.model("\(error)"))\n")
            RunCommand.markIncomplete(directory, reason: "The model run failed: \(error)")
            return .runFailed
        }
        let comparison = TestbedComparison(testbed: measurement, model: results)
        let report = TestbedReport.build(plan: plan, measurement: measurement, comparison: comparison, toolVersion: ToolVersion.text,
                                         scenarioHash: (try? plan.scaled.hash()) ?? "")
        let final: URL
        do {
            try directory.write(Data(MarkdownRenderer().render(report).utf8), named: "testbed-report.md")
            try directory.write(Data(HTMLRenderer().render(report).utf8), named: "testbed-report.html")
            try directory.write(TestbedReport.devicesJSON(measurement.records), named: "testbed-devices.json")
            try directory.write(TestbedReport.json(comparison), named: Self.earlierResults.marker)
            final = try directory.commit(replacing: Self.earlierResults)
        } catch {
            err.write("prestage testbed: \(out.path): cannot write the report: \(error)\n")
            RunCommand.markIncomplete(directory, reason: "Writing the report failed: \(error)")
            return .runFailed
        }
        for r in comparison.rows {
            let verdict = r.verdict.padding(toLength: 10, withPad: " ", startingAt: 0)
            env.standardOutput.write("\(verdict) \(r.metric): testbed \(Self.format(r.testbed)), model \(Self.format(r.model))\n")
        }
        let agreeing = comparison.rows.filter { $0.agrees == true }.count
        let notJudged = comparison.rows.filter { $0.verdict == "not judged" }.count
        env.standardOutput.write("\(agreeing) of \(comparison.rows.filter { $0.agrees != nil }.count) agree"
                                 + (notJudged > 0 ? " (\(notJudged) latencies not judged: the CPU was busy)" : "")
                                 + "; report: \(final.appendingPathComponent("testbed-report.md").path)\n")
        return .ok
    }

    /// Earlier results `--out DIR` may replace: a testbed's files and nothing else.
    static let earlierResults = ResultsDirectory.Replaceable(files: ["components", "testbed-report.md", "testbed-report.html", "testbed-devices.json"],
                                                             marker: "testbed-results.json")

    static func format(_ v: Double?) -> String {
        guard let v else { return "-" }
        return abs(v) >= 1000 ? String(format: "%.0f", v) : String(format: "%.4g", v)
    }

    /// Copies the components' logs, VCL and configurations (not the device stores) to DIR/components.
    static func keepComponentFiles(from work: URL, in out: URL) {
        let target = out.appendingPathComponent("components", isDirectory: true)
        try? FileManager.default.removeItem(at: target)
        try? FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: work.path)) ?? []
        for name in names.sorted() where [".log", ".vcl", ".json", ".py"].contains(where: { name.hasSuffix($0) }) {
            try? FileManager.default.copyItem(at: work.appendingPathComponent(name), to: target.appendingPathComponent(name))
        }
    }
}
