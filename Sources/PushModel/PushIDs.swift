import SimKernel

// Typed indices of PushModel's entities. Each wraps the 32-bit number the kernel's events carry
// as their target (or in their payload), so an id cannot be passed where another kind of index is
// meant; `index` (the position in the owner's arrays), `init(_:)` and the order come from
// `TypedIndex`.

/// A device of the population (0 ..< `PopulationConfig.devices`); events for a device carry it as
/// their target.
struct DeviceID: TypedIndex { var rawValue: UInt32 }

/// A campaign of the world, its position in `PushWorldConfig.campaigns` (fewer than
/// `PushWorldConfig.campaignsMax`, so it also names one bit of a device's `CampaignBits`).
struct CampaignID: TypedIndex { var rawValue: UInt32 }

/// A session slot of `SessionDriver` (recycled: a slot serves one running session at a time, and
/// its generation tells a later session's events from an earlier one's).
struct SessionSlot: TypedIndex { var rawValue: UInt32 }

/// A tap slot of `TapTracker` (recycled like session slots, with its own generation).
struct TapID: TypedIndex { var rawValue: UInt32 }

/// A time bucket of `BucketQueue` (bucket b covers `[b · width, (b + 1) · width)`).
struct BucketID: TypedIndex { var rawValue: UInt32 }
