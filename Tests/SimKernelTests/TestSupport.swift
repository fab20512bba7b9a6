import XCTest
@testable import SimKernel

/// SplitMix64 (Steele, Lea & Flood 2014). Test scaffolding only: it picks operations and times in
/// randomized tests; it is not a model variate (those go through GSL via Stochastic).
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
    /// Uniform in 0..<n (n small; modulo bias is irrelevant for choosing test operations).
    mutating func below(_ n: UInt64) -> UInt64 { next() % n }
}

/// Records every delivered event; can stop, throw or schedule on chosen payloads.
struct Recorder: EventHandler {
    struct Boom: Error, Equatable { let payload: UInt64 }

    var events: [Event] = []
    var progressReports: [RunProgress] = []
    var stopOnPayload: UInt64? = nil
    var throwOnPayload: UInt64? = nil
    /// If set, an event whose payload satisfies `child(of:)` schedules one child.
    var spawnChildren = false
    /// If set, an event whose payload satisfies `stops(_:)` calls `kernel.stop()`.
    var stopByRule = false

    /// The stop rule used by the randomized reference test.
    static func stops(_ p: UInt64) -> Bool { p % 16 == 5 }

    /// The child rule used by the randomized reference test: a parent payload p (top bit clear,
    /// p % 4 == 0) schedules a child with payload p | 2^63 at now + p % 3, kind 9, target 1.
    static func child(of p: UInt64) -> (delayTicks: Int64, payload: UInt64)? {
        guard p >> 63 == 0, p % 4 == 0 else { return nil }
        return (Int64(p % 3), p | 1 << 63)
    }

    mutating func handle(_ event: Event, in kernel: inout Kernel) throws {
        events.append(event)
        XCTAssertEqual(kernel.now, event.time, "kernel.now must equal the event time during handling")
        if event.payload == stopOnPayload || (stopByRule && Recorder.stops(event.payload)) { kernel.stop() }
        if event.payload == throwOnPayload { throw Boom(payload: event.payload) }
        if spawnChildren, let c = Recorder.child(of: event.payload) {
            try kernel.schedule(after: .microseconds(c.delayTicks), kind: EventKind(9), target: 1, payload: c.payload)
        }
    }

    mutating func progress(_ p: RunProgress) { progressReports.append(p) }
}

