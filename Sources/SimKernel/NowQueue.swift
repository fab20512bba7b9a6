// Events scheduled for the current time: a FIFO beside the heap.
//
// A model often schedules an event at `now` (a reply to the requester, a zero-delay hand-off).
// Such an event follows every pending event with a smaller (time, sequence) key, and nothing
// pending is earlier than `now`, so it follows exactly the heap's entries at `now` with a smaller
// sequence and precedes everything else. In the heap it would sift up to the top and then cost
// a full sift-down when popped; here it costs an append and a read. Entries are in scheduling
// (sequence) order, so the queue's first entry is its earliest; the run loop compares it with
// the heap's top, which keeps the delivery order exactly (time, sequence).

/// A FIFO of `QueuedEvent`s whose time is the kernel's current time.
///
/// `entries[head..<end]` are the queued events; the array's count is a high-water mark (slots
/// past `end` are stale), so a warm queue never allocates and emptying it is two stores.
@usableFromInline
struct NowQueue: Sendable {
    @usableFromInline var entries: ContiguousArray<QueuedEvent> = []
    @usableFromInline var head = 0
    @usableFromInline var end = 0

    @inlinable init() {}

    /// Queued events.
    @inlinable var count: Int { end &- head }

    /// The earliest queued event, if any.
    @inlinable var first: QueuedEvent? { head < end ? entries[head] : nil }

    /// Adds `e`, whose sequence is larger than every queued one.
    @inlinable
    mutating func append(_ e: QueuedEvent) {
        if end < entries.count {
            entries[end] = e
        } else {
            entries.append(e)
        }
        end &+= 1
    }

    /// Drops the earliest queued event.
    /// - Precondition: the queue is not empty.
    @inlinable
    mutating func removeFirst() {
        head &+= 1
        if head == end {
            head = 0
            end = 0
        }
    }

    /// The queued events in order, leaving the queue empty.
    @usableFromInline
    mutating func removeAll() -> ArraySlice<QueuedEvent> {
        let live = entries[head..<end]
        head = 0
        end = 0
        return live
    }
}
