import XCTest
@testable import SimKernel

final class KernelTests: XCTestCase {
    private let a = EventKind(1)
    private let b = EventKind(2)

    // MARK: Ordering

    func testSimultaneousEventsRunInSchedulingOrder() throws {
        var kernel = Kernel()
        // Interleave two instants so FIFO must hold per instant, not just globally.
        for i in 0..<200 as Range<UInt64> {
            try kernel.schedule(at: .seconds(i % 2 == 0 ? 5 : 3), kind: a, target: UInt32(i), payload: i)
        }
        var recorder = Recorder()
        let outcome = try kernel.run(&recorder)
        XCTAssertEqual(outcome.reason, .drained)
        let odd = (0..<200 as Range<UInt64>).filter { $0 % 2 == 1 }
        let even = (0..<200 as Range<UInt64>).filter { $0 % 2 == 0 }
        XCTAssertEqual(recorder.events.map(\.payload), odd + even)
        XCTAssertEqual(recorder.events.map(\.target), (odd + even).map { UInt32($0) })
    }

    func testEventsFromHandlersKeepTimeOrderAndFifo() throws {
        // A handler that schedules a same-time event must see it after the already-pending ones.
        struct Chain: EventHandler {
            var seen: [UInt64] = []
            mutating func handle(_ event: Event, in kernel: inout Kernel) throws {
                seen.append(event.payload)
                if event.payload == 0 {
                    try kernel.schedule(after: .zero, kind: event.kind, target: 0, payload: 10)
                    try kernel.schedule(after: .microseconds(1), kind: event.kind, target: 0, payload: 11)
                }
            }
        }
        var kernel = Kernel()
        try kernel.schedule(at: .microseconds(1), kind: a, target: 0, payload: 0)
        try kernel.schedule(at: .microseconds(1), kind: a, target: 0, payload: 1)
        try kernel.schedule(at: .microseconds(2), kind: a, target: 0, payload: 2)
        var chain = Chain()
        _ = try kernel.run(&chain)
        XCTAssertEqual(chain.seen, [0, 1, 10, 2, 11])
        XCTAssertEqual(kernel.now, .microseconds(2))
    }

    func testSequenceRenumberingKeepsOrder() throws {
        var kernel = Kernel()
        try kernel.schedule(at: .microseconds(2), kind: a, target: 0, payload: 100)
        // Jump the 48-bit sequence counter to just below its limit.
        kernel.nextSequence = (1 << QueuedEvent.sequenceBits) - 3
        for i in 0..<10 as Range<UInt64> {
            try kernel.schedule(at: .microseconds(1), kind: b, target: 0, payload: i)
        }
        try kernel.schedule(at: .microseconds(2), kind: a, target: 0, payload: 101)
        XCTAssertEqual(kernel.nextSequence, 12, "the counter was renumbered")
        XCTAssertEqual(kernel.heap.storage.map(\.sequence).sorted(), Array(0..<12))
        XCTAssertTrue(kernel.heap.isValidHeap())
        var recorder = Recorder()
        _ = try kernel.run(&recorder)
        XCTAssertEqual(recorder.events.map(\.payload), Array(0..<10) + [100, 101])
        XCTAssertEqual(recorder.events.map(\.kind), Array(repeating: b, count: 10) + [a, a])
    }

    // MARK: Cancellation

    func testCancelBeforeFireSuppressesTheEvent() throws {
        var kernel = Kernel()
        try kernel.schedule(at: .seconds(1), kind: a, target: 0, payload: 1)
        let h = try kernel.scheduleCancellable(at: .seconds(2), kind: a, target: 0, payload: 2)
        try kernel.schedule(at: .seconds(3), kind: a, target: 0, payload: 3)
        XCTAssertTrue(kernel.isPending(h))
        XCTAssertEqual(kernel.pendingCount, 3)
        XCTAssertTrue(kernel.cancel(h))
        XCTAssertFalse(kernel.isPending(h))
        XCTAssertEqual(kernel.pendingCount, 2)
        XCTAssertFalse(kernel.cancel(h), "double cancel")
        var recorder = Recorder()
        let outcome = try kernel.run(&recorder)
        XCTAssertEqual(recorder.events.map(\.payload), [1, 3])
        XCTAssertEqual(outcome.eventsProcessed, 2, "a cancelled event is not processed")
        XCTAssertEqual(kernel.eventsProcessed, 2)
        XCTAssertEqual(kernel.now, .seconds(3))
    }

    func testCancelAfterFireReturnsFalse() throws {
        var kernel = Kernel()
        let h = try kernel.scheduleCancellable(after: .milliseconds(5), kind: a, target: 0)
        var recorder = Recorder()
        _ = try kernel.run(&recorder)
        XCTAssertEqual(recorder.events.count, 1)
        XCTAssertFalse(kernel.isPending(h))
        XCTAssertFalse(kernel.cancel(h))
    }

    func testStaleHandleCannotCancelTheSlotsNextEvent() throws {
        var kernel = Kernel()
        let first = try kernel.scheduleCancellable(at: .seconds(1), kind: a, target: 0, payload: 1)
        XCTAssertTrue(kernel.cancel(first))
        var recorder = Recorder()
        _ = try kernel.run(&recorder)  // discards the tombstone, freeing its slot
        let second = try kernel.scheduleCancellable(at: .seconds(2), kind: a, target: 0, payload: 2)
        XCTAssertEqual(second.slot, first.slot, "the slot is reused (this test is about reuse)")
        XCTAssertNotEqual(second, first)
        XCTAssertFalse(kernel.cancel(first), "stale handle")
        XCTAssertTrue(kernel.isPending(second))
        _ = try kernel.run(&recorder)
        XCTAssertEqual(recorder.events.map(\.payload), [2])
        let third = try kernel.scheduleCancellable(at: .seconds(3), kind: a, target: 0, payload: 3)
        XCTAssertEqual(third.slot, first.slot)
        XCTAssertFalse(kernel.cancel(second), "handle of an event that fired")
        XCTAssertTrue(kernel.cancel(third))
    }

    func testSlotWithExhaustedGenerationIsRetired() throws {
        var kernel = Kernel()
        let h = try kernel.scheduleCancellable(at: .seconds(1), kind: a, target: 0)
        kernel.slots[Int(h.slot)].generation = UInt32.max  // as if reused 4 billion times
        let old = EventHandle(slot: h.slot, generation: UInt32.max)
        var recorder = Recorder()
        _ = try kernel.run(&recorder)
        XCTAssertTrue(kernel.freeSlots.isEmpty, "the exhausted slot is not reused")
        let next = try kernel.scheduleCancellable(at: .seconds(2), kind: a, target: 0)
        XCTAssertNotEqual(next.slot, h.slot)
        XCTAssertFalse(kernel.cancel(old))
        XCTAssertTrue(kernel.cancel(next))
    }

    func testPurgeRetiresAnExhaustedSlotAndReusesTheOthers() throws {
        var kernel = Kernel()
        let live = try kernel.scheduleCancellable(at: .seconds(5), kind: a, target: 0, payload: 5)
        let worn = try kernel.scheduleCancellable(at: .seconds(1), kind: a, target: 0, payload: 1)
        let fresh = try kernel.scheduleCancellable(at: .seconds(2), kind: a, target: 0, payload: 2)
        try kernel.schedule(at: .seconds(3), kind: a, target: 0, payload: 3)
        kernel.slots[Int(worn.slot)].generation = UInt32.max  // as if reused 4 billion times
        let wornHandle = EventHandle(slot: worn.slot, generation: UInt32.max)
        XCTAssertTrue(kernel.cancel(wornHandle))
        XCTAssertEqual(kernel.heap.count, 4, "one tombstone, three live: no purge yet")
        XCTAssertTrue(kernel.cancel(fresh))
        XCTAssertEqual(kernel.heap.count, 4, "two tombstones, two live: no purge yet")
        XCTAssertTrue(kernel.cancel(live))  // three tombstones > one live: purge
        XCTAssertEqual(kernel.heap.count, 1)
        XCTAssertEqual(kernel.cancelledPending, 0)
        XCTAssertTrue(kernel.heap.isValidHeap())
        XCTAssertEqual(kernel.freeSlots.sorted(), [live.slot, fresh.slot].sorted(), "the exhausted slot is retired, the others reused")
        XCTAssertEqual(kernel.slots[Int(worn.slot)].state, .free)
        XCTAssertEqual(kernel.slots[Int(fresh.slot)].generation, fresh.generation + 1, "a reused slot's old handles go stale")
        XCTAssertFalse(kernel.cancel(fresh))
        XCTAssertFalse(kernel.cancel(wornHandle))
        var recorder = Recorder()
        _ = try kernel.run(&recorder)
        XCTAssertEqual(recorder.events.map(\.payload), [3])
    }

    func testMassCancellationPurgesTombstones() throws {
        var kernel = Kernel()
        var handles: [EventHandle] = []
        for i in 0..<1_000 as Range<UInt64> {
            handles.append(try kernel.scheduleCancellable(at: .microseconds(Int64(1_000 - i)), kind: a, target: 0, payload: i))
        }
        for (i, h) in handles.enumerated() where i % 10 != 0 {
            XCTAssertTrue(kernel.cancel(h))
            // Tombstones never outnumber live events after a cancel.
            XCTAssertLessThanOrEqual(kernel.cancelledPending, kernel.pendingCount)
        }
        XCTAssertEqual(kernel.pendingCount, 100)
        XCTAssertLessThanOrEqual(kernel.heap.count, 200)
        XCTAssertTrue(kernel.heap.isValidHeap())
        var recorder = Recorder()
        _ = try kernel.run(&recorder)
        let expected = (0..<1_000 as Range<UInt64>).filter { $0 % 10 == 0 }.reversed()
        XCTAssertEqual(recorder.events.map(\.payload), Array(expected))
        XCTAssertEqual(kernel.freeSlots.count, kernel.slots.count)
    }

    // MARK: Limits, stop, progress

    func testEventLimitStopsAndResumes() throws {
        var kernel = Kernel()
        for i in 1...10 as ClosedRange<Int64> {
            try kernel.schedule(at: .seconds(Double(i)), kind: a, target: 0, payload: UInt64(i))
        }
        var recorder = Recorder()
        let first = try kernel.run(&recorder, limits: RunLimits(eventsMax: 4))
        XCTAssertEqual(first, RunOutcome(reason: .eventLimit, eventsProcessed: 4, endTime: .seconds(4)))
        XCTAssertEqual(kernel.pendingCount, 6)
        let second = try kernel.run(&recorder, limits: RunLimits(eventsMax: 6))
        XCTAssertEqual(second.eventsProcessed, 6)
        XCTAssertEqual(second.reason, .drained, "the limit was reached exactly as the set emptied")
        XCTAssertEqual(recorder.events.map(\.payload), Array(1...10))
        XCTAssertEqual(kernel.eventsProcessed, 10)
        let none = try kernel.run(&recorder, limits: RunLimits(eventsMax: 0))
        XCTAssertEqual(none.reason, .drained)
    }

    func testTimeLimitLeavesLaterEventPendingAndResumable() throws {
        var kernel = Kernel()
        for ms in [1_000, 2_000, 2_500, 2_501, 4_000] as [Int64] {
            try kernel.schedule(at: .milliseconds(ms), kind: a, target: 0, payload: UInt64(ms))
        }
        var recorder = Recorder()
        let first = try kernel.run(&recorder, limits: RunLimits(timeMax: .milliseconds(2_500)))
        XCTAssertEqual(first.reason, .timeLimit)
        XCTAssertEqual(first.eventsProcessed, 3, "an event exactly at timeMax is processed")
        XCTAssertEqual(first.endTime, .milliseconds(2_500))
        XCTAssertEqual(kernel.now, .milliseconds(2_500), "the clock stays at the last event")
        XCTAssertEqual(kernel.pendingCount, 2)
        let second = try kernel.run(&recorder)
        XCTAssertEqual(second, RunOutcome(reason: .drained, eventsProcessed: 2, endTime: .milliseconds(4_000)))
        XCTAssertEqual(recorder.events.map(\.payload), [1_000, 2_000, 2_500, 2_501, 4_000])
    }

    func testCancelledEventsDoNotCountTowardsEventLimit() throws {
        var kernel = Kernel()
        let h = try kernel.scheduleCancellable(at: .seconds(1), kind: a, target: 0, payload: 1)
        try kernel.schedule(at: .seconds(2), kind: a, target: 0, payload: 2)
        try kernel.schedule(at: .seconds(3), kind: a, target: 0, payload: 3)
        kernel.cancel(h)
        var recorder = Recorder()
        let outcome = try kernel.run(&recorder, limits: RunLimits(eventsMax: 1))
        XCTAssertEqual(outcome.reason, .eventLimit)
        XCTAssertEqual(recorder.events.map(\.payload), [2])
    }

    func testStopReturnsAfterCurrentEventAndNextRunContinues() throws {
        var kernel = Kernel()
        for i in 1...5 as ClosedRange<UInt64> {
            try kernel.schedule(at: .microseconds(Int64(i)), kind: a, target: 0, payload: i)
        }
        var recorder = Recorder()
        recorder.stopOnPayload = 3
        let first = try kernel.run(&recorder)
        XCTAssertEqual(first, RunOutcome(reason: .stopped, eventsProcessed: 3, endTime: .microseconds(3)))
        XCTAssertEqual(kernel.pendingCount, 2)
        let second = try kernel.run(&recorder)
        XCTAssertEqual(second.reason, .drained, "stop() applies to one run only")
        XCTAssertEqual(recorder.events.map(\.payload), [1, 2, 3, 4, 5])
    }

    func testProgressIsReportedEveryNEvents() throws {
        var kernel = Kernel()
        for i in 1...35 as ClosedRange<UInt64> {
            try kernel.schedule(at: .microseconds(Int64(i)), kind: a, target: 0, payload: i)
        }
        var recorder = Recorder()
        _ = try kernel.run(&recorder, limits: RunLimits(progressEveryEvents: 10))
        XCTAssertEqual(recorder.progressReports, [
            RunProgress(now: .microseconds(10), eventsProcessed: 10, pendingCount: 25),
            RunProgress(now: .microseconds(20), eventsProcessed: 20, pendingCount: 15),
            RunProgress(now: .microseconds(30), eventsProcessed: 30, pendingCount: 5),
        ])
    }

    // MARK: Memory

    func testReservationIsCappedByPendingMaxAndReservationMax() {
        XCTAssertLessThan(Kernel(reservingCapacity: Int.max).heap.storage.capacity, 2 * Kernel.reservationMax)
        XCTAssertLessThan(Kernel(reservingCapacity: 1_000_000, pendingMax: 10).heap.storage.capacity, 64)
        XCTAssertGreaterThanOrEqual(Kernel(reservingCapacity: 5_000).heap.storage.capacity, 5_000)
    }

    func testHeapEntryIsThirtyTwoBytes() {
        XCTAssertEqual(MemoryLayout<QueuedEvent>.stride, 32, "two entries per 64-byte cache line")
    }

    /// Steady state does not reallocate: a hold model with cancellation churn keeps the capacity of
    /// every buffer once warmed up (a reallocation is the only allocation these buffers make).
    func testSteadyStateKeepsBufferCapacities() throws {
        struct HoldWithTimeouts: EventHandler {
            var rng = SplitMix64(seed: 7)
            var timeouts: [EventHandle] = Array(repeating: EventHandle(slot: .max, generation: 0), count: 64)
            mutating func handle(_ event: Event, in kernel: inout Kernel) throws {
                guard event.kind != EventKind(3) else { return }  // a timeout fired: nothing follows
                try kernel.schedule(after: .microseconds(Int64(1 + rng.below(1_000))), kind: event.kind,
                                    target: event.target, payload: event.payload)
                // Each event also re-arms a timeout for its target, cancelling the previous one.
                let i = Int(event.target % 64)
                kernel.cancel(timeouts[i])
                timeouts[i] = try kernel.scheduleCancellable(after: .microseconds(Int64(1 + rng.below(400))),
                                                              kind: EventKind(3), target: 1_000_000)
            }
        }
        var kernel = Kernel(reservingCapacity: 16)
        for i in 0..<1_000 as Range<UInt32> {
            try kernel.schedule(at: .microseconds(Int64(i)), kind: a, target: i)
        }
        var handler = HoldWithTimeouts()
        _ = try kernel.run(&handler, limits: RunLimits(eventsMax: 20_000))
        let capacities = (kernel.heap.storage.capacity, kernel.slots.capacity, kernel.freeSlots.capacity)
        _ = try kernel.run(&handler, limits: RunLimits(eventsMax: 50_000))
        XCTAssertEqual(kernel.heap.storage.capacity, capacities.0)
        XCTAssertEqual(kernel.slots.capacity, capacities.1)
        XCTAssertEqual(kernel.freeSlots.capacity, capacities.2)
        // Documented bound: slots <= live cancellable (<= 64) + tombstones, and tombstones never
        // exceed the live events at the last cancel (<= 1,000 hold events + 64 timeouts).
        XCTAssertLessThanOrEqual(kernel.slots.count, 64 + 1_064, "slots are reused, not accumulated")
    }

    // MARK: Errors

    func testSchedulingInThePastThrows() throws {
        var kernel = Kernel(startTime: .seconds(5))
        XCTAssertThrowsError(try kernel.schedule(at: .seconds(4), kind: a, target: 0)) { error in
            guard case let .scheduledInPast(now, requested)? = error as? KernelError else {
                return XCTFail("expected scheduledInPast, got \(error)")
            }
            XCTAssertEqual(now, .seconds(5))
            XCTAssertEqual(requested, .seconds(4))
        }
        XCTAssertThrowsError(try kernel.scheduleCancellable(after: .microseconds(-1), kind: a, target: 0)) { error in
            guard case let .scheduledInPast(_, requested)? = error as? KernelError else {
                return XCTFail("expected scheduledInPast, got \(error)")
            }
            XCTAssertEqual(requested, SimTime.seconds(5) - .microseconds(1))
        }
        XCTAssertThrowsError(try kernel.schedule(after: .max, kind: a, target: 0)) { error in
            guard case .timeOverflow? = error as? KernelError else {
                return XCTFail("expected timeOverflow, got \(error)")
            }
        }
        XCTAssertEqual(kernel.pendingCount, 0, "a refused event is not scheduled")
        XCTAssertTrue(kernel.slots.isEmpty, "a refused cancellable event takes no slot")
        try kernel.schedule(at: .seconds(5), kind: a, target: 0)  // now itself is allowed
        XCTAssertEqual(kernel.pendingCount, 1)
    }

    func testHandlerErrorIsWrappedWithTheFailingEvent() throws {
        var kernel = Kernel()
        for i in 1...4 as ClosedRange<UInt64> {
            try kernel.schedule(at: .milliseconds(Int64(i)), kind: b, target: 40 + UInt32(i), payload: i)
        }
        var recorder = Recorder()
        recorder.throwOnPayload = 2
        XCTAssertThrowsError(try kernel.run(&recorder)) { error in
            guard case let .handlerFailed(event, underlying)? = error as? KernelError else {
                return XCTFail("expected handlerFailed, got \(error)")
            }
            XCTAssertEqual(event, Event(time: .milliseconds(2), kind: b, target: 42, payload: 2))
            XCTAssertEqual(underlying as? Recorder.Boom, Recorder.Boom(payload: 2))
        }
        XCTAssertEqual(kernel.now, .milliseconds(2))
        XCTAssertEqual(kernel.eventsProcessed, 2, "the failing event counts as processed")
        XCTAssertEqual(kernel.pendingCount, 2, "later events stay pending")
        recorder.throwOnPayload = nil
        let outcome = try kernel.run(&recorder)
        XCTAssertEqual(outcome.eventsProcessed, 2, "the kernel is usable after a handler error")
    }

    func testKernelErrorFromInsideHandlerIsWrapped() throws {
        struct PastScheduler: EventHandler {
            mutating func handle(_ event: Event, in kernel: inout Kernel) throws {
                try kernel.schedule(at: .zero, kind: event.kind, target: 0)
            }
        }
        var kernel = Kernel()
        try kernel.schedule(at: .seconds(1), kind: a, target: 7)
        var handler = PastScheduler()
        XCTAssertThrowsError(try kernel.run(&handler)) { error in
            guard case let .handlerFailed(event, underlying)? = error as? KernelError,
                  case let .scheduledInPast(now, requested)? = underlying as? KernelError else {
                return XCTFail("expected handlerFailed(scheduledInPast), got \(error)")
            }
            XCTAssertEqual(event.target, 7)
            XCTAssertEqual(now, .seconds(1))
            XCTAssertEqual(requested, .zero)
        }
    }

    func testPendingMaxIsEnforcedOnLiveEvents() throws {
        var kernel = Kernel(pendingMax: 3)
        try kernel.schedule(at: .seconds(1), kind: a, target: 0)
        let h = try kernel.scheduleCancellable(at: .seconds(2), kind: a, target: 0)
        try kernel.schedule(at: .seconds(3), kind: a, target: 0)
        XCTAssertThrowsError(try kernel.schedule(at: .seconds(4), kind: a, target: 0)) { error in
            guard case let .pendingLimitExceeded(limit)? = error as? KernelError else {
                return XCTFail("expected pendingLimitExceeded, got \(error)")
            }
            XCTAssertEqual(limit, 3)
        }
        XCTAssertThrowsError(try kernel.scheduleCancellable(at: .seconds(4), kind: a, target: 0))
        XCTAssertEqual(kernel.slots.count, 1, "a refused cancellable event takes no slot")
        XCTAssertEqual(kernel.pendingCount, 3)
        XCTAssertTrue(kernel.cancel(h))
        try kernel.schedule(at: .seconds(4), kind: a, target: 0)  // room again
        XCTAssertEqual(kernel.pendingCount, 3)
        var recorder = Recorder()
        let outcome = try kernel.run(&recorder)
        XCTAssertEqual(outcome.eventsProcessed, 3)
    }

    func testErrorDescriptionsNameTheValues() {
        let e = KernelError.scheduledInPast(now: .seconds(2), requested: .seconds(1))
        XCTAssertEqual(e.description, "event scheduled in the past: requested time 1.000000s is before now (2.000000s)")
        let f = KernelError.handlerFailed(event: Event(time: .zero, kind: EventKind(0x0201), target: 3, payload: 4),
                                          underlying: Recorder.Boom(payload: 4))
        XCTAssertTrue(f.description.hasPrefix("handler failed on event kind 0x0201 target 3 payload 4 at 0.000000s: "),
                      f.description)
    }
}
