import PreloadKit

extension SessionDriver {
    /// Device `d`'s store taken out of parking, with room for `extra` more entries; a device that
    /// never had one gets an empty store holding its preexisting filler entry (`preexistingBytes`).
    /// The caller parks it again (or hands it to a session).
    mutating func takeStore(_ d: Int, preexistingBytes: Int64, reserving extra: Int) -> PreloadStore {
        if parked.hasStore(d) { return parked.unpark(d, plans: plans, reserving: extra) }
        var store = parked.emptyStore(capacityBytes: rules.storeCapacityBytes, entriesMax: rules.storeEntriesMax)
        store.reserveCapacity(entries: 1 + extra)
        if preexistingBytes > 0 { store.insert(ParkedStores.fillerEntry(d, bytes: preexistingBytes)) }
        return store
    }
}
