import InfraModel
import PreloadKit

extension SessionDriver {
    /// Device `d`'s store taken out of parking, with room for `extra` more entries; a device that
    /// never had one gets an empty store holding its preexisting filler entry (`preexistingBytes`).
    /// The caller parks it again (or hands it to a session).
    mutating func takeStore(_ d: DeviceID, preexistingBytes: Int64, reserving extra: Int) -> PreloadStore {
        if parked.hasStore(d) { return parked.unpark(d, plans: plans, reserving: extra) }
        var store = parked.emptyStore(capacityBytes: rules.storeCapacityBytes, entriesMax: rules.storeEntriesMax)
        store.reserveCapacity(entries: 1 + extra)
        if preexistingBytes > 0 { store.insert(ParkedStores.fillerEntry(d, bytes: preexistingBytes)) }
        return store
    }
}

/// Validators on the device side: the `ETag` a response carries and the conditional request a
/// revalidation sends (RFC 9110 §8.8.3, §13.1.2; 304 Not Modified, §15.4.5).
extension SessionDriver {
    /// InfraModel's `ifNoneMatch` for PreloadKit's validator: the simulator's tags are 1 + an
    /// object version (`completion(_:_:validators:)`), so the fingerprint is the condition itself.
    @inline(__always)
    static func condition(_ tag: EntityTag?) -> UInt32 {
        guard let tag else { return 0 }
        return UInt32(truncatingIfNeeded: tag.fingerprint)
    }

    /// The completion PreloadKit gets for an answered fetch of the object whose response is
    /// `response`: that response with the served version as `ETag` (when the origin sends
    /// `validators`), or, for a 304, its headers with status 304 and no body. Only replies
    /// other than the common one (version 0, a body) come here: those pass `completions` as is.
    @inline(__always)
    static func completion(_ response: consuming FetchCompletion, _ result: FetchResult, validators: Bool) -> FetchCompletion {
        var c = response
        guard validators else { return c }
        c.headers.etag = EntityTag(fingerprint: UInt64(result.version) &+ 1)
        if result.notModified {
            c.headers.status = 304
            c.headers.contentLength = 0
            c.bytesReceived = 0
            c.prefix = []
            c.body = .none
        }
        return c
    }
}
