import CGSL

/// A named purpose for a random stream ("device.platform", "network.rtt", ...).
///
/// Purposes are identified by a stable 64-bit hash of their name (FNV-1a), so adding a new
/// purpose never shifts the draws of existing ones: that is what keeps two variants of a
/// scenario on common random numbers.
public struct StreamPurpose: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt64
    public let name: String

    public init(_ name: String) {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 {
            h ^= UInt64(byte)
            h = h &* 0x0000_0100_0000_01b3
        }
        self.rawValue = h
        self.name = name
    }

    public var description: String { name }
}

/// Seed derivation for (masterSeed, entity, purpose) triples.
///
/// The triple is mixed with SplitMix64's finaliser, one round per component, so that nearby
/// entity ids and seeds give unrelated GSL seeds. The result seeds a taus2 generator (re-seeding
/// costs a few tens of nanoseconds, so a stream per device is affordable).
public enum StreamSeed {
    /// SplitMix64's output function (Steele, Lea & Flood 2014): a bijection on UInt64.
    @inlinable
    public static func mix(_ x: UInt64) -> UInt64 {
        var z = x &+ 0x9e37_79b9_7f4a_7c15
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    /// The GSL seed for stream `(masterSeed, entity, purpose)`. Never 0 (taus2 maps 0 to a
    /// default seed, which would alias streams).
    @inlinable
    public static func derive(masterSeed: UInt64, entity: UInt64, purpose: UInt64) -> UInt64 {
        let s = mix(mix(mix(masterSeed) ^ entity) ^ purpose)
        return s == 0 ? 0x5eed : s
    }
}

/// One independent stream of uniform random numbers, backed by a GSL generator it owns.
///
/// `RandomStream` is a final class (not `Sendable`): it is used by one thread at a time, and the
/// `gsl_rng` is freed when the last reference goes. Re-seed it with `reseed(...)` to reuse the
/// allocation for many entities in a hot loop.
///
/// Streams never read the system clock and never call `gsl_rng_env_setup`.
public final class RandomStream {
    /// The generator. Exposed to this module's samplers only.
    @usableFromInline
    let rng: UnsafeMutablePointer<gsl_rng>

    /// The seed last given to the generator, for failure messages.
    public private(set) var seed: UInt64

    /// A taus2 stream seeded directly with `seed`.
    public init(seed: UInt64) {
        GSLRuntime.ensureInitialised()
        // gsl_rng_alloc only fails on out-of-memory; there is no way to continue without a generator.
        guard let r = gsl_rng_alloc(prestage_rng_type_taus2()) else {
            preconditionFailure("gsl_rng_alloc failed: out of memory")
        }
        self.rng = r
        self.seed = seed
        gsl_rng_set(r, UInt(truncatingIfNeeded: seed))
    }

    /// The stream for `(masterSeed, entity, purpose)`: the same triple always gives the same draws.
    public convenience init(masterSeed: UInt64, entity: UInt64, purpose: StreamPurpose) {
        self.init(seed: StreamSeed.derive(masterSeed: masterSeed, entity: entity, purpose: purpose.rawValue))
    }

    deinit { gsl_rng_free(rng) }

    /// Re-seed in place for another `(masterSeed, entity, purpose)`; no allocation.
    /// - Complexity: O(1) (taus2 seeding runs a fixed warm-up of a few steps).
    public func reseed(masterSeed: UInt64, entity: UInt64, purpose: StreamPurpose) {
        reseed(StreamSeed.derive(masterSeed: masterSeed, entity: entity, purpose: purpose.rawValue))
    }

    /// Re-seed in place with a raw seed; no allocation.
    public func reseed(_ seed: UInt64) {
        self.seed = seed
        gsl_rng_set(rng, UInt(truncatingIfNeeded: seed))
    }

    /// A uniform double in [0, 1).
    @inlinable
    public func uniform() -> Double { gsl_rng_uniform(rng) }

    /// A uniform double in (0, 1).
    @inlinable
    public func uniformPositive() -> Double { gsl_rng_uniform_pos(rng) }

    /// A uniform integer in [0, n). `n` must be in 1...UInt32.max (taus2's range).
    @inlinable
    public func uniformInt(below n: UInt64) -> UInt64 {
        precondition(n > 0 && n <= UInt64(UInt32.max), "uniformInt(below:) needs 1 <= n <= 2^32-1, got \(n)")
        return UInt64(gsl_rng_uniform_int(rng, UInt(n)))
    }

    /// True with probability `p` (clamped to [0, 1]).
    @inlinable
    public func bernoulli(_ p: Double) -> Bool { gsl_rng_uniform(rng) < p }
}

/// Process-wide GSL set-up: switch off GSL's default error handler (which aborts the process),
/// so that GSL status codes come back to Swift and become errors.
public enum GSLRuntime {
    private static let initialised: Bool = {
        gsl_set_error_handler_off()
        return true
    }()

    /// Idempotent and thread-safe (a `static let` is initialised once).
    public static func ensureInitialised() { _ = initialised }
}
