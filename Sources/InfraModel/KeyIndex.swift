/// An open-addressing hash index from a 64-bit key to a 32-bit slot (linear probing,
/// backward-shift deletion). It replaces `Dictionary` on hot paths: no per-operation
/// allocation, no hashing of `Hashable` existentials, deterministic layout.
///
/// The table grows by doubling when the load exceeds 1/2 (amortised O(1)); it never grows
/// beyond `keysMax` keys, which the owner enforces before inserting.
struct KeyIndex {
    /// `UInt64.max` marks an empty bucket, so it is not a valid key.
    static let emptyKey: UInt64 = .max

    private(set) var keys: [UInt64]
    private(set) var values: [Int32]
    private(set) var count: Int = 0
    private var mask: Int

    init(initialCapacity: Int = 16) {
        var n = 16
        while n < initialCapacity * 2 { n <<= 1 }
        keys = [UInt64](repeating: KeyIndex.emptyKey, count: n)
        values = [Int32](repeating: -1, count: n)
        mask = n - 1
    }

    @inline(__always)
    private static func hash(_ key: UInt64) -> Int {
        // Fibonacci hashing of a SplitMix-style mix: low bits become usable.
        var z = key &* 0x9e37_79b9_7f4a_7c15
        z ^= z >> 29
        return Int(truncatingIfNeeded: z)
    }

    /// The slot stored for `key`, or -1.
    /// - Complexity: O(1) expected.
    @inline(__always)
    func find(_ key: UInt64) -> Int32 {
        var i = KeyIndex.hash(key) & mask
        while true {
            let k = keys[i]
            if k == key { return values[i] }
            if k == KeyIndex.emptyKey { return -1 }
            i = (i + 1) & mask
        }
    }

    /// Insert or overwrite `key → value`.
    /// - Complexity: O(1) amortised.
    mutating func set(_ key: UInt64, _ value: Int32) {
        precondition(key != KeyIndex.emptyKey, "KeyIndex: UInt64.max is reserved")
        if (count + 1) * 2 > keys.count { grow() }
        var i = KeyIndex.hash(key) & mask
        while true {
            let k = keys[i]
            if k == key { values[i] = value; return }
            if k == KeyIndex.emptyKey {
                keys[i] = key
                values[i] = value
                count += 1
                return
            }
            i = (i + 1) & mask
        }
    }

    /// Remove `key` if present; returns whether it was.
    /// - Complexity: O(1) expected (backward-shift deletion keeps probe chains tombstone-free).
    @discardableResult
    mutating func remove(_ key: UInt64) -> Bool {
        var i = KeyIndex.hash(key) & mask
        while true {
            let k = keys[i]
            if k == KeyIndex.emptyKey { return false }
            if k == key { break }
            i = (i + 1) & mask
        }
        // Backward shift: move later members of the probe chain into the hole.
        var hole = i
        var j = (i + 1) & mask
        while keys[j] != KeyIndex.emptyKey {
            let home = KeyIndex.hash(keys[j]) & mask
            // Is `home` cyclically outside (hole, j]? Then the entry may move to the hole.
            let distHomeToJ = (j - home) & mask
            let distHoleToJ = (j - hole) & mask
            if distHomeToJ >= distHoleToJ {
                keys[hole] = keys[j]
                values[hole] = values[j]
                hole = j
            }
            j = (j + 1) & mask
        }
        keys[hole] = KeyIndex.emptyKey
        values[hole] = -1
        count -= 1
        return true
    }

    private mutating func grow() {
        let oldKeys = keys
        let oldValues = values
        let n = keys.count * 2
        keys = [UInt64](repeating: KeyIndex.emptyKey, count: n)
        values = [Int32](repeating: -1, count: n)
        mask = n - 1
        count = 0
        for i in 0..<oldKeys.count where oldKeys[i] != KeyIndex.emptyKey {
            set(oldKeys[i], oldValues[i])
        }
    }
}
