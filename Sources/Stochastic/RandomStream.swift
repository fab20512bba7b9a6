import CGSL

/// A named purpose for a random stream ("device.platform", "network.rtt", ...).
///
/// Purposes are identified by a stable 64-bit hash of their name (FNV-1a), so adding a new
/// purpose never shifts the draws of existing ones: that is what keeps two variants of a
/// scenario on common random numbers.
@usableFromInline package struct StreamPurpose: Hashable, Sendable, CustomStringConvertible {
    @usableFromInline package let rawValue: UInt64
    @usableFromInline package let name: String

    @usableFromInline package init(_ name: String) {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 {
            h ^= UInt64(byte)
            h = h &* 0x0000_0100_0000_01b3
        }
        self.rawValue = h
        self.name = name
    }

    @usableFromInline package var description: String { name }
}

/// Seed derivation for (masterSeed, entity, purpose) triples.
///
/// How a stream is derived:
/// 1. The purpose name is hashed to a stable 64-bit id (`StreamPurpose`, FNV-1a), so streams are
///    addressed by name and adding a purpose never shifts the draws of another.
/// 2. `derive` folds the triple with SplitMix64's finaliser, one round per component:
///    `mix(mix(mix(masterSeed) ^ entity) ^ purpose)`, so nearby entity ids, seeds and purposes give
///    unrelated 64-bit seeds.
/// 3. `RandomStream` expands the 64-bit seed into taus2's three 32-bit state words (see
///    `RandomStream.reseed(_:)`). All 64 bits count: GSL's own `gsl_rng_set` for taus2 (and for
///    mt19937) keeps only the low 32 bits of the seed, so with `gsl_rng_set` two of a million
///    device streams would share a sequence with high probability (birthday bound, ~116 colliding
///    pairs expected among 10^6 streams).
///
/// Why taus2 and not mt19937: a simulation re-seeds a stream per entity (device, request), so seeding
/// cost is on the hot path. taus2 has 12 bytes of state; re-seeding writes three words (GSL's own
/// `gsl_rng_set` runs six warm-up steps after that, ~10 ns measured with one draw, gcc -O2, on this
/// machine; `RandomStream` needs none, see `reseed(_:)`), whereas `gsl_rng_set` on mt19937 fills
/// 624 words (~3.3 µs measured). taus2 (L'Ecuyer 1996, period ~2^88)
/// passes the usual statistical batteries used for simulation, and draws cost ~2 ns each.
@usableFromInline package enum StreamSeed {
    /// SplitMix64's output function (Steele, Lea & Flood 2014): a bijection on UInt64.
    @inlinable
    package static func mix(_ x: UInt64) -> UInt64 {
        var z = x &+ 0x9e37_79b9_7f4a_7c15
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    /// The 64-bit seed of stream `(masterSeed, entity, purpose)`. Never 0 (a zero result is
    /// replaced by 0x5eed).
    @inlinable
    package static func derive(masterSeed: UInt64, entity: UInt64, purpose: UInt64) -> UInt64 {
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
@usableFromInline package final class RandomStream {
    /// The generator. Exposed to this module's samplers only.
    @usableFromInline
    let rng: UnsafeMutablePointer<gsl_rng>

    /// The seed last given to the generator, for failure messages. Exclusivity is not checked at
    /// run time: a stream is confined to one thread (it is not `Sendable`), and the dynamic check
    /// on every `reseed` (once per device and per request) cost more than the seeding itself.
    @exclusivity(unchecked) @usableFromInline package private(set) var seed: UInt64

    /// A taus2 stream whose state is expanded from all 64 bits of `seed` (see `reseed(_:)`).
    @usableFromInline package init(seed: UInt64) {
        GSLRuntime.ensureInitialised()
        // gsl_rng_alloc only fails on out-of-memory; there is no way to continue without a generator.
        guard let r = gsl_rng_alloc(prestage_rng_type_taus2()) else {
            preconditionFailure("gsl_rng_alloc failed: out of memory")
        }
        // The state layout written by `setState` is taus2's (three `unsigned long`s).
        precondition(gsl_rng_size(r) == 3 * MemoryLayout<UInt>.size, "unexpected taus2 state size \(gsl_rng_size(r))")
        self.rng = r
        self.seed = seed
        setState(seed)
    }

    /// The stream for `(masterSeed, entity, purpose)`: the same triple always gives the same draws.
    @usableFromInline package convenience init(masterSeed: UInt64, entity: UInt64, purpose: StreamPurpose) {
        self.init(seed: StreamSeed.derive(masterSeed: masterSeed, entity: entity, purpose: purpose.rawValue))
    }

    deinit { gsl_rng_free(rng) }

    /// Re-seed in place for another `(masterSeed, entity, purpose)`; no allocation.
    /// - Complexity: O(1): five SplitMix64 rounds (three to derive the seed, two to expand it) and three state words.
    @usableFromInline package func reseed(masterSeed: UInt64, entity: UInt64, purpose: StreamPurpose) {
        reseed(StreamSeed.derive(masterSeed: masterSeed, entity: entity, purpose: purpose.rawValue))
    }

    /// Re-seed in place with a raw seed; no allocation. The stream is then identical to a fresh
    /// `RandomStream(seed: seed)`.
    /// - Complexity: O(1): two SplitMix64 rounds and three state words.
    @usableFromInline package func reseed(_ seed: UInt64) {
        self.seed = seed
        setState(seed)
    }

    /// Sets taus2's state (s1, s2, s3) from all 64 bits of `seed`: s1 and s2 are the low and high
    /// halves of `mix(seed)` (a bijection, so distinct seeds give distinct (s1, s2)), s3 the low half
    /// of `mix(mix(seed))`. taus2 needs s1 >= 2, s2 >= 8, s3 >= 16; smaller words are raised as
    /// GSL's `taus2_set` does. No warm-up steps follow: GSL's exist to decorrelate the words its
    /// LCG derives from a 32-bit seed, and these words are outputs of SplitMix64's finaliser.
    private func setState(_ seed: UInt64) {
        let m = StreamSeed.mix(seed)
        prestage_taus2_set_state(rng, UInt(truncatingIfNeeded: m & 0xffff_ffff), UInt(truncatingIfNeeded: m >> 32),
                                 UInt(truncatingIfNeeded: StreamSeed.mix(m) & 0xffff_ffff))
    }

    /// A uniform double in [0, 1).
    @inlinable
    package func uniform() -> Double { gsl_rng_uniform(rng) }

    /// A uniform double in (0, 1).
    @inlinable
    package func uniformPositive() -> Double { gsl_rng_uniform_pos(rng) }

    /// A uniform integer in [0, n). `n` must be in 1...UInt32.max (taus2's range).
    @inlinable
    package func uniformInt(below n: UInt64) -> UInt64 {
        precondition(n > 0 && n <= UInt64(UInt32.max), "uniformInt(below:) needs 1 <= n <= 2^32-1, got \(n)")
        return UInt64(gsl_rng_uniform_int(rng, UInt(n)))
    }

    /// True with probability `p`: one GSL Bernoulli variate (`gsl_ran_bernoulli`, one uniform).
    /// `p` outside [0, 1] acts as its nearest bound.
    @inlinable
    package func bernoulli(_ p: Double) -> Bool { gsl_ran_bernoulli(rng, p) == 1 }

    /// The number of successes in `trials` independent trials of probability `p`: one GSL binomial
    /// variate (`gsl_ran_binomial`, Kachitvichyanukul & Schmeiser's BTPE; inversion for small
    /// `trials · p`). `p` outside [0, 1] acts as its nearest bound; `trials` ≤ UInt32.max.
    @inlinable
    package func binomial(_ p: Double, trials: UInt32) -> UInt32 { UInt32(gsl_ran_binomial(rng, min(1, max(0, p)), trials)) }

    /// An exponential variate with mean `mean` (> 0): `gsl_ran_exponential`, one uniform.
    @inlinable
    package func exponential(mean: Double) -> Double { gsl_ran_exponential(rng, mean) }

    /// A uniform variate in [lower, upper): `gsl_ran_flat`, one uniform.
    @inlinable
    package func flat(_ lower: Double, _ upper: Double) -> Double { gsl_ran_flat(rng, lower, upper) }
}

/// Process-wide GSL set-up: switch off GSL's default error handler (which aborts the process),
/// so that GSL status codes come back to Swift and become errors.
@usableFromInline package enum GSLRuntime {
    private static let initialised: Bool = {
        gsl_set_error_handler_off()
        return true
    }()

    /// Idempotent and thread-safe (a `static let` is initialised once).
    @usableFromInline package static func ensureInitialised() { _ = initialised }
}
