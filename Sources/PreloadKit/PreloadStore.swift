/// How usable a stored asset is at a given instant.
public enum Freshness: UInt8, Sendable, Equatable, CustomStringConvertible {
    /// Within its freshness lifetime: use it, no network.
    case fresh
    /// Past freshness but within `stale-while-revalidate` (and the manifest TTL): use it now and
    /// revalidate in the background.
    case stale
    /// Not stored, or no longer usable: fetch it.
    case missing

    public var description: String {
        switch self {
        case .fresh: return "fresh"
        case .stale: return "stale"
        case .missing: return "missing"
        }
    }
}

/// The on-device preload store as a compact value: a small array of fixed-size entries.
///
/// It is the bookkeeping only; the bytes live wherever the driver puts them (files named
/// `StoreKey.fileName` in the app-group container, or nowhere in the simulator). The session
/// mutates its copy and tells the driver through `.storeAsset` / `.evict` actions, so the two stay
/// in lockstep. One store per device is cheap enough for millions of simulated devices
/// (≈ 88 bytes per entry, no per-entry allocation).
///
/// Invariants (checked under `PRESTAGE_INVARIANTS`): `usedBytes` is the sum of entry sizes and
/// never exceeds `capacityBytes`; `entries.count <= entriesMax`; keys are unique.
public struct PreloadStore: Sendable, Equatable {
    /// One stored asset.
    public struct Entry: Sendable, Equatable {
        /// 128-bit key from the asset URL's cache key (never from payload ids).
        public var key: StoreKey
        /// Size on disk.
        public var bytes: Int64
        /// When the response was stored.
        public var storedAt: Instant
        /// End of the freshness lifetime (`fresh` before it).
        public var expiresAt: Instant
        /// End of usability (`stale` between `expiresAt` and this; `missing` from here on). Never
        /// after `storedAt + ttl`.
        public var staleUntil: Instant
        /// End of `stale-if-error` (RFC 5861 §4; ≥ `staleUntil`): until then the entry is kept
        /// although `missing`, and a refetch of it that fails makes it usable again (until this
        /// instant) instead of leaving the asset missing; purged on the first wake after it.
        /// Never after `storedAt + ttl`.
        public var errorUntil: Instant
        /// Last time a session stored or used this entry (LRU order).
        public var lastUsed: Instant
        /// `PreStageRequest.manifestTag` of the campaign that stored it (for purge by campaign).
        public var manifestTag: UInt64
        /// The media kind established at download (MIME type and magic bytes agreed).
        public var kind: MediaKind
        /// The response's validator, if it had one: a stale entry is revalidated with it.
        public var etag: EntityTag? {
            get { etagFingerprint == 0 ? nil : EntityTag(fingerprint: etagFingerprint) }
            set { etagFingerprint = newValue?.fingerprint ?? 0 }
        }
        /// `etag`'s fingerprint, 0 for none (8 bytes where an optional takes 16 in the array).
        @usableFromInline var etagFingerprint: UInt64

        @inlinable
        public init(key: StoreKey, bytes: Int64, storedAt: Instant, expiresAt: Instant, staleUntil: Instant, lastUsed: Instant, manifestTag: UInt64,
                    kind: MediaKind, etag: EntityTag? = nil, errorUntil: Instant? = nil) {
            self.key = key
            self.bytes = bytes
            self.storedAt = storedAt
            self.expiresAt = expiresAt
            self.staleUntil = staleUntil
            self.lastUsed = lastUsed
            self.manifestTag = manifestTag
            self.kind = kind
            self.etagFingerprint = etag?.fingerprint ?? 0
            self.errorUntil = max(staleUntil, errorUntil ?? staleUntil)
        }

        /// Freshness of this entry at `now`.
        @inlinable
        public func freshness(at now: Instant) -> Freshness {
            if now < expiresAt { return .fresh }
            if now < staleUntil { return .stale }
            return .missing
        }
    }

    /// The entries, in insertion order (order carries no meaning; LRU uses `lastUsed`).
    public private(set) var entries: [Entry]
    /// Byte capacity (default 25 MB, the low end of practice's 25–50 MB).
    public let capacityBytes: Int64
    /// Most entries kept (bounds the per-device footprint).
    public let entriesMax: Int
    /// Sum of `entries[i].bytes`.
    public private(set) var usedBytes: Int64

    /// An empty store. Non-positive limits are clamped to zero (the store then refuses everything).
    public init(capacityBytes: Int64 = 25_000_000, entriesMax: Int = 64) {
        self.entries = []
        self.capacityBytes = max(0, capacityBytes)
        self.entriesMax = max(0, entriesMax)
        self.usedBytes = 0
    }

    /// Makes room for `count` entries (at most `entriesMax`) without changing the contents, so that
    /// filling the store allocates once instead of at each growth step. A driver that knows how
    /// many entries it is about to insert (a restored store plus a push's assets) calls it first.
    /// - Complexity: O(entries.count) when it reallocates.
    public mutating func reserveCapacity(entries count: Int) {
        entries.reserveCapacity(min(max(0, count), entriesMax))
    }

    /// The index of the entry with `key`, if stored.
    /// - Complexity: O(entries.count).
    public func index(of key: StoreKey) -> Int? {
        for i in entries.indices where entries[i].key == key { return i }
        return nil
    }

    /// Freshness of the asset with `key` at `now` (`missing` when absent).
    /// - Complexity: O(entries.count).
    public func freshness(of key: StoreKey, at now: Instant) -> Freshness {
        guard let i = index(of: key) else { return .missing }
        return entries[i].freshness(at: now)
    }

    /// Marks the entry with `key` as used at `now` (moves it to the back of the LRU order).
    /// Returns false when absent.
    @discardableResult
    public mutating func touch(_ key: StoreKey, at now: Instant) -> Bool {
        guard let i = index(of: key) else { return false }
        if entries[i].lastUsed < now { entries[i].lastUsed = now }
        return true
    }

    /// The least recently used entry's index (ties broken by the smaller key, so the order is
    /// deterministic), or nil when empty.
    /// - Complexity: O(entries.count).
    public func leastRecentlyUsedIndex() -> Int? {
        var best: Int? = nil
        for i in entries.indices {
            guard let b = best else { best = i; continue }
            if entries[i].lastUsed < entries[b].lastUsed
                || (entries[i].lastUsed == entries[b].lastUsed && entries[i].key < entries[b].key) {
                best = i
            }
        }
        return best
    }

    /// Removes the entry at `index` and returns it.
    @discardableResult
    public mutating func remove(at index: Int) -> Entry {
        let entry = entries.remove(at: index)
        usedBytes -= entry.bytes
        return entry
    }

    /// Removes every entry; with `keepingCapacity`, the entry array keeps its room, so a driver
    /// that recycles one emptied store for the next device allocates nothing per session.
    public mutating func removeAll(keepingCapacity: Bool = false) {
        if keepingCapacity {
            // The same as `entries.removeAll(keepingCapacity: true)`, without its generic range
            // replacement: about 150 instructions against about 15 per entry for the few entries
            // a store holds (callgrind).
            let capacity = entries.capacity
            while !entries.isEmpty { entries.removeLast() }
            // A buffer shared with a copy was copied on the first removal, at its count.
            if entries.capacity < capacity { entries.reserveCapacity(capacity) }
        } else {
            entries = []
        }
        usedBytes = 0
    }

    /// Removes the entry with `key`; returns whether it was present.
    @discardableResult
    public mutating func remove(_ key: StoreKey) -> Bool {
        guard let i = index(of: key) else { return false }
        remove(at: i)
        return true
    }

    /// The first entry no longer usable at `now`, even on error (`errorUntil <= now`), removed;
    /// nil when none. Call in a loop to purge everything expired without allocating.
    public mutating func removeFirstExpired(at now: Instant) -> Entry? {
        for i in entries.indices where entries[i].errorUntil <= now { return remove(at: i) }
        return nil
    }

    /// Entry `key` is `missing` at `now` but within stale-if-error, and its refetch failed: it is
    /// usable again (stale) until `errorUntil` (RFC 5861 §4). Returns whether it was.
    @discardableResult
    public mutating func useOnError(_ key: StoreKey, at now: Instant) -> Bool {
        guard let i = index(of: key), entries[i].staleUntil <= now, now < entries[i].errorUntil else { return false }
        entries[i].staleUntil = entries[i].errorUntil
        return true
    }

    /// Removes every entry no longer usable at `now` and returns their keys, sorted.
    public mutating func purgeExpired(at now: Instant) -> [StoreKey] {
        var keys: [StoreKey] = []
        while let e = removeFirstExpired(at: now) { keys.append(e.key) }
        return keys.sorted()
    }

    /// Removes every entry dated after `now + toleranceMicroseconds` (stored or last used then)
    /// and returns them sorted by key. Such an entry was written on another timeline (a clock set
    /// back, a monotonic clock restarted by a reboot, another process with another origin): its
    /// ages and lifetimes are meaningless. Call it on every store loaded from persistent storage,
    /// before the first session; the tolerance absorbs the small disagreement between processes'
    /// clocks (a negative tolerance counts as zero). The driver must also delete the removed
    /// entries' files. See `Instant` for the timeline requirement.
    /// - Complexity: O(e²) for e entries (bounded by `entriesMax`).
    public mutating func dropEntriesFromTheFuture(now: Instant, toleranceMicroseconds: Int64) -> [Entry] {
        let latest = now.advanced(byMicroseconds: max(0, toleranceMicroseconds))
        var dropped: [Entry] = []
        var i = 0
        while i < entries.count {
            if entries[i].storedAt > latest || entries[i].lastUsed > latest {
                dropped.append(remove(at: i))
            } else {
                i += 1
            }
        }
        checkInvariants()
        return dropped.sorted { $0.key < $1.key }
    }

    /// Removes every entry stored by the campaign with `manifestTag` and returns their keys, sorted.
    public mutating func purge(manifestTag: UInt64) -> [StoreKey] {
        var keys: [StoreKey] = []
        var i = 0
        while i < entries.count {
            if entries[i].manifestTag == manifestTag { keys.append(remove(at: i).key) } else { i += 1 }
        }
        return keys.sorted()
    }

    /// The LRU entry that must go before `bytes` more can be stored under `limitBytes` (the
    /// smaller of `capacityBytes` and the caller's limit, e.g. free disk), removed; nil when the
    /// new entry already fits. An entry with key `replacing` is not counted (it is about to be
    /// replaced) and is never chosen.
    public mutating func evictOneForSpace(bytes: Int64, limitBytes: Int64, replacing: StoreKey) -> Entry? {
        let limit = min(capacityBytes, limitBytes)
        var used = usedBytes
        var count = entries.count
        if let r = index(of: replacing) {
            used -= entries[r].bytes
            count -= 1
        }
        if used + bytes <= limit && count < entriesMax { return nil }
        var victim: Int? = nil
        for i in entries.indices where entries[i].key != replacing {
            guard let b = victim else { victim = i; continue }
            if entries[i].lastUsed < entries[b].lastUsed
                || (entries[i].lastUsed == entries[b].lastUsed && entries[i].key < entries[b].key) {
                victim = i
            }
        }
        guard let v = victim else { return nil }
        return remove(at: v)
    }

    /// Inserts `entry`, replacing an entry with the same key. The caller must have made room with
    /// `evictOneForSpace` first; returns false (and changes nothing) if it still does not fit.
    @discardableResult
    public mutating func insert(_ entry: Entry) -> Bool {
        let existing = index(of: entry.key)
        let used = usedBytes - (existing.map { entries[$0].bytes } ?? 0)
        let count = entries.count - (existing == nil ? 0 : 1)
        guard entry.bytes >= 0, used + entry.bytes <= capacityBytes, count < entriesMax else { return false }
        if let i = existing {
            entries[i] = entry
        } else {
            entries.append(entry)
        }
        usedBytes = used + entry.bytes
        checkInvariants()
        return true
    }

    /// Freshness window of a response stored at `now` (RFC 9111 + RFC 5861, bounded by the
    /// manifest TTL):
    /// - `expiresAt = now + min(max-age, ttl)` (max-age absent: the TTL; `no-cache`: now),
    /// - `staleUntil = min(expiresAt + stale-while-revalidate, now + ttl)`,
    /// - `errorUntil = max(staleUntil, min(expiresAt + stale-if-error, now + ttl))`,
    /// and nil when the response must not be stored (`no-store`, or no usable lifetime at all).
    @inlinable
    public static func lifetime(of cacheControl: CacheControl, ttlSeconds: Int64,
                                storedAt now: Instant) -> (expiresAt: Instant, staleUntil: Instant, errorUntil: Instant)? {
        if cacheControl.noStore { return nil }
        let ttlEnd = now.advanced(bySeconds: max(0, ttlSeconds))
        var freshEnd = now.advanced(bySeconds: cacheControl.maxAgeSeconds ?? max(0, ttlSeconds))
        if cacheControl.noCache { freshEnd = now }
        if freshEnd > ttlEnd { freshEnd = ttlEnd }
        var staleEnd = freshEnd.advanced(bySeconds: cacheControl.staleWhileRevalidateSeconds ?? 0)
        if staleEnd > ttlEnd { staleEnd = ttlEnd }
        if staleEnd <= now { return nil }
        var errorEnd = freshEnd.advanced(bySeconds: cacheControl.staleIfErrorSeconds ?? 0)
        if errorEnd > ttlEnd { errorEnd = ttlEnd }
        return (freshEnd, staleEnd, max(staleEnd, errorEnd))
    }

    func checkInvariants() {
        #if PRESTAGE_INVARIANTS
        var sum: Int64 = 0
        for (i, e) in entries.enumerated() {
            sum += e.bytes
            for j in (i + 1)..<entries.count { precondition(entries[j].key != e.key, "duplicate store key") }
        }
        precondition(sum == usedBytes, "usedBytes out of sync")
        precondition(usedBytes <= capacityBytes, "store above capacity")
        precondition(entries.count <= entriesMax, "store above entriesMax")
        #endif
    }
}
