import Foundation
import XCTest
@testable import Experiments
import PushModel
@testable import PrestageCLI
@testable import ScenarioFormat
import SimKernel

/// The progress line's fraction and ETA against a run whose event count is known: the progress
/// reports of two real replications of the flash sale (scaled to 50 000 devices with the send rate
/// scaled too, so the send lasts its 50 s as at 1 M devices) are replayed into the board with a
/// clock that advances with the events, as a run whose every event costs the same wall time.
final class ProgressForecastTests: XCTestCase {
    final class Recorder: ProgressSink {
        var reports: [ProgressReport] = []
        func progress(_ report: ProgressReport) { reports.append(report) }
    }

    typealias Trace = (reports: [ProgressReport], events: UInt64, virtualEnd: Double)
    /// The traces, simulated once for every test of the class (about 20 s in a debug build).
    nonisolated(unsafe) static var simulated: [Trace]?

    /// Reports every 2 000 events of replications 0 and 1, and their final event counts.
    static func traces() throws -> [Trace] {
        if let simulated { return simulated }
        let traces = try simulate()
        simulated = traces
        return traces
    }

    static func simulate() throws -> [Trace] {
        let library = ScenarioLibrary(directories: [TestEnvironment.repositoryScenarios])
        let scenario = try ScenarioLoader.load("black-friday-flash-sale", library: library,
                                             set: ["population.devices=50000", "campaigns[0].sendRatePerMinute=60000",
                                                   "campaigns[0].providerQuotaPerMinute=60000"]).scenario
        return try (0..<2).map { r in
            let recorder = Recorder()
            let result = try PushSimulation.run(scenario.modelWorld, masterSeed: scenario.run.seed, replication: r,
                                                limits: RunLimits(progressEveryEvents: 2_000), progress: recorder)
            return (recorder.reports, result.eventsProcessed, result.virtualEndSeconds)
        }
    }

    /// One frame of the replayed display: wall seconds, the fraction shown, the ETA shown.
    struct Frame { var wall: Double; var fraction: Double; var eta: Double? }

    /// Replays `traces` as two replications running side by side at `eventsPerSecond` each into a
    /// live board, returning the frames drawn and the run's wall seconds.
    static func replay(_ traces: [(reports: [ProgressReport], events: UInt64, virtualEnd: Double)],
                       eventsPerSecond: Double, fraction: ((ProgressBoard) -> Double)? = nil) -> (frames: [Frame], total: Double) {
        let out = CapturedOutput()
        let start: UInt64 = 1_000_000_000
        let board = ProgressBoard(output: out, live: true, replications: traces.count, horizonSeconds: 7_200,
                                  columns: { 400 }, start: start)
        func at(_ events: UInt64) -> UInt64 { start + UInt64(Double(events) / eventsPerSecond * 1e9) }
        var next = [Int](repeating: 0, count: traces.count)
        for r in traces.indices { board.started(replication: r, now: start) }
        while true {
            // The replication whose next report comes first in wall time.
            let pending = traces.indices.filter { next[$0] < traces[$0].reports.count }
            guard let r = pending.min(by: { traces[$0].reports[next[$0]].eventsProcessed < traces[$1].reports[next[$1]].eventsProcessed }) else { break }
            let report = traces[r].reports[next[r]]
            board.update(replication: r, report, now: at(report.eventsProcessed))
            next[r] += 1
        }
        for (r, t) in traces.enumerated().sorted(by: { $0.element.events < $1.element.events }) {
            board.finished(replication: r, eventsProcessed: t.events, virtualSeconds: t.virtualEnd, now: at(t.events))
        }
        board.finish()
        let total = Double(traces.map(\.events).max() ?? 0) / eventsPerSecond
        let frames = out.text.components(separatedBy: "\r").compactMap { frame -> Frame? in
            guard let pct = frame.range(of: "] ") else { return nil }
            let percent = Double(frame[pct.upperBound...].prefix { $0.isNumber }) ?? 0
            let elapsed = clockSeconds(frame, after: "% · ")
            let eta = clockSeconds(frame, after: "ETA ")
            return elapsed.map { Frame(wall: $0, fraction: percent / 100, eta: eta) }
        }
        return (frames, total)
    }

    /// The "m:ss" / "h:mm:ss" after `marker` in `frame`, in seconds.
    static func clockSeconds(_ frame: String, after marker: String) -> Double? {
        guard let range = frame.range(of: marker) else { return nil }
        let text = frame[range.upperBound...].prefix { $0.isNumber || $0 == ":" }
        let parts = text.split(separator: ":").compactMap { Int($0) }
        guard !parts.isEmpty else { return nil }
        return Double(parts.reduce(0) { $0 * 60 + $1 })
    }

    func testFractionFollowsTheEventsAndTheETAIsWithin30PercentAfterTheFirstTenth() throws {
        let traces = try Self.traces()
        // A run of about 90 s like the 1 M-device run (the clock shows whole seconds).
        let perSecond = Double(traces.map(\.events).max()!) / 90
        let (frames, total) = Self.replay(traces, eventsPerSecond: perSecond)
        XCTAssertGreaterThan(frames.count, 200, "a frame every 250 ms")
        var checked = 0
        // From the first tenth to the end, the taps after the send included (their events per
        // pending entry are learned only once no push is arriving: learned while pushes still
        // arrived, the ETA read 10-13 s with 5-7 s left).
        for frame in frames where frame.wall >= 0.1 * total && frame.wall < total {
            let remaining = total - frame.wall
            let eta = try XCTUnwrap(frame.eta, "an ETA at \(frame.wall) s")
            // The shown clock is rounded to whole seconds: two seconds of slack (the elapsed clock is rounded too).
            XCTAssertLessThanOrEqual(abs(eta - remaining), 0.3 * remaining + 2,
                                     "at \(frame.wall) s of \(total): ETA \(eta) s, remaining \(remaining) s")
            // The share shown follows the wall time (events): within 10 points.
            XCTAssertEqual(frame.fraction, frame.wall / total, accuracy: 0.1, "at \(frame.wall) s of \(total)")
            checked += 1
        }
        XCTAssertGreaterThan(checked, 50)
    }

    /// Replays `traces` one after the other (one job), each event costing `arrivalSeconds` of wall
    /// time while pushes are arriving (from the first arrival to the last) and `otherSeconds`
    /// otherwise, and a replication's result `resultSeconds` after its last event; returns every
    /// frame with the run's true time left.
    static func replayInTurn(_ traces: [(reports: [ProgressReport], events: UInt64, virtualEnd: Double)],
                             arrivalSeconds: Double, otherSeconds: Double, resultSeconds: Double)
        -> (frames: [(wall: Double, eta: Double?)], total: Double) {
        let out = CapturedOutput()
        let start: UInt64 = 1_000_000_000
        let board = ProgressBoard(output: out, live: true, replications: traces.count, horizonSeconds: 7_200,
                                  columns: { 400 }, start: start)
        var wall = 0.0
        var drawn: [(wall: Double, eta: Double?)] = []
        func now() -> UInt64 { start + UInt64(wall * 1e9) }
        func take() {
            // The frames drawn since the last call, each at the wall time it was drawn.
            let frames = out.text.components(separatedBy: "\r").dropFirst(drawn.count + 1)
            for frame in frames where frame.contains("] ") { drawn.append((wall, clockSeconds(frame, after: "ETA "))) }
        }
        for (r, trace) in traces.enumerated() {
            board.started(replication: r, now: now())
            var previous: ProgressReport?
            for report in trace.reports {
                let events = Double(report.eventsProcessed - (previous?.eventsProcessed ?? 0))
                let arriving = EventForecast.arrived(report) > 0 && !EventForecast.quiet(report)
                wall += events * (arriving ? arrivalSeconds : otherSeconds)
                board.update(replication: r, report, now: now())
                take()
                previous = report
            }
            wall += Double(trace.events - (previous?.eventsProcessed ?? 0)) * otherSeconds + resultSeconds
            board.finished(replication: r, eventsProcessed: trace.events, virtualSeconds: trace.virtualEnd, now: now())
            take()
        }
        board.finish()
        return (drawn, wall)
    }

    /// Replications after the first are measured by the first one's pace: with the taps after the
    /// send costing twice an arrival's event (the flash sale's profile on this machine: its taps
    /// cost more per event than its send), and a second of result building per replication, the ETA
    /// is within ±30 % at every frame of the second replication. Counted in events, as before, it
    /// failed 32 of those frames (up to twice the time left in the second replication's send: the
    /// rate learned in the first one's costly taps, and its result's second, held it high).
    func testLaterReplicationsFollowTheFirstOnesPace() throws {
        let traces = try Self.traces()
        let perEvent = 45.0 / Double(traces[0].events)  // a replication of about a minute
        let (frames, total) = Self.replayInTurn(traces, arrivalSeconds: perEvent * 0.7, otherSeconds: perEvent * 1.4, resultSeconds: 1)
        let secondStarts = frames.first { $0.wall > total / 2 }?.wall ?? total
        var checked = 0, worst = 0.0
        for frame in frames where frame.wall >= secondStarts && frame.wall < total - 1 {
            let left = total - frame.wall
            let eta = try XCTUnwrap(frame.eta, "an ETA at \(frame.wall) s")
            // The shown ETA is whole seconds rounded up: some value in (eta - 1, eta] within ±30 %.
            XCTAssertTrue(eta >= 0.7 * left && eta - 1 <= 1.3 * left, "at \(frame.wall) s of \(total): ETA \(eta) s, left \(left) s")
            if left >= 5 { worst = max(worst, abs(eta - left) / left) }
            checked += 1
        }
        XCTAssertGreaterThan(checked, 50, "frames in the second replication")
        print("worst ETA error in the second replication: \(worst)")
    }

    /// The time after a replication's last event (building its result) is left to do until the
    /// replication finishes: with a 3 s result per replication, the ETA at every frame of the second
    /// replication, its last ones included, is within ±30 % of the time left, whichever of the two
    /// traces runs second (one has 891 events more than the other). Before, the first replication's
    /// result time was spread over its last events, so a second replication with more events was
    /// credited with it while still running: the ETA read 1 s with 3.1 s left.
    func testTheResultsTimeIsLeftUntilTheReplicationFinishes() throws {
        let traces = try Self.traces()
        XCTAssertNotEqual(traces[0].events, traces[1].events, "two seeds, two event counts")
        for order in [[0, 1], [1, 0]] {
            let inTurn = order.map { traces[$0] }
            // About 80 s a replication, so every report (2 000 events, 0.3 s apart in the taps) is drawn.
            let perEvent = 60.0 / Double(inTurn[0].events)
            let (frames, total) = Self.replayInTurn(inTurn, arrivalSeconds: perEvent * 0.7, otherSeconds: perEvent * 1.4, resultSeconds: 3)
            let secondStarts = frames.first { $0.wall > total / 2 }?.wall ?? total
            var checked = 0
            for frame in frames where frame.wall >= secondStarts && frame.wall < total {
                let left = total - frame.wall
                let eta = try XCTUnwrap(frame.eta, "an ETA at \(frame.wall) s")
                XCTAssertTrue(eta >= 0.7 * left && eta - 1 <= 1.3 * left,
                              "order \(order), at \(frame.wall) s of \(total): ETA \(eta) s, left \(left) s")
                checked += 1
            }
            XCTAssertGreaterThan(checked, 50, "frames in the second replication")
        }
    }

    /// The measure used before (virtual time over the horizon until a replication finished) fails
    /// the same bound on the same trace: it sat at 12-13 % through the send and jumped at the end.
    func testVirtualTimeShareFailsTheBound() throws {
        let traces = try Self.traces()
        let perSecond = Double(traces.map(\.events).max()!) / 90
        let total = Double(traces.map(\.events).max()!) / perSecond
        var estimate = ProgressEstimate()
        var worst = 0.0
        for report in traces[0].reports {
            let wall = Double(report.eventsProcessed) / perSecond
            let fraction = min(1, report.virtualSeconds / 7_200)
            guard let eta = estimate.update(elapsedSeconds: wall, fraction: fraction), wall >= 0.1 * total, wall < total - 1 else { continue }
            worst = max(worst, abs(eta - (total - wall)) / (total - wall))
        }
        XCTAssertGreaterThan(worst, 0.3, "the old measure would pass")
    }
}
