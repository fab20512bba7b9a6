import Dispatch
import Experiments
import Foundation
import Glibc
import PushModel
import ReportKit
import ScenarioFormat

/// `prestage run SCENARIO`.
struct RunCommand: ParsableCommand {
    static let configuration = CommandSpec(
        "run", summary: "run a scenario's replications and write summary, time series, histograms and reports",
        positionals: ["SCENARIO"], declaring: [
            OutputOptions.out.help("results directory (default: results/NAME-seedS)"),
            ScenarioOptions.replications,
            ScenarioOptions.seed.help("master seed (replication r uses streams derived from S and r)"),
            ScenarioOptions.set.help("override a scenario field, e.g. campaigns[0].warm.aheadSeconds=300"),
            ScenarioOptions.overlay,
            ScenarioOptions.devices,
            OutputOptions.jobs,
            RunOptions.forceMemory,
            RunOptions.failOnSLO,
            RunOptions.junit.help("also write the objectives' verdicts as JUnit XML to FILE (a failed or undecided objective is a failed case)"),
        ], exitCodes: PrestageCLI.runExitCodes + [ExitCodeDoc(.gateNotPassed, "--fail-on-slo: an objective failed or is undecided (the results are written)")])

    static let helpFooter = """

        SCENARIO is a path to a JSON file or a bare name from scenarios/ (see `prestage list`).
        Results go to DIR (default results/NAME-seedS): summary.json, run-info.json,
        timeseries.csv, tap-to-paint-windows.csv, histograms.csv, pops.csv,
        region-misses.csv, bandwidth-pops.csv, bandwidth-regions.csv, report.md and
        report.html. While running, the directory is DIR.partial with an INCOMPLETE
        marker; it is renamed when complete.

        examples:
          prestage run default
          prestage run black-friday-flash-sale --devices 100000 --replications 5
          prestage run warm-ahead-sweep --set campaigns[0].warm.aheadSeconds=120 --out results/warm-2min
        """

    /// Assumed mean session length, seconds, for the active-session estimate (measured below 1 s
    /// at 20 000 pushes/s; doubled for slow networks).
    static let sessionSecondsAssumed = 2.0

    /// SCENARIO: a path or a library name.
    let scenarioArgument: String
    /// `--set`, `--overlay`, `--devices`, `--seed`, `--replications`.
    let scenarioOptions: ScenarioOptions
    /// `--out`, `--jobs`.
    let output: OutputOptions
    /// `--force-memory`.
    let forceMemory: Bool
    /// `--fail-on-slo`, `--junit`.
    let gate: GateOptions

    init(parsed: ParsedCommand) {
        scenarioArgument = parsed.positionals[0]
        scenarioOptions = ScenarioOptions(parsed)
        output = OutputOptions(parsed)
        forceMemory = parsed[RunOptions.forceMemory]
        gate = GateOptions(parsed)
    }

    func execute(environment env: CommandEnvironment) -> ExitCode {
        let library = ScenarioLibrary(directories: env.scenarioDirectories)
        let scenario: ScenarioFile
        do {
            scenario = try ScenarioLoader.load(scenarioArgument, library: library, set: try scenarioOptions.assignments(), flags: scenarioOptions.flags).scenario
        } catch {
            env.standardError.write(error.description + "\n")
            return .badInput
        }
        // A gate with nothing to check would pass silently: refused, saying what is missing.
        for (given, option) in [(gate.failOn, "--fail-on-slo"), (gate.junit != nil, "--junit")] where given && scenario.slo.isEmpty {
            env.standardError.write("prestage run: \(option): \(scenario.name) has no objectives, so there is nothing to check; add an \"slo\" section (docs/scenario-format.md) or drop \(option)\n")
            return .badInput
        }
        if let problem = gate.junitProblem {
            env.standardError.write("prestage run: \(problem)\n")
            return .badInput
        }
        let hash: String
        let scenarioJSON: Data
        do {
            hash = try scenario.hash()
            scenarioJSON = try CanonicalJSON.encode(scenario)
        } catch {
            env.standardError.write("prestage run: cannot encode the resolved scenario: \(error)\n")
            return .runFailed
        }
        let jobs = max(1, min(output.jobs ?? env.processorCount, scenario.run.replications))
        let inputs = Self.memoryInputs(scenario, concurrentReplications: jobs)
        let estimate = MemoryEstimate(inputs)
        let available = env.availableMemory()
        if let refusal = MemoryGuard.refusal(estimate: estimate, available: available, inputs: inputs) {
            if !forceMemory {
                env.standardError.write("prestage run: " + refusal + "\n")
                return .badInput
            }
            env.standardError.write("prestage run: warning: --force-memory: estimate \(MemoryGuard.formatBytes(estimate.totalBytes)) exceeds the available \(MemoryGuard.formatBytes(available.bytes))\n")
        }
        // Where the results go.
        let (parent, name) = output.location(resultsParent: env.resultsParent) { "\(scenario.name)-seed\(scenario.run.seed)" }
        let run: RunResults
        do {
            // This run owns NAME and NAME.partial from here on (a second run is refused), and a
            // wrong --out is refused now, not after the run: only earlier results are replaced.
            run = try RunResults.begin(in: parent, name: name, owner: env.owner(), scenarioJSON: scenarioJSON)
        } catch {
            env.standardError.write("prestage run: \(error)\n")
            return .badInput
        }
        let directory = run.directory
        let interrupt = env.handlesInterrupts ? InterruptGuard(directory: directory, output: env.standardError) : nil
        defer { interrupt?.remove() }

        env.standardError.write("prestage run: \(scenario.name): \(scenario.run.replications) replication(s) of \(scenario.world.population.devices) devices on \(jobs) thread(s), seed \(scenario.run.seed) → \(directory.finalURL.path)\n")
        let board = ProgressBoard(output: env.standardError, live: env.errorIsTerminal, replications: scenario.run.replications,
                                  horizonSeconds: scenario.world.horizonSeconds, columns: env.errorColumns)
        board.startHeartbeat()
        let start = DispatchTime.now().uptimeNanoseconds
        let results: [ReplicationResult]
        do {
            results = try ReplicationRunner(scenario: scenario, jobs: jobs).run(progress: board)
            board.finish()
        } catch {
            board.finish()
            env.standardError.write("prestage run: \(error)\n")
            Self.markIncomplete(directory, reason: "The run failed: \(error)")
            env.standardError.write("prestage run: partial results left in \(directory.partialURL.path) (INCOMPLETE)\n")
            return .runFailed
        }
        let wallSeconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return writingResults(directory, command: "run", environment: env) {
            let written = try run.write(scenario: scenario, hash: hash, results: results, invocation: invocation, runInfo: { events in
                RunInfo(wallSeconds: wallSeconds, jobs: jobs, processorCount: env.processorCount, eventsProcessed: events, memoryInputs: inputs,
                        memoryEstimate: estimate, available: available, forcedMemory: forceMemory, peakResidentBytes: Self.peakResidentBytes())
            }, committing: { commit in try interrupt.map { try $0.committing(commit) } ?? commit() })
            env.standardOutput.write(Self.headlineText(scenario: scenario, aggregate: written.aggregate, slo: written.slo,
                                                       scenarioDevices: (try? ScenarioLoader.load(scenarioArgument, library: library).scenario)?.world.population.devices, events: written.eventsProcessed, wallSeconds: wallSeconds))
            if let slo = written.slo {
                env.standardOutput.write("service-level objectives: \(slo.verdict.rawValue)\n" + alignedTable(slo.rows).map { "  " + $0 + "\n" }.joined())
            }
            let (verdict, next) = Self.verdictLines(scenario: scenario, aggregate: written.aggregate, slo: written.slo)
            env.standardOutput.write(verdict + "\nresults: \(written.finalURL.path)\nreport:  \(written.url(of: .reportHTML).path)\n" + next + "\n")
            if let slo = written.slo {
                if !gate.writeJUnit(slo.junit(scenarioName: scenario.name), command: "run", environment: env) { return .runFailed }
                if gate.failOn, slo.verdict != .pass { return .gateNotPassed }
            }
            return .ok
        }
    }

    /// The changes to the scenario file as typed, for the report header: the flags, then each `--set`.
    var invocation: ReportBuilder.Invocation {
        ReportBuilder.Invocation(overrides: scenarioOptions.overridesText(), devicesOverridden: scenarioOptions.devices != nil)
    }

    /// The memory estimate's inputs for a resolved scenario.
    static func memoryInputs(_ s: ScenarioFile, concurrentReplications: Int) -> MemoryInputs {
        let devices = s.world.population.devices
        var pushes = 0.0, sessions = 0.0
        for c in s.world.campaigns {
            let timing = c.timing
            let p = timing.pushesTargeted(devices: devices)
            pushes += p
            sessions += min(p, timing.sendRatePerSecond * sessionSecondsAssumed)
        }
        return MemoryInputs(devices: devices, pushesTargeted: Int(min(pushes, 1e15)), activeSessionsPeak: Int(min(sessions, 1e15)),
                            horizonSeconds: Int(s.world.horizonSeconds.rounded(.up)), replications: s.run.replications,
                            concurrentReplications: concurrentReplications, radioEnergy: s.world.energy.enabled,
                            budgetedLedgers: s.world.preloadPolicy.decision?.kind == .budgeted, campaigns: s.world.campaigns.count,
                            offlineStores: s.world.providers?.offline != nil,
                            deviceCapsBytesPerDevice: s.world.deviceCapsBytesPerDevice, collapseKeySlots: s.world.collapseKeySlotsKept,
                            dozeCollapse: s.world.dozeCollapseKept)
    }

    /// Adds `reason` to the INCOMPLETE marker (the marker stays; a failure to write it is not
    /// reported over the error that led here).
    static func markIncomplete(_ directory: ResultsDirectory, reason: String) {
        try? directory.markIncomplete(reason: reason)
    }

    static func peakResidentBytes() -> UInt64 {
        var usage = rusage()
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return 0 }
        return UInt64(max(0, usage.ru_maxrss)) * 1024  // Linux reports KiB
    }

    /// A few lines for the terminal: the headline metrics with their CIs and a status: the verdict
    /// of the scenario's objective on the metric (pass, FAIL, undecided), else, where the metric
    /// table gives an alarm level, ok, CI crosses or ALARM.
    /// `scenarioDevices` is the population the scenario file states; when the run used another
    /// (`--devices`, `--set`), a line under the question says so, since the question names its size.
    static func headlineText(scenario: ScenarioFile, aggregate: RunAggregate, slo: SLOReport? = nil, scenarioDevices: Int? = nil,
                             events: UInt64, wallSeconds: Double) -> String {
        var rows: [[TableCell]] = []
        for m in headlineMetrics(aggregate) {
            let scale = HumanScale.choose(for: ReportBuilder.measuredUnit(name: m.name, unit: m.unit), magnitude: m.mean ?? 0)
            rows.append([.text(MetricTable.spec(named: m.name)?.title ?? m.name), .text(m.mean.map { scale.text($0) } ?? "n/a"),
                         .text(m.confidenceInterval.map { $0.text(scale.number) } ?? "—"),
                         .text(status(m, slo: slo) ?? "—"), .text(m.name)])
        }
        let table = Table(caption: "", columns: [Table.Column("metric"), Table.Column("mean", alignment: .trailing),
                                                 Table.Column(TextNumber.format(scenario.run.confidenceLevel * 100, significant: 3) + "% CI", alignment: .trailing),
                                                 Table.Column("status"), Table.Column("id")], rows: rows)
        var lines = ["\(scenario.name): \(scenario.question)"]
        if let asked = scenarioDevices, asked != scenario.world.population.devices {
            lines.append("  (run at \(TextFormat.count(scenario.world.population.devices)) devices; the scenario's question is asked of \(TextFormat.count(asked)))")
        }
        lines += TableText.plain(table).split(separator: "\n").map { "  " + $0 }
        lines.append("  \(events) events in \(TextNumber.format(wallSeconds, significant: 3)) s wall (\(aggregate.metrics.count) metrics in summary.json)")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The headline metrics, in the report's order.
    static func headlineMetrics(_ aggregate: RunAggregate) -> [MetricSummary] {
        let shown = ReportBuilder.headlineOrder.compactMap { n in aggregate.metrics.first { $0.name == n } }
        return shown.isEmpty ? Array(aggregate.metrics.prefix(ReportBuilder.headlinesMax)) : shown
    }

    /// The status cell of `m`: its objectives' verdict ("FAIL" for a failure, whichever comes
    /// first), else its alarm status; nil when it has neither.
    static func status(_ m: MetricSummary, slo: SLOReport?) -> String? {
        let verdicts = (slo?.evaluations ?? []).filter { $0.objective.metric == m.name }.map(\.verdict)
        if !verdicts.isEmpty {
            if verdicts.contains(.fail) { return "FAIL (slo)" }
            return verdicts.allSatisfy { $0 == .pass } ? "pass (slo)" : "undecided (slo)"
        }
        return alarmStatus(m)?.label
    }

    /// `m` against its alarm level in the metric table; nil when it has none (or no value).
    static func alarmStatus(_ m: MetricSummary) -> ThresholdStatus? {
        guard let alarm = MetricTable.spec(named: m.name)?.alarm, let mean = m.mean else { return nil }
        return Threshold(value: alarm.value, alarmWhen: alarm.when == .above ? .above : .below)
            .status(value: mean, ciHalfWidth: m.confidenceInterval?.halfWidth ?? 0)
    }

    /// The line after the tables: the objectives' verdict (or that there are none) and the headline
    /// alarms, then one next step.
    static func verdictLines(scenario: ScenarioFile, aggregate: RunAggregate, slo: SLOReport?) -> (verdict: String, next: String) {
        let alarms = headlineMetrics(aggregate).compactMap { m -> String? in
            guard let status = alarmStatus(m), status != .clear else { return nil }
            return "\(MetricTable.spec(named: m.name)?.title ?? m.name) \(status.label)"
        }
        let alarmText = alarms.isEmpty ? "no headline alarm" : "alarms: " + alarms.joined(separator: ", ")
        var verdict: String, next = "next: open the report (above) in a browser"
        if let slo {
            verdict = "verdict: \(slo.verdictWord) (\(slo.tally)); " + alarmText
            if slo.verdict == .undecided, let n = slo.binding?.replicationsToDecide {
                next = "next: rerun with --replications \(n) to decide it (prestage run \(scenario.name) --replications \(n))"
            } else if slo.verdict == .fail {
                next = "next: find the value that passes with prestage plan \(scenario.name) --vary PATH=LO..HI (prestage help plan)"
            }
        } else {
            verdict = "verdict: no objectives (add an \"slo\" section to gate on them); " + alarmText
        }
        return (verdict, next)
    }
}

/// While installed, SIGINT (Ctrl-C), SIGQUIT (Ctrl-\\) and SIGTERM (a scheduler's preemption or
/// time limit, `kill`) record the signal in the partial directory's INCOMPLETE marker and exit with
/// 130, 131 or 143, leaving `NAME.partial/` to be resumed or replaced by the next run.
///
/// SIGQUIT is handled like SIGINT rather than left to its default (a core dump) because both are
/// a person at the terminal asking the run to stop, and because a command started in the
/// background by a non-interactive shell inherits SIGQUIT (and SIGINT) ignored: unhandled, it
/// would be ignored and the run would go on to exit 0.
///
/// A signal that arrives while the results are being committed (`committing`) is held until the
/// commit ends, so the message says where the results really are: complete in `NAME/` after a
/// commit, partial in `NAME.partial/` otherwise.
final class InterruptGuard: @unchecked Sendable {
    /// A handled signal: its number, what the marker says, the exit code.
    struct Handled {
        let signal: Int32
        let reason: String
        let verb: String
        let code: ExitCode
    }

    static let handled = [
        Handled(signal: SIGINT, reason: "It was interrupted (SIGINT); these are partial results.", verb: "interrupted", code: .interrupted),
        Handled(signal: SIGQUIT, reason: "It was quit (SIGQUIT); these are partial results.", verb: "quit", code: .quit),
        Handled(signal: SIGTERM, reason: "It was terminated (SIGTERM: preempted, out of time, or stopped); these are partial results. Rerun the same command to start again (a sweep or a plan resumes).",
                verb: "terminated", code: .terminated),
    ]

    /// Where the run stands, for a signal's handler.
    enum Phase {
        /// Working in `NAME.partial/`: a signal marks it and exits at once.
        case working
        /// Committing: a signal is held (the first one) until the commit ends.
        case committing(held: Handled?)
        /// Removed: signals have their default effect again.
        case removed
    }

    private let directory: ResultsDirectory
    private let output: any TextOutput
    private let command: String
    private let exitProcess: (Int32) -> Void
    private var sources: [any DispatchSourceSignal] = []
    private let lock = NSLock()
    private var phase = Phase.working

    /// Installs the handlers (`installing: false`: none, for tests that call `deliver`); `exitProcess`
    /// ends the process (tests record the code instead).
    init(directory: ResultsDirectory, output: any TextOutput, command: String = "prestage run", installing: Bool = true,
         exitProcess: @escaping (Int32) -> Void = { exit($0) }) {
        self.directory = directory
        self.output = output
        self.command = command
        self.exitProcess = exitProcess
        guard installing else { return }
        sources = Self.handled.map { handled in
            signal(handled.signal, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: handled.signal, queue: DispatchQueue.global())
            source.setEventHandler { [weak self] in self?.deliver(handled) }
            source.resume()
            return source
        }
    }

    /// What a handled signal does: while working, marks the partial directory, says so and exits
    /// (holding the lock, so no commit can start meanwhile); while committing, is held for
    /// `committing` to act on; once removed, nothing.
    func deliver(_ handled: Handled) {
        lock.lock()
        switch phase {
        case .working:
            RunCommand.markIncomplete(directory, reason: handled.reason)
            output.write("\n\(command): \(handled.verb); partial results left in \(directory.partialURL.path) (INCOMPLETE)\n")
            exitProcess(handled.code.rawValue)
            lock.unlock()
        case .committing(held: nil):
            phase = .committing(held: handled)
            lock.unlock()
        case .committing, .removed:
            lock.unlock()
        }
    }

    /// Runs `commit` (which writes the last files and renames `NAME.partial/` to `NAME/`) with
    /// signals held; a signal that arrived meanwhile then exits with its code, saying the results
    /// are complete (or, when `commit` threw, rethrows: the caller reports the failure).
    func committing<T>(_ commit: () throws -> T) rethrows -> T {
        lock.lock()
        if case .working = phase { phase = .committing(held: nil) }
        lock.unlock()
        let value: T
        do { value = try commit() } catch {
            finishCommitting()
            throw error
        }
        if let held = finishCommitting() {
            output.write("\n\(command): \(held.verb) while committing; the results are complete in \(directory.finalURL.path)\n")
            exitProcess(held.code.rawValue)
        }
        return value
    }

    /// Leaves the committing phase: signals have their default effect from here on.
    /// - Returns: the signal held meanwhile, if any.
    @discardableResult
    private func finishCommitting() -> Handled? {
        lock.lock()
        var held: Handled? = nil
        if case let .committing(h) = phase { held = h }
        lock.unlock()
        remove()
        return held
    }

    /// Restores the default behaviour of the handled signals (idempotent).
    func remove() {
        lock.lock()
        defer { lock.unlock() }
        if case .removed = phase { return }
        phase = .removed
        for (source, handled) in zip(sources, Self.handled) {
            source.cancel()
            signal(handled.signal, SIG_DFL)
        }
    }
}
