// The public vocabulary of the kernel: events, kinds, handles, errors, limits and outcomes.

/// What an event means, as a small integer the handler switches on.
///
/// The kernel gives kinds no meaning: the handlers allocate them. A model that shares one
/// kernel with others declares its own range of kinds next to the kinds themselves, and the
/// outer handler routes each event by range.
@usableFromInline package struct EventKind: Hashable, Sendable, CustomStringConvertible {
    /// The kind number.
    @usableFromInline package var rawValue: UInt16

    /// The kind numbered `raw`.
    @inlinable
    package init(_ raw: UInt16) { self.rawValue = raw }

    /// "kind 0x0102".
    @usableFromInline package var description: String {
        let hex = String(rawValue, radix: 16)
        return "kind 0x" + String(repeating: "0", count: 4 - hex.count) + hex
    }
}

/// One scheduled occurrence: at `time`, deliver `kind` to entity `target` with a 64-bit `payload`.
///
/// Events are plain values (32 bytes in the pending set, including the kernel's tie-break
/// sequence number, which is internal). Simultaneous events are delivered in the order they were
/// scheduled (FIFO).
@usableFromInline package struct Event: Sendable, Hashable, CustomStringConvertible {
    /// When the event happens.
    @usableFromInline package var time: SimTime
    /// What it means (the handler switches on it).
    @usableFromInline package var kind: EventKind
    /// The entity the event is for (a device index, a PoP index, ...). Its meaning is the model's.
    @usableFromInline package var target: UInt32
    /// Model-defined data (an index, a packed pair of small ids, ...).
    @usableFromInline package var payload: UInt64

    /// An event value (for tests and error reports; events are scheduled through `Kernel`).
    @inlinable
    package init(time: SimTime, kind: EventKind, target: UInt32, payload: UInt64 = 0) {
        self.time = time
        self.kind = kind
        self.target = target
        self.payload = payload
    }

    /// "event kind 0x0102 target 7 payload 3 at 1.500000s".
    @usableFromInline package var description: String { "event \(kind) target \(target) payload \(payload) at \(time)" }
}

/// Identifies one event scheduled with `Kernel.scheduleCancellable`, for `Kernel.cancel(_:)`.
///
/// A handle is a (slot, generation) pair. The generation changes every time the slot is reused,
/// so a stale handle (its event already fired or was cancelled) can never cancel a later event.
@usableFromInline package struct EventHandle: Hashable, Sendable {
    @usableFromInline let slot: UInt32
    @usableFromInline let generation: UInt32

    @inlinable
    init(slot: UInt32, generation: UInt32) {
        self.slot = slot
        self.generation = generation
    }
}

/// Everything the kernel can refuse or report.
@usableFromInline package enum KernelError: Error, CustomStringConvertible {
    /// An event was scheduled before the current time (time never moves backwards). A negative
    /// delay is reported this way too.
    case scheduledInPast(now: SimTime, requested: SimTime)
    /// `now + delay` does not fit in `SimTime`.
    case timeOverflow(now: SimTime, delay: SimDuration)
    /// Scheduling would exceed `pendingMax` pending events.
    case pendingLimitExceeded(limit: Int)
    /// A handler threw while handling `event`. The event counts as processed; the run stops with
    /// `now == event.time` and the remaining events stay pending.
    case handlerFailed(event: Event, underlying: any Error)

    /// A one-line message naming the values involved.
    @usableFromInline package var description: String {
        switch self {
        case let .scheduledInPast(now, requested):
            return "event scheduled in the past: requested time \(requested) is before now (\(now))"
        case let .timeOverflow(now, delay):
            return "event time overflows: now \(now) + delay \(delay) exceeds the largest SimTime"
        case let .pendingLimitExceeded(limit):
            return "pending-event limit exceeded: pendingMax is \(limit)"
        case let .handlerFailed(event, underlying):
            return "handler failed on \(event): \(underlying)"
        }
    }

}

/// Why `Kernel.run` returned.
@usableFromInline package enum StopReason: Sendable, Hashable {
    /// No pending events remain.
    case drained
    /// The next pending event is later than `RunLimits.timeMax`; it stays pending.
    case timeLimit
    /// `RunLimits.eventsMax` events were processed by this call.
    case eventLimit
    /// A handler called `Kernel.stop()`.
    case stopped
}

/// Limits for one `Kernel.run` call. The defaults mean "no limit" and "no progress reports".
@usableFromInline package struct RunLimits: Sendable, Hashable {
    /// Stop once this many events were processed by this call (cancelled events do not count).
    @usableFromInline package var eventsMax: UInt64
    /// Stop before processing an event later than this; that event stays pending, so a later
    /// `run` call with a larger `timeMax` resumes exactly where this one stopped.
    @usableFromInline package var timeMax: SimTime
    /// Call `EventHandler.progress(_:)` after every this many events processed by this call;
    /// 0 = never.
    @usableFromInline package var progressEveryEvents: UInt64

    /// Limits; every default means "none".
    @inlinable
    package init(eventsMax: UInt64 = .max, timeMax: SimTime = .max, progressEveryEvents: UInt64 = 0) {
        self.eventsMax = eventsMax
        self.timeMax = timeMax
        self.progressEveryEvents = progressEveryEvents
    }
}

/// The result of one `Kernel.run` call.
@usableFromInline package struct RunOutcome: Sendable, Hashable {
    /// Why the run returned.
    @usableFromInline package var reason: StopReason
    /// Events processed by this call (cancelled events skipped are not counted).
    @usableFromInline package var eventsProcessed: UInt64
    /// `Kernel.now` on return: the time of the last processed event (the clock does not jump to
    /// `timeMax`).
    @usableFromInline package var endTime: SimTime

    /// An outcome value (the kernel builds these; public for tests comparing outcomes).
    @inlinable
    package init(reason: StopReason, eventsProcessed: UInt64, endTime: SimTime) {
        self.reason = reason
        self.eventsProcessed = eventsProcessed
        self.endTime = endTime
    }
}

/// A progress report, passed to `EventHandler.progress(_:)` every `RunLimits.progressEveryEvents`.
@usableFromInline package struct RunProgress: Sendable, Hashable {
    /// The time of the event just processed.
    @usableFromInline package var now: SimTime
    /// Events processed by the kernel since it was created (all runs).
    @usableFromInline package var eventsProcessed: UInt64
    /// Live pending events.
    @usableFromInline package var pendingCount: Int

    /// A progress value (the kernel builds these; public for tests).
    @inlinable
    package init(now: SimTime, eventsProcessed: UInt64, pendingCount: Int) {
        self.now = now
        self.eventsProcessed = eventsProcessed
        self.pendingCount = pendingCount
    }
}

/// The model: receives every event in time order.
///
/// `Kernel.run` is generic over the handler, so calls are specialised and direct: there is no
/// closure or existential per event. A handler typically switches on `event.kind` and schedules
/// follow-up events through `kernel`.
@usableFromInline package protocol EventHandler {
    /// Handle one event. `kernel.now == event.time`. Errors stop the run and come back wrapped in
    /// `KernelError.handlerFailed` with the event attached.
    mutating func handle(_ event: Event, in kernel: inout Kernel) throws

    /// Called every `RunLimits.progressEveryEvents` processed events. Default: does nothing.
    mutating func progress(_ p: RunProgress)
}

extension EventHandler {
    /// Default: ignore progress reports.
    @inlinable
    package mutating func progress(_ p: RunProgress) {}
}
