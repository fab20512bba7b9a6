/// Online mean and variance (Welford 1962), mergeable with Chan, Golub & LeVeque's parallel formula.
///
/// Numerically stable: it never forms Σx² − (Σx)²/n, so a sample like 1e9 + {0, 1, 2} keeps its
/// variance of 1. Merging two accumulators gives the moments of the concatenated samples (up to
/// floating-point rounding; the merge is not bit-identical to sequential accumulation).
@usableFromInline package struct RunningMoments: Sendable, Equatable {
    /// Number of observations added.
    @usableFromInline package private(set) var count: Int = 0
    /// Arithmetic mean of the observations (0 when empty).
    @usableFromInline package private(set) var mean: Double = 0
    /// Σ (x − mean)², Welford's M2.
    @usableFromInline package private(set) var sumOfSquaredDeviations: Double = 0
    /// Smallest observation (+∞ when empty).
    @usableFromInline package private(set) var minimum: Double = .infinity
    /// Largest observation (−∞ when empty).
    @usableFromInline package private(set) var maximum: Double = -.infinity

    /// An empty accumulator.
    @usableFromInline package init() {}

    /// The moments of `values`, validating that every value is finite.
    /// - Complexity: O(n).
    @usableFromInline package init(validating values: [Double]) throws(StatisticsError) {
        for (i, x) in values.enumerated() {
            guard x.isFinite else { throw .nonFiniteValue(index: i, value: x) }
            add(x)
        }
    }

    /// Adds one finite observation (a non-finite value is a programmer error: validate inputs first).
    /// - Complexity: O(1), no allocation.
    @usableFromInline package mutating func add(_ x: Double) {
        precondition(x.isFinite, "RunningMoments.add needs a finite value, got \(x)")
        count += 1
        let delta = x - mean
        mean += delta / Double(count)
        sumOfSquaredDeviations += delta * (x - mean)
        if x < minimum { minimum = x }
        if x > maximum { maximum = x }
    }

    /// Adds the observations of `other` (Chan et al. 1979):
    /// δ = x̄_B − x̄_A, M2 = M2_A + M2_B + δ² n_A n_B / n.
    /// - Complexity: O(1).
    @usableFromInline package mutating func merge(_ other: RunningMoments) {
        guard other.count > 0 else { return }
        guard count > 0 else { self = other; return }
        let n = count + other.count
        let delta = other.mean - mean
        let nA = Double(count), nB = Double(other.count), nAB = Double(n)
        mean += delta * nB / nAB
        sumOfSquaredDeviations += other.sumOfSquaredDeviations + delta * delta * nA * nB / nAB
        count = n
        minimum = Swift.min(minimum, other.minimum)
        maximum = Swift.max(maximum, other.maximum)
    }

    /// Unbiased sample variance S² = M2 / (n − 1); nil with fewer than 2 observations.
    @usableFromInline package var variance: Double? {
        count >= 2 ? sumOfSquaredDeviations / Double(count - 1) : nil
    }

    /// Sample standard deviation S; nil with fewer than 2 observations.
    @usableFromInline package var standardDeviation: Double? { variance.map { $0.squareRoot() } }
}
