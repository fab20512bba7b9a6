// The pending-event set: an implicit 4-ary min-heap of 32-byte entries in a ContiguousArray.
//
// Why this shape:
// - An implicit heap in one contiguous buffer allocates only when it grows past its capacity;
//   once a run reaches its steady-state size, push and pop never allocate.
// - Entries are small and self-contained (no pointer to a separate event record), so a pop touches
//   only heap memory. The order key is (time, sequence); the sequence number shares a word with
//   the 16-bit kind (sequence in the high 48 bits), which keeps the entry at 32 bytes: two per
//   64-byte cache line.
// - Sifting uses the "hole" technique inside `withUnsafeMutableBufferPointer`: one copy per level
//   instead of a swap, and no bounds checks in the inner loop.
// - 4-ary, not binary: a pop walks log4(n) levels instead of log2(n), choosing among four children
//   (three compares, two of them independent) instead of two, and moves half as many entries;
//   the four children of a node are 128 contiguous bytes. On the full model (callgrind, the
//   black-friday scenario at 50 000 devices, ~10^4-10^5 pending events) this counts fewer
//   instructions per event than the binary heap. A bottom-up binary pop (walk the hole to a leaf,
//   then sift the last entry up) counted more: the model's last entry is often an early one.

/// One entry of the pending-event set.
@usableFromInline
struct QueuedEvent: Sendable {
    /// Event time in ticks; the primary key.
    @usableFromInline var time: Int64
    /// `sequence << 16 | kind`. The sequence is unique per kernel, so comparing this word compares
    /// sequences (FIFO among simultaneous events); the low 16 bits never decide the order.
    @usableFromInline var sequenceAndKind: UInt64
    @usableFromInline var target: UInt32
    /// Slot in the cancellation table, or `QueuedEvent.notCancellable`.
    @usableFromInline var slot: UInt32
    @usableFromInline var payload: UInt64

    /// `slot` value of an event that was not scheduled as cancellable.
    @usableFromInline static let notCancellable: UInt32 = .max
    /// Bits of `sequenceAndKind` holding the sequence number.
    @usableFromInline static let sequenceBits: UInt64 = 48

    @inlinable
    init(time: Int64, sequence: UInt64, kind: UInt16, target: UInt32, slot: UInt32, payload: UInt64) {
        self.time = time
        self.sequenceAndKind = sequence << 16 | UInt64(kind)
        self.target = target
        self.slot = slot
        self.payload = payload
    }

    @inlinable var sequence: UInt64 { sequenceAndKind >> 16 }
    @inlinable var kind: UInt16 { UInt16(truncatingIfNeeded: sequenceAndKind) }

    /// Strict (time, sequence) order.
    @inlinable
    func precedes(_ other: QueuedEvent) -> Bool {
        time < other.time || (time == other.time && sequenceAndKind < other.sequenceAndKind)
    }
}

/// A 4-ary min-heap of `QueuedEvent` ordered by (time, sequence): the children of entry `i` are
/// `4i+1 ... 4i+4`, its parent `(i-1)/4`.
@usableFromInline
struct EventHeap: Sendable {
    @usableFromInline var storage: ContiguousArray<QueuedEvent>

    @inlinable
    init(reservingCapacity capacity: Int) {
        storage = []
        storage.reserveCapacity(Swift.max(capacity, 1))
    }

    @inlinable var count: Int { storage.count }

    /// The earliest entry, if any.
    /// - Complexity: O(1).
    @inlinable var min: QueuedEvent? { storage.first }

    /// Adds `e`.
    /// - Complexity: O(log n); amortised no allocation once the capacity has reached the peak size.
    @inlinable @inline(__always)
    mutating func push(_ e: QueuedEvent) {
        storage.append(e)
        let placed = storage.withUnsafeMutableBufferPointer { buf -> Int in
            var hole = buf.count - 1
            while hole > 0 {
                let parent = (hole &- 1) &>> 2
                guard e.precedes(buf[parent]) else { break }
                buf[hole] = buf[parent]
                hole = parent
            }
            buf[hole] = e
            return hole
        }
        #if PRESTAGE_INVARIANTS
        checkLocalOrder(around: placed)
        #else
        _ = placed
        #endif
    }

    /// Removes and returns the earliest entry, or nil if the heap is empty.
    /// - Complexity: O(log n); never allocates.
    @inlinable @inline(__always)
    mutating func popMin() -> QueuedEvent? {
        guard let last = storage.popLast() else { return nil }
        if storage.isEmpty { return last }
        let (top, placed) = storage.withUnsafeMutableBufferPointer { buf -> (QueuedEvent, Int) in
            let top = buf[0]
            let hole = EventHeap.siftDown(last, from: 0, in: buf)
            return (top, hole)
        }
        #if PRESTAGE_INVARIANTS
        checkLocalOrder(around: placed)
        #else
        _ = placed
        #endif
        return top
    }

    /// Places `e` at `start` or below: moves the earliest child up while it precedes `e`. Returns
    /// where `e` came to rest.
    @inlinable @inline(__always)
    static func siftDown(_ e: QueuedEvent, from start: Int, in buf: UnsafeMutableBufferPointer<QueuedEvent>) -> Int {
        let n = buf.count
        var hole = start
        while true {
            let first = 4 &* hole &+ 1
            guard first < n else { break }
            var child = first
            if first &+ 3 < n {
                // All four children: a two-round tournament (the first round's compares are independent).
                let a = buf[first &+ 1].precedes(buf[first]) ? first &+ 1 : first
                let b = buf[first &+ 3].precedes(buf[first &+ 2]) ? first &+ 3 : first &+ 2
                child = buf[b].precedes(buf[a]) ? b : a
            } else {
                var c = first &+ 1
                while c < n {
                    if buf[c].precedes(buf[child]) { child = c }
                    c &+= 1
                }
            }
            guard buf[child].precedes(e) else { break }
            buf[hole] = buf[child]
            hole = child
        }
        buf[hole] = e
        return hole
    }

    /// Removes every entry for which `isRemoved` is true, then restores the heap order (Floyd's
    /// bottom-up construction).
    /// - Complexity: O(n).
    @usableFromInline
    mutating func removeAll(where isRemoved: (QueuedEvent) -> Bool) {
        storage.removeAll(where: isRemoved)
        heapify()
    }

    /// Restores the heap property over the whole storage.
    /// - Complexity: O(n).
    @usableFromInline
    mutating func heapify() {
        let n = storage.count
        guard n > 1 else { return }
        storage.withUnsafeMutableBufferPointer { buf in
            var start = (n - 2) / 4
            while start >= 0 {
                _ = EventHeap.siftDown(buf[start], from: start, in: buf)
                start -= 1
            }
        }
        #if PRESTAGE_INVARIANTS
        precondition(isValidHeap(), "EventHeap: heap order broken after heapify")
        #endif
    }

    /// True if every parent precedes its children (the full heap property).
    /// - Complexity: O(n). Used by tests and invariant checks.
    @usableFromInline
    func isValidHeap() -> Bool {
        var i = 1
        while i < storage.count {
            if storage[i].precedes(storage[(i - 1) / 4]) { return false }
            i += 1
        }
        return true
    }

    #if PRESTAGE_INVARIANTS
    /// O(1) check of the heap property around index `i` (its parent and its children): `i` is where
    /// the moved entry came to rest, the only place a push or pop can have broken the order. Run
    /// after every push and pop in invariant-checking builds; the full O(n) check is `isValidHeap()`.
    @usableFromInline
    func checkLocalOrder(around i: Int) {
        guard i < storage.count else { return }
        if i > 0 {
            precondition(!storage[i].precedes(storage[(i - 1) / 4]), "EventHeap: entry \(i) precedes its parent")
        }
        var c = 4 * i + 1
        while c <= 4 * i + 4 && c < storage.count {
            precondition(!storage[c].precedes(storage[i]), "EventHeap: child \(c) precedes its parent \(i)")
            c += 1
        }
    }
    #endif
}
