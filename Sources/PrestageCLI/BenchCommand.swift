import Dispatch
import Experiments
import Foundation
import ScenarioFormat

/// `prestage bench`: runs the CI-sized suite (`scenarios/bench/*.json`) with its fixed seeds and
/// gates it against `results/baseline/`, or records that baseline (`--update-baseline`).
struct BenchCommand: ParsableCommand {
    /// `--baseline DIR`.
    static let baselineOption = Option.string("baseline", valueName: "DIR", help: "baseline directory (default: results/baseline)")
    /// `--update-baseline`.
    static let updateBaselineOption = Option.flag("update-baseline", help: "record the baseline instead of gating (then review and commit its diff)")
    /// `--no-speed`.
    static let noSpeedOption = Option.flag("no-speed", help: "skip the informational CPU-time ratio")
    /// `--policy-check`.
    static let policyCheckOption = Option.flag("policy-check",
                                               help: "judge the model metrics only (a --set policy change): fingerprints and instructions are reported, not judged")
    /// `--no-instructions`.
    static let noInstructionsOption = Option.flag("no-instructions", help: "skip the instruction count (the speed gate)")
    /// `--require-instructions`.
    static let requireInstructionsOption = Option.flag("require-instructions", help: "fail when instructions cannot be counted (no valgrind) instead of skipping")
    /// `--slowdown-percent P`.
    static let slowdownPercentOption = Option.integer(
        "slowdown-percent", 1...100, valueName: "P",
        help: "test knob: add P % of the baseline's instructions inside the counted region (proves the gate fails)")

    static let configuration = CommandSpec(
        "bench", summary: "run the CI regression suite and gate it against committed baselines (or record them)",
        declaring: [
            BenchSuiteOptions.suite,
            baselineOption,
            OutputOptions.out.help("where bench-report.md and bench-junit.xml go (default: results/bench)"),
            updateBaselineOption,
            ScenarioOptions.set.help("override a field of every suite scenario"),
            ScenarioOptions.devices.help("population of every suite scenario"),
            OutputOptions.jobs,
            noSpeedOption, noInstructionsOption, requireInstructionsOption, slowdownPercentOption, policyCheckOption,
        ], exitCodes: [ExitCodeDoc(.ok, "the gate passed (or the baseline was recorded)"),
                       ExitCodeDoc(.runFailed, "the gate could not be judged: a scenario's run failed, a baseline is missing or was recorded differently, or the reports could not be written"),
                       ExitCodeDoc(.badInput, "bad input (command line, suite directory, scenario file, override)"),
                       ExitCodeDoc(.gateNotPassed, "the gate did not pass, every check having run: a regression, a changed fingerprint, or more instructions than the margin")])

    static let helpFooter = """

    Model metrics are compared pairwise with the baseline's per-replication values (same seeds:
    common random numbers); a regression must be statistically significant AND beyond the
    metric's practical threshold. Replication 0's full event trace is hashed and must match the
    baseline's fingerprint. Speed is gated on instructions, not time: replication 0 of each
    scenario (at most \(BenchInstructions.devicesMax) devices) runs under callgrind (valgrind), counting only the
    simulation; more than +\(TextNumber.format((BenchSuite.instructionMarginFactor - 1) * 100, significant: 3)) % over results/baseline/\(BenchInstructionBaseline.fileName) fails (release
    builds only; without valgrind the check is skipped unless --require-instructions). The
    CPU-time ratio of the scenarios to a calibration loop is reported, never gated.

    examples:
      prestage bench                      # gate (CI): exit 3 on a regression
      prestage bench --update-baseline    # record results/baseline/ (make bench-baseline)
      prestage bench --policy-check --set preloadPolicy.iosServiceExtensionDeadlineSeconds=5   # would this policy regress?
    """

    /// A suite scenario, resolved with the overrides.
    struct Entry {
        let scenario: ScenarioFile
        let hash: String
    }

    /// `--suite`, `--set`, `--devices`.
    let suite: BenchSuiteOptions
    /// `--baseline`.
    let baseline: String?
    /// `--out`, `--jobs`.
    let output: OutputOptions
    /// `--update-baseline`.
    let updateBaseline: Bool
    /// `--no-speed`.
    let noSpeed: Bool
    /// `--no-instructions`.
    let noInstructions: Bool
    /// `--policy-check`.
    let policyCheck: Bool
    /// `--require-instructions`.
    let requireInstructions: Bool
    /// `--slowdown-percent`.
    let slowdownPercent: Int?

    init(parsed: ParsedCommand) {
        suite = BenchSuiteOptions(parsed)
        baseline = parsed[Self.baselineOption]
        output = OutputOptions(parsed)
        updateBaseline = parsed[Self.updateBaselineOption]
        noSpeed = parsed[Self.noSpeedOption]
        noInstructions = parsed[Self.noInstructionsOption]
        policyCheck = parsed[Self.policyCheckOption]
        requireInstructions = parsed[Self.requireInstructionsOption]
        slowdownPercent = parsed[Self.slowdownPercentOption]
    }

    func execute(environment env: CommandEnvironment) -> ExitCode {
        let suiteURL = suite.url(environment: env)
        let baselineURL = baseline.map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? env.resultsParent.appendingPathComponent(BenchSuite.baselineSubdirectory, isDirectory: true)
        let outURL = output.out.map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? env.resultsParent.appendingPathComponent(BenchSuite.outSubdirectory, isDirectory: true)
        let entries: [Entry]
        switch Self.loadSuite(suiteURL, set: suite.sets, devices: suite.devices) {
        case let .success(e): entries = e
        case let .failure(message):
            env.standardError.write("prestage bench: \(message)\n")
            return .badInput
        }
        let jobs = output.jobs ?? env.processorCount
        #if DEBUG
        let speedSkip: String? = noSpeed ? "--no-speed" : "debug build: speed is measured in release builds only"
        let countSkip: String? = policyCheck ? Self.policyCheckSkip : noInstructions ? "--no-instructions" : "debug build: instructions are gated in release builds only"
        #else
        let speedSkip: String? = noSpeed ? "--no-speed" : nil
        let countSkip: String? = policyCheck ? Self.policyCheckSkip : noInstructions ? "--no-instructions" : nil
        #endif
        let counting = InstructionCounting(skip: countSkip, required: requireInstructions,
                                           slowdownPercent: slowdownPercent, childArguments: suite.childArguments(suite: suiteURL))
        if updateBaseline {
            return Self.record(entries, baseline: baselineURL, jobs: jobs, speedSkip: speedSkip, counting: counting, environment: env)
        }
        return Self.gate(entries, suite: suiteURL, baseline: baselineURL, out: outURL, jobs: jobs, speedSkip: speedSkip, counting: counting,
                         judgingFingerprints: !policyCheck, environment: env)
    }

    /// Why `--policy-check` does not judge the instructions.
    static let policyCheckSkip = "--policy-check: a policy change changes the work, so instructions are reported, not judged"

    /// Every `*.json` of `directory`, sorted by file name, decoded with the overrides.
    static func loadSuite(_ directory: URL, set: [String], devices: Int?) -> Result<[Entry], CommandMessage> {
        guard let files = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else {
            return .failure(CommandMessage("\(directory.path): expected a suite directory of scenario files, found none"))
        }
        let names = files.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.sorted()
        guard !names.isEmpty else { return .failure(CommandMessage("\(directory.path): expected scenario files (*.json), found none")) }
        guard names.count <= BenchSuite.scenariosMax else {
            return .failure(CommandMessage("\(directory.path): expected at most \(BenchSuite.scenariosMax) scenario files, found \(names.count)"))
        }
        var out: [Entry] = [], problems: [String] = []
        let library = ScenarioLibrary(directories: [directory])
        for file in names {
            let path = directory.appendingPathComponent(file).path
            do {
                let s = try ScenarioLoader.load(path, library: library, set: set, flags: .init(devices: devices)).scenario
                if out.contains(where: { $0.scenario.name == s.name }) {
                    problems.append("\(path): name: expected a name unique in the suite, found \"\(s.name)\" twice")
                    continue
                }
                out.append(Entry(scenario: s, hash: try s.hash()))
            } catch let e as ScenarioLoadError {
                problems.append(e.description)
            } catch {
                problems.append("\(path): cannot encode the resolved scenario: \(error)")
            }
        }
        return problems.isEmpty ? .success(out) : .failure(CommandMessage(problems.joined(separator: "\n")))
    }

    /// Runs one scenario with a progress line on standard error.
    static func runScenario(_ e: Entry, jobs: Int, env: CommandEnvironment) -> Result<BenchScenarioRun, CommandMessage> {
        let s = e.scenario
        env.standardError.write("bench: \(s.name): \(s.run.replications) replication(s) × \(s.world.population.devices) devices, seed \(s.run.seed) … ")
        let start = DispatchTime.now().uptimeNanoseconds
        do {
            let run = try BenchScenarioRun.run(s, hash: e.hash, jobs: jobs)
            let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            env.standardError.write("\(run.eventsProcessed) events in \(TextNumber.format(wall, significant: 3)) s wall\n")
            return .success(run)
        } catch {
            env.standardError.write("failed\n")
            return .failure(CommandMessage("\(s.name): \(error)"))
        }
    }

    /// `--update-baseline`: writes `NAME.json` per scenario and `speed.json` (release builds).
    static func record(_ entries: [Entry], baseline: URL, jobs: Int, speedSkip: String?, counting: InstructionCounting,
                       environment env: CommandEnvironment) -> ExitCode {
        var runs: [BenchScenarioRun] = []
        for e in entries {
            switch runScenario(e, jobs: jobs, env: env) {
            case let .success(r): runs.append(r)
            case let .failure(m):
                env.standardError.write("prestage bench: \(m)\n")
                return .runFailed
            }
        }
        do {
            try FileManager.default.createDirectory(at: baseline, withIntermediateDirectories: true)
            for r in runs {
                let url = BenchBaseline.url(in: baseline, scenario: r.scenario.name)
                try AtomicWriter.write(try CanonicalJSON.encode(BenchBaseline(r)), to: url)
                env.standardOutput.write("baseline: \(url.path) (fingerprint \(r.fingerprint.sha256.prefix(19))…, \(r.fingerprint.events) events)\n")
            }
            let countURL = baseline.appendingPathComponent(BenchInstructionBaseline.fileName)
            switch counting.count(entries, environment: env) {
            case let .success(m):
                try AtomicWriter.write(try CanonicalJSON.encode(BenchInstructionBaseline(m)), to: countURL)
                env.standardOutput.write("baseline: \(countURL.path) (\(m.profile.total) instructions, \(m.events) events)\n")
            case let .failure(why):
                if counting.required && counting.skip == nil {
                    env.standardError.write("prestage bench: \(why)\n")
                    return .runFailed
                }
                env.standardOutput.write("baseline: \(countURL.path) left unchanged (\(why))\n")
            }
            if let speedSkip {
                env.standardOutput.write("baseline: \(baseline.appendingPathComponent(BenchSpeedBaseline.fileName).path) left unchanged (\(speedSkip))\n")
            } else {
                // The median of several measurements, so the baseline sits near the centre of the
                // ratio's spread rather than wherever one measurement fell.
                env.standardError.write("bench: timing \(entries.count) scenario(s) against the calibration loop, "
                                        + "\(BenchSuite.speedBaselineMeasurements) × \(BenchSuite.speedRounds) rounds …\n")
                var measurements: [BenchSpeedMeasurement] = []
                for _ in 0..<BenchSuite.speedBaselineMeasurements {
                    measurements.append(try BenchSpeed.measure(entries.map(\.scenario), rounds: BenchSuite.speedRounds))
                }
                measurements.sort { $0.suiteRatio < $1.suiteRatio }
                let m = measurements[measurements.count / 2]
                let url = baseline.appendingPathComponent(BenchSpeedBaseline.fileName)
                try AtomicWriter.write(try CanonicalJSON.encode(BenchSpeedBaseline(m)), to: url)
                env.standardOutput.write("baseline: \(url.path) (suite ratio \(TextNumber.format(m.suiteRatio, significant: 4)), the median of "
                                         + measurements.map { TextNumber.format($0.suiteRatio, significant: 4) }.joined(separator: ", ") + ": \(cpuText(m)))\n")
            }
        } catch {
            env.standardError.write("prestage bench: cannot write the baseline: \(error)\n")
            return .runFailed
        }
        for stale in staleBaselines(baseline, suite: entries) {
            env.standardOutput.write("note: \(stale.path) has no scenario in the suite; delete it if the scenario was removed\n")
        }
        env.standardOutput.write("Review the diff of \(baseline.path) and commit it.\n")
        return .ok
    }

    /// Baseline files whose scenario is not in the suite, sorted.
    static func staleBaselines(_ baseline: URL, suite: [Entry]) -> [URL] {
        let names = Set(suite.map(\.scenario.name))
        let files = (try? FileManager.default.contentsOfDirectory(atPath: baseline.path)) ?? []
        return files.filter { $0.hasSuffix(".json") && $0 != BenchSpeedBaseline.fileName && $0 != BenchInstructionBaseline.fileName && !names.contains(String($0.dropLast(5))) }
            .sorted().map { baseline.appendingPathComponent($0) }
    }

    /// The gate: runs, compares, writes bench-report.md and bench-junit.xml, prints the tables.
    /// Without `judgingFingerprints` (`--policy-check`) a changed fingerprint is reported, not a failure.
    static func gate(_ entries: [Entry], suite: URL, baseline: URL, out: URL, jobs: Int, speedSkip: String?, counting: InstructionCounting,
                     judgingFingerprints: Bool = true, environment env: CommandEnvironment) -> ExitCode {
        var report = BenchReport(metrics: [], fingerprints: [], instructions: .skipped(""),
                                 speed: BenchSpeedCheck(baselineRatio: nil, nowRatio: nil, factor: nil, verdict: .skipped, note: ""), errors: [], notes: [])
        for e in entries {
            let s = e.scenario
            let b: BenchBaseline
            do { b = try BenchBaseline.load(BenchBaseline.url(in: baseline, scenario: s.name)) } catch {
                report.errors.append(error.description)
                continue
            }
            let recorded = (b.seed, b.replications, b.devices), now = (s.run.seed, s.run.replications, s.world.population.devices)
            guard recorded == now else {
                report.errors.append("\(s.name): the baseline was recorded with seed \(b.seed), \(b.replications) replications, \(b.devices) devices; "
                                     + "the suite now has seed \(now.0), \(now.1) replications, \(now.2) devices: regenerate with `make bench-baseline`")
                continue
            }
            if b.scenarioHash != e.hash {
                report.notes.append("\(s.name): the resolved scenario differs from the one the baseline was recorded with (\(e.hash.prefix(19))… vs \(b.scenarioHash.prefix(19))…)")
            }
            switch runScenario(e, jobs: jobs, env: env) {
            case let .success(r):
                report.metrics += BenchGate.checks(r, baseline: b)
                report.fingerprints.append(BenchGate.check(scenario: s.name, baseline: b.fingerprint, now: r.fingerprint, judged: judgingFingerprints))
            case let .failure(m):
                report.errors.append(m.description)
            }
        }
        if !judgingFingerprints {
            report.notes.append("--policy-check: the model metrics alone are judged; fingerprints and instruction counts are reported, not judged (a policy change changes the trace and the work)")
        }
        report.instructions = counting.check(entries, baseline: baseline, report: &report, environment: env)
        report.speed = speedCheck(entries, baseline: baseline, skip: speedSkip, report: &report, env: env)
        for stale in staleBaselines(baseline, suite: entries) {
            report.notes.append("\(stale.path) has no scenario in \(suite.path)")
        }
        env.standardOutput.write(report.text())
        do {
            try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
            try AtomicWriter.write(Data(report.markdown().utf8), to: out.appendingPathComponent("bench-report.md"))
            try AtomicWriter.write(Data(report.junitXML().utf8), to: out.appendingPathComponent("bench-junit.xml"))
            env.standardOutput.write("report: \(out.appendingPathComponent("bench-report.md").path)\njunit:  \(out.appendingPathComponent("bench-junit.xml").path)\n")
        } catch {
            env.standardError.write("prestage bench: cannot write the reports: \(error)\n")
            return .runFailed
        }
        // A verdict is 3 as for every gate; 1 when some check could not be made at all.
        guard report.fails else { return .ok }
        return report.errors.isEmpty ? .gateNotPassed : .runFailed
    }

    /// "calibration 0.21 s, scenarios 0.57 s CPU (best of 5)".
    static func cpuText(_ m: BenchSpeedMeasurement) -> String {
        "calibration \(TextNumber.format(m.calibrationBestSeconds, significant: 3)) s, scenarios "
            + "\(TextNumber.format(m.scenarios.reduce(0) { $0 + $1.bestSeconds }, significant: 3)) s CPU (best of \(BenchSuite.speedRounds))"
    }

    /// Measures speed (unless skipped) and compares it with `baseline/speed.json`.
    static func speedCheck(_ entries: [Entry], baseline: URL, skip: String?, report: inout BenchReport, env: CommandEnvironment) -> BenchSpeedCheck {
        func skipped(_ note: String, now: Double? = nil, base: Double? = nil) -> BenchSpeedCheck {
            BenchSpeedCheck(baselineRatio: base, nowRatio: now, factor: nil, verdict: .skipped, note: note)
        }
        if let skip { return skipped(skip) }
        let recorded: BenchSpeedBaseline?
        do { recorded = try BenchSpeedBaseline.load(in: baseline) } catch {
            report.errors.append(error.description)
            return skipped("speed baseline unreadable")
        }
        guard let recorded else { return skipped("no \(BenchSpeedBaseline.fileName) in \(baseline.path): record one with `make bench-baseline`") }
        let suiteNames = entries.map(\.scenario.name).sorted()
        guard recorded.scenarioRatios.map(\.scenario) == suiteNames else {
            return skipped("the suite's scenarios changed since \(BenchSpeedBaseline.fileName) was recorded: regenerate it", base: recorded.suiteRatio)
        }
        env.standardError.write("bench: timing \(entries.count) scenario(s) against the calibration loop, \(BenchSuite.speedRounds) rounds …\n")
        let m: BenchSpeedMeasurement
        do { m = try BenchSpeed.measure(entries.map(\.scenario), rounds: BenchSuite.speedRounds) } catch {
            report.errors.append("speed: \(error)")
            return skipped("the timed run failed")
        }
        guard m.calibrationChecksum == recorded.calibrationChecksum else {
            return skipped("the calibration loop changed: checksum \(m.calibrationChecksum), baseline \(recorded.calibrationChecksum)",
                           now: m.suiteRatio, base: recorded.suiteRatio)
        }
        let check = BenchGate.checkSpeed(baselineRatio: recorded.suiteRatio, nowRatio: m.suiteRatio)
        return BenchSpeedCheck(baselineRatio: check.baselineRatio, nowRatio: check.nowRatio, factor: check.factor, verdict: check.verdict,
                               note: check.note + "; " + cpuText(m))
    }
}
