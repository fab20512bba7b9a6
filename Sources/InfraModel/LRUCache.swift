/// A byte-capacity LRU cache of keyed entries: an array-backed intrusive doubly linked list
/// (most recently used at the head) plus an open-addressing index from key to slot.
///
/// Entries carry the times the freshness logic needs (`originTicks`: when the origin generated
/// the response, the RFC 9111 age base; `storedTicks`: when this cache stored it, for purges;
/// `lastAccessTicks`: for the characteristic-time eviction of ``BackgroundPressure``; `version`:
/// the entity tag the entry was stored with, for conditional revalidation).
///
/// Storage grows on demand up to `entriesMax` entries (amortised; freed slots are reused from
/// a free list), so an idle PoP costs almost nothing and a busy one allocates nothing per request
/// once warm.
package struct LRUCache: Sendable {
    /// Capacity in bytes; the sum of entry sizes never exceeds it.
    package let capacityBytes: Int64
    /// Limit on the number of entries (evicts the LRU entry when reached).
    package let entriesMax: Int
    /// Characteristic-time eviction: an entry not accessed for this long is treated as evicted
    /// (0 = off). See ``BackgroundPressure/characteristicTime(seconds:)``.
    package let characteristicTimeTicks: Int64

    package private(set) var usedBytes: Int64 = 0
    package private(set) var count: Int = 0
    /// Entries evicted for capacity or by the characteristic time (not purges or explicit removals).
    package private(set) var evictions: UInt64 = 0

    var keys: [UInt64] = []
    var bytes: [Int64] = []
    var originTicks: [Int64] = []
    var storedTicks: [Int64] = []
    var lastAccessTicks: [Int64] = []
    var versions: [UInt32] = []
    private var prev: [Int32] = []
    private var next: [Int32] = []
    private var head: Int32 = -1
    private var tail: Int32 = -1
    private var freeHead: Int32 = -1
    private var index = KeyIndex()

    package init(capacityBytes: Int64, entriesMax: Int, characteristicTimeTicks: Int64 = 0) {
        precondition(capacityBytes >= 0 && entriesMax >= 1 && entriesMax < Int(Int32.max) && characteristicTimeTicks >= 0)
        self.capacityBytes = capacityBytes
        self.entriesMax = entriesMax
        self.characteristicTimeTicks = characteristicTimeTicks
    }

    /// The slot holding `key`, or -1. With a characteristic time, an entry idle for longer than
    /// it is evicted here (lazily) and reported absent. Does not change recency.
    /// - Complexity: O(1) expected.
    package mutating func lookup(_ key: UInt64, nowTicks: Int64) -> Int32 {
        let s = index.find(key)
        if s < 0 { return -1 }
        if characteristicTimeTicks > 0 && nowTicks - lastAccessTicks[Int(s)] > characteristicTimeTicks {
            remove(slot: s)
            evictions += 1
            return -1
        }
        return s
    }

    /// Whether `key` is present, without side effects (ignores the characteristic time).
    package func contains(_ key: UInt64) -> Bool { index.find(key) >= 0 }

    /// The slot holding `key`, or -1, without side effects (ignores the characteristic time;
    /// for a caller that has just looked `key` up at the same instant).
    @inline(__always) package func slot(of key: UInt64) -> Int32 { index.find(key) }

    /// Mark `slot` most recently used at `nowTicks`.
    /// - Complexity: O(1).
    package mutating func touch(_ slot: Int32, nowTicks: Int64) {
        lastAccessTicks[Int(slot)] = nowTicks
        if head == slot { return }
        unlink(slot)
        pushFront(slot)
    }

    /// Store (or replace) `key`, evicting least recently used entries to make room. Returns the
    /// slot, or -1 when the object is larger than the whole cache (it is then not stored).
    /// - Complexity: O(1) amortised plus O(1) per eviction.
    @discardableResult
    package mutating func insert(_ key: UInt64, bytes size: Int64, originTicks origin: Int64, nowTicks: Int64, version: UInt32 = 0) -> Int32 {
        let existing = index.find(key)
        if existing >= 0 { remove(slot: existing) }
        if size > capacityBytes { return -1 }
        while usedBytes + size > capacityBytes || count >= entriesMax {
            remove(slot: tail)
            evictions += 1
        }
        let s = allocateSlot()
        let i = Int(s)
        keys[i] = key
        bytes[i] = size
        originTicks[i] = origin
        storedTicks[i] = nowTicks
        lastAccessTicks[i] = nowTicks
        versions[i] = version
        pushFront(s)
        index.set(key, s)
        usedBytes += size
        count += 1
        return s
    }

    /// Remove the entry in `slot`.
    /// - Complexity: O(1) expected.
    package mutating func remove(slot s: Int32) {
        let i = Int(s)
        unlink(s)
        index.remove(keys[i])
        usedBytes -= bytes[i]
        count -= 1
        keys[i] = KeyIndex.emptyKey
        next[i] = freeHead
        freeHead = s
    }

    /// Origin generation time of the entry in `slot` (ticks).
    @inline(__always) package func originTicks(of s: Int32) -> Int64 { originTicks[Int(s)] }
    /// When this cache stored the entry in `slot` (ticks).
    @inline(__always) package func storedTicks(of s: Int32) -> Int64 { storedTicks[Int(s)] }
    /// Entity tag (version) of the entry in `slot`.
    @inline(__always) package func version(of s: Int32) -> UInt32 { versions[Int(s)] }
    /// Size of the entry in `slot`.
    @inline(__always) package func bytes(of s: Int32) -> Int64 { bytes[Int(s)] }

    /// Keys from most to least recently used (for tests and diagnostics).
    /// - Complexity: O(n).
    package func keysByRecency() -> [UInt64] {
        var out: [UInt64] = []
        out.reserveCapacity(count)
        var s = head
        while s >= 0 {
            out.append(keys[Int(s)])
            s = next[Int(s)]
        }
        return out
    }

    private mutating func allocateSlot() -> Int32 {
        if freeHead >= 0 {
            let s = freeHead
            freeHead = next[Int(s)]
            return s
        }
        let s = Int32(keys.count)
        keys.append(KeyIndex.emptyKey)
        bytes.append(0)
        originTicks.append(0)
        storedTicks.append(0)
        lastAccessTicks.append(0)
        versions.append(0)
        prev.append(-1)
        next.append(-1)
        return s
    }

    @inline(__always)
    private mutating func unlink(_ s: Int32) {
        let i = Int(s)
        let p = prev[i], n = next[i]
        if p >= 0 { next[Int(p)] = n } else { head = n }
        if n >= 0 { prev[Int(n)] = p } else { tail = p }
        prev[i] = -1
        next[i] = -1
    }

    @inline(__always)
    private mutating func pushFront(_ s: Int32) {
        let i = Int(s)
        prev[i] = -1
        next[i] = head
        if head >= 0 { prev[Int(head)] = s } else { tail = s }
        head = s
    }

    #if PRESTAGE_INVARIANTS
    /// Checks list/index/byte-count consistency. O(n); tests only.
    func checkInvariants() -> Bool {
        var n = 0
        var total: Int64 = 0
        var s = head
        var last: Int32 = -1
        while s >= 0 {
            if prev[Int(s)] != last { return false }
            if index.find(keys[Int(s)]) != s { return false }
            total += bytes[Int(s)]
            n += 1
            last = s
            s = next[Int(s)]
        }
        return last == tail && n == count && total == usedBytes && index.count == count && usedBytes <= capacityBytes
    }
    #endif
}
