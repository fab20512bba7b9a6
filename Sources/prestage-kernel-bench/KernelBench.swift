// Hold-model benchmark of the SimKernel run loop (`make bench`).
//
// The classic hold model keeps N events pending: each step pops the earliest event and schedules
// one new event at now + an exponential increment. Two loops run side by side in this process:
//   kernel: `Kernel.run` with an `EventHandler` drawing Exp(mean) increments from GSL (taus2) via
//           Stochastic's `RandomStream` (inverse transform: -log(U) * mean, U in (0, 1));
//   bare:   the same heap type driven directly, with an inline xorshift64 uniform turned into the
//           same Exp(mean) increment (-log(U) * mean), and no clock, limits, cancellation check,
//           error path or dispatch.
// Both sides draw from the same distribution, so the heaps evolve alike (the increment law changes
// how deep entries sift) and the ratio kernel/bare isolates what the kernel adds: its bookkeeping
// plus the call into GSL. Each row alternates the two loops in several rounds so that machine
// load hits both alike; the spread of the per-round ratios is printed.

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

/// The kernel side: every event schedules its successor.
struct HoldHandler: EventHandler {
    let rng: RandomStream

    @inline(__always)
    mutating func handle(_ event: Event, in kernel: inout Kernel) throws {
        let increment = Int64(-log(rng.uniformPositive()) * meanIncrementTicks)
        try kernel.schedule(after: SimDuration(ticks: increment), kind: event.kind, target: event.target,
                            payload: event.payload)
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

struct KernelSide {
    var kernel: Kernel
    var handler: HoldHandler

    init(pending n: Int, seed: UInt64) throws {
        kernel = Kernel(reservingCapacity: n)
        handler = HoldHandler(rng: RandomStream(seed: seed))
        for i in 0..<n {
            let t = Int64(-log(handler.rng.uniformPositive()) * meanIncrementTicks)
            try kernel.schedule(at: SimTime(ticks: t), kind: EventKind(1), target: UInt32(truncatingIfNeeded: i),
                                payload: UInt64(i))
        }
    }

    mutating func run(events: UInt64) throws {
        let outcome = try kernel.run(&handler, limits: RunLimits(eventsMax: events))
        precondition(outcome.reason == .eventLimit && outcome.eventsProcessed == events, "hold model drained: \(outcome)")
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

    mutating func run(events: UInt64) {
        var last: Int64 = 0
        for _ in 0..<events {
            guard let e = heap.popMin() else { preconditionFailure("bare hold model drained") }
            last = e.timeTicks
            push(at: e.timeTicks, payload: e.payload)
        }
        sink &+= last
    }
}

/// Seconds taken by `body`.
func timed(_ body: () throws -> Void) rethrows -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    try body()
    let d = clock.now - start
    return Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
}

/// Events per chunk so that one chunk takes about `secondsTarget`, from a short calibration run.
func chunkSize(eventsPerSecond: Double, secondsTarget: Double) -> UInt64 {
    UInt64(Swift.max(10_000, eventsPerSecond * secondsTarget))
}

struct Row {
    var pending: Int
    var kernelRate: Double
    var bareRate: Double
    var ratioMin: Double
    var ratioMax: Double
}

/// How much work each row does.
enum Plan {
    /// Alternating rounds sized from the warm-up rate to take about this long per side.
    case timed(rounds: Int, secondsPerSidePerRound: Double)
    /// Exactly this many events per side in one round, after a warm-up of the same size: for
    /// instruction-count profiling (`valgrind --tool=callgrind`), where wall time means nothing.
    case fixed(eventsPerSide: UInt64)
}

func measure(pending n: Int, plan: Plan) throws -> Row {
    var kernelSide = try KernelSide(pending: n, seed: 42)
    var bareSide = BareSide(pending: n)
    // Warm-up: one pass over the whole pending set on each side (pages touched, caches and branch
    // predictors trained), which also gives the calibration rates.
    var warmEvents = UInt64(Swift.max(n, 200_000))
    if case let .fixed(events) = plan { warmEvents = events }
    let kernelWarm = try timed { try kernelSide.run(events: warmEvents) }
    let bareWarm = timed { bareSide.run(events: warmEvents) }
    let rounds: Int
    let kernelChunk: UInt64, bareChunk: UInt64
    switch plan {
    case let .timed(r, seconds):
        rounds = r
        kernelChunk = chunkSize(eventsPerSecond: Double(warmEvents) / kernelWarm, secondsTarget: seconds)
        bareChunk = chunkSize(eventsPerSecond: Double(warmEvents) / bareWarm, secondsTarget: seconds)
    case let .fixed(events):
        rounds = 1
        kernelChunk = events
        bareChunk = events
    }

    var kernelSeconds = 0.0, bareSeconds = 0.0
    var kernelEvents: UInt64 = 0, bareEvents: UInt64 = 0
    var ratioMin = Double.infinity, ratioMax = 0.0
    for _ in 0..<rounds {
        let ks = try timed { try kernelSide.run(events: kernelChunk) }
        let bs = timed { bareSide.run(events: bareChunk) }
        kernelSeconds += ks
        bareSeconds += bs
        kernelEvents += kernelChunk
        bareEvents += bareChunk
        let ratio = (Double(kernelChunk) / ks) / (Double(bareChunk) / bs)
        ratioMin = Swift.min(ratioMin, ratio)
        ratioMax = Swift.max(ratioMax, ratio)
    }
    sink &+= kernelSide.kernel.now.ticks
    return Row(pending: n, kernelRate: Double(kernelEvents) / kernelSeconds,
               bareRate: Double(bareEvents) / bareSeconds, ratioMin: ratioMin, ratioMax: ratioMax)
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
            usage: prestage-kernel-bench [--quick | --events COUNT]
              Hold model at N = 10^4, 10^5, 10^6 pending events, kernel vs bare heap loop.
              (default)       4 alternating rounds of ~0.4 s per side per row
              --quick         2 rounds of ~0.1 s per side per row
              --events COUNT  exactly COUNT events per side per row (1...10^9), for profilers
            """
        var plan = Plan.timed(rounds: 4, secondsPerSidePerRound: 0.4)
        var args = CommandLine.arguments.dropFirst()
        while let arg = args.popFirst() {
            switch arg {
            case "--quick":
                plan = .timed(rounds: 2, secondsPerSidePerRound: 0.1)
            case "--events":
                guard let text = args.popFirst(), let count = UInt64(text), count >= 1, count <= 1_000_000_000 else {
                    print("prestage-kernel-bench: --events needs a whole number from 1 to 1000000000\n\(usage)")
                    exit(2)
                }
                plan = .fixed(eventsPerSide: count)
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
            print("hold model: pop the earliest event, schedule one at now + increment (mean 1 s); \(rounds) alternating rounds per row")
        case let .fixed(events):
            print("hold model: pop the earliest event, schedule one at now + increment (mean 1 s); \(events) events per side per row")
        }
        print("kernel: Kernel.run + Exp(mean) from GSL taus2 via Stochastic; bare: same heap + Exp(mean) from inline xorshift64")
        print(pad("N", 9) + pad("kernel ev/s", 14) + pad("bare ev/s", 14) + pad("ratio", 8) + pad("round ratios", 16))
        do {
            _ = try measure(pending: 1_000, plan: .timed(rounds: 1, secondsPerSidePerRound: 0.05))  // process warm-up
            var worst = Double.infinity
            for n in [10_000, 100_000, 1_000_000] {
                let row = try measure(pending: n, plan: plan)
                let ratio = row.kernelRate / row.bareRate
                worst = Swift.min(worst, ratio)
                print(pad(String(n), 9) + pad(fixed(row.kernelRate / 1e6, 2) + " M", 14) + pad(fixed(row.bareRate / 1e6, 2) + " M", 14)
                      + pad(fixed(ratio * 100, 1) + "%", 8)
                      + pad(fixed(row.ratioMin * 100, 0) + "–" + fixed(row.ratioMax * 100, 0) + "%", 16))
            }
            print("worst ratio \(fixed(worst * 100, 1))% (target >= 85%)   [checksum \(sink & 0xffff)]")
        } catch {
            print("prestage-kernel-bench: \(error)")
            exit(1)
        }
    }
}
