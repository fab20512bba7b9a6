/// The swarm's own random numbers (SplitMix64): small, fast and fixed forever, so a world seed
/// regenerates the same world on every build and platform. It draws only world descriptions;
/// the simulation draws from its own streams (`Stochastic`), seeded from the world.
struct SwarmRandom: Sendable {
    private var state: UInt64

    /// A generator starting from `seed`.
    init(seed: UInt64) { state = seed }

    /// The seed of the world after the one seeded `seed`: world k of a swarm started at seed S
    /// has seed `next(next(…S))` (k times), so `--seed <that world's seed> --worlds 1` regenerates
    /// exactly that world.
    static func nextWorldSeed(after seed: UInt64) -> UInt64 {
        var g = SwarmRandom(seed: seed ^ 0x5EED_5EED_5EED_5EED)
        return g.next()
    }

    /// The next 64 random bits.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }

    /// Uniform in `range`.
    mutating func uniform(_ range: ClosedRange<Double>) -> Double {
        range.lowerBound + (range.upperBound - range.lowerBound) * unit()
    }

    /// Log-uniform in `range` (both bounds > 0): as likely 10–100 as 100–1000.
    mutating func logUniform(_ range: ClosedRange<Double>) -> Double {
        precondition(range.lowerBound > 0, "a log-uniform range starts above 0")
        let lo = range.lowerBound.logValue, hi = range.upperBound.logValue
        return min(range.upperBound, max(range.lowerBound, (lo + (hi - lo) * unit()).expValue))
    }

    /// Uniform integer in `range`.
    mutating func integer(_ range: ClosedRange<Int>) -> Int {
        let width = UInt64(range.upperBound - range.lowerBound) + 1
        return range.lowerBound + Int(next() % width)
    }

    /// True with probability `p`.
    mutating func chance(_ p: Double) -> Bool { unit() < p }

    /// One element of `items` (not empty).
    mutating func pick<T>(_ items: [T]) -> T { items[integer(0...(items.count - 1))] }
}

private extension Double {
    /// Natural logarithm and exponential without Foundation (the swarm's draws must not depend
    /// on a platform's libm; these series are exact to well under a part in 10¹² here).
    var logValue: Double {
        // log(x) = k·ln2 + log(m), m in [1, 2): atanh series of (m−1)/(m+1).
        var m = self, k = 0.0
        while m >= 2 { m /= 2; k += 1 }
        while m < 1 { m *= 2; k -= 1 }
        let t = (m - 1) / (m + 1), t2 = t * t
        var term = t, sum = 0.0
        var n = 1.0
        for _ in 0..<40 {
            sum += term / n
            term *= t2
            n += 2
        }
        return k * 0.693_147_180_559_945_3 + 2 * sum
    }

    var expValue: Double {
        // exp(x) = 2^k · exp(r), |r| ≤ ln2/2: Taylor series of exp(r).
        let ln2 = 0.693_147_180_559_945_3
        let k = (self / ln2).rounded()
        let r = self - k * ln2
        var term = 1.0, sum = 1.0
        for n in 1..<30 {
            term *= r / Double(n)
            sum += term
        }
        var out = sum
        var e = Int(k)
        while e > 0 { out *= 2; e -= 1 }
        while e < 0 { out /= 2; e += 1 }
        return out
    }
}
