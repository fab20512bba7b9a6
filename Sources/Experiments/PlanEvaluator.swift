import Dispatch
import Foundation
import PushModel
import ScenarioFormat
import SimKernel

/// Runs the replications a plan asks for and keeps each one's metrics in its own file, written
/// atomically as soon as it finishes, named by the hash of the scenario as run (knob value and
/// every override applied, replication count excluded) and the replication index. A rerun of the
/// same plan, or an interrupted one, reuses every finished replication.
package final class PlanEvaluator: @unchecked Sendable {
    /// One replication's metrics as stored.
    struct Stored: Codable {
        let scenarioHash: String
        let replication: Int
        let metrics: [String: Double]
    }

    /// A replication that failed, or a file that could not be written.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package let description: String
        /// Set in `emitOnly` mode: the replication count the plan needs and nothing has stored yet.
        package var replicationsNeeded: Int? = nil
    }

    /// Run nothing: a request for replications not stored yet throws a `Failure` with
    /// `replicationsNeeded` (`plan --emit-sweep`).
    package var emitOnly = false

    /// Where the replication files go (created on first use).
    package let directory: URL
    /// Threads.
    let jobs: Int
    /// Replications run in this process, and reused from earlier runs.
    package private(set) var replicationsRun = 0
    package private(set) var replicationsReused = 0
    /// Called after each batch of replications (progress lines).
    let log: (String) -> Void

    package init(directory: URL, jobs: Int, log: @escaping (String) -> Void) {
        self.directory = directory
        self.jobs = max(1, jobs)
        self.log = log
    }

    /// The key of `scenario`'s replications: its hash with the replication count set aside.
    package static func key(_ scenario: ScenarioFile) throws -> String {
        var s = scenario
        s.run.replications = 1
        return try s.hash()
    }

    /// The metrics of replications 0..<count of `scenario` (one name → value map per replication),
    /// running only those not stored yet.
    package func metrics(of scenario: ScenarioFile, count: Int) throws(Failure) -> [[String: Double]] {
        let key: String
        do { key = try Self.key(scenario) } catch { throw Failure(description: "cannot hash the scenario: \(error)") }
        let stem = String(key.dropFirst("sha256:".count).prefix(32))
        var out = [[String: Double]?](repeating: nil, count: count)
        var missing: [Int] = []
        for r in 0..<count {
            let url = directory.appendingPathComponent("\(stem)-r\(r).json")
            if let data = FileManager.default.contents(atPath: url.path),
               let stored = try? JSONDecoder().decode(Stored.self, from: data), stored.scenarioHash == key, stored.replication == r {
                out[r] = stored.metrics
                replicationsReused += 1
            } else {
                missing.append(r)
            }
        }
        guard !missing.isEmpty else { return out.map { $0 ?? [:] } }
        if emitOnly { throw Failure(description: "\(missing.count) replications not stored yet", replicationsNeeded: count) }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch { throw Failure(description: "\(directory.path): cannot create the directory: \(error)") }
        let world = scenario.modelWorld, seed = scenario.run.seed
        let limits = RunLimits(eventsMax: scenario.run.eventsMax)
        let state = BatchState(missing: missing)
        let directory = self.directory
        DispatchQueue.concurrentPerform(iterations: min(jobs, missing.count)) { _ in
            while let r = state.claim() {
                do {
                    let result = try PushSimulation.run(world, masterSeed: seed, replication: r, limits: limits)
                    var metrics: [String: Double] = [:]
                    for m in result.metrics { metrics[m.name] = m.value }
                    let data = try CanonicalJSON.encode(Stored(scenarioHash: key, replication: r, metrics: metrics))
                    try AtomicWriter.write(data, to: directory.appendingPathComponent("\(stem)-r\(r).json"))
                    state.store(metrics, at: r)
                } catch {
                    state.fail(Failure(description: "replication \(r): \(error)"))
                }
            }
        }
        if let failure = state.failure { throw failure }
        for (r, m) in state.results { out[r] = m }
        replicationsRun += missing.count
        return out.map { $0 ?? [:] }
    }

    /// Stores replications computed elsewhere (a sweep's items) as this evaluator's files.
    /// - Returns: how many were stored.
    package func store(_ perReplication: [Int: [String: Double]], of scenario: ScenarioFile) throws -> Int {
        let key = try Self.key(scenario)
        let stem = String(key.dropFirst("sha256:".count).prefix(32))
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (r, metrics) in perReplication.sorted(by: { $0.key < $1.key }) {
            let data = try CanonicalJSON.encode(Stored(scenarioHash: key, replication: r, metrics: metrics))
            try AtomicWriter.write(data, to: directory.appendingPathComponent("\(stem)-r\(r).json"))
        }
        return perReplication.count
    }

    /// The objectives of `scenario` checked on its replications 0..<count.
    package func report(_ scenario: ScenarioFile, count: Int) throws(Failure) -> SLOReport {
        let perReplication = try metrics(of: scenario, count: count)
        return SLOReport(scenario.slo) { name in perReplication.map { $0[name] ?? .nan } }
    }
}

/// The replications of one batch, claimed by worker threads.
final class BatchState: @unchecked Sendable {
    private let lock = NSLock()
    private let missing: [Int]
    private var next = 0
    private(set) var results: [Int: [String: Double]] = [:]
    private(set) var failure: PlanEvaluator.Failure?

    init(missing: [Int]) { self.missing = missing }

    /// The next replication to run, or nil when all are claimed or one has failed.
    func claim() -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard failure == nil, next < missing.count else { return nil }
        next += 1
        return missing[next - 1]
    }

    func store(_ metrics: [String: Double], at r: Int) {
        lock.lock()
        results[r] = metrics
        lock.unlock()
    }

    func fail(_ f: PlanEvaluator.Failure) {
        lock.lock()
        if failure == nil { failure = f }
        lock.unlock()
    }
}
