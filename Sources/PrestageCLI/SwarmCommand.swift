import Experiments
import Foundation
import ScenarioFormat

/// `prestage swarm [--seed S] [--worlds K] [--keep DIR]`: random small worlds checked against the
/// model's conservation laws and determinism.
struct SwarmCommand: ParsableCommand {
    /// Most worlds one command runs.
    static let worldsMax = 10_000_000

    /// `--seed S`: the first world's seed.
    static let seedOption = Option.unsignedInteger("seed", valueName: "S", help: "swarm seed: the first world's seed (default 1)")
    /// `--worlds K`.
    static let worldsOption = Option.integer("worlds", 1...worldsMax, valueName: "K", help: "worlds to run (default 100)")
    /// `--keep DIR`.
    static let keepOption = Option.string("keep", valueName: "DIR", help: "write each failing world's scenario to DIR/swarm-SEED.json")
    /// `--jobs N`: worlds at once.
    static let jobsOption = OutputOptions.jobs.help("worlds run at once (default: all cores)")

    static let configuration = CommandSpec(
        "swarm", summary: "run random small worlds and check the model's conservation laws and determinism",
        declaring: [seedOption, worldsOption, keepOption, jobsOption],
        exitCodes: [ExitCodeDoc(.ok, "every law held in every world"),
                    ExitCodeDoc(.runFailed, "a failing world's scenario could not be kept (--keep)"),
                    ExitCodeDoc(.badInput, "a bad command line, or no readable scenario in the library"),
                    ExitCodeDoc(.gateNotPassed, "a law failed in some world (one line per failure, each with the command that reproduces it)")])

    /// The first world's seed.
    let seed: UInt64
    /// How many worlds to run.
    let worlds: Int
    /// Where failing worlds' scenarios are written, if anywhere.
    let keepDirectory: String?
    /// Worlds run at once; nil: all cores.
    let jobs: Int?

    init(parsed: ParsedCommand) {
        seed = parsed[Self.seedOption] ?? 1
        worlds = parsed[Self.worldsOption] ?? 100
        keepDirectory = parsed[Self.keepOption]
        jobs = parsed[Self.jobsOption]
    }

    static let helpFooter = """

    Each world is drawn from its own seed within the ranges the scenario readers declare
    (`prestage schema scenario`), starting from a library scenario: 20-400 devices, a horizon
    of 1-15 minutes, 1-4 campaigns, varied platform and network mix, topology, caches, origin,
    policy, users and Doze. It runs through the scenario reader and the replication runner,
    twice (on 1 and on 2 threads, 2 replications), and is checked: every targeted push in
    exactly one outcome, requests = hits + misses at every tier, bytes between tiers bounded,
    no metric NaN, every ratio in [0, 1], identical results on 1 and 2 threads. A debug build
    also runs the model's invariant checks. Each failure prints one line ending in
    `reproduce with: prestage swarm --seed N --worlds 1`, N being that world's seed.
    Exit status 0 when every law holds, 1 otherwise.

    examples:
      prestage swarm --worlds 500
      prestage swarm --seed 42 --worlds 5000 --keep /tmp/swarm
      prestage swarm --seed 1234567 --worlds 1
    """

    func execute(environment env: CommandEnvironment) -> ExitCode {
        let swarm: Swarm
        do {
            swarm = try Swarm(library: ScenarioLibrary(directories: env.scenarioDirectories))
        } catch {
            env.standardError.write("prestage swarm: \(error.description)\n")
            return .badInput
        }
        let tally = SwarmTally()
        let reports = swarm.run(worldSeeds: Swarm.worldSeeds(from: seed, count: worlds),
                                threads: jobs ?? env.processorCount) { k, report in
            for f in report.findings { env.standardOutput.write("FAIL \(f)\n") }
            if let dir = keepDirectory, let document = report.findings.first(where: { $0.document != nil })?.document,
               !keep(document, seed: report.seed, in: dir, env: env) {
                tally.keepFailed()
            }
            let found = tally.add(report)
            if worlds >= 100, (k + 1) % 100 == 0 {
                env.standardError.write("swarm: \(k + 1) of \(worlds) worlds, \(found) finding\(found == 1 ? "" : "s")\n")
            }
        }
        let findings = reports.reduce(0) { $0 + $1.findings.count }
        let failingWorlds = reports.filter { !$0.findings.isEmpty }.count
        let redraws = reports.reduce(0) { $0 + $1.redraws }
        let events = reports.reduce(UInt64(0)) { $0 + $1.eventsProcessed }
        let keepFailed = tally.anyKeepFailed
        env.standardOutput.write("swarm: \(worlds) world\(worlds == 1 ? "" : "s") from seed \(seed), \(events) events, "
                                 + "\(redraws) redraw\(redraws == 1 ? "" : "s") (rules between fields), "
                                 + "\(findings) finding\(findings == 1 ? "" : "s") in \(failingWorlds) world\(failingWorlds == 1 ? "" : "s")\n")
        if keepFailed { return .runFailed }
        return findings > 0 ? .gateNotPassed : .ok
    }

    /// Writes a failing world's scenario to `DIR/swarm-SEED.json`; false (with a message) on failure.
    private func keep(_ document: Data, seed: UInt64, in dir: String, env: CommandEnvironment) -> Bool {
        let url = URL(fileURLWithPath: dir, isDirectory: true).appendingPathComponent("swarm-\(seed).json")
        do {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            try document.write(to: url, options: .atomic)
            env.standardOutput.write("  kept \(url.path)\n")
            return true
        } catch {
            env.standardError.write("prestage swarm: cannot write \(url.path): \(error.localizedDescription)\n")
            return false
        }
    }
}

/// Findings counted as worlds finish (for the progress line), and whether a kept file failed.
private final class SwarmTally: @unchecked Sendable {
    private let lock = NSLock()
    private var findings = 0
    private var keepFailures = 0

    /// Adds `report`'s findings; returns the total so far.
    func add(_ report: SwarmWorldReport) -> Int {
        lock.lock()
        defer { lock.unlock() }
        findings += report.findings.count
        return findings
    }

    func keepFailed() {
        lock.lock()
        keepFailures += 1
        lock.unlock()
    }

    var anyKeepFailed: Bool {
        lock.lock()
        defer { lock.unlock() }
        return keepFailures > 0
    }
}
