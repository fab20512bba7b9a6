import Dispatch
import Foundation
import PushModel
import ReportKit
import ScenarioFormat
import SimKernel

/// Runs a scenario's replications on several threads and collects the results by replication
/// index, so the output does not depend on the thread count or on which thread finished first.
package struct ReplicationRunner: Sendable {
    /// Events between progress reports of one replication: often enough that the live line and its
    /// ETA move several times a second even in a debug build (about 20 000 events a second on a
    /// loaded machine; at 200 000 it moved every 10 s there), rarely enough to cost nothing (a report
    /// is a few hundred nanoseconds and one lock: at 2 M events a second, 200 a second per thread).
    static let progressEveryEvents: UInt64 = 10_000

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
        let scenario = self.scenario
        let seed = scenario.run.seed
        let limits = RunLimits(eventsMax: scenario.run.eventsMax, progressEveryEvents: Self.progressEveryEvents)
        DispatchQueue.concurrentPerform(iterations: jobs) { _ in
            while let r = slots.claim() {
                progress.started(replication: r)
                let sink = ReplicationProgress(board: progress, replication: r)
                do {
                    let result = try PushSimulation.run(try scenario.world(replication: r), masterSeed: seed, replication: r, limits: limits, progress: sink)
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

    func progress(_ report: ProgressReport) {
        board.update(replication: replication, report)
    }
}

/// Progress of all replications, shown on standard error: a live line redrawn at most 4 times a
/// second on a terminal, else one line per finished replication (readable CI logs) and, while a
/// replication is slow, a "still running" line every `heartbeatSeconds` from a timer, so a long
/// run is never silent whatever its size. Wall-clock time is used only for this display, never
/// for results.
///
/// The work is events: each replication's events done against its `EventForecast` (a finished
/// one's against its count; one not yet forecast against the mean of those that are). The live
/// line fits the terminal's width (`columns`, asked at every redraw): parts are dropped, least
/// useful first, and the bar narrowed, so a redraw never wraps.
package final class ProgressBoard: @unchecked Sendable {
    private struct Row {
        var virtualSeconds = 0.0
        var events: UInt64 = 0
        var forecast = EventForecast()
        var expected: Double?
        var state = 0  // 0 waiting, 1 running, 2 done, 3 failed
        /// When it started (clock reading) and its pace so far (recorded until a pace is chosen).
        var startNanoseconds: UInt64 = 0
        var pace = PaceProfile()
    }

    private let lock = NSLock()
    private let output: any TextOutput
    private let live: Bool
    private let horizonSeconds: Double
    private let columns: @Sendable () -> Int?
    private var rows: [Row]
    private let start: UInt64
    private var lastDrawNanoseconds: UInt64 = 0
    private var drewLine = false
    private var estimate = ProgressEstimate()
    private var shownFraction = 0.0
    /// The first finished replication's pace: the measure of every other's work once it is known
    /// (see `PaceProfile`).
    private var pace: PaceProfile?
    /// Wall seconds between "still running" lines when not live.
    package static let heartbeatSeconds = 30
    private var heartbeat: (any DispatchSourceTimer)?

    /// A board for `replications` replications of `horizonSeconds` each, drawing to `output`;
    /// `columns` gives the terminal's width for the live line (nil: `defaultColumns`).
    package init(output: any TextOutput, live: Bool, replications: Int, horizonSeconds: Double,
                 columns: @escaping @Sendable () -> Int? = { nil }, start: UInt64 = ProgressClock.nowNanoseconds()) {
        self.start = start
        self.output = output
        self.live = live
        self.horizonSeconds = max(horizonSeconds, 1e-9)
        self.columns = columns
        self.rows = Array(repeating: Row(), count: replications)
    }

    /// The width assumed when the terminal's is unknown.
    package static let defaultColumns = 80

    /// Starts the timer of the "still running" lines (not live only; `finish` stops it).
    package func startHeartbeat() {
        guard !live else { return }
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global())
        let interval = DispatchTimeInterval.seconds(Self.heartbeatSeconds)
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler { [weak self] in self?.beat(now: ProgressClock.nowNanoseconds()) }
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
        output.write("still running: " + liveLine(now: now, width: nil) + "\n")
    }

    func started(replication r: Int) {
        started(replication: r, now: ProgressClock.nowNanoseconds())
    }

    /// `started` at the clock reading `now`.
    func started(replication r: Int, now: UInt64) {
        lock.lock()
        rows[r].state = 1
        rows[r].startNanoseconds = now
        lock.unlock()
    }

    /// Seconds from replication `r`'s start to `now` (0 if the clock reads earlier).
    private func secondsSinceStart(of r: Int, now: UInt64) -> Double {
        now > rows[r].startNanoseconds ? Double(now - rows[r].startNanoseconds) / 1e9 : 0
    }

    /// Records replication `r`'s progress report (and redraws the live line, at most 4 times a second).
    func update(replication r: Int, _ report: ProgressReport) {
        update(replication: r, report, now: ProgressClock.nowNanoseconds())
    }

    /// `update` at the clock reading `now` (tests drive a synthetic clock).
    func update(replication r: Int, _ report: ProgressReport, now: UInt64) {
        lock.lock()
        defer { lock.unlock() }
        rows[r].virtualSeconds = report.virtualSeconds
        rows[r].events = report.eventsProcessed
        rows[r].expected = rows[r].forecast.expectedEvents(after: report)
        if pace == nil { rows[r].pace.record(events: Double(report.eventsProcessed), seconds: secondsSinceStart(of: r, now: now)) }
        guard live else { return }
        if now &- lastDrawNanoseconds >= 250_000_000 {
            lastDrawNanoseconds = now
            draw(now: now)
        }
    }

    func finished(replication r: Int, eventsProcessed: UInt64, virtualSeconds: Double) {
        finished(replication: r, eventsProcessed: eventsProcessed, virtualSeconds: virtualSeconds, now: ProgressClock.nowNanoseconds())
    }

    /// `finished` at the clock reading `now`.
    func finished(replication r: Int, eventsProcessed: UInt64, virtualSeconds: Double, now: UInt64) {
        lock.lock()
        defer { lock.unlock() }
        rows[r].state = 2
        rows[r].events = eventsProcessed
        rows[r].expected = Double(eventsProcessed)
        rows[r].virtualSeconds = virtualSeconds
        if pace == nil {
            rows[r].pace.close(events: Double(eventsProcessed), seconds: secondsSinceStart(of: r, now: now))
            pace = rows[r].pace
            estimate.restart(elapsedSeconds: Double(now > start ? now - start : 0) / 1e9, fraction: workFraction())
        }
        for i in rows.indices { rows[i].pace = PaceProfile() }  // no longer needed
        let done = rows.filter { $0.state == 2 }.count
        if live {
            draw(now: now)
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

    /// Redraws the live line in place: carriage return, the line (one column short of the width,
    /// so the cursor never sits past the last column), erase to the end of the line.
    private func draw(now: UInt64) {
        let width = max(1, (columns() ?? Self.defaultColumns) - 1)
        output.write("\r" + liveLine(now: now, width: width) + "\u{1B}[K")
        drewLine = true
    }

    /// Width of the live progress bar, in cells (narrowed to fit a small terminal).
    static let barWidth = 24

    /// The share of the run's work done: events processed over events expected, summed over the
    /// replications (see the type's comment); 0 until a replication has a forecast (virtual time
    /// is no guide: a flash sale's send is 1 % of its horizon and most of its events). Once a
    /// replication has finished, its seconds are the measure instead (`PaceProfile`): each
    /// replication has done the seconds its events took the finished one, of the seconds that one
    /// took in all. Never less than the share shown before.
    func workFraction() -> Double {
        // (Called with the lock held.)
        if let pace, pace.totalSeconds > 0 {
            let total = pace.totalSeconds
            let done = rows.reduce(0.0) { $0 + ($1.state == 2 ? total : pace.seconds(atEvents: Double($1.events))) }
            shownFraction = max(shownFraction, min(1, done / (total * Double(rows.count))))
            return shownFraction
        }
        let known = rows.compactMap(\.expected)
        guard !known.isEmpty else {
            return 0
        }
        let mean = known.reduce(0, +) / Double(known.count)
        var done = 0.0
        var expected = 0.0
        for row in rows {
            let events = Double(row.events)
            done += events
            expected += max(events, row.expected ?? mean)
        }
        // Shown, the share never goes back: a forecast found too high holds the bar until the work
        // catches up.
        shownFraction = max(shownFraction, expected > 0 ? min(1, done / expected) : 0)
        return shownFraction
    }

    /// "[#########...............] 38% · 0:41 elapsed · 2/5 replications · 1.20 M events/s · ETA 1:05",
    /// fitted to `width` characters when given (see `fit`).
    private func liveLine(now: UInt64, width: Int?) -> String {
        let elapsed = Double(now - start) / 1e9
        let done = rows.filter { $0.state == 2 }.count
        let events = rows.reduce(UInt64(0)) { $0 &+ $1.events }
        let fraction = workFraction()
        let percent = String(Int((fraction * 100).rounded(.down))) + "%"
        var parts: [(text: String, rank: Int)] = []
        parts.append((ProgressEstimate.clock(elapsed) + " elapsed", 1))
        parts.append(("\(done)/\(rows.count) replications", 2))
        if elapsed > 0 { parts.append((HumanScale.format(Double(events) / elapsed, unit: .perSecond(noun: "events")), 3)) }
        if let eta = estimate.update(elapsedSeconds: elapsed, fraction: fraction) {
            parts.append(("ETA " + ProgressEstimate.clock(eta), 0))
        }
        return Self.fit(fraction: fraction, percent: percent, parts: parts, width: width)
    }

    /// The line "bar percent · part · part …" within `width` characters (nil: no limit): the parts
    /// of highest `rank` (least useful: the rate, then the replications, then the elapsed time,
    /// the ETA last) are dropped until it fits, then the bar is narrowed, then the percentage cut.
    static func fit(fraction: Double, percent: String, parts: [(text: String, rank: Int)], width: Int?) -> String {
        func line(_ bar: Int, _ rankMax: Int) -> String {
            ([ProgressEstimate.bar(fraction, width: bar) + " " + percent] + parts.filter { $0.rank <= rankMax }.map(\.text))
                .joined(separator: " · ")
        }
        let rankAll = parts.map(\.rank).max() ?? 0
        guard let width else { return line(barWidth, rankAll) }
        for rankMax in stride(from: rankAll, through: -1, by: -1) where line(barWidth, rankMax).count <= width {
            return line(barWidth, rankMax)
        }
        let bare = line(0, -1).count  // "[] 38%"
        if width - bare >= 4 { return line(min(barWidth, width - bare), -1) }
        return String(percent.prefix(width))
    }
}
