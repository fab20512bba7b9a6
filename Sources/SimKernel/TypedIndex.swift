// The one shape every typed index of the models shares: a 32-bit number (what kernel events carry
// as their target or in their payload) wrapped in its own type, so one kind of index cannot be
// passed where another is meant.

/// A typed index: a `UInt32` that names one entry of one table (a device, a request, a node…).
///
/// A conforming type declares only its stored `rawValue` and `init(rawValue:)`; the array
/// position (`index`), the construction from a position (`init(_:)`), the order (by `rawValue`)
/// and, for types that declare `CustomStringConvertible`, the `description` (the bare number)
/// come from the extensions below. Everything inlines to the bare `UInt32` operations.
@usableFromInline package protocol TypedIndex: Hashable, Sendable, Comparable {
    /// The number the kernel's events and the owner's tables use.
    var rawValue: UInt32 { get }
    /// The index numbered `rawValue`.
    init(rawValue: UInt32)
}

extension TypedIndex {
    /// The index at array position `index` (traps when it does not fit in 32 bits).
    @inlinable @inline(__always)
    package init(_ index: Int) { self.init(rawValue: UInt32(index)) }

    /// The index's position in the owner's arrays.
    @inlinable @inline(__always)
    package var index: Int { Int(rawValue) }

    /// Indices order by their number.
    @inlinable @inline(__always)
    package static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

extension TypedIndex where Self: CustomStringConvertible {
    /// The bare number, as reports print an index.
    @usableFromInline package var description: String { "\(rawValue)" }
}
