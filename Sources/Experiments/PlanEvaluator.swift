import Dispatch
import Foundation
import PushModel
import ScenarioFormat
import SimKernel

/// One replication of one value a plan tried, as `DIR/evaluations/STEM-rR.json` holds it (STEM:
/// the first 32 hex digits of `scenarioHash`).
package struct PlanReplicationFile: Codable, Sendable, Equatable, ContentHashed {
    /// Identifies the file format.
    static let formatName = "prestage-plan-evaluation/1"

    /// `formatName`.
    var format: String
    /// The hash of the scenario as run (knob value and every override applied) with the
    /// replication count set aside: `PlanEvaluator.key`.
    var scenarioHash: String
    /// The assignments that made it from the plan's scenario: `--for PATH=V` (when given), then
    /// the knob's `PATH=V`, then `--pilot-scale K` for a scaled pilot's replication.
    var assignments: [String]
    /// The master seed; replication `replication` uses streams derived from (seed, replication).
    var seed: UInt64
    /// Replication index (0-based).
    var replication: Int
    /// Metric name → value.
    var metrics: [String: Double]
    /// "sha256:…" of the evaluation's canonical JSON with this field empty: it covers the values,
    /// the assignments (the knob's value), the replication, the seed and the scenario hash, so an
    /// edited, damaged or misplaced (copied and renamed) file is recognised when it is read.
    var contentHash: String

    init(scenarioHash: String, assignments: [String], seed: UInt64, replication: Int, metrics: [String: Double]) {
        format = Self.formatName
        self.scenarioHash = scenarioHash
        self.assignments = assignments
        self.seed = seed
        self.replication = replication
        self.metrics = metrics
        contentHash = ""
        seal()
    }

    /// The file name of replication `replication` of the scenario whose key is `key`.
    static func fileName(key: String, replication: Int) -> String {
        "\(key.dropFirst("sha256:".count).prefix(32))-r\(replication).json"
    }

    /// Whether `name` is shaped like an evaluation's file name (32 hex digits, `-r`, an index).
    static func isFileName(_ name: String) -> Bool {
        let u = Array(name.utf8)
        guard u.count > 32 + 2 + 5, name.hasSuffix(".json"), u[32] == UInt8(ascii: "-"), u[33] == UInt8(ascii: "r") else { return false }
        let hex = u[0..<32].allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
        let index = u[34..<(u.count - 5)]
        return hex && !index.isEmpty && index.count <= 9 && index.allSatisfy { (48...57).contains($0) }
    }
}

/// Runs the replications a plan asks for and keeps each one in its own file (a `PlanReplicationFile`),
/// written atomically as soon as it finishes, named by the hash of the scenario as run (knob value
/// and every override applied, replication count excluded) and the replication index. A rerun of
/// the same plan, or an interrupted one, reuses every finished replication whose file checks out
/// (format, scenario hash, assignments, seed, replication, content hash); any other is named and
/// run again.
package final class PlanEvaluator: @unchecked Sendable {
    /// A replication that failed, or a file that could not be written.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package let description: String
        /// Set in `emitOnly` mode: the replication count the plan needs and nothing has stored yet.
        package var replicationsNeeded: Int? = nil
    }

    /// Largest evaluation file read.
    static let fileBytesMax = 16 << 20

    /// Run nothing: a request for replications not stored yet throws a `Failure` with
    /// `replicationsNeeded` (`plan --emit-sweep`).
    package var emitOnly = false

    /// Where the replication files go (the plan's `evaluations/`, created by `PlanResults`).
    package let directory: URL
    /// Threads.
    let jobs: Int
    /// Replications run in this process, and reused from earlier runs.
    package private(set) var replicationsRun = 0
    package private(set) var replicationsReused = 0
    /// Called with a line for the terminal (a stored replication run again, and why).
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

    /// The stored replication at `url`, checked against what it must be; a message saying what is
    /// wrong otherwise (nil: no file).
    static func read(_ url: URL, key: String, assignments: [String], seed: UInt64, replication r: Int) -> Result<PlanReplicationFile, CommandMessage>? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let stored: PlanReplicationFile
        switch SweepFiles.read(PlanReplicationFile.self, url, what: "a prestage plan evaluation") {
        case let .failure(message): return .failure(message)
        case let .success((e, _)): stored = e
        }
        guard stored.format == PlanReplicationFile.formatName else {
            return .failure(CommandMessage("\(url.path): format: expected \"\(PlanReplicationFile.formatName)\", found \(DisplayText.quoted(stored.format))"))
        }
        guard stored.scenarioHash == key, stored.replication == r, stored.seed == seed, stored.assignments == assignments else {
            return .failure(CommandMessage("\(url.path): expected replication \(r) of \(DisplayText.bounded(key)) (\(assignments.joined(separator: " ")), seed \(seed)), "
                                           + "found replication \(stored.replication) of \(DisplayText.bounded(stored.scenarioHash)) (\(DisplayText.bounded(stored.assignments.joined(separator: " "))), seed \(stored.seed)) (a misplaced file)"))
        }
        guard let expected = try? stored.computedHash(), expected == stored.contentHash else {
            return .failure(CommandMessage("\(url.path): contentHash: expected the hash of the evaluation's contents, found \(DisplayText.bounded(stored.contentHash)) (the file was edited or damaged)"))
        }
        return .success(stored)
    }

    /// The metrics of replications 0..<count of `scenario`, made from the plan's scenario by
    /// `assignments` (one name → value map per replication), running only those not stored yet.
    package func metrics(of scenario: ScenarioFile, assignments: [String], count: Int) throws(Failure) -> [[String: Double]] {
        let key: String
        do { key = try Self.key(scenario) } catch { throw Failure(description: "cannot hash the scenario: \(error)") }
        let seed = scenario.run.seed
        var out = [[String: Double]?](repeating: nil, count: count)
        var missing: [Int] = []
        for r in 0..<count {
            switch Self.read(directory.appendingPathComponent(PlanReplicationFile.fileName(key: key, replication: r)),
                             key: key, assignments: assignments, seed: seed, replication: r) {
            case let .success(stored)?:
                out[r] = stored.metrics
                replicationsReused += 1
            case let .failure(message)?:
                log("prestage plan: warning: \(message); running it again\n")
                missing.append(r)
            case nil:
                missing.append(r)
            }
        }
        guard !missing.isEmpty else { return out.map { $0 ?? [:] } }
        if emitOnly { throw Failure(description: "\(missing.count) replications not stored yet", replicationsNeeded: count) }
        let limits = RunLimits(eventsMax: scenario.run.eventsMax)
        let state = BatchState(missing: missing)
        let directory = self.directory
        DispatchQueue.concurrentPerform(iterations: min(jobs, missing.count)) { _ in
            while let r = state.claim() {
                do {
                    let result = try PushSimulation.run(try scenario.world(replication: r), masterSeed: seed, replication: r, limits: limits)
                    var metrics: [String: Double] = [:]
                    for m in result.metrics { metrics[m.name] = m.value }
                    let data = try CanonicalJSON.encode(PlanReplicationFile(scenarioHash: key, assignments: assignments, seed: seed, replication: r, metrics: metrics))
                    try AtomicWriter.write(data, to: directory.appendingPathComponent(PlanReplicationFile.fileName(key: key, replication: r)))
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
    package func store(_ perReplication: [Int: [String: Double]], of scenario: ScenarioFile, assignments: [String]) throws -> Int {
        let key = try Self.key(scenario)
        for (r, metrics) in perReplication.sorted(by: { $0.key < $1.key }) {
            let data = try CanonicalJSON.encode(PlanReplicationFile(scenarioHash: key, assignments: assignments, seed: scenario.run.seed, replication: r, metrics: metrics))
            try AtomicWriter.write(data, to: directory.appendingPathComponent(PlanReplicationFile.fileName(key: key, replication: r)))
        }
        return perReplication.count
    }

    /// The objectives of `scenario` (made by `assignments`) checked on its replications 0..<count.
    package func report(_ scenario: ScenarioFile, assignments: [String], count: Int) throws(Failure) -> SLOReport {
        let perReplication = try metrics(of: scenario, assignments: assignments, count: count)
        return SLOReport(scenario.slo, perDraw: scenario.replicationsPerDraw) { name in perReplication.map { $0[name] ?? .nan } }
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
