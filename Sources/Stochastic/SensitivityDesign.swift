import CGSL

/// Global sensitivity analysis: Morris screening and Sobol indices, on the unit cube [0, 1]^k.
///
/// Every random number (Morris's base points, directions and factor orders, Saltelli's two
/// sample matrices, the bootstrap's resamples) comes from `RandomStream`s derived from
/// `(seed, entity, purpose)`, so a design and its intervals are identical for a seed.
/// A caller maps the unit cube to its factors' ranges (`lower + x · (upper − lower)`).
package enum SensitivityDesign {
    /// Stream purposes of the designs.
    static let morrisPurpose = StreamPurpose("sensitivity.morris")
    static let saltelliPurpose = StreamPurpose("sensitivity.saltelli")
    static let bootstrapPurpose = StreamPurpose("sensitivity.bootstrap")

    // MARK: Morris

    /// One Morris trajectory: k + 1 points; point j + 1 differs from point j in factor
    /// `order[j]` only, by `steps[j]` (±Δ).
    package struct Trajectory: Sendable, Equatable, Codable {
        package var points: [[Double]]
        package var order: [Int]
        package var steps: [Double]
    }

    /// Δ = p / (2 (p − 1)) for `levels` p (even p gives every level the same chance; Morris 1991).
    package static func morrisDelta(levels: Int) -> Double { Double(levels) / (2 * Double(levels - 1)) }

    /// `trajectories` Morris trajectories over `factors` factors on a grid of `levels` levels
    /// (Morris 1991; Campolongo, Cariboni & Saltelli 2007): a base point on the levels
    /// {0, 1/(p−1), …, 1 − Δ}, a random direction per factor and a random factor order; each
    /// trajectory is drawn from its own stream (entity = trajectory index).
    package static func morrisTrajectories(factors k: Int, trajectories r: Int, levels p: Int, seed: UInt64) -> [Trajectory] {
        precondition(k >= 1 && r >= 1 && p >= 2 && p % 2 == 0, "Morris needs k >= 1, r >= 1 and an even p >= 2")
        let delta = morrisDelta(levels: p)
        // Base levels allowed: i / (p − 1) for i in 0..<(p / 2), so x* + Δ <= 1.
        let baseLevels = UInt64(p / 2)
        let stream = RandomStream(seed: 1)
        return (0..<r).map { t in
            stream.reseed(masterSeed: seed, entity: UInt64(t), purpose: morrisPurpose)
            var x = [Double](repeating: 0, count: k)
            var direction = [Double](repeating: 1, count: k)
            for i in 0..<k {
                let base = Double(stream.uniformInt(below: baseLevels)) / Double(p - 1)
                direction[i] = stream.bernoulli(0.5) ? 1 : -1
                x[i] = direction[i] > 0 ? base : base + delta
            }
            // Fisher–Yates with GSL uniform integers.
            var order = Array(0..<k)
            for i in stride(from: k - 1, to: 0, by: -1) {
                let j = Int(stream.uniformInt(below: UInt64(i + 1)))
                order.swapAt(i, j)
            }
            var points = [x], steps: [Double] = []
            for i in order {
                x[i] += direction[i] * delta
                // Stay on the grid despite rounding.
                x[i] = min(1, max(0, x[i]))
                points.append(x)
                steps.append(direction[i] * delta)
            }
            return Trajectory(points: points, order: order, steps: steps)
        }
    }

    /// A statistic with its bootstrap interval.
    package struct Estimate: Sendable, Equatable, Codable {
        package var value: Double
        package var lower: Double
        package var upper: Double
        package func contains(_ x: Double) -> Bool { x >= lower && x <= upper }
    }

    /// One factor's Morris statistics.
    package struct MorrisEffect: Sendable, Equatable, Codable {
        /// Mean of the elementary effects (signed).
        package var mu: Double
        /// Mean of their absolute values (Campolongo et al. 2007), with its bootstrap interval.
        package var muStar: Estimate
        /// Their standard deviation (n − 1): interaction or non-linearity.
        package var sigma: Double
        /// The elementary effects, one per trajectory, in output units per whole range.
        package var effects: [Double]
    }

    /// The Morris statistics of each factor from `outputs[t][j]`, the output at point j of
    /// trajectory t. An elementary effect is (f(x + Δeᵢ) − f(x)) / Δ: the output's change per
    /// whole range of the factor. μ*'s interval is the normal bootstrap interval over trajectories
    /// (`bootstrap` resamples, `confidence` level, stream `(seed, factor, bootstrap)`), its lower
    /// end clipped at 0 (μ* cannot be negative).
    package static func morrisEffects(_ trajectories: [Trajectory], outputs: [[Double]], factors k: Int,
                                      bootstrap: Int, confidence: Double, seed: UInt64) -> [MorrisEffect] {
        var effects = [[Double]](repeating: [], count: k)
        for (t, trajectory) in trajectories.enumerated() {
            for (j, i) in trajectory.order.enumerated() {
                effects[i].append((outputs[t][j + 1] - outputs[t][j]) / trajectory.steps[j])
            }
        }
        return effects.enumerated().map { i, e in
            let absolute = e.map(abs)
            let muStar = mean(absolute)
            let interval = normalBootstrap(rows: absolute.count, resamples: bootstrap, confidence: confidence,
                                           stream: RandomStream(masterSeed: seed, entity: UInt64(i), purpose: bootstrapPurpose),
                                           estimate: muStar) { idx in idx.reduce(0) { $0 + absolute[$1] } / Double(idx.count) }
            // μ* is a mean of absolute values: its interval stops at 0.
            let clipped = Estimate(value: interval.value, lower: max(0, interval.lower), upper: interval.upper)
            return MorrisEffect(mu: mean(e), muStar: clipped, sigma: standardDeviation(e), effects: e)
        }
    }

    // MARK: Sobol (Saltelli design)

    /// Saltelli's design (Saltelli et al. 2010): matrices A and B (N × k, independent uniforms)
    /// and, for each factor i, A with column i taken from B (A_B^(i)). Rows are in the order
    /// A, B, A_B^(1), …, A_B^(k): N (k + 2) points.
    package struct SaltelliDesign: Sendable, Equatable {
        package var samples: Int
        package var factors: Int
        package var points: [[Double]]

        /// Index of row `n` of A, B (matrix 0, 1) or A_B^(i) (matrix i + 2) in `points`.
        package func index(matrix: Int, row n: Int) -> Int { matrix * samples + n }
    }

    /// The Saltelli design of `samples` rows over `factors` factors; row n draws 2k uniforms from
    /// stream `(seed, n, saltelli)` (A's row, then B's).
    package static func saltelli(samples n: Int, factors k: Int, seed: UInt64) -> SaltelliDesign {
        precondition(n >= 2 && k >= 1, "Saltelli's design needs N >= 2 and k >= 1")
        var a: [[Double]] = [], b: [[Double]] = []
        let stream = RandomStream(seed: 1)
        for row in 0..<n {
            stream.reseed(masterSeed: seed, entity: UInt64(row), purpose: saltelliPurpose)
            a.append((0..<k).map { _ in stream.uniform() })
            b.append((0..<k).map { _ in stream.uniform() })
        }
        var points = a + b
        for i in 0..<k {
            for row in 0..<n {
                var x = a[row]
                x[i] = b[row][i]
                points.append(x)
            }
        }
        return SaltelliDesign(samples: n, factors: k, points: points)
    }

    /// One factor's Sobol indices.
    package struct SobolIndices: Sendable, Equatable, Codable {
        /// First order: the share of the output's variance explained by the factor alone.
        package var first: Estimate
        /// Total: the share it explains with all its interactions.
        package var total: Estimate
    }

    /// First-order and total indices from the outputs at `design.points` (same order):
    /// Sᵢ = (1/N) Σ (f(B) − f̄)(f(A_B^(i)) − f(A)) / V (Saltelli et al. 2010, table 2 (b), f(B) centred) and
    /// STᵢ = (1/2N) Σ (f(A) − f(A_B^(i)))² / V (Jansen 1999), V the variance of f over A and B
    /// together. Intervals: normal bootstrap over the N rows, `bootstrap` resamples at
    /// `confidence`, stream `(seed, factor, bootstrap)`.
    package static func sobol(_ design: SaltelliDesign, outputs y: [Double], bootstrap: Int, confidence: Double,
                              seed: UInt64) -> [SobolIndices] {
        let n = design.samples
        precondition(y.count == design.points.count, "one output per design point")
        let fA = Array(y[0..<n]), fB = Array(y[n..<(2 * n)])
        func indices(_ i: Int, _ rows: [Int]) -> (Double, Double) {
            let fAB = design.index(matrix: i + 2, row: 0)
            var all: [Double] = []
            all.reserveCapacity(2 * rows.count)
            for r in rows { all.append(fA[r]); all.append(fB[r]) }
            // f(B) is centred on the mean of f over A and B: E[c (f(A_B) − f(A))] = 0 for any
            // constant c, so the estimate's expectation is unchanged, while its variance no longer
            // grows with the square of the metric's mean (a latency of 0.9 s varying by 0.03 s).
            let m = mean(all)
            var s = 0.0, t = 0.0
            for r in rows {
                let d = y[fAB + r] - fA[r]
                s += (fB[r] - m) * d
                t += d * d
            }
            let v = variance(all)
            guard v > 0 else { return (0, 0) }
            return (s / Double(rows.count) / v, t / (2 * Double(rows.count)) / v)
        }
        let everyRow = Array(0..<n)
        return (0..<design.factors).map { i in
            let (s, t) = indices(i, everyRow)
            // One resample set for both indices, so S and ST move together as in the estimate.
            let stream = RandomStream(masterSeed: seed, entity: UInt64(i), purpose: bootstrapPurpose)
            var firsts: [Double] = [], totals: [Double] = []
            var idx = [Int](repeating: 0, count: n)
            for _ in 0..<bootstrap {
                for j in 0..<n { idx[j] = Int(stream.uniformInt(below: UInt64(n))) }
                let (bs, bt) = indices(i, idx)
                firsts.append(bs); totals.append(bt)
            }
            let z = gsl_cdf_ugaussian_Pinv(0.5 + confidence / 2)
            let hs = bootstrap >= 2 ? z * standardDeviation(firsts) : .nan
            let ht = bootstrap >= 2 ? z * standardDeviation(totals) : .nan
            return SobolIndices(first: Estimate(value: s, lower: s - hs, upper: s + hs),
                                total: Estimate(value: t, lower: t - ht, upper: t + ht))
        }
    }

    // MARK: Support

    /// `estimate` ± z · (the standard deviation of `statistic` over `resamples` bootstrap
    /// resamples of `rows` rows): the normal bootstrap interval (Efron & Tibshirani 1993, §13.3).
    static func normalBootstrap(rows: Int, resamples: Int, confidence: Double, stream: RandomStream, estimate: Double,
                                statistic: ([Int]) -> Double) -> Estimate {
        guard rows >= 2, resamples >= 2 else { return Estimate(value: estimate, lower: .nan, upper: .nan) }
        var values: [Double] = []
        var idx = [Int](repeating: 0, count: rows)
        for _ in 0..<resamples {
            for j in 0..<rows { idx[j] = Int(stream.uniformInt(below: UInt64(rows))) }
            values.append(statistic(idx))
        }
        let h = gsl_cdf_ugaussian_Pinv(0.5 + confidence / 2) * standardDeviation(values)
        return Estimate(value: estimate, lower: estimate - h, upper: estimate + h)
    }

    /// The standard normal quantile for a two-sided `confidence` (1.96 at 0.95).
    package static func normalQuantile(twoSided confidence: Double) -> Double { gsl_cdf_ugaussian_Pinv(0.5 + confidence / 2) }

    static func mean(_ x: [Double]) -> Double { x.isEmpty ? .nan : x.reduce(0, +) / Double(x.count) }

    /// Population variance (divisor n), as the Sobol estimators use.
    static func variance(_ x: [Double]) -> Double {
        let m = mean(x)
        return x.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(x.count)
    }

    /// Sample standard deviation (divisor n − 1); 0 for fewer than two values.
    static func standardDeviation(_ x: [Double]) -> Double {
        guard x.count >= 2 else { return 0 }
        let m = mean(x)
        return (x.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(x.count - 1)).squareRoot()
    }
}
