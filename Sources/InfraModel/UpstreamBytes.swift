/// Bytes the upstream tiers sent, per object, split by tier (shield → PoPs, origin → shields or
/// PoPs) and by why the receiving fetch was started: a warm call's own fetch (`warm`) or a fill
/// (a miss or a revalidation). A PoP's warm fetch that misses at its shield makes the shield fetch
/// from the origin as a fill: that origin answer counts as a fill, not warm. Counted where
/// `NodeCounters.bytesServed` (shield) and `OriginCounters.bytesServed` are, so for each tier
/// Σ objects (warm + fill) equals that tier's `bytesServed` exactly. Memory: 4 × 8 bytes per
/// catalogue object (no per-device state).
package struct UpstreamBytes: Sendable, Equatable {
    /// `object * 4 + (tier == .origin ? 2 : 0) + (warm ? 1 : 0)`.
    package private(set) var counts: [UInt64]

    init(objectCount: Int) { counts = [UInt64](repeating: 0, count: 4 * max(0, objectCount)) }

    @inline(__always)
    mutating func add(_ bytes: Int64, object o: UInt32, tier: Tier, warm: Bool) {
        let i = Int(o) &* 4 &+ (tier == .origin ? 2 : 0) &+ (warm ? 1 : 0)
        if bytes > 0 && i < counts.count { counts[i] &+= UInt64(bytes) }
    }

    /// Bytes of `object` sent by `tier` (shield or origin) to fetches of that kind.
    package func bytes(object o: Int, tier: Tier, warm: Bool) -> UInt64 {
        let i = o * 4 + (tier == .origin ? 2 : 0) + (warm ? 1 : 0)
        return i < counts.count && tier != .edge ? counts[i] : 0
    }

    /// The catalogue's object count.
    package var objectCount: Int { counts.count / 4 }
}
