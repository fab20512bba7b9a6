// FCM collapse keys (`campaigns[].collapsible`, `campaigns[].collapseKey`). A collapsible message
// FCM holds for a device -- stored while the device is offline (`PushWorld+Offline.swift`) or
// throttled by the device's collapsible burst (`PushWorld+DeviceCaps.swift`) -- is replaced by a
// newer message with the same collapse key: the older one is `collapsed` (never delivered), the
// newer one takes its place. Firebase, "Non-collapsible and collapsible messages": "A collapsible
// message is a message that may be replaced by a new message if it has yet to be delivered to the
// device"; "By default, the collapse key is the app package name" (here: the one key every
// collapsible campaign without a `collapseKey` shares).
//
// Four keys: "The FCM server can simultaneously store four different collapsible messages per
// device, each with a different collapse key. If you exceed this number, FCM only keeps four
// collapse keys, with no determining factor on which keys are kept." With offline windows and more
// than one key in the scenario, a device's store keeps at most four keys; a fifth key's message
// drops the key stored longest (judgement: the documentation names no rule, and the oldest is the
// one a newer sync most likely supersedes). The dropped message is counted `collapsed` in the Data
// API (judgement: its category is not documented; it was superseded by a newer collapsible
// message) and in `provider.fcm.offline.collapseKeyLimitDropped`.
//
// State: with one key (the default) the offline store's counters are enough (`OfflineSlot`); with
// more, four 16-bit message ids a device (`CollapseSlots`, 8 bytes), allocated only then.

/// Per campaign, its collapse key's index: 0 the app's default key (and every non-collapsible
/// campaign), then each distinct `collapseKey` in the order campaigns first name it.
extension PushWorldConfig {
    var collapseKeyIndices: [UInt8] {
        var names: [String] = []
        return campaigns.map { c in
            guard c.collapsible, let key = c.collapseKey else { return 0 }
            if let i = names.firstIndex(of: key) { return UInt8(clamping: i + 1) }
            names.append(key)
            return UInt8(clamping: names.count)
        }
    }

    /// Collapse keys the scenario's collapsible campaigns use (the default one included).
    var collapseKeysUsed: Int { Set(campaigns.filter(\.collapsible).map { $0.collapseKey ?? "" }).count }

    /// Whether the offline stores keep collapsible messages by key (`CollapseSlots`): offline
    /// windows and more than one collapse key.
    package var collapseKeySlotsKept: Bool { providers?.offline != nil && collapseKeysUsed > 1 }
}

/// One Android device's collapsible messages FCM stores while it is offline, one per collapse key,
/// at most four, oldest first: 16-bit lanes of message ids (campaign × 16 + part + 1; 0 empty).
struct CollapseSlots {
    var raw: UInt64 = 0

    static let keysMax = 4

    @inline(__always)
    static func id(_ w: PushWord) -> UInt16 { UInt16(w.campaign * 16 + w.part + 1) }

    @inline(__always)
    static func campaign(_ id: UInt16) -> Int { Int(id - 1) / 16 }

    @inline(__always)
    func lane(_ i: Int) -> UInt16 { UInt16(truncatingIfNeeded: raw >> (16 * i)) }

    var count: Int {
        var n = 0
        while n < CollapseSlots.keysMax && lane(n) != 0 { n += 1 }
        return n
    }

    /// Removes lane `i`, the younger lanes moving down.
    @inline(__always)
    mutating func remove(_ i: Int) {
        let below = i == 0 ? 0 : raw & ((1 << (16 * UInt64(i))) - 1)
        let above = i >= CollapseSlots.keysMax - 1 ? 0 : (raw >> (16 * UInt64(i + 1))) << (16 * UInt64(i))
        raw = below | above
    }

    /// Appends `id` as the youngest (there must be room).
    @inline(__always)
    mutating func append(_ id: UInt16) { raw |= UInt64(id) << (16 * UInt64(count)) }

    /// The lane holding a message of key `key`, by campaign key indices `keys`.
    @inline(__always)
    func lane(ofKey key: UInt8, keys: [UInt8]) -> Int? {
        for i in 0..<count where keys[CollapseSlots.campaign(lane(i))] == key { return i }
        return nil
    }

    /// The lane holding message `id`.
    @inline(__always)
    func lane(of id: UInt16) -> Int? {
        for i in 0..<count where lane(i) == id { return i }
        return nil
    }
}

extension PushWorld {
    /// Stores collapsible FCM message `w` for offline device `d` under its collapse key, with more
    /// than one key in the scenario: a stored message of the same key is replaced (`collapsed`);
    /// a fifth key drops the oldest stored key's message.
    @inline(__always)
    mutating func storeKeyed(_ d: Int, _ w: PushWord, dataApi: Bool) {
        var s = offline.keySlots[d]
        if let i = s.lane(ofKey: offline.collapseKey[w.campaign], keys: offline.collapseKey) {
            s.remove(i)
            if dataApi {
                providers.tally.dataApi.storedOffline -= 1
                providers.tally.dataApi.collapsed += 1
            }
        } else if s.count == CollapseSlots.keysMax {
            s.remove(0)
            offline.tally.collapseKeyLimitDropped += 1
            if dataApi {
                providers.tally.dataApi.storedOffline -= 1
                providers.tally.dataApi.collapsed += 1
            }
        }
        s.append(CollapseSlots.id(w))
        offline.keySlots[d] = s
    }

    /// Stored collapsible message `w` comes back at device `d`'s reconnect: true when it is still
    /// stored (then it leaves the store), false when a newer one replaced it or the key limit
    /// dropped it (counted then).
    @inline(__always)
    mutating func handOverKeyed(_ d: Int, _ w: PushWord) -> Bool {
        guard let i = offline.keySlots[d].lane(of: CollapseSlots.id(w)) else { return false }
        offline.keySlots[d].remove(i)
        return true
    }
}
