// Scheduling a model's typed event: a model's event enum encodes itself into the kernel's three
// numbers once (`kernelFields`), and these helpers are the one path from that encoding into the
// kernel, so every schedule of a model goes through the same encoder.

/// A model's typed event that encodes itself as the kernel's (kind, target, payload).
@usableFromInline package protocol KernelEncodable {
    /// The kernel's numbers for this event: kind, target and payload.
    var encoded: (kind: EventKind, target: UInt32, payload: UInt64) { get }
}

extension KernelEncodable {
    /// The kernel event for this at `time`.
    @inlinable @inline(__always)
    package func event(at time: SimTime) -> Event {
        let r = encoded
        return Event(time: time, kind: r.kind, target: r.target, payload: r.payload)
    }
}

extension Kernel {
    /// Schedules `event` at `time`.
    /// - Throws: as ``schedule(at:kind:target:payload:)``.
    @inlinable @inline(__always)
    package mutating func schedule<E: KernelEncodable>(_ event: E, at time: SimTime) throws(KernelError) {
        let r = event.encoded
        try schedule(at: time, kind: r.kind, target: r.target, payload: r.payload)
    }

    /// Schedules `event` `delay` after now.
    /// - Throws: as ``schedule(after:kind:target:payload:)``.
    @inlinable @inline(__always)
    package mutating func schedule<E: KernelEncodable>(_ event: E, after delay: SimDuration) throws(KernelError) {
        let r = event.encoded
        try schedule(after: delay, kind: r.kind, target: r.target, payload: r.payload)
    }

    /// Schedules `event` at `time`, cancellable through the returned handle.
    /// - Throws: as ``scheduleCancellable(at:kind:target:payload:)``.
    @inlinable @inline(__always)
    package mutating func scheduleCancellable<E: KernelEncodable>(_ event: E, at time: SimTime) throws(KernelError) -> EventHandle {
        let r = event.encoded
        return try scheduleCancellable(at: time, kind: r.kind, target: r.target, payload: r.payload)
    }
}
