import Dispatch
import Foundation
import PushModel
import ScenarioFormat
import SimKernel

/// Runs a sweep's work items on several threads; each result is written to its own file as soon
/// as it is complete, so the output never depends on completion order.
package struct SweepRunner {
    let plan: SweepPlan
    /// The `items/` directory.
    let items: URL
    let jobs: Int

    /// A runner of `plan`'s items writing to `items` on `jobs` threads.
    package init(plan: SweepPlan, items: URL, jobs: Int) {
        self.plan = plan
        self.items = items
        self.jobs = jobs
    }

    /// "a=1, b=x" for a point.
    static func describe(_ point: SweepPoint, axes: [SweepAxis]) -> String {
        zip(axes, point.values).map { "\($0.field)=\($1.plainText)" }.joined(separator: ", ")
    }

    /// A work item that failed.
    package struct Failure: Error, CustomStringConvertible {
        let point: Int
        let replication: Int
        let message: String
        package var description: String { "point \(point), replication \(replication): \(message)" }
    }

    /// Runs work items `missing` (a subset of `mine`, this process's items) and calls `progress`
    /// with a line each time all of a point's items in `mine` are complete.
    /// - Throws: the `Failure` of the lowest failed item (no new items start after a failure).
    package func run(_ missing: [Int], mine: [Int], progress: @escaping @Sendable (String) -> Void) throws(Failure) {
        let manifest = plan.manifest
        let r = manifest.replications
        var remaining = [Int](repeating: 0, count: manifest.points.count)
        for k in missing { remaining[k / r] += 1 }
        var owned = [Int](repeating: 0, count: manifest.points.count)
        for k in mine { owned[k / r] += 1 }
        let queue = SweepQueue(items: missing, remainingPerPoint: remaining)
        let limitsByPoint = plan.scenarios.map { RunLimits(eventsMax: $0.run.eventsMax, progressEveryEvents: ReplicationRunner.progressEveryEvents) }
        let pointsWithWork = remaining.filter { $0 > 0 }.count
        let plan = self.plan, itemsURL = items, ownedPerPoint = owned
        // A line every `ProgressBoard.heartbeatSeconds` while items run, however slow each is.
        let heartbeat = DispatchSource.makeTimerSource(queue: DispatchQueue.global())
        let interval = DispatchTimeInterval.seconds(ProgressBoard.heartbeatSeconds)
        heartbeat.schedule(deadline: .now() + interval, repeating: interval)
        heartbeat.setEventHandler { progress("still running: \(queue.itemsDone) of \(missing.count) item(s) done") }
        heartbeat.resume()
        defer { heartbeat.cancel() }
        DispatchQueue.concurrentPerform(iterations: max(1, min(jobs, missing.count))) { _ in
            while let k = queue.claim() {
                let (p, rep) = (k / r, k % r)
                do {
                    // The world a run simulates (InfraModel's series cover the horizon; uncertain inputs drawn).
                    let result = try PushSimulation.run(try plan.scenarios[p].world(replication: rep), masterSeed: manifest.seed, replication: rep, limits: limitsByPoint[p])
                    let item = SweepItemResult(sweepHash: manifest.sweepHash, point: p, replication: rep, seed: manifest.seed, result: result)
                    try AtomicWriter.write(try CanonicalJSON.encode(item), to: itemsURL.appendingPathComponent(SweepItemResult.fileName(point: p, replication: rep)))
                    if let done = queue.finished(k, point: p) {
                        progress("point \(p + 1)/\(manifest.points.count) [\(SweepRunner.describe(manifest.points[p], axes: manifest.axes))]: "
                                 + "\(ownedPerPoint[p]) replication(s) done (\(done)/\(pointsWithWork) points)")
                    }
                } catch {
                    queue.fail(Failure(point: p, replication: rep, message: "\(error)"), at: k)
                }
            }
        }
        if let failure = queue.firstFailure { throw failure }
    }
}

/// The claim counter and per-point completion counts of a sweep run.
final class SweepQueue: @unchecked Sendable {
    private let lock = NSLock()
    private let items: [Int]
    private var next = 0
    private var remaining: [Int]
    private var pointsDone = 0
    private var done = 0
    private var failures: [(Int, SweepRunner.Failure)] = []

    init(items: [Int], remainingPerPoint: [Int]) {
        self.items = items
        self.remaining = remainingPerPoint
    }

    /// The next item to run, or nil when all are claimed or one has failed.
    func claim() -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard failures.isEmpty, next < items.count else { return nil }
        next += 1
        return items[next - 1]
    }

    /// Records item `k` of `point` as complete; returns the number of points done if it was the
    /// point's last item.
    func finished(_ k: Int, point: Int) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        done += 1
        remaining[point] -= 1
        guard remaining[point] == 0 else { return nil }
        pointsDone += 1
        return pointsDone
    }

    func fail(_ failure: SweepRunner.Failure, at k: Int) {
        lock.lock()
        failures.append((k, failure))
        lock.unlock()
    }

    /// Items finished so far.
    var itemsDone: Int {
        lock.lock()
        defer { lock.unlock() }
        return done
    }

    /// The failure of the lowest item index.
    var firstFailure: SweepRunner.Failure? {
        lock.lock()
        defer { lock.unlock() }
        return failures.min { $0.0 < $1.0 }?.1
    }
}
