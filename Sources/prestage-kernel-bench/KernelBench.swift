// Hold-model benchmark of the SimKernel run loop (`make bench`).
//
// The classic hold model keeps N events pending: each step pops the earliest event and schedules
// one new event at now + an Exp(mean) increment. Three loops run side by side in this process:
//   kernel:    `Kernel.run` with an `EventHandler` drawing increments the way models do, from a
//              Stochastic `Sampler` for `.exponential(mean:)` (gsl_ran_exponential, taus2 stream);
//   kernel-U:  the same kernel loop, increments by inverse transform of one GSL uniform,
//              -log(RandomStream.uniformPositive()) * mean: separates the kernel's own cost from
//              the Sampler's per-draw cost;
//   bare:      the same heap type driven directly, with an inline xorshift64 uniform turned into the
//              same Exp(mean) increment, and no clock, limits, cancellation check, error path,
//              dispatch or GSL call.
// All sides draw from the same distribution, so the heaps evolve alike (the increment law changes
// how deep entries sift) and kernel/bare isolates what the kernel adds plus the GSL draw. Each row
// alternates the loops in several short rounds so that machine load hits all alike; rounds are
// timed in thread CPU time (time slices lost to other processes do not count), each loop's rate is
// its best round (load only ever slows a round), and the spread of per-round ratios is printed.

@_spi(Benchmark) import SimKernel
import Stochastic
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Mean hold increment: 1 s of virtual time.
let meanIncrementTicks = 1_000_000.0

/// Keeps results observable so the optimiser cannot drop the bare loop.
nonisolated(unsafe) var sink: Int64 = 0

/// A kernel-side hold model: every event schedules its successor `increment()` ticks later.
protocol HoldModel: EventHandler {
    /// The next Exp(mean) increment, in ticks.
    func increment() -> Int64
}

extension HoldModel {
    mutating func handle(_ event: Event, in kernel: inout Kernel) throws {
        try kernel.schedule(after: SimDuration(ticks: increment()), kind: event.kind, target: event.target,
                            payload: event.payload)
    }
}

/// Increments from a Stochastic `Sampler` for `.exponential(mean:)`: the way model code draws.
struct SamplerHold: HoldModel {
    let rng: RandomStream
    let sampler: Sampler

    init(seed: UInt64) throws {
        rng = RandomStream(seed: seed)
        sampler = try Sampler(.exponential(mean: meanIncrementTicks))
    }

    /// gsl_ran_exponential returns -mean * log1p(-U) with U in [0, 1) from a 32-bit generator, so
    /// the value is finite and below 23 * mean: it fits Int64.
    func increment() -> Int64 { Int64(sampler.sample(rng)) }
}

/// Increments by inverse transform of one GSL uniform in (0, 1): -log(U) * mean.
struct StreamHold: HoldModel {
    let rng: RandomStream

    init(seed: UInt64) { rng = RandomStream(seed: seed) }

    /// U >= 2^-32 (taus2 is a 32-bit generator), so the value is below 23 * mean.
    func increment() -> Int64 { Int64(-log(rng.uniformPositive()) * meanIncrementTicks) }
}

struct KernelSide<Model: HoldModel> {
    var kernel: Kernel
    var handler: Model

    init(pending n: Int, model: Model) throws {
        kernel = Kernel(reservingCapacity: n)
        handler = model
        for i in 0..<n {
            try kernel.schedule(at: SimTime(ticks: model.increment()), kind: EventKind(1),
                                target: UInt32(truncatingIfNeeded: i), payload: UInt64(i))
        }
    }

    mutating func run(events: UInt64) throws {
        let outcome = try kernel.run(&handler, limits: RunLimits(eventsMax: events))
        precondition(outcome.reason == .eventLimit && outcome.eventsProcessed == events, "hold model drained: \(outcome)")
    }
}

/// xorshift64 (Marsaglia 2003): the bare loop's increment source (not a model variate).
struct XorShift64 {
    var state: UInt64
    @inline(__always)
    mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }
}

struct BareSide {
    var heap: BareEventHeap
    var rng = XorShift64(state: 0x9e37_79b9_7f4a_7c15)
    var sequence: UInt64 = 0

    init(pending n: Int) {
        heap = BareEventHeap(reservingCapacity: n)
        for i in 0..<n {
            push(at: 0, payload: UInt64(i))
        }
    }

    @inline(__always)
    mutating func push(at base: Int64, payload: UInt64) {
        // U in (0, 1]: the top 53 bits plus one, as a fraction; then the exponential transform.
        let u = Double((rng.next() >> 11) + 1) * 0x1p-53
        heap.push(timeTicks: base + Int64(-log(u) * meanIncrementTicks), sequence: sequence,
                  target: UInt32(truncatingIfNeeded: payload), payload: payload)
        sequence &+= 1
    }

    /// Runs `events` hold steps; returns the last event time (callers add it to `sink`).
    @discardableResult
    mutating func run(events: UInt64) -> Int64 {
        var last: Int64 = 0
        for _ in 0..<events {
            guard let e = heap.popMin() else { preconditionFailure("bare hold model drained") }
            last = e.timeTicks
            push(at: e.timeTicks, payload: e.payload)
        }
        return last
    }
}

/// This thread's CPU time in seconds. Time slices given to other processes on a shared machine do
/// not count, unlike wall-clock time (their cache pollution still does).
func threadCPUSeconds() -> Double {
    var ts = timespec()
    guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0 else {
        preconditionFailure("clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed")
    }
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

/// Thread CPU seconds taken by `body`.
func timed(_ body: () throws -> Void) rethrows -> Double {
    let start = threadCPUSeconds()
    try body()
    return threadCPUSeconds() - start
}

/// Events per chunk so that one chunk takes about `secondsTarget`, from a short calibration run.
func chunkSize(eventsPerSecond: Double, secondsTarget: Double) -> UInt64 {
    UInt64(Swift.max(10_000, eventsPerSecond * secondsTarget))
}

/// Throughput of one loop: the best round. On a shared machine other processes only ever slow a
/// round down, so the fastest round is the closest to the loop's undisturbed speed.
struct Rate {
    var eventsPerSecond = 0.0

    mutating func add(events: UInt64, seconds: Double) {
        eventsPerSecond = Swift.max(eventsPerSecond, Double(events) / seconds)
    }
}

/// The smallest and largest per-round ratio.
struct Spread {
    var low = Double.infinity
    var high = 0.0

    mutating func add(_ ratio: Double) {
        low = Swift.min(low, ratio)
        high = Swift.max(high, ratio)
    }
}

struct Row {
    var kernel = Rate(), kernelU = Rate(), bare = Rate()
    var spread = Spread(), spreadU = Spread()
}

/// How much work each row does.
enum Plan {
    /// Alternating rounds sized from the warm-up rate to take about this long per loop.
    case timed(rounds: Int, secondsPerLoopPerRound: Double)
    /// Exactly this many events per loop in one round, after a warm-up of the same size: for
    /// instruction-count profiling (`valgrind --tool=callgrind`), where wall time means nothing.
    case fixed(eventsPerLoop: UInt64)
}

func measure(pending n: Int, plan: Plan) throws -> Row {
    var kernelSide = try KernelSide(pending: n, model: try SamplerHold(seed: 42))
    var kernelUSide = try KernelSide(pending: n, model: StreamHold(seed: 42))
    var bareSide = BareSide(pending: n)
    // Warm-up: one pass over the whole pending set per loop (pages touched, caches and branch
    // predictors trained), which also gives the calibration rates.
    var warmEvents = UInt64(Swift.max(n, 200_000))
    if case let .fixed(events) = plan { warmEvents = events }
    let kernelWarm = try timed { try kernelSide.run(events: warmEvents) }
    let kernelUWarm = try timed { try kernelUSide.run(events: warmEvents) }
    let bareWarm = timed { sink &+= bareSide.run(events: warmEvents) }
    let rounds: Int
    var kernelChunk = warmEvents, kernelUChunk = warmEvents, bareChunk = warmEvents
    switch plan {
    case let .timed(r, seconds):
        rounds = r
        kernelChunk = chunkSize(eventsPerSecond: Double(warmEvents) / kernelWarm, secondsTarget: seconds)
        kernelUChunk = chunkSize(eventsPerSecond: Double(warmEvents) / kernelUWarm, secondsTarget: seconds)
        bareChunk = chunkSize(eventsPerSecond: Double(warmEvents) / bareWarm, secondsTarget: seconds)
    case .fixed:
        rounds = 1
    }

    var row = Row()
    for _ in 0..<rounds {
        let ks = try timed { try kernelSide.run(events: kernelChunk) }
        let us = try timed { try kernelUSide.run(events: kernelUChunk) }
        let bs = timed { sink &+= bareSide.run(events: bareChunk) }
        row.kernel.add(events: kernelChunk, seconds: ks)
        row.kernelU.add(events: kernelUChunk, seconds: us)
        row.bare.add(events: bareChunk, seconds: bs)
        let bareRate = Double(bareChunk) / bs
        row.spread.add(Double(kernelChunk) / ks / bareRate)
        row.spreadU.add(Double(kernelUChunk) / us / bareRate)
    }
    sink &+= kernelSide.kernel.now.ticks &+ kernelUSide.kernel.now.ticks
    return row
}

/// Right-aligns `s` in `width` columns.
func pad(_ s: String, _ width: Int) -> String {
    String(repeating: " ", count: Swift.max(0, width - s.count)) + s
}

/// `x` with `digits` decimals (no Foundation formatting).
func fixed(_ x: Double, _ digits: Int) -> String {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let r = (x * scale).rounded()
    let whole = Int64(r / scale)
    let frac = Int64(abs(r - Double(whole) * scale))
    let fracText = String(frac)
    return digits == 0 ? String(whole) : "\(whole)." + String(repeating: "0", count: digits - fracText.count) + fracText
}

@main
struct KernelBench {
    static func main() {
        let usage = """
            usage: prestage-kernel-bench [--quick | --events COUNT] [--model-devices N | --no-model] [--model-scenario PATH]
              Hold model at N = 10^4, 10^5, 10^6 pending events: kernel loops vs the bare heap loop;
              then the full model (one replication, with and without far-event buckets) against the
              hold loop at the model's mean pending-event count, and the hold loop with 1-8 random
              cache-line updates per event (the memory floor); then one replication alone against
              two at once on two threads.
              (default)       8 alternating rounds of ~0.15 s per loop per row; 3 full-model runs
              --quick         3 rounds of ~0.03 s per loop per row; 1 full-model run
              --events COUNT  exactly COUNT events per loop per row (1...10^9), for profilers
              --model-devices N     devices of the full-model run (1000...50000000; default 500000)
              --model-scenario PATH scenario file of the full-model run (default scenarios/black-friday-flash-sale.json)
              --no-model            skip the full-model rows
            """
        var plan = Plan.timed(rounds: 8, secondsPerLoopPerRound: 0.15)
        var modelPlan: ModelPlan? = ModelPlan()
        var args = CommandLine.arguments.dropFirst()
        while let arg = args.popFirst() {
            switch arg {
            case "--quick":
                plan = .timed(rounds: 3, secondsPerLoopPerRound: 0.03)
                modelPlan?.rounds = 1
            case "--events":
                guard let text = args.popFirst(), let count = UInt64(text), count >= 1, count <= 1_000_000_000 else {
                    print("prestage-kernel-bench: --events needs a whole number from 1 to 1000000000\n\(usage)")
                    exit(2)
                }
                plan = .fixed(eventsPerLoop: count)
                modelPlan?.rounds = 1
            case "--model-devices":
                guard let text = args.popFirst(), let count = Int(text), count >= 1_000, count <= 50_000_000 else {
                    print("prestage-kernel-bench: --model-devices needs a whole number from 1000 to 50000000\n\(usage)")
                    exit(2)
                }
                modelPlan?.devices = count
            case "--model-scenario":
                guard let path = args.popFirst() else {
                    print("prestage-kernel-bench: --model-scenario needs a file path\n\(usage)")
                    exit(2)
                }
                modelPlan?.scenarioPath = path
            case "--no-model":
                modelPlan = nil
            case "--help", "-h":
                print(usage)
                return
            default:
                print("prestage-kernel-bench: unknown option '\(arg)'\n\(usage)")
                exit(2)
            }
        }
        switch plan {
        case let .timed(rounds, _):
            print("hold model (pop the earliest event, schedule one at now + Exp(1 s)); \(rounds) alternating rounds per row, best round per loop, thread CPU time")
        case let .fixed(events):
            print("hold model (pop the earliest event, schedule one at now + Exp(1 s)); \(events) events per loop per row")
        }
        print("kernel: Kernel.run + Stochastic Sampler(.exponential) | kernel-U: Kernel.run + -log(GSL uniform) | bare: same heap, inline xorshift")
        print(pad("N", 9) + pad("kernel ev/s", 13) + pad("bare ev/s", 12) + pad("ratio", 8) + pad("rounds", 10)
              + pad("kernel-U ev/s", 15) + pad("ratio-U", 9) + pad("rounds", 10))
        do {
            _ = try measure(pending: 1_000, plan: .timed(rounds: 1, secondsPerLoopPerRound: 0.03))  // process warm-up
            var worst = Double.infinity, worstU = Double.infinity
            for n in [10_000, 100_000, 1_000_000] {
                let row = try measure(pending: n, plan: plan)
                let ratio = row.kernel.eventsPerSecond / row.bare.eventsPerSecond
                let ratioU = row.kernelU.eventsPerSecond / row.bare.eventsPerSecond
                worst = Swift.min(worst, ratio)
                worstU = Swift.min(worstU, ratioU)
                print(pad(String(n), 9)
                      + pad(fixed(row.kernel.eventsPerSecond / 1e6, 2) + " M", 13)
                      + pad(fixed(row.bare.eventsPerSecond / 1e6, 2) + " M", 12)
                      + pad(fixed(ratio * 100, 1) + "%", 8)
                      + pad(fixed(row.spread.low * 100, 0) + "-" + fixed(row.spread.high * 100, 0) + "%", 10)
                      + pad(fixed(row.kernelU.eventsPerSecond / 1e6, 2) + " M", 15)
                      + pad(fixed(ratioU * 100, 1) + "%", 9)
                      + pad(fixed(row.spreadU.low * 100, 0) + "-" + fixed(row.spreadU.high * 100, 0) + "%", 10))
            }
            print("worst ratio: kernel \(fixed(worst * 100, 1))%, kernel-U \(fixed(worstU * 100, 1))% (target >= 85%)   [checksum \(sink & 0xffff)]")
            if let modelPlan {
                try modelRows(modelPlan, holdPlan: plan)
                try parallelRow(modelPlan)
            }
        } catch {
            print("prestage-kernel-bench: \(error)")
            exit(1)
        }
    }
}
