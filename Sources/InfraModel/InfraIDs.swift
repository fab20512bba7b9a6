import SimKernel

// Typed indices of InfraModel's tables. Each wraps the fixed-width number the kernel events and
// tables already use, so encoding one into an event (`InfraEvent`) gives exactly the raw number
// the untyped code used; the type only says which table the number indexes. `index`, `init(_:)`,
// the order and the printed number come from `TypedIndex`.

/// A device request (``InfraWorld/fetch(_:kernel:)``): an index into the request table, recycled
/// once the request is released.
@usableFromInline package struct RequestID: TypedIndex, CustomStringConvertible {
    @usableFromInline package var rawValue: UInt32
    @inlinable package init(rawValue: UInt32) { self.rawValue = rawValue }
}

/// An upstream fetch (a PoP or shield filling its cache from its parent tier): an index into the
/// fetch table, recycled when its response has been handled. Internal: requesters never see one.
/// (PreloadKit's `FetchID`, a fetch of a pre-stage session, is an unrelated number.)
struct FetchID: TypedIndex { var rawValue: UInt32 }

/// A cache node: PoP `p` is node `p`, shield `s` is node `popCount + s`.
package struct NodeID: TypedIndex, CustomStringConvertible {
    package var rawValue: UInt32
    @inlinable package init(rawValue: UInt32) { self.rawValue = rawValue }
}

/// A shared access-network bottleneck of one (region, network class) (``SharedLinks``).
package struct LinkID: TypedIndex {
    package var rawValue: UInt32
    @inlinable package init(rawValue: UInt32) { self.rawValue = rawValue }
}

/// A region of the topology (``TopologyConfig/effectiveRegions``): `0..<regionCount`.
@usableFromInline package struct RegionID: TypedIndex {
    @usableFromInline package var rawValue: UInt32
    @inlinable package init(rawValue: UInt32) { self.rawValue = rawValue }
}

/// A tracked object of the ``ObjectCatalog`` (assigned densely from 0).
@usableFromInline package struct ObjectID: TypedIndex {
    @usableFromInline package var rawValue: UInt32
    @inlinable package init(rawValue: UInt32) { self.rawValue = rawValue }
}

/// A waiter on an upstream fetch (a device request or a child fetch): an index into the waiter
/// chain of ``UpstreamFetchTable``.
struct WaiterID: TypedIndex { var rawValue: UInt32 }
