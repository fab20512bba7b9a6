// Typed indices of PushModel's entities. Each wraps the 32-bit number the kernel's events carry
// as their target (or in their payload), so an id cannot be passed where another kind of index is
// meant; `index` is the position in the owner's arrays.

/// A device of the population (0 ..< `PopulationConfig.devices`); events for a device carry it as
/// their target.
struct DeviceID: Hashable, Sendable {
    var rawValue: UInt32

    /// The device at `rawValue`.
    @inline(__always) init(rawValue: UInt32) { self.rawValue = rawValue }
    /// The device at array position `index` (traps when it does not fit in 32 bits).
    @inline(__always) init(_ index: Int) { rawValue = UInt32(index) }
    /// The device's position in per-device arrays.
    @inline(__always) var index: Int { Int(rawValue) }
}

/// A campaign of the world, its position in `PushWorldConfig.campaigns` (fewer than
/// `PushWorldConfig.campaignsMax`, so it also names one bit of a device's `CampaignBits`).
struct CampaignID: Hashable, Sendable {
    var rawValue: UInt32

    /// The campaign at `rawValue`.
    @inline(__always) init(rawValue: UInt32) { self.rawValue = rawValue }
    /// The campaign at array position `index` (traps when it does not fit in 32 bits).
    @inline(__always) init(_ index: Int) { rawValue = UInt32(index) }
    /// The campaign's position in per-campaign arrays.
    @inline(__always) var index: Int { Int(rawValue) }
}

/// A session slot of `SessionDriver` (recycled: a slot serves one running session at a time, and
/// its generation tells a later session's events from an earlier one's).
struct SessionSlot: Hashable, Sendable {
    var rawValue: UInt32

    /// The slot at `rawValue`.
    @inline(__always) init(rawValue: UInt32) { self.rawValue = rawValue }
    /// The slot at array position `index` (traps when it does not fit in 32 bits).
    @inline(__always) init(_ index: Int) { rawValue = UInt32(index) }
    /// The slot's position in per-slot arrays.
    @inline(__always) var index: Int { Int(rawValue) }
}

/// A tap slot of `TapTracker` (recycled like session slots, with its own generation).
struct TapID: Hashable, Sendable {
    var rawValue: UInt32

    /// The tap slot at `rawValue`.
    @inline(__always) init(rawValue: UInt32) { self.rawValue = rawValue }
    /// The tap slot at array position `index` (traps when it does not fit in 32 bits).
    @inline(__always) init(_ index: Int) { rawValue = UInt32(index) }
    /// The tap slot's position in per-tap arrays.
    @inline(__always) var index: Int { Int(rawValue) }
}

/// A time bucket of `BucketQueue` (bucket b covers `[b · width, (b + 1) · width)`).
struct BucketID: Hashable, Sendable {
    var rawValue: UInt32

    /// The bucket at `rawValue`.
    @inline(__always) init(rawValue: UInt32) { self.rawValue = rawValue }
    /// The bucket at array position `index` (traps when it does not fit in 32 bits).
    @inline(__always) init(_ index: Int) { rawValue = UInt32(index) }
    /// The bucket's position in per-bucket arrays.
    @inline(__always) var index: Int { Int(rawValue) }
}
