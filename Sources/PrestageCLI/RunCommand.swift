import Dispatch
import Experiments
import Foundation
import Glibc
import PushModel
import ReportKit
import ScenarioFormat

/// Machine-dependent facts about a run, kept out of summary.json so that file stays byte-identical
/// across machines and thread counts.
struct RunInfo: Encodable {
    let toolVersion: String
    let wallSeconds: Double
    let jobs: Int
    let processorCount: Int
    let eventsProcessed: UInt64
    let eventsPerWallSecond: Double
    let memoryInputs: MemoryInputs
    let memoryEstimate: MemoryEstimate
    let memoryEstimateBytes: UInt64
    let availableMemoryBytes: UInt64
    let availableMemorySource: String
    let forcedMemory: Bool
    /// Peak resident set size of the process (getrusage ru_maxrss).
    let peakResidentBytes: UInt64
}

/// `prestage run SCENARIO`.
enum RunCommand {
    /// Assumed mean session length, seconds, for the active-session estimate (measured below 1 s
    /// at 20 000 pushes/s; doubled for slow networks).
    static let sessionSecondsAssumed = 2.0

    /// The files a run writes (`run-info.json` last): the only directory `--out` may replace is
    /// one holding these and nothing else, i.e. an earlier run's results.
    static let earlierResults = ResultsDirectory.Replaceable(
        files: ["scenario.json", "summary.json", "timeseries.csv", MetricTable.tapToPaintWindowsFile, "histograms.csv", "pops.csv", "region-misses.csv", "report.md", "report.html"],
        marker: "run-info.json")

    static func execute(_ parsed: ParsedCommand, environment env: CommandEnvironment) -> ExitCode {
        let library = ScenarioLibrary(directories: env.scenarioDirectories)
        let flags = ScenarioLoader.FlagOverrides(devices: parsed.integer("devices"), seed: parsed.unsignedInteger("seed"),
                                                 replications: parsed.integer("replications"))
        let scenario: ScenarioFile
        do {
            scenario = try ScenarioLoader.load(parsed.positionals[0], library: library, set: try OverlayOption.assignments(parsed), flags: flags).scenario
        } catch {
            env.standardError.write(error.description + "\n")
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
        let jobs = max(1, min(parsed.integer("jobs") ?? env.processorCount, scenario.run.replications))
        let inputs = memoryInputs(scenario, concurrentReplications: jobs)
        let estimate = MemoryEstimate(inputs)
        let available = env.availableMemory()
        let force = parsed.flag("force-memory")
        if let refusal = MemoryGuard.refusal(estimate: estimate, available: available, inputs: inputs) {
            if !force {
                env.standardError.write("prestage run: " + refusal + "\n")
                return .badInput
            }
            env.standardError.write("prestage run: warning: --force-memory: estimate \(MemoryGuard.formatBytes(estimate.totalBytes)) exceeds the available \(MemoryGuard.formatBytes(available.bytes))\n")
        }
        // Where the results go.
        let parent: URL, name: String
        if let out = parsed.string("out") {
            let url = URL(fileURLWithPath: out).standardizedFileURL
            parent = url.deletingLastPathComponent()
            name = url.lastPathComponent
        } else {
            parent = env.resultsParent
            name = "\(scenario.name)-seed\(scenario.run.seed)"
        }
        let directory: ResultsDirectory
        do {
            // This run owns NAME and NAME.partial from here on; a second run is refused.
            let lock = try OutputLock.acquire(in: parent, name: name, owner: env.owner())
            // Refuse a wrong --out now, not after the run: only earlier results are replaced.
            try ResultsDirectory.checkReplaceable(lock.parent.appendingPathComponent(name, isDirectory: true), RunCommand.earlierResults)
            directory = try ResultsDirectory.begin(lock, ownFiles: RunCommand.earlierResults.files)
            try directory.write(scenarioJSON, named: "scenario.json")
        } catch {
            env.standardError.write("prestage run: \(error)\n")
            return .badInput
        }
        let interrupt = env.handlesInterrupts ? InterruptGuard(directory: directory, output: env.standardError) : nil
        defer { interrupt?.remove() }

        env.standardError.write("prestage run: \(scenario.name): \(scenario.run.replications) replication(s) of \(scenario.world.population.devices) devices on \(jobs) thread(s), seed \(scenario.run.seed) → \(directory.finalURL.path)\n")
        let board = ProgressBoard(output: env.standardError, live: env.errorIsTerminal, replications: scenario.run.replications,
                                  horizonSeconds: scenario.world.horizonSeconds)
        board.startHeartbeat()
        let start = DispatchTime.now().uptimeNanoseconds
        let results: [ReplicationResult]
        do {
            results = try ReplicationRunner(scenario: scenario, jobs: jobs).run(progress: board)
            board.finish()
        } catch {
            board.finish()
            env.standardError.write("prestage run: \(error)\n")
            markIncomplete(directory, reason: "The run failed: \(error)")
            env.standardError.write("prestage run: partial results left in \(directory.partialURL.path) (INCOMPLETE)\n")
            return .runFailed
        }
        let wallSeconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        do {
            let aggregate = try RunAggregate(results: results, confidenceLevel: scenario.run.confidenceLevel,
                                         relativeHalfWidthTarget: scenario.run.relativeHalfWidthTarget)
            try directory.write(try ResultFiles.summaryJSON(scenario: scenario, hash: hash, results: results, aggregate: aggregate), named: "summary.json")
            try directory.write(ResultFiles.timeSeriesCSV(aggregate), named: "timeseries.csv")
            try directory.write(ResultFiles.tapToPaintWindowsCSV(aggregate), named: MetricTable.tapToPaintWindowsFile)
            try directory.write(ResultFiles.histogramsCSV(aggregate), named: "histograms.csv")
            let tables = PopAndRegionTables(results: results, regionPops: scenario.world.infra.topology.effectiveRegions.map(\.popIndex),
                                            confidenceLevel: scenario.run.confidenceLevel)
            try directory.write(tables.popsCSV(), named: "pops.csv")
            try directory.write(tables.regionMissesCSV(), named: "region-misses.csv")
            var report = ReportBuilder.build(scenario: scenario, hash: hash, aggregate: aggregate, tables: tables, results: results,
                                             invocation: invocation(parsed))
            let slo = scenario.slo.isEmpty ? nil : SLOReport(scenario.slo, aggregate: aggregate)
            if let slo { report.sections.insert(slo.reportSection, at: 0) }
            try directory.write(Data(MarkdownRenderer().render(report).utf8), named: "report.md")
            try directory.write(Data(HTMLRenderer().render(report).utf8), named: "report.html")
            let events = results.reduce(UInt64(0)) { $0 &+ $1.eventsProcessed }
            let info = RunInfo(toolVersion: ToolVersion.text, wallSeconds: wallSeconds, jobs: jobs, processorCount: env.processorCount,
                               eventsProcessed: events, eventsPerWallSecond: wallSeconds > 0 ? Double(events) / wallSeconds : 0,
                               memoryInputs: inputs, memoryEstimate: estimate, memoryEstimateBytes: estimate.totalBytes,
                               availableMemoryBytes: available.bytes, availableMemorySource: available.source, forcedMemory: force,
                               peakResidentBytes: peakResidentBytes())
            try directory.write(try CanonicalJSON.encode(info), named: "run-info.json")
            interrupt?.remove()
            let final = try directory.commit(replacing: RunCommand.earlierResults)
            env.standardOutput.write(headlineText(scenario: scenario, aggregate: aggregate, events: events, wallSeconds: wallSeconds))
            env.standardOutput.write("results: \(final.path)\nreport:  \(final.appendingPathComponent("report.html").path)\n")
            if let slo {
                env.standardOutput.write("service-level objectives: \(slo.verdict.rawValue)\n" + alignedTable(slo.rows).map { "  " + $0 + "\n" }.joined())
                if parsed.flag("fail-on-slo"), slo.verdict != .pass { return .gateNotPassed }
            }
            return .ok
        } catch {
            env.standardError.write("prestage run: cannot write the results: \(error)\n")
            markIncomplete(directory, reason: "Writing the results failed: \(error)")
            return .runFailed
        }
    }

    /// The changes to the scenario file as typed, for the report header: the flags, then each `--set`.
    static func invocation(_ parsed: ParsedCommand) -> ReportBuilder.Invocation {
        var overrides: [String] = []
        if let devices = parsed.integer("devices") { overrides.append("--devices \(devices)") }
        if let seed = parsed.unsignedInteger("seed") { overrides.append("--seed \(seed)") }
        if let replications = parsed.integer("replications") { overrides.append("--replications \(replications)") }
        overrides += parsed.strings("set").map { "--set " + $0 }
        return ReportBuilder.Invocation(overrides: overrides, devicesOverridden: parsed.integer("devices") != nil)
    }

    /// The memory estimate's inputs for a resolved scenario.
    static func memoryInputs(_ s: ScenarioFile, concurrentReplications: Int) -> MemoryInputs {
        let devices = s.world.population.devices
        var pushes = 0.0, sessions = 0.0
        for c in s.world.campaigns {
            let p = Double(devices) * c.audienceShare * Double(c.pushesPerDevice)
            pushes += p
            sessions += min(p, min(c.sendRatePerMinute, c.providerQuotaPerMinute) / 60 * sessionSecondsAssumed)
        }
        return MemoryInputs(devices: devices, pushesTargeted: Int(min(pushes, 1e15)), activeSessionsPeak: Int(min(sessions, 1e15)),
                            horizonSeconds: Int(s.world.horizonSeconds.rounded(.up)), replications: s.run.replications,
                            concurrentReplications: concurrentReplications)
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

    /// A few lines for the terminal: the headline metrics with their CIs.
    static func headlineText(scenario: ScenarioFile, aggregate: RunAggregate, events: UInt64, wallSeconds: Double) -> String {
        var rows: [[TableCell]] = []
        let shown = ReportBuilder.headlineOrder.compactMap { n in aggregate.metrics.first { $0.name == n } }
        for m in (shown.isEmpty ? Array(aggregate.metrics.prefix(ReportBuilder.headlinesMax)) : shown) {
            let scale = HumanScale.choose(for: ReportBuilder.measuredUnit(name: m.name, unit: m.unit), magnitude: m.mean ?? 0)
            rows.append([.text(MetricTable.spec(named: m.name)?.title ?? m.name), .text(m.mean.map { scale.text($0) } ?? "n/a"),
                         .text(m.confidenceInterval.map { "± " + scale.number($0.halfWidth) } ?? "—"), .text(m.name)])
        }
        let table = Table(caption: "", columns: [Table.Column("metric"), Table.Column("mean", alignment: .trailing),
                                                 Table.Column(TextNumber.format(scenario.run.confidenceLevel * 100, significant: 3) + "% CI", alignment: .trailing), Table.Column("id")], rows: rows)
        var lines = ["\(scenario.name): \(scenario.question)"]
        lines += TableText.plain(table).split(separator: "\n").map { "  " + $0 }
        lines.append("  \(events) events in \(TextNumber.format(wallSeconds, significant: 3)) s wall (\(aggregate.metrics.count) metrics in summary.json)")
        return lines.joined(separator: "\n") + "\n"
    }
}

/// While installed, SIGINT (Ctrl-C) and SIGTERM (a scheduler's preemption or time limit, `kill`)
/// record the signal in the partial directory's INCOMPLETE marker and exit with 130 or 143,
/// leaving `NAME.partial/` to be resumed or replaced by the next run.
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
        Handled(signal: SIGTERM, reason: "It was terminated (SIGTERM: preempted, out of time, or stopped); these are partial results. Rerun the same command to start again (a sweep resumes).",
                verb: "terminated", code: .terminated),
    ]

    private let sources: [any DispatchSourceSignal]
    private let lock = NSLock()
    private var removed = false

    init(directory: ResultsDirectory, output: any TextOutput, command: String = "prestage run") {
        sources = Self.handled.map { handled in
            signal(handled.signal, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: handled.signal, queue: DispatchQueue.global())
            source.setEventHandler {
                RunCommand.markIncomplete(directory, reason: handled.reason)
                output.write("\n\(command): \(handled.verb); partial results left in \(directory.partialURL.path) (INCOMPLETE)\n")
                exit(handled.code.rawValue)
            }
            source.resume()
            return source
        }
    }

    /// Restores the default SIGINT and SIGTERM behaviour (idempotent).
    func remove() {
        lock.lock()
        defer { lock.unlock() }
        guard !removed else { return }
        removed = true
        for (source, handled) in zip(sources, Self.handled) {
            source.cancel()
            signal(handled.signal, SIG_DFL)
        }
    }
}
