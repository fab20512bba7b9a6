// The kernel: virtual clock, pending-event set, cancellation and the run loop.
//
// Cancellation design. Most events are never cancelled (arrivals, completions), a few are
// (timeouts, retries that lose a race). Searching the heap for an event is O(n), and keeping a
// position index per entry would add a write to every sift step of every event. Instead:
// - An event scheduled with `scheduleCancellable` gets a slot in a side table (`slots`) holding a
//   generation counter and a state (pending / cancelled / free); its heap entry records the slot
//   index. Plain `schedule` entries carry the sentinel `QueuedEvent.notCancellable` and never touch
//   the table, so they pay nothing but one compare at pop.
// - `cancel` checks the handle's generation against the slot and marks it cancelled: O(1). The
//   entry stays in the heap as a tombstone and is discarded when it reaches the top (it is not
//   delivered and not counted as processed).
// - When a slot is released (its event fired, or its tombstone was discarded) its generation is
//   incremented, so every handle to it goes stale; a slot whose generation reaches UInt32.max is
//   retired instead of reused, so generations never wrap and a stale handle can never match.
//   Free slots are reused from a stack (`freeSlots`), so steady state allocates nothing.
// Memory bound: tombstones are purged (O(n) filter + heapify, amortised O(1) per cancel) whenever
// they outnumber live events at a cancel, so at all times tombstones <= live events at the last
// cancel <= pendingMax, and the heap holds at most 2 * pendingMax entries (32 bytes each). The
// slot table never has more entries than the peak number of cancellable events in the heap
// (8 bytes each) plus retired slots (one per 4 billion reuses).
//
// Why not `GenerationalPool`. The slot table is a generational index pool with one more state:
// a slot is free, pending or cancelled, and the run loop must tell a tombstone (cancelled) from a
// live entry at every cancellable pop and in every purge. Built on `GenerationalPool`, that state
// needs a second per-slot array (a cancelled flag) written on acquire, cancel and release, and the
// pool's release writes both the generation and the free-list link; the purge can no longer work
// on raw buffers of one table. Measured with the bench's instruction check (release build, the
// four bench scenarios' replication 0): 442,111,341 instructions against 437,335,519 with this
// table (+1.09 %, with InfraModel's tables on the pool as well), of which the kernel's own
// functions +3,204,702 (+0.73 % of the total: `purgeCancelled` +2.76 M, `acquireSlot`
// +0.91 M) — beyond the 0.5 % a shared abstraction may cost here. So the kernel keeps this
// table: the same protocol (LIFO reuse, generation bump at release, retirement at the last
// generation) in one 8-byte entry per slot with the state folded in, and a stack of free slots.
//
// Events scheduled at the current time that cannot be cancelled skip the heap: they wait in a
// FIFO (`NowQueue`, see its file), and the run loop takes whichever of the FIFO's first entry and
// the heap's top comes first in (time, sequence) order.

/// State of a cancellation slot.
@usableFromInline
enum SlotState: UInt8, Sendable {
    case free, pending, cancelled
}

/// One entry of the cancellation table.
@usableFromInline
struct CancelSlot: Sendable {
    @usableFromInline var generation: UInt32
    @usableFromInline var state: SlotState

    @inlinable
    init(generation: UInt32, state: SlotState) {
        self.generation = generation
        self.state = state
    }

    /// Frees the slot and bumps its generation so outstanding handles go stale. Returns false when
    /// the generation is exhausted: the slot is then retired (never reused, so no handle can ever
    /// match it again) instead of going back to the free list.
    @inlinable
    mutating func release() -> Bool {
        state = .free
        if generation == UInt32.max { return false }
        generation &+= 1
        return true
    }
}

/// A discrete-event simulation kernel: a virtual clock and a set of pending events, delivered in
/// (time, scheduling order) to an `EventHandler`.
///
/// `Kernel` is a value type. Handlers receive it `inout` and schedule follow-up events through it.
/// Time never moves backwards: scheduling before `now` throws `KernelError.scheduledInPast`.
@usableFromInline package struct Kernel: Sendable {
    @usableFromInline var heap: EventHeap
    /// Non-cancellable events scheduled at `clock` (`enqueue`), in scheduling order.
    @usableFromInline var nowQueue: NowQueue
    @usableFromInline var slots: ContiguousArray<CancelSlot>
    @usableFromInline var freeSlots: ContiguousArray<UInt32>
    /// Tombstones (cancelled entries) still in `heap`.
    @usableFromInline var cancelledPending: Int
    /// Next tie-break sequence number; below 2^48 (see `renumberSequences`).
    @usableFromInline var nextSequence: UInt64
    @usableFromInline var clock: SimTime
    @usableFromInline var processedTotal: UInt64
    @usableFromInline var stopRequested: Bool
    @usableFromInline var isRunning: Bool

    /// The most live (not cancelled) pending events allowed; scheduling beyond it throws
    /// `KernelError.pendingLimitExceeded`. Memory bound: the heap holds at most 2 × pendingMax
    /// entries of 32 bytes (live events plus not-yet-purged cancelled ones).
    @usableFromInline package let pendingMax: Int

    /// The largest up-front reservation `init` makes (2^22 entries, 128 MiB); a larger
    /// `reservingCapacity` is a hint the heap meets by growing.
    @usableFromInline package static let reservationMax = 1 << 22

    /// A kernel at `startTime` with no pending events.
    /// - Parameters:
    ///   - reservingCapacity: pending events to make room for up front, capped at `pendingMax` and
    ///     `reservationMax` (the heap grows beyond it if needed, by doubling).
    ///   - pendingMax: the most live pending events allowed.
    /// - Precondition: `pendingMax >= 1` and `reservingCapacity >= 0` (validate values read from
    ///   user input before passing them).
    @usableFromInline package init(startTime: SimTime = .zero, reservingCapacity: Int = 1024, pendingMax: Int = .max) {
        precondition(pendingMax >= 1, "Kernel: pendingMax must be >= 1, got \(pendingMax)")
        precondition(reservingCapacity >= 0, "Kernel: reservingCapacity must be >= 0, got \(reservingCapacity)")
        heap = EventHeap(reservingCapacity: Swift.min(reservingCapacity, pendingMax, Kernel.reservationMax))
        nowQueue = NowQueue()
        slots = []
        freeSlots = []
        cancelledPending = 0
        nextSequence = 0
        clock = startTime
        processedTotal = 0
        stopRequested = false
        isRunning = false
        self.pendingMax = pendingMax
    }

    /// The current virtual time: the time of the event being (or last) processed.
    @inlinable package var now: SimTime { clock }

    /// Live pending events (cancelled ones excluded).
    /// - Complexity: O(1).
    @inlinable package var pendingCount: Int { heap.count + nowQueue.count - cancelledPending }

    /// Events processed since the kernel was created, over all `run` calls.
    @inlinable package var eventsProcessed: UInt64 { processedTotal }

    // MARK: Scheduling

    /// Schedules an event at `time`.
    /// - Throws: `.scheduledInPast` if `time < now`; `.pendingLimitExceeded` at `pendingMax`.
    /// - Complexity: O(log n); no allocation once the heap's capacity covers the peak pending count.
    @inlinable
    package mutating func schedule(at time: SimTime, kind: EventKind, target: UInt32, payload: UInt64 = 0) throws(KernelError) {
        try checkSchedulable(at: time)
        enqueue(time: time, kind: kind, target: target, payload: payload, slot: QueuedEvent.notCancellable)
    }

    /// Schedules an event `delay` after `now`.
    /// - Throws: `.scheduledInPast` if `delay < 0`; `.timeOverflow` if `now + delay` overflows;
    ///   `.pendingLimitExceeded` at `pendingMax`.
    /// - Complexity: O(log n).
    @inlinable
    package mutating func schedule(after delay: SimDuration, kind: EventKind, target: UInt32, payload: UInt64 = 0) throws(KernelError) {
        let time = try timeAfter(delay)  // never before now
        try checkPendingLimit()
        enqueue(time: time, kind: kind, target: target, payload: payload, slot: QueuedEvent.notCancellable)
    }

    /// Schedules an event at `time` that can be cancelled with the returned handle.
    /// - Throws: as `schedule(at:kind:target:payload:)`.
    /// - Complexity: O(log n), plus O(1) for the cancellation slot.
    @inlinable
    package mutating func scheduleCancellable(at time: SimTime, kind: EventKind, target: UInt32, payload: UInt64 = 0) throws(KernelError) -> EventHandle {
        try checkSchedulable(at: time)
        let handle = acquireSlot()
        enqueue(time: time, kind: kind, target: target, payload: payload, slot: handle.slot)
        return handle
    }

    /// Schedules an event `delay` after `now` that can be cancelled with the returned handle.
    /// - Throws: as `schedule(after:kind:target:payload:)`.
    /// - Complexity: O(log n).
    @inlinable
    package mutating func scheduleCancellable(after delay: SimDuration, kind: EventKind, target: UInt32, payload: UInt64 = 0) throws(KernelError) -> EventHandle {
        let time = try timeAfter(delay)
        return try scheduleCancellable(at: time, kind: kind, target: target, payload: payload)
    }

    /// Cancels the event behind `handle` if it is still pending.
    /// - Returns: true if the event was pending and is now cancelled; false if it already fired or
    ///   was already cancelled. A handle is meaningful only to the kernel that issued it (and to
    ///   copies of that kernel): given to another kernel it may name an unrelated event.
    /// - Complexity: O(1) amortised (an occasional O(n) purge of tombstones, see the file notes).
    @inlinable
    @discardableResult
    package mutating func cancel(_ handle: EventHandle) -> Bool {
        guard isPending(handle) else { return false }
        slots[Int(handle.slot)].state = .cancelled
        cancelledPending += 1
        if cancelledPending > pendingCount {
            purgeCancelled()
        }
        return true
    }

    /// True if the event behind `handle` is pending (neither fired nor cancelled).
    /// - Complexity: O(1).
    @inlinable
    package func isPending(_ handle: EventHandle) -> Bool {
        let i = Int(handle.slot)
        guard i < slots.count else { return false }
        let s = slots[i]
        return s.generation == handle.generation && s.state == .pending
    }

    /// Asks the current `run` call to return after the event being handled (reason `.stopped`).
    /// Pending events stay pending. Outside a run this has no effect: each `run` starts unstopped.
    @inlinable
    package mutating func stop() { stopRequested = true }

    // MARK: Run loop

    /// Delivers pending events in (time, scheduling order) to `handler` until none are left, a
    /// limit is reached or a handler calls `stop()`.
    ///
    /// Cancelled events are discarded without being delivered or counted. An event later than
    /// `limits.timeMax` is left pending, so another `run` call resumes exactly there.
    /// - Throws: `.handlerFailed(event:underlying:)` if the handler throws (including a
    ///   `KernelError` from its own scheduling); the failing event counts as processed and
    ///   `now` is its time.
    /// - Complexity: O(log n) per event; no allocation per event in steady state.
    /// - Precondition: not called from inside a handler of this kernel.
    @inlinable
    package mutating func run<H: EventHandler>(_ handler: inout H, limits: RunLimits = RunLimits()) throws(KernelError) -> RunOutcome {
        precondition(!isRunning, "Kernel.run called re-entrantly from inside a handler")
        isRunning = true
        stopRequested = false
        defer { isRunning = false }
        var processed: UInt64 = 0
        var untilProgress = limits.progressEveryEvents
        while true {
            if stopRequested {
                return RunOutcome(reason: .stopped, eventsProcessed: processed, endTime: clock)
            }
            var top: QueuedEvent
            var fromNowQueue = false
            if let h = heap.min {
                top = h
                if let n = nowQueue.first, n.precedes(h) {
                    top = n
                    fromNowQueue = true
                }
            } else if let n = nowQueue.first {
                top = n
                fromNowQueue = true
            } else {
                return RunOutcome(reason: .drained, eventsProcessed: processed, endTime: clock)
            }
            // Now-queue entries are never cancellable.
            if top.slot != QueuedEvent.notCancellable && slots[Int(top.slot)].state == .cancelled {
                _ = heap.popMin()
                cancelledPending -= 1
                releaseSlot(top.slot)
                continue
            }
            if processed >= limits.eventsMax {
                return RunOutcome(reason: .eventLimit, eventsProcessed: processed, endTime: clock)
            }
            if top.time > limits.timeMax.ticks {
                return RunOutcome(reason: .timeLimit, eventsProcessed: processed, endTime: clock)
            }
            if fromNowQueue {
                nowQueue.removeFirst()
            } else {
                _ = heap.popMin()
                if top.slot != QueuedEvent.notCancellable {
                    releaseSlot(top.slot)
                }
            }
            #if PRESTAGE_INVARIANTS
            precondition(top.time >= clock.ticks, "Kernel: time would move backwards from \(clock.ticks) to \(top.time)")
            #endif
            clock = SimTime(ticks: top.time)
            processed &+= 1
            processedTotal &+= 1
            let event = Event(time: clock, kind: EventKind(top.kind), target: top.target, payload: top.payload)
            do {
                try handler.handle(event, in: &self)
            } catch {
                throw KernelError.handlerFailed(event: event, underlying: error)
            }
            if untilProgress != 0 {
                untilProgress -= 1
                if untilProgress == 0 {
                    untilProgress = limits.progressEveryEvents
                    handler.progress(RunProgress(now: clock, eventsProcessed: processedTotal, pendingCount: pendingCount))
                }
            }
        }
    }

    // MARK: Internals

    /// The checks every schedule makes, inlined; building the error is out of line (`refuse`).
    @inlinable @inline(__always)
    func checkSchedulable(at time: SimTime) throws(KernelError) {
        if time < clock || pendingCount >= pendingMax { try refuse(at: time) }
    }

    @inlinable @inline(__always)
    func checkPendingLimit() throws(KernelError) {
        if pendingCount >= pendingMax { try refuse(at: clock) }
    }

    /// Throws the error for scheduling at `time`: in the past first, else the pending limit.
    @usableFromInline @inline(never)
    func refuse(at time: SimTime) throws(KernelError) {
        guard time >= clock else { throw .scheduledInPast(now: clock, requested: time) }
        throw .pendingLimitExceeded(limit: pendingMax)
    }

    @inlinable
    func timeAfter(_ delay: SimDuration) throws(KernelError) -> SimTime {
        guard delay.ticks >= 0 else {
            // Saturate the reported time: a huge negative delay must not trap while being reported.
            let (t, overflow) = clock.ticks.addingReportingOverflow(delay.ticks)
            throw .scheduledInPast(now: clock, requested: SimTime(ticks: overflow ? Int64.min : t))
        }
        guard let time = clock.adding(delay) else { throw .timeOverflow(now: clock, delay: delay) }
        return time
    }

    @inlinable
    mutating func enqueue(time: SimTime, kind: EventKind, target: UInt32, payload: UInt64, slot: UInt32) {
        if nextSequence == 1 << QueuedEvent.sequenceBits {
            renumberSequences()
        }
        let e = QueuedEvent(time: time.ticks, sequence: nextSequence, kind: kind.rawValue,
                            target: target, slot: slot, payload: payload)
        nextSequence &+= 1
        // Nothing pending is earlier than `clock`, and `e`'s sequence is the largest: at `clock`
        // it only has to follow the entries at `clock` already queued, which the FIFO keeps.
        if time.ticks == clock.ticks && slot == QueuedEvent.notCancellable {
            nowQueue.append(e)
        } else {
            heap.push(e)
        }
    }

    @inlinable
    mutating func acquireSlot() -> EventHandle {
        if let s = freeSlots.last {
            freeSlots.removeLast()  // `popLast()` took the generic path (about 50 instructions)
            slots[Int(s)].state = .pending
            return EventHandle(slot: s, generation: slots[Int(s)].generation)
        }
        // Slot indices stay below `notCancellable`; reaching it needs ~4e9 simultaneous
        // cancellable events (128 GiB of heap), far past any pendingMax a scenario can set.
        precondition(slots.count < Int(QueuedEvent.notCancellable), "Kernel: cancellation slot table full")
        slots.append(CancelSlot(generation: 0, state: .pending))
        return EventHandle(slot: UInt32(slots.count - 1), generation: 0)
    }

    /// Frees `slot` after its event fired or its tombstone was discarded. Bumps the generation so
    /// outstanding handles go stale; retires the slot instead when the generation is exhausted.
    @inlinable
    mutating func releaseSlot(_ slot: UInt32) {
        if slots[Int(slot)].release() { freeSlots.append(slot) }
    }

    /// Removes every tombstone from the heap and frees its slot: one pass that releases each
    /// tombstone's slot and compacts the live entries to the front (keeping their order), then a
    /// bottom-up heapify.
    /// - Complexity: O(n); no allocation (`freeSlots` is reserved for the released slots first).
    @usableFromInline
    mutating func purgeCancelled() {
        freeSlots.reserveCapacity(freeSlots.count + cancelledPending)
        let kept = heap.storage.withUnsafeMutableBufferPointer { entries -> Int in
            slots.withUnsafeMutableBufferPointer { table -> Int in
                var kept = 0
                for i in 0..<entries.count {
                    let e = entries[i]
                    if e.slot != QueuedEvent.notCancellable && table[Int(e.slot)].state == .cancelled {
                        if table[Int(e.slot)].release() { freeSlots.append(e.slot) }
                    } else {
                        entries[kept] = e
                        kept += 1
                    }
                }
                return kept
            }
        }
        heap.storage.removeLast(heap.storage.count - kept)
        heap.heapify()
        cancelledPending = 0
    }

    /// Reassigns sequence numbers 0..<n in (time, sequence) order when the 48-bit counter is
    /// exhausted (after 2.8e14 schedules). The relative order of pending events is unchanged, and a
    /// sorted array is a valid heap. The now-queue's entries move into the heap first.
    /// - Complexity: O(n log n), once per 2^48 schedules.
    @usableFromInline
    mutating func renumberSequences() {
        heap.storage.append(contentsOf: nowQueue.removeAll())
        heap.storage.sort { $0.precedes($1) }
        for i in heap.storage.indices {
            let e = heap.storage[i]
            heap.storage[i] = QueuedEvent(time: e.time, sequence: UInt64(i), kind: e.kind,
                                          target: e.target, slot: e.slot, payload: e.payload)
        }
        nextSequence = UInt64(heap.storage.count)
    }
}
