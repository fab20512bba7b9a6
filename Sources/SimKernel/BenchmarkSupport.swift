// The kernel's own heap, exposed to the benchmark executable only (`@_spi(Benchmark) import`), so
// its bare reference loop measures exactly the data structure the kernel uses. Not public API.

/// The pending-event heap used by `Kernel`, without the kernel's clock, limits, cancellation or
/// dispatch: for the hold-model benchmark's reference loop.
@_spi(Benchmark)
public struct BareEventHeap {
    @usableFromInline var heap: EventHeap

    /// An empty heap with room for `capacity` entries.
    @inlinable
    package init(reservingCapacity capacity: Int) { heap = EventHeap(reservingCapacity: capacity) }

    /// Entries in the heap.
    @inlinable package var count: Int { heap.count }

    /// Adds an entry ordered by (timeTicks, sequence); `sequence` must be below 2^48.
    /// - Complexity: O(log n).
    @inlinable
    package mutating func push(timeTicks: Int64, sequence: UInt64, target: UInt32, payload: UInt64) {
        heap.push(QueuedEvent(time: timeTicks, sequence: sequence, kind: 0, target: target,
                              slot: QueuedEvent.notCancellable, payload: payload))
    }

    /// Removes the earliest entry.
    /// - Complexity: O(log n).
    @inlinable
    package mutating func popMin() -> (timeTicks: Int64, target: UInt32, payload: UInt64)? {
        guard let e = heap.popMin() else { return nil }
        return (e.time, e.target, e.payload)
    }
}
