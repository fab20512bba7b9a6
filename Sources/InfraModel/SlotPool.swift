/// Recycles the indices of a table of records (struct-of-arrays or array-of-structs): the
/// owner keeps its records, the pool decides which index a new record takes.
///
/// A released index is handed out again before the table grows, last released first (LIFO),
/// so a warm table allocates nothing. The free list is threaded through one `Int32` per
/// slot, which also marks the slots in use.
///
/// Protocol: `allocate()` returns an index or nil at `slotsMax`; when the index equals the
/// owner's table count (`slotCount - 1` after a growth) the owner appends a record for it.
struct SlotPool {
    /// Per slot: the next free slot (-1 ends the list) while free, `inUseMark` while in use.
    private var next: [Int32] = []
    /// First free slot, or -1.
    private var freeHead: Int32 = -1
    /// Slots in use.
    private(set) var inUse: Int = 0
    /// The table never grows beyond this many slots.
    let slotsMax: Int

    private static let inUseMark: Int32 = -2

    /// An empty pool whose table may grow to `slotsMax` slots.
    init(slotsMax: Int) {
        self.slotsMax = slotsMax
    }

    /// Slots ever created (in use or free): the owner's table count.
    var slotCount: Int { next.count }

    /// The most recently released slot, or a new slot `slotCount` when none is free; nil when
    /// none is free and the table is at `slotsMax`.
    /// - Complexity: O(1); allocates only when the table grows.
    @inline(__always)
    mutating func allocate() -> Int? {
        if freeHead >= 0 {
            let s = Int(freeHead)
            freeHead = next[s]
            next[s] = SlotPool.inUseMark
            inUse += 1
            return s
        }
        guard next.count < slotsMax else { return nil }
        next.append(SlotPool.inUseMark)
        inUse += 1
        return next.count - 1
    }

    /// Give slot `s` back; it is the next one `allocate()` returns.
    /// - Precondition: `s` is in use (checked with `PRESTAGE_INVARIANTS`).
    @inline(__always)
    mutating func release(_ s: Int) {
        #if PRESTAGE_INVARIANTS
        precondition(s >= 0 && s < next.count && next[s] == SlotPool.inUseMark, "slot \(s) released but not in use")
        #endif
        next[s] = freeHead
        freeHead = Int32(s)
        inUse -= 1
    }

    /// Whether slot `s` (< `slotCount`) is free.
    @inline(__always)
    func isFree(_ s: Int) -> Bool { next[s] != SlotPool.inUseMark }

    /// The free slots in the order `allocate()` will hand them out (for checks and tests).
    /// - Complexity: O(free slots).
    var freeSlots: [Int] {
        var out: [Int] = []
        var s = freeHead
        while s >= 0 && out.count <= next.count {
            out.append(Int(s))
            s = next[Int(s)]
        }
        return out
    }

    #if PRESTAGE_INVARIANTS
    /// Whether the free list is a chain without cycles through exactly the slots not in use.
    /// O(slots); tests only.
    func checkInvariants() -> Bool {
        let free = freeSlots
        guard free.count + inUse == next.count else { return false }
        var seen = [Bool](repeating: false, count: next.count)
        for s in free {
            if seen[s] || next[s] == SlotPool.inUseMark { return false }
            seen[s] = true
        }
        return true
    }
    #endif
}
