import Dispatch
import Foundation
import PushModel
import ReportKit
import ScenarioFormat
import SimKernel

/// Runs a scenario's replications on several threads and collects the results by replication
/// index, so the output does not depend on the thread count or on which thread finished first.
package struct ReplicationRunner: Sendable {
    /// Events between progress reports of one replication.
    static let progressEveryEvents: UInt64 = 200_000

    /// The scenario to run (resolved).
    let scenario: ScenarioFile
    /// Threads (1...replications).
    let jobs: Int

    /// A runner of `scenario` on `jobs` threads (clamped to 1...replications).
    package init(scenario: ScenarioFile, jobs: Int) {
        self.scenario = scenario
        self.jobs = max(1, min(jobs, scenario.run.replications))
    }

    /// A replication that failed.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        /// Its index.
        let replication: Int
        /// What went wrong.
        let message: String
        package var description: String { "replication \(replication): \(message)" }
    }

    /// Runs every replication (no new ones are started after a failure) and returns the results
    /// in replication order.
    /// - Throws: `Failure` of the lowest-numbered failed replication.
    /// - Complexity: the simulation's work, spread over `jobs` threads.
    package func run(progress: ProgressBoard) throws(Failure) -> [ReplicationResult] {
        let count = scenario.run.replications
        let slots = ResultSlots(count: count)
        let world = scenario.modelWorld
        let seed = scenario.run.seed
        let limits = RunLimits(eventsMax: scenario.run.eventsMax, progressEveryEvents: Self.progressEveryEvents)
        DispatchQueue.concurrentPerform(iterations: jobs) { _ in
            while let r = slots.claim() {
                progress.started(replication: r)
                let sink = ReplicationProgress(board: progress, replication: r)
                do {
                    let result = try PushSimulation.run(world, masterSeed: seed, replication: r, limits: limits, progress: sink)
                    slots.store(.success(result), at: r)
                    progress.finished(replication: r, eventsProcessed: result.eventsProcessed, virtualSeconds: result.virtualEndSeconds)
                } catch {
                    slots.store(.failure(Failure(replication: r, message: "\(error)")), at: r)
                    progress.failed(replication: r)
                }
            }
        }
        return try slots.results()
    }
}

/// Result slots filled by worker threads, one per replication, plus the claim counter.
final class ResultSlots: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [Result<ReplicationResult, ReplicationRunner.Failure>?]
    private var next = 0
    private var failed = false

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    /// The next replication to run, or nil when all are claimed or one has failed.
    func claim() -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard !failed, next < slots.count else { return nil }
        next += 1
        return next - 1
    }

    func store(_ result: Result<ReplicationResult, ReplicationRunner.Failure>, at index: Int) {
        lock.lock()
        slots[index] = result
        if case .failure = result { failed = true }
        lock.unlock()
    }

    /// Every result in index order, or the lowest-index failure. Slots are empty only after a
    /// failure (claims stop then), so without a failure every slot is filled.
    func results() throws(ReplicationRunner.Failure) -> [ReplicationResult] {
        lock.lock()
        defer { lock.unlock() }
        var out: [ReplicationResult] = []
        for slot in slots {
            switch slot {
            case let .success(r)?: out.append(r)
            case let .failure(f)?: throw f
            case nil: continue
            }
        }
        precondition(out.count == slots.count, "a replication slot is empty without a failure")
        return out
    }
}

/// Forwards one replication's progress reports to the shared board.
final class ReplicationProgress: ProgressSink {
    let board: ProgressBoard
    let replication: Int

    init(board: ProgressBoard, replication: Int) {
        self.board = board
        self.replication = replication
    }

    func progress(virtualSeconds: Double, eventsProcessed: UInt64, devicesDone: Int, devicesTotal: Int) {
        board.update(replication: replication, virtualSeconds: virtualSeconds, eventsProcessed: eventsProcessed,
                     devicesDone: devicesDone, devicesTotal: devicesTotal)
    }
}

/// Progress of all replications, shown on standard error: a live line redrawn at most 4 times a
/// second on a terminal, else one line per finished replication (readable CI logs) and, while a
/// replication is slow, a "still running" line every `heartbeatSeconds` from a timer, so a long
/// run is never silent whatever its size. Wall-clock time is used only for this display, never
/// for results.
package final class ProgressBoard: @unchecked Sendable {
    private struct Row {
        var virtualSeconds = 0.0
        var events: UInt64 = 0
        var devicesDone = 0
        var devicesTotal = 0
        var state = 0  // 0 waiting, 1 running, 2 done, 3 failed
    }

    private let lock = NSLock()
    private let output: any TextOutput
    private let live: Bool
    private let horizonSeconds: Double
    private var rows: [Row]
    private let start = DispatchTime.now().uptimeNanoseconds
    private var lastDrawNanoseconds: UInt64 = 0
    private var drewLine = false
    private var estimate = ProgressEstimate()
    /// Wall seconds between "still running" lines when not live.
    package static let heartbeatSeconds = 30
    private var heartbeat: (any DispatchSourceTimer)?

    /// A board for `replications` replications of `horizonSeconds` each, drawing to `output`.
    package init(output: any TextOutput, live: Bool, replications: Int, horizonSeconds: Double) {
        self.output = output
        self.live = live
        self.horizonSeconds = max(horizonSeconds, 1e-9)
        self.rows = Array(repeating: Row(), count: replications)
    }

    /// Starts the timer of the "still running" lines (not live only; `finish` stops it).
    package func startHeartbeat() {
        guard !live else { return }
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global())
        let interval = DispatchTimeInterval.seconds(Self.heartbeatSeconds)
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler { [weak self] in self?.beat(now: DispatchTime.now().uptimeNanoseconds) }
        lock.lock()
        heartbeat = timer
        lock.unlock()
        timer.resume()
    }

    /// Writes one "still running" line with the running replications' state (what the timer calls).
    func beat(now: UInt64) {
        lock.lock()
        defer { lock.unlock() }
        guard rows.contains(where: { $0.state == 1 }) else { return }
        output.write("still running: " + liveLine(now: now) + "\n")
    }

    func started(replication r: Int) {
        lock.lock()
        rows[r].state = 1
        lock.unlock()
    }

    func update(replication r: Int, virtualSeconds: Double, eventsProcessed: UInt64, devicesDone: Int, devicesTotal: Int) {
        lock.lock()
        defer { lock.unlock() }
        rows[r].virtualSeconds = virtualSeconds
        rows[r].events = eventsProcessed
        rows[r].devicesDone = devicesDone
        rows[r].devicesTotal = devicesTotal
        guard live else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        if now - lastDrawNanoseconds >= 250_000_000 {
            lastDrawNanoseconds = now
            output.write("\r" + liveLine(now: now) + "\u{1B}[K")
            drewLine = true
        }
    }

    func finished(replication r: Int, eventsProcessed: UInt64, virtualSeconds: Double) {
        lock.lock()
        defer { lock.unlock() }
        rows[r].state = 2
        rows[r].events = eventsProcessed
        rows[r].virtualSeconds = virtualSeconds
        let now = DispatchTime.now().uptimeNanoseconds
        let done = rows.filter { $0.state == 2 }.count
        if live {
            output.write("\r" + liveLine(now: now) + "\u{1B}[K")
            drewLine = true
        } else {
            let wall = Double(now - start) / 1e9
            output.write("replication \(r + 1)/\(rows.count) done: \(eventsProcessed) events, \(TextNumber.format(virtualSeconds, significant: 6)) s virtual "
                         + "(\(done)/\(rows.count) complete, \(TextNumber.format(wall, significant: 3)) s wall)\n")
        }
    }

    func failed(replication r: Int) {
        lock.lock()
        rows[r].state = 3
        lock.unlock()
    }

    /// Ends the live line (call once the run is over).
    package func finish() {
        lock.lock()
        defer { lock.unlock() }
        heartbeat?.cancel()
        heartbeat = nil
        if drewLine { output.write("\n") }
        drewLine = false
    }

    /// Width of the live progress bar, in cells.
    static let barWidth = 24

    /// The share of the run's work done: events processed over the events expected (a finished
    /// replication's count times the replications) once one has finished, else virtual time over the
    /// horizon (events are not spread evenly over virtual time, so this is only the first guess).
    private func workFraction() -> Double {
        let finished = rows.filter { $0.state == 2 }
        if !finished.isEmpty {
            let perReplication = Double(finished.reduce(UInt64(0)) { $0 &+ $1.events }) / Double(finished.count)
            let events = rows.reduce(0.0) { $0 + ($1.state == 2 ? perReplication : min(Double($1.events), perReplication)) }
            return perReplication > 0 ? events / (perReplication * Double(rows.count)) : 0
        }
        return rows.reduce(0.0) { $0 + min(1, $1.virtualSeconds / horizonSeconds) } / Double(rows.count)
    }

    /// "[#########...............] 38% · 0:41 elapsed · 2/5 replications · 1.20 M events/s · ETA 1:05".
    private func liveLine(now: UInt64) -> String {
        let elapsed = Double(now - start) / 1e9
        let done = rows.filter { $0.state == 2 }.count
        let events = rows.reduce(UInt64(0)) { $0 &+ $1.events }
        let fraction = workFraction()
        var line = ProgressEstimate.bar(fraction, width: Self.barWidth) + " " + String(Int((fraction * 100).rounded(.down))) + "%"
        line += " · " + ProgressEstimate.clock(elapsed) + " elapsed · \(done)/\(rows.count) replications"
        if elapsed > 0 { line += " · " + HumanScale.format(Double(events) / elapsed, unit: .perSecond(noun: "events")) }
        if let eta = estimate.update(elapsedSeconds: elapsed, fraction: fraction) {
            line += " · ETA " + ProgressEstimate.clock(eta)
        }
        return line
    }
}
