import Foundation
import PushModel
import ScenarioFormat
import SimKernel

/// The workload whose instructions the speed gate counts: replication 0 of every suite scenario,
/// one after the other on the calling thread, writing nothing. `prestage bench` runs it under
/// callgrind (`prestage bench-instructions`) with collection switched on only inside
/// `countedRun`, so scenario loading, process start-up and output are not counted.
package enum BenchInstructions {
    /// Callgrind's `--toggle-collect` pattern: the mangled symbol of `countedRun` (module
    /// `Experiments`, enum `BenchInstructions`, method `countedRun`). Nothing called inside
    /// `countedRun` may match it (a second match would switch collection off).
    package static let toggleSymbol = "$s11Experiments17BenchInstructionsO10countedRun*"

    /// Suite scenarios larger than this run at this population for the count, so the count under
    /// callgrind (about 50 times slower than native) takes seconds, not minutes.
    package static let devicesMax = 4_000

    /// Instructions of one `burn` iteration as callgrind counts them in a release build (Swift 6.3,
    /// x86-64: 3,230,309 iterations took 33,918,260), so `--slowdown-percent` adds a known share.
    package static let instructionsPerBurnIteration = 10.5

    /// The counted region: replication 0 of each scenario, then `extraIterations` of `burn`
    /// (zero except when the gate's own test knob asks for a deliberate slowdown).
    /// Returns the events processed. Keep closures out of this function (see `toggleSymbol`).
    /// - Throws: a replication's error.
    @inline(never)
    package static func countedRun(_ scenarios: [ScenarioFile], extraIterations: Int) throws -> UInt64 {
        var events: UInt64 = 0
        for s in scenarios {
            let result = try PushSimulation.run(s.world, masterSeed: s.run.seed, replication: 0, limits: RunLimits(eventsMax: s.run.eventsMax))
            events &+= result.eventsProcessed
        }
        if extraIterations > 0 { events &+= burn(extraIterations) & 1 }
        return events
    }

    /// A serial xorshift64 chain the optimiser cannot remove or vectorise; returns 0 or 1 so the
    /// caller's result stays the event count.
    @inline(never)
    static func burn(_ iterations: Int) -> UInt64 {
        var x: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<iterations {
            x ^= x << 13
            x ^= x >> 7
            x ^= x << 17
        }
        return x == 0 ? 1 : 0
    }
}
