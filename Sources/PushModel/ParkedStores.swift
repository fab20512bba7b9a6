import PreloadKit

/// The devices' preload stores between sessions, packed to 20 bytes per entry.
///
/// A `PreloadStore` costs ≈ 200 bytes per device once it holds an entry (its own heap array of
/// 72-byte entries). Between sessions only three fields of an entry are not functions of the
/// campaign that stored it: which asset URL (an index into the sorted key table), when it was
/// stored and when it was last used (and its `ETag`: the simulator's tags are 1 + the object
/// version served, `FetchResult.version`, and a version counts a surrogate key's purges, at most
/// one per campaign, so a tag takes 2 bits of the URL index, no byte more). Size, media kind,
/// campaign tag, `expiresAt` and `staleUntil` are recomputed with PreloadKit's own `PreloadStore.lifetime` from the campaign's
/// `Cache-Control` and manifest TTL (evaluated once per campaign at `storedAt = 0` and shifted, which
/// is exact away from saturation; see `LifeOffsets`). Every entry is checked at parking time: it is
/// packed only if unpacking gives back exactly the same `PreloadStore.Entry`; a store with any other entry is
/// kept whole in an overflow pool. So unparking always returns a store equal (`==`) to the one
/// parked, and every store decision stays PreloadKit's.
///
/// Storage: per device an offset and a count (5 bytes); entries in power-of-two blocks of a
/// shared struct-of-arrays pool, recycled through per-size free lists (no per-device allocation).
struct ParkedStores {
    /// Marks an entry as InfraModel's placeholder image stored under the asset's key.
    static let placeholderBit: UInt32 = 1 << 31
    /// Marks the device's preexisting filler entry (`PopulationConfig.preexistingStoreBytes`);
    /// its `storedAt` slot holds its size (a filler is always stored at t = 0).
    static let fillerBit: UInt32 = 1 << 30
    /// The entry's `ETag` fingerprint (0: none; 1 … 3) in bits 28–29; an entry with a larger
    /// tag is not packed.
    static let etagShift: UInt32 = 28
    static let etagMax: UInt64 = 3
    /// The URL index (below the tag bits).
    static let indexMask: UInt32 = 1 << 28 - 1
    /// `count` value of a device whose store is in the overflow pool (`offset` indexes it).
    static let overflowCount: UInt8 = .max
    /// `offset` of a device with an empty store (count 0); offset 0 with count 0: no store yet.
    static let emptyOffset: UInt32 = .max

    private var offset: [UInt32]
    private var count: [UInt8]
    /// Entry pool; slot 0 is never used, so a block offset is never 0.
    private var ref: [UInt32] = [0]
    private var storedAt: [Int64] = [0]
    private var lastUsed: [Int64] = [0]
    /// Slots `0..<poolEnd` of the pool arrays are slot 0 or in blocks (used or free); the rest
    /// are zeroed room, added `growSlots` at a time.
    private var poolEnd = 1
    private static let growSlots = 4_096
    /// Per size class (class k holds 2^k entries), the first free block (0: none); a free
    /// block's first `ref` slot links to the next free block of its class (LIFO, like a stack).
    private var freeHead: [UInt32] = Array(repeating: 0, count: 8)
    private var overflow: [PreloadStore] = []
    /// Stores parked in packed form, emptied (with this pool's limits), at most `sparesMax`:
    /// `emptyStore` hands their entry buffers to the next sessions and unparked stores, so once
    /// warm a session or a tap neither allocates nor frees a store buffer. Many sessions run at
    /// once, so one spare was taken and freed again almost every time (callgrind).
    private var spares: [PreloadStore] = []
    /// Bounds the spares' memory: a spare is one entry buffer, which holds at most `entriesMax`
    /// entries (64 by default, 88 bytes each: under 6 MB for all spares).
    static let sparesMax = 1_024
    private var overflowFree: [UInt32] = []

    let capacityBytes: Int64
    let entriesMax: Int
    private let objectCampaign: [Int32]
    private let objectKind: [MediaKind]
    private let objectBytes: [Int64]
    private let campaignCacheControl: [CacheControl]
    private let campaignTTLSeconds: [Int64]
    private let campaignTag: [UInt64]
    private let placeholderBytes: Int64
    /// Per campaign, `PreloadStore.lifetime` as offsets from `storedAt` (nil: not storable, or
    /// offsets too large to be translation-invariant); see `matchesDerived`.
    private let campaignLifeOffsets: [LifeOffsets?]

    /// `expiresAt`, `staleUntil` and `errorUntil` minus `storedAt`, in microseconds.
    private struct LifeOffsets {
        var expires: Int64
        var stale: Int64
        var error: Int64
    }

    /// Offsets below this and `storedAt` in `0..<offsetBound` keep every sum in `lifetime` far
    /// from saturation, so its result is then exactly `storedAt` + the offsets at `storedAt = 0`.
    private static let offsetBound: Int64 = 1 << 60

    /// Stores parked whole (an entry could not be packed).
    private(set) var overflowStores = 0

    init(devices: Int, capacityBytes: Int64, entriesMax: Int, plans: CampaignPlans, campaigns: [CampaignConfig], placeholderBytes: Int64) {
        offset = [UInt32](repeating: 0, count: devices)
        count = [UInt8](repeating: 0, count: devices)
        self.capacityBytes = capacityBytes
        self.entriesMax = entriesMax
        objectCampaign = plans.objectCampaign
        objectKind = plans.objectKind
        objectBytes = plans.catalog.bytes
        campaignCacheControl = campaigns.map { CacheControl.parse($0.cacheControl.headerValue) }
        campaignTTLSeconds = plans.entryRequests.map(\.ttlSeconds)
        campaignTag = plans.entryRequests.map(\.manifestTag)
        self.placeholderBytes = placeholderBytes
        campaignLifeOffsets = zip(campaignCacheControl, campaignTTLSeconds).map { cc, ttl in
            guard let life = PreloadStore.lifetime(of: cc, ttlSeconds: ttl, storedAt: .zero) else { return nil }
            let o = LifeOffsets(expires: life.expiresAt.microseconds, stale: life.staleUntil.microseconds, error: life.errorUntil.microseconds)
            let bound = ParkedStores.offsetBound
            // Every intermediate of `lifetime` (ttl end, fresh end, fresh end + swr / sie) must
            // also stay far from saturation at storedAt = 0 for translation invariance.
            let ttlMicros = Instant.microseconds(fromSeconds: max(0, ttl))
            let maxAge = Instant.microseconds(fromSeconds: cc.maxAgeSeconds ?? 0)
            let swr = Instant.microseconds(fromSeconds: cc.staleWhileRevalidateSeconds ?? 0)
            let sie = Instant.microseconds(fromSeconds: cc.staleIfErrorSeconds ?? 0)
            for v in [ttlMicros, maxAge, swr, sie, o.expires, o.stale, o.error] where v < 0 || v >= bound / 4 { return nil }
            return o
        }
    }

    /// The key of device `d`'s preexisting filler entry.
    static func fillerKey(_ d: DeviceID) -> StoreKey { StoreKey(hi: UInt64(d.rawValue) | 1 << 63, lo: 0) }

    /// Device `d`'s filler entry of `bytes` (stored at t = 0, usable for 4 h).
    static func fillerEntry(_ d: DeviceID, bytes: Int64) -> PreloadStore.Entry {
        let until = Instant(microseconds: 14_400_000_000)
        return PreloadStore.Entry(key: fillerKey(d), bytes: bytes, storedAt: .zero, expiresAt: until, staleUntil: until,
                                  lastUsed: .zero, manifestTag: 0, kind: .jpeg)
    }

    /// Whether device `device` ever had a store (possibly empty now).
    func hasStore(_ device: DeviceID) -> Bool { count[device.index] != 0 || offset[device.index] != 0 }

    /// The entry that packed fields stand for, or nil when `r` names no campaign asset.
    private func entry(_ r: UInt32, storedAt s: Int64, lastUsed u: Int64, device d: DeviceID, plans: CampaignPlans) -> PreloadStore.Entry? {
        if r & ParkedStores.fillerBit != 0 {
            var e = ParkedStores.fillerEntry(d, bytes: s)
            e.lastUsed = Instant(microseconds: u)
            return e
        }
        let index = Int(r & ParkedStores.indexMask)
        let tag = UInt64(r >> ParkedStores.etagShift & 3)
        guard index < plans.keys.count else { return nil }
        let object = Int(plans.keyObjects[index])
        let c = Int(objectCampaign[object])
        guard c >= 0 else { return nil }
        let placeholder = r & ParkedStores.placeholderBit != 0
        let at = Instant(microseconds: s)
        let life: (expiresAt: Instant, staleUntil: Instant, errorUntil: Instant)
        if let o = campaignLifeOffsets[c], s >= 0 && s < ParkedStores.offsetBound {
            life = (Instant(microseconds: s + o.expires), Instant(microseconds: s + o.stale), Instant(microseconds: s + o.error))
        } else {
            guard let l = PreloadStore.lifetime(of: campaignCacheControl[c], ttlSeconds: campaignTTLSeconds[c], storedAt: at) else { return nil }
            life = l
        }
        return PreloadStore.Entry(key: plans.keys[index], bytes: placeholder ? placeholderBytes : objectBytes[object], storedAt: at,
                                  expiresAt: life.expiresAt, staleUntil: life.staleUntil, lastUsed: Instant(microseconds: u),
                                  manifestTag: campaignTag[c], kind: placeholder ? .jpeg : objectKind[object],
                                  etag: tag == 0 ? nil : EntityTag(fingerprint: tag), errorUntil: life.errorUntil)
    }

    /// Whether `e`, packed as non-filler `r` for campaign object `object`, is exactly the entry
    /// `entry(r, …)` derives (then the full derivation and compare are unnecessary). A false
    /// answer only means "not proven here": the caller then derives and compares.
    @inline(__always)
    private func matchesDerived(_ e: PreloadStore.Entry, _ r: UInt32, object: Int) -> Bool {
        let c = Int(objectCampaign[object])
        guard c >= 0, let o = campaignLifeOffsets[c] else { return false }
        let s = e.storedAt.microseconds
        guard s >= 0 && s < ParkedStores.offsetBound else { return false }
        let placeholder = r & ParkedStores.placeholderBit != 0
        return e.expiresAt.microseconds == s + o.expires && e.staleUntil.microseconds == s + o.stale
            && e.errorUntil.microseconds == s + o.error && e.manifestTag == campaignTag[c]
            && e.bytes == (placeholder ? placeholderBytes : objectBytes[object])
            && e.kind == (placeholder ? .jpeg : objectKind[object])
    }

    /// An empty store with these limits: a spare (see `spares`) when they are this pool's, else a new one.
    mutating func emptyStore(capacityBytes: Int64, entriesMax: Int) -> PreloadStore {
        if capacityBytes == self.capacityBytes && entriesMax == self.entriesMax, let s = spares.popLast() {
            return s
        }
        return PreloadStore(capacityBytes: capacityBytes, entriesMax: entriesMax)
    }

    /// Device `device`'s store (an empty one if none was parked); the parked copy is released.
    /// - Complexity: O(entries); allocates the store's entry array unless a spare's is reused.
    mutating func unpark(_ device: DeviceID, plans: CampaignPlans, reserving extra: Int) -> PreloadStore {
        let d = device.index
        var store = emptyStore(capacityBytes: capacityBytes, entriesMax: entriesMax)
        let n = count[d]
        if n == ParkedStores.overflowCount {
            let i = Int(offset[d])
            swap(&store, &overflow[i])
            overflowFree.append(UInt32(i))
            store.reserveCapacity(entries: store.entries.count + extra)
        } else if n > 0 {
            let base = Int(offset[d])
            store.reserveCapacity(entries: Int(n) + extra)
            for i in base..<(base + Int(n)) {
                if let e = entry(ref[i], storedAt: storedAt[i], lastUsed: lastUsed[i], device: device, plans: plans) {
                    store.insert(e)
                }
            }
            release(base: base, count: Int(n))
        }
        count[d] = 0
        offset[d] = 0
        return store
    }

    /// Emptied stores kept for reuse (see `spares`).
    var spareCount: Int { spares.count }

    /// The pool's slots handed out as blocks so far (for memory reports).
    var poolSlots: Int { poolEnd }

    /// Parks device `device`'s store; a store packed here becomes a spare (emptied) while there is room.
    /// - Complexity: O(entries · log keys); no allocation once the pool is warm.
    mutating func park(_ device: DeviceID, _ store: consuming PreloadStore, plans: CampaignPlans) {
        let d = device.index
        precondition(count[d] == 0 && offset[d] == 0, "device \(d) already has a parked store")
        let n = store.entries.count
        if n == 0 {
            offset[d] = ParkedStores.emptyOffset
            keepSpare(consume store)
            return
        }
        let base: Int
        if n <= 128 {
            base = allocate(n)
            var packed = true
            for k in 0..<n {
                let e = store.entries[k]
                let r: UInt32
                if e.key == ParkedStores.fillerKey(device) {
                    r = ParkedStores.fillerBit
                } else if let index = plans.keyIndex(of: e.key), index <= Int(ParkedStores.indexMask),
                          case let tag = e.etag?.fingerprint ?? 0, tag <= ParkedStores.etagMax {
                    let object = Int(plans.keyObjects[index])
                    r = UInt32(index) | UInt32(tag) << ParkedStores.etagShift
                        | (e.bytes != objectBytes[object] ? ParkedStores.placeholderBit : 0)
                    if matchesDerived(e, r, object: object) {
                        let i = base + k
                        ref[i] = r
                        storedAt[i] = e.storedAt.microseconds
                        lastUsed[i] = e.lastUsed.microseconds
                        continue
                    }
                } else {
                    packed = false
                    break
                }
                let i = base + k
                ref[i] = r
                storedAt[i] = r & ParkedStores.fillerBit != 0 ? e.bytes : e.storedAt.microseconds
                lastUsed[i] = e.lastUsed.microseconds
                if entry(r, storedAt: storedAt[i], lastUsed: lastUsed[i], device: device, plans: plans) != e {
                    packed = false
                    break
                }
            }
            if packed {
                offset[d] = UInt32(base)
                count[d] = UInt8(n)
                keepSpare(consume store)
                return
            }
            release(base: base, count: n)
        }
        overflowStores += 1
        if let i = overflowFree.popLast() {
            overflow[Int(i)] = store
            offset[d] = i
        } else {
            offset[d] = UInt32(overflow.count)
            overflow.append(store)
        }
        count[d] = ParkedStores.overflowCount
    }

    /// Keeps `store`, emptied, as a spare when it has this pool's limits and there is room.
    private mutating func keepSpare(_ store: consuming PreloadStore) {
        guard spares.count < ParkedStores.sparesMax && store.capacityBytes == capacityBytes && store.entriesMax == entriesMax else { return }
        if !store.entries.isEmpty { store.removeAll(keepingCapacity: true) }
        spares.append(consume store)
    }

    /// The smallest k with 2^k >= n (n >= 1).
    private static func sizeClass(_ n: Int) -> Int {
        n <= 1 ? 0 : Int.bitWidth - (n - 1).leadingZeroBitCount
    }

    private mutating func allocate(_ n: Int) -> Int {
        let k = ParkedStores.sizeClass(n)
        let head = freeHead[k]
        if head != 0 {
            freeHead[k] = ref[Int(head)]
            return Int(head)
        }
        let base = poolEnd
        poolEnd += 1 << k
        if poolEnd > ref.count {
            // Grown a chunk at a time: `append(contentsOf: repeatElement(…))` takes the generic
            // sequence path (about 350 instructions), and element-wise appends cost about 60
            // per slot; either per block was most of a park (callgrind).
            let grow = max(ParkedStores.growSlots, poolEnd - ref.count)
            ref.append(contentsOf: repeatElement(0, count: grow))
            storedAt.append(contentsOf: repeatElement(0, count: grow))
            lastUsed.append(contentsOf: repeatElement(0, count: grow))
        }
        return base
    }

    private mutating func release(base: Int, count n: Int) {
        let k = ParkedStores.sizeClass(n)
        ref[base] = freeHead[k]
        freeHead[k] = UInt32(base)
    }
}
