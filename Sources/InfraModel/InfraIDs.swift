// Typed indices of InfraModel's tables. Each wraps the fixed-width number the kernel events and
// tables already use, so encoding one into an event (`InfraEvent`) gives exactly the raw number
// the untyped code used; the type only says which table the number indexes.

/// A device request (``InfraWorld/fetch(_:kernel:)``): an index into the request table, recycled
/// once the request is released.
public struct RequestID: Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt32
    @inlinable public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// The table index.
    @inlinable public var index: Int { Int(rawValue) }
    public var description: String { "\(rawValue)" }
}

/// An upstream fetch (a PoP or shield filling its cache from its parent tier): an index into the
/// fetch table, recycled when its response has been handled. Internal: requesters never see one.
/// (PreloadKit's `FetchID`, a fetch of a pre-stage session, is an unrelated number.)
struct FetchID: Hashable, Sendable {
    var rawValue: UInt32
    @inline(__always) init(rawValue: UInt32) { self.rawValue = rawValue }
    @inline(__always) init(_ index: Int) { rawValue = UInt32(truncatingIfNeeded: index) }
    @inline(__always) var index: Int { Int(rawValue) }
}

/// A cache node: PoP `p` is node `p`, shield `s` is node `popCount + s`.
public struct NodeID: Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt32
    @inlinable public init(rawValue: UInt32) { self.rawValue = rawValue }
    @inlinable init(_ index: Int) { rawValue = UInt32(truncatingIfNeeded: index) }
    /// The node's index in the per-node tables.
    @inlinable public var index: Int { Int(rawValue) }
    public var description: String { "\(rawValue)" }
}

/// A shared access-network bottleneck of one (region, network class) (``SharedLinks``).
public struct LinkID: Hashable, Sendable {
    public var rawValue: UInt32
    @inlinable public init(rawValue: UInt32) { self.rawValue = rawValue }
    @inlinable public var index: Int { Int(rawValue) }
}

/// A region of the topology (``TopologyConfig/effectiveRegions``): `0..<regionCount`.
public struct RegionID: Hashable, Sendable {
    public var rawValue: UInt32
    @inlinable public init(rawValue: UInt32) { self.rawValue = rawValue }
    @inlinable public var index: Int { Int(rawValue) }
}

/// A tracked object of the ``ObjectCatalog`` (assigned densely from 0).
public struct ObjectID: Hashable, Sendable {
    public var rawValue: UInt32
    @inlinable public init(rawValue: UInt32) { self.rawValue = rawValue }
    @inlinable public var index: Int { Int(rawValue) }
}

/// A waiter on an upstream fetch (a device request or a child fetch): an index into the waiter
/// chain of ``UpstreamFetchTable``.
struct WaiterID: Hashable, Sendable {
    var rawValue: UInt32
    @inline(__always) init(rawValue: UInt32) { self.rawValue = rawValue }
    @inline(__always) var index: Int { Int(rawValue) }
}
