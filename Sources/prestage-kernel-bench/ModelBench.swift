// The full model against the hold loop (`make bench`, after the hold-model rows).
//
// One replication of a scenario (default: black-friday-flash-sale at 500 000 devices) runs with
// PushModel's far-event buckets (taps, deferred pushes and long provider delays wait outside the
// kernel in 10-second buckets), three times so that the fastest run is compared, as the hold
// loop's fastest round is; then once without (everything goes straight into the kernel's heap).
// Each run reports its events/s over the event loop alone (thread CPU time, world construction
// excluded) and the kernel's mean pending-event count, sampled every `sampleEveryEvents` events.
// Then the hold loops of KernelBench.swift run at the bucketed run's mean pending count, and the
// full model's events/s is printed as a share of the bare hold loop's, next to the memory floor:
// the bare loop slowed by k random cache-line updates per event in a table larger than the caches.

import Foundation
@_spi(Benchmark) import PushModel
@_spi(Benchmark) import SimKernel
import ScenarioFormat

/// Pending-set samples: one per this many events.
let sampleEveryEvents: UInt64 = 1_000

/// What the full-model rows run.
struct ModelPlan {
    var scenarioPath = "scenarios/black-friday-flash-sale.json"
    var devices = 500_000
    /// Runs of the bucketed model; the fastest is compared with the hold loop's fastest round, so
    /// that both sides use the same estimator (a single run would pit one sample of a noisy machine
    /// against the best of eight).
    var rounds = 3
}

/// One full-model run: events, event-loop CPU seconds, pending-set profile.
struct ModelRun {
    var events: UInt64
    var seconds: Double
    var profile: PendingEventProfile
    var eventsPerSecond: Double { Double(events) / seconds }
}

func runModel(_ scenario: ScenarioFile, bucketFarEvents: Bool) throws -> ModelRun {
    var run = try PushBenchmarkRun(scenario.modelWorld, masterSeed: scenario.run.seed, replication: 0, bucketFarEvents: bucketFarEvents)
    var outcome: (result: ReplicationResult, profile: PendingEventProfile)?
    let seconds = try timed { outcome = try run.run(sampleEveryEvents: sampleEveryEvents) }
    guard let outcome else { preconditionFailure("the model run returned nothing") }
    return ModelRun(events: outcome.result.eventsProcessed, seconds: seconds, profile: outcome.profile)
}

/// Runs the full-model rows and prints them.
func modelRows(_ plan: ModelPlan, holdPlan: Plan) throws {
    let data = try Data(contentsOf: URL(fileURLWithPath: plan.scenarioPath))
    let scenario = try ScenarioLoader.decode(data, label: plan.scenarioPath,
                                             flags: ScenarioLoader.FlagOverrides(devices: plan.devices))
    print("")
    print("full model: \(scenario.name) (\(plan.scenarioPath)), \(plan.devices) devices, replication 0, seed \(scenario.run.seed); event loop in thread CPU time, pending sampled every \(sampleEveryEvents) events")
    var bucketedRuns: [ModelRun] = []
    for _ in 0..<Swift.max(1, plan.rounds) {
        bucketedRuns.append(try runModel(scenario, bucketFarEvents: true))
    }
    // Same seed, same events: a run that differs would be a determinism bug, not noise.
    precondition(Set(bucketedRuns.map(\.events)).count == 1, "full-model runs of one seed processed different event counts")
    guard let bucketed = bucketedRuns.max(by: { $0.eventsPerSecond < $1.eventsPerSecond }) else { return }
    let direct = try runModel(scenario, bucketFarEvents: false)
    if bucketedRuns.count > 1 {
        print("  bucketed runs: " + bucketedRuns.map { fixed($0.eventsPerSecond / 1e6, 3) }.joined(separator: ", ")
              + " M ev/s; the fastest is compared below, as the hold loop's fastest round is")
    }
    for (label, r) in [("bucketed far events", bucketed), ("no bucketing", direct)] {
        print("  " + label.padding(toLength: 20, withPad: " ", startingAt: 0)
              + pad(String(r.events), 10) + " events" + pad(fixed(r.seconds, 2), 8) + " s"
              + pad(fixed(r.eventsPerSecond / 1e6, 3) + " M ev/s", 16)
              + "   kernel pending mean " + String(Int(r.profile.kernelPendingMean.rounded()))
              + " (max " + String(r.profile.kernelPendingMax) + "), in buckets mean "
              + String(Int(r.profile.bucketedMean.rounded())))
    }
    print("  bucketing: pending mean ÷ " + fixed(direct.profile.kernelPendingMean / Swift.max(1, bucketed.profile.kernelPendingMean), 1)
          + ", events/s × " + fixed(bucketed.eventsPerSecond / direct.eventsPerSecond, 2))
    let n = Swift.max(1, Int(bucketed.profile.kernelPendingMean.rounded()))
    let row = try measure(pending: n, plan: holdPlan)
    print("  hold loop at N = \(n): bare " + fixed(row.bare.eventsPerSecond / 1e6, 2) + " M ev/s, kernel "
          + fixed(row.kernel.eventsPerSecond / 1e6, 2) + " M ev/s")
    print("  full model / bare hold loop: " + fixed(bucketed.eventsPerSecond / row.bare.eventsPerSecond * 100, 1)
          + "% (target >= 40%); full model / kernel hold loop: "
          + fixed(bucketed.eventsPerSecond / row.kernel.eventsPerSecond * 100, 1) + "%")
    memoryFloorRow(pending: n, bareEventsPerSecond: row.bare.eventsPerSecond)
}

/// The bare hold loop plus `touches` read-modify-writes per event, each at a random cache line of
/// a table far larger than the caches: the cost of per-event state that is not in cache (a
/// device's, session's or request's record) for a loop that does nothing else. The touches are
/// independent, so the processor may overlap their misses: an optimistic floor for a model whose
/// accesses depend on each other (session, then its fetch table, then the store).
struct TouchingHold {
    var bare: BareSide
    var table: [UInt64]
    var rng = XorShift64(state: 0x2545_f491_4f6c_dd1d)
    let lineCount: UInt64
    let touches: Int

    init(pending n: Int, tableBytes: Int, touches: Int) {
        bare = BareSide(pending: n)
        table = Array(repeating: 1, count: tableBytes / 8)  // written: every page is resident
        lineCount = UInt64(tableBytes / 64)
        self.touches = touches
    }

    mutating func run(events: UInt64) -> Int64 {
        var last: Int64 = 0
        let touches = self.touches, lineCount = self.lineCount
        var rng = self.rng
        table.withUnsafeMutableBufferPointer { t in
            for _ in 0..<events {
                guard let e = bare.heap.popMin() else { preconditionFailure("touching hold loop drained") }
                last = e.timeTicks
                for _ in 0..<touches {
                    t[Int(truncatingIfNeeded: rng.next() % lineCount) &* 8] &+= e.payload
                }
                bare.push(at: e.timeTicks, payload: e.payload)
            }
        }
        self.rng = rng
        return last
    }
}

/// Prints the memory floor: the bare hold loop at the model's pending count with 1, 2, 4 and 8
/// random cache-line updates per event in a 256 MiB table (about the 5 M-device run's resident
/// state), each as a share of the plain bare loop. The full model touches several such records
/// per event (its device, session and request records, its store, the kernel's cancellation
/// slots), so a target above the floor for its touch count is out of reach for any model of the
/// same state, however little it computes.
func memoryFloorRow(pending n: Int, bareEventsPerSecond: Double) {
    let tableBytes = 256 << 20
    var cells: [String] = []
    for touches in [1, 2, 4, 8] {
        var loop = TouchingHold(pending: n, tableBytes: tableBytes, touches: touches)
        let events: UInt64 = 2_000_000
        sink &+= loop.run(events: events)  // warm-up
        var rate = Rate()
        for _ in 0..<3 {
            var last: Int64 = 0
            rate.add(events: events, seconds: timed { last = loop.run(events: events) })
            sink &+= last
        }
        let best = rate.eventsPerSecond
        cells.append("\(touches): " + fixed(best / 1e6, 2) + " M ev/s (" + fixed(best / bareEventsPerSecond * 100, 1) + "%)")
    }
    print("  memory floor (bare hold loop at N = \(n) + k random cache-line updates per event in a 256 MiB table), k = "
          + cells.joined(separator: ", "))
}

/// Wall-clock seconds (CLOCK_MONOTONIC), for the parallel row only.
func wallSeconds() -> Double {
    var ts = timespec()
    guard clock_gettime(CLOCK_MONOTONIC, &ts) == 0 else { preconditionFailure("clock_gettime(CLOCK_MONOTONIC) failed") }
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

/// One replication built and run on the calling thread: (thread CPU seconds, error text).
func replicationCPUSeconds(_ scenario: ScenarioFile, replication: Int) -> (Double, String?) {
    do {
        var seconds = 0.0
        seconds = try timed {
            var run = try PushBenchmarkRun(scenario.modelWorld, masterSeed: scenario.run.seed, replication: replication, bucketFarEvents: true)
            _ = try run.run(sampleEveryEvents: 0)
        }
        return (seconds, nil)
    } catch {
        return (0, "\(error)")
    }
}

/// Per-thread results of the parallel row (written by each worker once, under the lock).
final class ThreadResults: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [(Double, String?)]
    init(count: Int) { values = Array(repeating: (0, nil), count: count) }
    func set(_ i: Int, _ v: (Double, String?)) { lock.lock(); values[i] = v; lock.unlock() }
    func all() -> [(Double, String?)] { lock.lock(); defer { lock.unlock() }; return values }
}

/// One replication alone, then two at once on two threads (world construction included): wall
/// time and each replication's thread CPU time. Other processes on the machine lengthen the wall
/// times; the CPU times show what the two replications cost each other (shared caches, memory
/// bandwidth, allocator, reference counting on shared objects).
func parallelRow(_ plan: ModelPlan) throws {
    let data = try Data(contentsOf: URL(fileURLWithPath: plan.scenarioPath))
    let scenario = try ScenarioLoader.decode(data, label: plan.scenarioPath, flags: ScenarioLoader.FlagOverrides(devices: plan.devices))
    print("")
    print("parallel replications: \(scenario.name), \(plan.devices) devices; one alone, then replications 0 and 1 on two threads, \(parallelRounds) interleaved rounds")
    // Control: a loop that shares nothing and allocates nothing (the bare hold loop at 10 000
    // pending events, 2 MB of heap per thread). If it too slows down when two run at once, the
    // cost is the machine's (other jobs, shared caches, memory bandwidth), not the model's.
    let controlEvents: UInt64 = 30_000_000
    let controlStart = wallSeconds()
    let controlCPU = timed { var bare = BareSide(pending: 10_000); sink &+= bare.run(events: controlEvents) }
    let controlWall = wallSeconds() - controlStart
    let control = ThreadResults(count: 2)
    let controlStart2 = wallSeconds()
    DispatchQueue.concurrentPerform(iterations: 2) { i in
        var last: Int64 = 0
        let seconds = timed { var bare = BareSide(pending: 10_000); last = bare.run(events: controlEvents) }
        control.set(i, (seconds + Double(last & 1) * 1e-12, nil))  // `last` keeps the loop observable
    }
    let controlWall2 = wallSeconds() - controlStart2
    let c2 = control.all()
    print("  control (bare hold loop, N = 10 000, \(controlEvents) events): 1 at a time " + fixed(controlWall, 2) + " s wall, "
          + fixed(controlCPU, 2) + " s CPU; 2 at once " + fixed(controlWall2, 2) + " s wall (× " + fixed(controlWall2 / controlWall, 2)
          + "), CPU × " + fixed((c2[0].0 + c2[1].0) / 2 / controlCPU, 2))
    cacheControlRow()
    // Interleaved rounds (one alone, then two at once), so that a slow moment of a shared machine
    // hits both sides of a round; the verdict uses the medians over the rounds.
    var ones: [(wall: Double, cpu: Double)] = [], twos: [(wall: Double, cpu: Double)] = []
    for round in 1...parallelRounds {
        let start1 = wallSeconds()
        let (cpu1, error1) = replicationCPUSeconds(scenario, replication: 0)
        let wall1 = wallSeconds() - start1
        if let error1 { throw BenchError(text: error1) }
        let results = ThreadResults(count: 2)
        let start2 = wallSeconds()
        DispatchQueue.concurrentPerform(iterations: 2) { i in results.set(i, replicationCPUSeconds(scenario, replication: i)) }
        let wall2 = wallSeconds() - start2
        let both = results.all()
        if let error = both.compactMap(\.1).first { throw BenchError(text: error) }
        let cpu2 = (both[0].0 + both[1].0) / 2
        ones.append((wall1, cpu1))
        twos.append((wall2, cpu2))
        let alone = "1 replication " + fixed(wall1, 2) + " s wall (" + fixed(cpu1, 2) + " s CPU)"
        let together = "2 at once " + fixed(wall2, 2) + " s wall (CPU " + fixed(both[0].0, 2) + " s and " + fixed(both[1].0, 2) + " s)"
        let ratios = "× " + fixed(wall2 / wall1, 2) + " wall, × " + fixed(cpu2 / cpu1, 2) + " CPU"
        print("  round \(round): " + alone + "; " + together + ": " + ratios)
    }
    let oneWall = median(ones.map(\.wall)), twoWall = median(twos.map(\.wall))
    let cpuRatio = median(twos.map(\.cpu)) / median(ones.map(\.cpu))
    let walls = "1 replication " + fixed(oneWall, 2) + " s, 2 at once " + fixed(twoWall, 2) + " s wall"
    print("  median over \(parallelRounds) rounds: " + walls + ": × " + fixed(twoWall / oneWall, 2)
          + " of one (target <= 1.15); CPU per replication × " + fixed(cpuRatio, 2))
}

/// The second control of the parallel row: a loop that shares nothing but lives in the shared
/// last-level cache, the memory floor's hold loop with two random cache-line updates per event
/// in its own 16 MiB table (half of this machine's 32 MiB last-level cache: one fits, two fill
/// it), one alone and then two at once. It computes nothing, so its slowdown is what the
/// machine's shared cache costs two threads that keep their working sets in it, as
/// replications do; the model's own ratio can be read against it.
func cacheControlRow() {
    let events: UInt64 = 4_000_000
    // Each run returns its thread CPU seconds; its loop's last event time goes into the seconds'
    // last bit of precision so the loop stays observable without a shared write.
    @Sendable func one() -> Double {
        var loop = TouchingHold(pending: 10_000, tableBytes: 16 << 20, touches: 2)
        var last = loop.run(events: events / 4)  // warm-up: pages and caches
        let seconds = timed { last &+= loop.run(events: events) }
        return seconds + Double(last & 1) * 1e-12
    }
    let alone = one()
    let results = ThreadResults(count: 2)
    DispatchQueue.concurrentPerform(iterations: 2) { i in results.set(i, (one(), nil)) }
    let both = results.all()
    let together = (both[0].0 + both[1].0) / 2
    print("  cache control (the same loop + 2 random cache-line updates per event, a 16 MiB table each, \(events) events): 1 alone "
          + fixed(alone, 2) + " s CPU, 2 at once " + fixed(both[0].0, 2) + " s and " + fixed(both[1].0, 2) + " s: CPU × "
          + fixed(together / alone, 2))
}

/// Interleaved rounds of the parallel row.
let parallelRounds = 3

/// The median of `values` (not empty).
func median(_ values: [Double]) -> Double {
    let v = values.sorted()
    return v.count % 2 == 1 ? v[v.count / 2] : (v[v.count / 2 - 1] + v[v.count / 2]) / 2
}

struct BenchError: Error, CustomStringConvertible {
    var text: String
    var description: String { text }
}
