import Dispatch
import Foundation
import PushModel
import ScenarioFormat

/// A law a swarm world broke, with what regenerates that world.
package struct SwarmFinding: Sendable, CustomStringConvertible {
    /// The world's own seed.
    package var worldSeed: UInt64
    /// The law broken (or why the world could not be run).
    package var law: String
    /// The values that break it.
    package var values: String
    /// The world's scenario document, when one was drawn.
    package var document: Data?

    /// The command that regenerates exactly this world.
    package var reproduce: String { "prestage swarm --seed \(worldSeed) --worlds 1" }

    /// `world SEED: LAW: VALUES; reproduce with: prestage swarm --seed SEED --worlds 1`.
    package var description: String {
        "world \(worldSeed): \(law): \(values); reproduce with: \(reproduce)"
    }
}

/// What one world gave.
package struct SwarmWorldReport: Sendable {
    /// The world's own seed.
    package var seed: UInt64
    /// The library scenario it started from ("" when none was drawn).
    package var base: String
    /// Documents refused by rules between fields before this world (redrawn).
    package var redraws: Int
    /// Laws broken.
    package var findings: [SwarmFinding]
    /// Events processed over every run of the world (4 replications: jobs 1 and jobs 2).
    package var eventsProcessed: UInt64
}

/// A model-level swarm test: random small worlds drawn within the scenario readers' own field
/// ranges, each run through the real path (scenario reading, then `ReplicationRunner`, twice:
/// on 1 and on 2 threads) and checked against the model's conservation laws and determinism.
/// In a debug build the model's `PRESTAGE_INVARIANTS` checks run too.
package struct Swarm: Sendable {
    let generator: SwarmWorldGenerator

    /// A swarm drawing its bases from `library`.
    /// - Throws: `ScenarioLoadError` when the library has no readable scenario.
    package init(library: ScenarioLibrary) throws(ScenarioLoadError) {
        generator = try SwarmWorldGenerator(library: library)
    }

    /// The seeds of `count` worlds from swarm seed `seed`: `seed` itself first, each next one
    /// derived from the one before (so every world's seed starts a swarm whose first world it is).
    package static func worldSeeds(from seed: UInt64, count: Int) -> [UInt64] {
        var seeds: [UInt64] = []
        var s = seed
        for _ in 0..<max(0, count) {
            seeds.append(s)
            s = SwarmRandom.nextWorldSeed(after: s)
        }
        return seeds
    }

    /// Draws, runs and checks the worlds of `seeds` on `threads` threads (each world's own runs
    /// use 1, then 2 threads); `onWorld` is called once per world, in seed order, as soon as the
    /// worlds before it are done. Returns the reports in seed order.
    package func run(worldSeeds seeds: [UInt64], threads: Int, onWorld: @escaping @Sendable (Int, SwarmWorldReport) -> Void = { _, _ in })
        -> [SwarmWorldReport] {
        let box = SwarmReportBox(count: seeds.count, onWorld: onWorld)
        DispatchQueue.concurrentPerform(iterations: max(1, min(threads, seeds.count))) { _ in
            while let k = box.claim() { box.store(run(worldSeed: seeds[k]), at: k) }
        }
        return box.reports()
    }

    /// The world of `seed`, drawn and read (for `--keep` and tests).
    package func world(seed: UInt64) -> Result<SwarmWorld, SwarmDrawFailure> { generator.world(seed: seed) }

    /// Draws, runs and checks the world of `seed`.
    package func run(worldSeed seed: UInt64) -> SwarmWorldReport {
        let world: SwarmWorld
        switch generator.world(seed: seed) {
        case let .success(w): world = w
        case let .failure(.fieldRefused(document, message)):
            return report(seed, [SwarmFinding(worldSeed: seed, law: "a value inside its schema range is read", values: message, document: document)])
        case let .failure(.generator(message)):
            return report(seed, [SwarmFinding(worldSeed: seed, law: "the generator stays inside the schema", values: message, document: nil)])
        case let .failure(.alwaysRefused(document, message, attempts)):
            return report(seed, [SwarmFinding(worldSeed: seed, law: "a world is accepted within \(attempts) draws", values: message, document: document)])
        }
        var findings: [SwarmFinding] = []
        func found(_ law: String, _ values: String) {
            findings.append(SwarmFinding(worldSeed: seed, law: law, values: values, document: world.document))
        }
        let first: [ReplicationResult], second: [ReplicationResult]
        do {
            first = try Self.replications(world.scenario, jobs: 1)
            second = try Self.replications(world.scenario, jobs: 2)
        } catch {
            found("every replication runs to its end", "\(error)")
            return SwarmWorldReport(seed: seed, base: world.base, redraws: world.redraws, findings: findings, eventsProcessed: 0)
        }
        let facts = SwarmLaws.WorldFacts(world.scenario.world)
        for r in first {
            for v in SwarmLaws.check(r, facts: facts) { found(v.law, "replication \(r.replication): " + v.values) }
        }
        checkDeterminism(first, second, world: world, found: found)
        let events = (first + second).reduce(0) { $0 + $1.eventsProcessed }
        return SwarmWorldReport(seed: seed, base: world.base, redraws: world.redraws, findings: findings, eventsProcessed: events)
    }

    /// Same world and seed on 1 and on 2 threads: byte-identical results and equal summaries.
    private func checkDeterminism(_ first: [ReplicationResult], _ second: [ReplicationResult], world: SwarmWorld,
                                  found: (String, String) -> Void) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        for (a, b) in zip(first, second) {
            let ea: Data, eb: Data
            do {
                ea = try encoder.encode(a)
                eb = try encoder.encode(b)
            } catch {
                found("results encode (no NaN or infinity in a result)", "replication \(a.replication): \(error)")
                continue
            }
            if ea != eb {
                let differing = zip(a.metrics, b.metrics).first { $0.0 != $0.1 }
                let detail = differing.map { "\($0.0.name) \($0.0.value) vs \($0.1.value)" } ?? "events \(a.eventsProcessed) vs \(b.eventsProcessed)"
                found("jobs 1 and jobs 2 give identical results", "replication \(a.replication): \(detail)")
            }
        }
        let level = world.scenario.run.confidenceLevel
        do {
            let sa = try RunAggregate(results: first, confidenceLevel: level).metrics
            let sb = try RunAggregate(results: second, confidenceLevel: level).metrics
            if sa != sb { found("the same world and seed give identical summaries", "metric summaries differ between the two runs") }
            for m in sa where m.mean.map({ !$0.isFinite }) ?? false {
                found("every summary mean is finite", "\(m.name) = \(m.mean ?? .nan)")
            }
        } catch {
            found("replications aggregate", "\(error)")
        }
    }

    /// Every replication of `scenario` through the production runner on `jobs` threads.
    static func replications(_ scenario: ScenarioFile, jobs: Int) throws -> [ReplicationResult] {
        let board = ProgressBoard(output: SwarmSilentOutput(), live: false, replications: scenario.run.replications,
                                  horizonSeconds: scenario.world.horizonSeconds)
        return try ReplicationRunner(scenario: scenario, jobs: jobs).run(progress: board)
    }

    private func report(_ seed: UInt64, _ findings: [SwarmFinding]) -> SwarmWorldReport {
        SwarmWorldReport(seed: seed, base: "", redraws: 0, findings: findings, eventsProcessed: 0)
    }
}

/// Worlds claimed by worker threads and their reports, handed on in seed order.
final class SwarmReportBox: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [SwarmWorldReport?]
    private var next = 0
    private var delivered = 0
    private let onWorld: @Sendable (Int, SwarmWorldReport) -> Void

    init(count: Int, onWorld: @escaping @Sendable (Int, SwarmWorldReport) -> Void) {
        slots = Array(repeating: nil, count: count)
        self.onWorld = onWorld
    }

    /// The next world index to run, or nil when all are claimed.
    func claim() -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard next < slots.count else { return nil }
        next += 1
        return next - 1
    }

    /// Stores world `k`'s report and hands on every report now complete in order.
    func store(_ report: SwarmWorldReport, at k: Int) {
        lock.lock()
        defer { lock.unlock() }
        slots[k] = report
        while delivered < slots.count, let r = slots[delivered] {
            onWorld(delivered, r)
            delivered += 1
        }
    }

    /// Every report, in order (after every world was stored).
    func reports() -> [SwarmWorldReport] {
        lock.lock()
        defer { lock.unlock() }
        return slots.compactMap { $0 }
    }
}

/// Discards progress text (the swarm reports per world, not per replication).
final class SwarmSilentOutput: TextOutput {
    func write(_ text: String) {}
}
