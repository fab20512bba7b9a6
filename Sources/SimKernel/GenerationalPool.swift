// A generational index pool: recycled indices into a table the owner keeps, with a generation
// per index so a handle to a released record can be told from a handle to its successor.
//
// Layout. One 8-byte entry per slot: the slot's generation and a link. The link is the next free
// slot while the slot is free (the free list is threaded through the table, so it needs no
// storage of its own), or a mark: in use, retired, or the end of the free list.
// Order. The free list is a stack: the most recently released index is handed out first (LIFO),
// and a new index (== the old `slotCount`) only when none is free. Owners that record results
// per index depend on this order staying exactly as it is.
// Generations. A new slot starts at generation 0. Each release bumps it, so every handle to the
// previous occupant goes stale. A slot released at generation `UInt32.max` is retired instead of
// wrapping to 0: it is never handed out again, so a stale handle can never match a later
// occupant. Retirement costs one slot per 4 billion reuses of an index.

/// Names one occupancy of a `GenerationalPool` slot: the slot index and the generation it had
/// when it was handed out. It stops being live when the slot is released.
@usableFromInline package struct PoolHandle: Hashable, Sendable {
    /// The slot: an index into the owner's table.
    @usableFromInline package let index: UInt32
    /// The slot's generation at allocation.
    @usableFromInline package let generation: UInt32

    /// The handle for `index` at `generation`.
    @inlinable
    package init(index: UInt32, generation: UInt32) {
        self.index = index
        self.generation = generation
    }
}

/// Recycles the indices of a table of records (struct-of-arrays or array-of-structs) and keeps a
/// generation per index: the owner keeps its records, the pool decides which index a new record
/// takes and whether a handle still names the record it was given for.
///
/// Protocol: `allocate()` returns a handle or nil at `slotsMax`; when its index equals the
/// owner's table count (`slotCount - 1` after a growth) the owner appends a record for it.
/// `release(_:)` gives the index back and makes every handle to it stale.
///
/// All operations are O(1) except `freeIndices` and `checkInvariants`; memory grows only when the
/// table does (8 bytes per slot), so a warm pool allocates nothing.
@usableFromInline package struct GenerationalPool: Sendable {
    /// One slot: its generation and its link (next free slot, or one of the marks below).
    @usableFromInline
    struct Slot: Sendable {
        @usableFromInline var generation: UInt32
        @usableFromInline var link: UInt32

        @inlinable
        init(generation: UInt32, link: UInt32) {
            self.generation = generation
            self.link = link
        }
    }

    /// Link of the last free slot; also `freeHead` when none is free.
    @usableFromInline static let endOfList: UInt32 = .max
    /// Link of a slot in use.
    @usableFromInline static let inUseMark: UInt32 = .max - 1
    /// Link of a retired slot (released at generation `UInt32.max`; never handed out again).
    @usableFromInline static let retiredMark: UInt32 = .max - 2
    /// The most slots a pool can have: indices stay below the marks.
    @usableFromInline package static let slotsLimit = Int(retiredMark)

    @usableFromInline var slots: ContiguousArray<Slot>
    /// First free slot, or `endOfList`.
    @usableFromInline var freeHead: UInt32
    @usableFromInline var inUseCount: Int
    /// The generation a new slot starts at (0 except in tests of retirement).
    @usableFromInline let startingGeneration: UInt32

    /// The table never grows beyond this many slots (capped at `slotsLimit`).
    @usableFromInline package let slotsMax: Int

    /// An empty pool whose table may grow to `slotsMax` slots (values above `slotsLimit` mean
    /// `slotsLimit`).
    /// - Precondition: `slotsMax >= 0`.
    @usableFromInline package init(slotsMax: Int) {
        self.init(slotsMax: slotsMax, startingGeneration: 0)
    }

    /// An empty pool whose new slots start at `startingGeneration`, so that retirement at the
    /// end of the generations can be reached in a test.
    init(slotsMax: Int, startingGeneration: UInt32) {
        precondition(slotsMax >= 0, "GenerationalPool: slotsMax must be >= 0, got \(slotsMax)")
        self.slotsMax = Swift.min(slotsMax, GenerationalPool.slotsLimit)
        self.startingGeneration = startingGeneration
        slots = []
        freeHead = GenerationalPool.endOfList
        inUseCount = 0
    }

    /// Slots in use (allocated and not yet released).
    @inlinable package var inUse: Int { inUseCount }

    /// Slots ever created (in use, free or retired): the owner's table count.
    @inlinable package var slotCount: Int { slots.count }

    /// The most recently released index, or a new index `slotCount` when none is free; nil when
    /// none is free and the table is at `slotsMax`.
    /// - Complexity: O(1); allocates only when the table grows.
    @inlinable @inline(__always)
    package mutating func allocate() -> PoolHandle? {
        let head = freeHead
        if head != GenerationalPool.endOfList {
            let i = Int(head)
            freeHead = slots[i].link
            slots[i].link = GenerationalPool.inUseMark
            inUseCount &+= 1
            return PoolHandle(index: head, generation: slots[i].generation)
        }
        return grow()
    }

    /// A new slot at the end of the table, or nil at `slotsMax`.
    @inlinable
    mutating func grow() -> PoolHandle? {
        guard slots.count < slotsMax else { return nil }
        slots.append(Slot(generation: startingGeneration, link: GenerationalPool.inUseMark))
        inUseCount &+= 1
        return PoolHandle(index: UInt32(truncatingIfNeeded: slots.count &- 1), generation: startingGeneration)
    }

    /// Gives slot `index` back: its generation is bumped (every handle to it goes stale) and it is
    /// the next index `allocate()` returns. A slot at generation `UInt32.max` is retired instead.
    /// - Precondition: `index` is in use (checked with `PRESTAGE_INVARIANTS`).
    /// - Complexity: O(1).
    @inlinable @inline(__always)
    package mutating func release(_ index: UInt32) {
        let i = Int(index)
        #if PRESTAGE_INVARIANTS
        precondition(i < slots.count && slots[i].link == GenerationalPool.inUseMark, "GenerationalPool: slot \(index) released but not in use")
        #endif
        inUseCount &-= 1
        let g = slots[i].generation
        if g == UInt32.max {
            slots[i].link = GenerationalPool.retiredMark
            return
        }
        slots[i].generation = g &+ 1
        slots[i].link = freeHead
        freeHead = index
    }

    /// Whether `h` names the current occupant of its slot: the slot is in use at `h`'s generation.
    /// Any index is accepted (one never created is not live).
    /// - Complexity: O(1).
    @inlinable @inline(__always)
    package func isLive(_ h: PoolHandle) -> Bool {
        let i = Int(h.index)
        guard i < slots.count else { return false }
        let s = slots[i]
        return s.link == GenerationalPool.inUseMark && s.generation == h.generation
    }

    /// The current generation of slot `index` (< `slotCount`): the generation its next (or
    /// current) occupant's handle carries.
    @inlinable @inline(__always)
    package func generation(_ index: UInt32) -> UInt32 { slots[Int(index)].generation }

    /// Whether slot `index` (< `slotCount`) is on the free list (neither in use nor retired).
    @inlinable @inline(__always)
    package func isFree(_ index: UInt32) -> Bool {
        let link = slots[Int(index)].link
        return link != GenerationalPool.inUseMark && link != GenerationalPool.retiredMark
    }

    /// Whether slot `index` (< `slotCount`) is in use.
    @inlinable @inline(__always)
    package func isInUse(_ index: UInt32) -> Bool { slots[Int(index)].link == GenerationalPool.inUseMark }

    /// Whether slot `index` (< `slotCount`) is retired (its generations are exhausted).
    @inlinable
    package func isRetired(_ index: UInt32) -> Bool { slots[Int(index)].link == GenerationalPool.retiredMark }

    /// Reserves table room for `slotCount` slots so that growing to it allocates nothing.
    @usableFromInline package mutating func reserveCapacity(_ slotCount: Int) {
        slots.reserveCapacity(Swift.min(slotCount, slotsMax))
    }

    /// The free indices in the order `allocate()` hands them out (for checks and tests).
    /// - Complexity: O(free slots).
    @usableFromInline package var freeIndices: [UInt32] {
        var out: [UInt32] = []
        var s = freeHead
        while s != GenerationalPool.endOfList && Int(s) < slots.count && out.count <= slots.count {
            out.append(s)
            s = slots[Int(s)].link
        }
        return out
    }

    #if PRESTAGE_INVARIANTS
    /// Whether the free list is a chain without cycles through exactly the slots neither in use
    /// nor retired, retired slots are at the last generation, and the counts add up.
    /// - Complexity: O(slots); for tests and checks only.
    func checkInvariants() -> Bool {
        guard slots.count <= slotsMax else { return false }
        var seen = [Bool](repeating: false, count: slots.count)
        var free = 0
        var s = freeHead
        while s != GenerationalPool.endOfList {
            let i = Int(s)
            guard i < slots.count, !seen[i], isFree(s) else { return false }
            seen[i] = true
            free += 1
            s = slots[i].link
        }
        var inUse = 0, retired = 0
        for i in slots.indices {
            switch slots[i].link {
            case GenerationalPool.inUseMark: inUse += 1
            case GenerationalPool.retiredMark:
                guard slots[i].generation == UInt32.max else { return false }
                retired += 1
            default:
                guard seen[i] else { return false }  // free but not on the list
            }
        }
        return inUse == inUseCount && free + inUse + retired == slots.count
    }
    #endif
}
