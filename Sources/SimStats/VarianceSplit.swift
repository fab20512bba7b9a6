/// The spread of a metric split into the part uncertain inputs cause and the part the
/// simulation's own randomness causes, from a nested design: k draws of the inputs, m
/// replications per draw (independent simulation streams), value y_dj.
///
/// One-way random-effects analysis of variance (Ankenman & Nelson, "A quick assessment of input
/// uncertainty", WSC 2012; Song & Nelson 2015): with ȳ_d the draw means and ȳ the grand mean,
///
///     MSW = Σ_d Σ_j (y_dj − ȳ_d)² / (k (m − 1))      E[MSW] = σ²_sim
///     MSB = m Σ_d (ȳ_d − ȳ)² / (k − 1)               E[MSB] = σ²_sim + m σ²_input
///
/// so σ²_sim = MSW and σ²_input = max(0, (MSB − MSW) / m) are (before the cut at 0) unbiased. The
/// input share σ²_input / (σ²_input + σ²_sim) is the share of one day's variance that better
/// knowledge of the inputs would remove.
package struct VarianceSplit: Sendable, Equatable, Codable {
    /// Draws (k ≥ 2) and replications per draw (m ≥ 2).
    package let draws: Int
    package let replicationsPerDraw: Int
    /// σ²_input estimate (≥ 0).
    package let inputVariance: Double
    /// σ²_sim estimate (≥ 0).
    package let simulationVariance: Double

    /// The input share of the total, in [0, 1]; nil when both parts are 0 (a constant metric).
    package var inputShare: Double? {
        let total = inputVariance + simulationVariance
        return total > 0 ? inputVariance / total : nil
    }

    /// The split of `values` grouped in consecutive runs of `perDraw` (value i belongs to draw
    /// i / perDraw); nil unless perDraw ≥ 2, there are at least 2 complete draws and every value
    /// of them is finite. A trailing incomplete draw is left out.
    package init?(values: [Double], perDraw m: Int) {
        guard m >= 2 else { return nil }
        let k = values.count / m
        guard k >= 2 else { return nil }
        let used = values.prefix(k * m)
        guard used.allSatisfy(\.isFinite) else { return nil }
        var means = [Double](repeating: 0, count: k)
        for d in 0..<k { means[d] = used[(d * m)..<((d + 1) * m)].reduce(0, +) / Double(m) }
        let grand = means.reduce(0, +) / Double(k)
        var within = 0.0, between = 0.0
        for d in 0..<k {
            for j in 0..<m { let e = used[d * m + j] - means[d]; within += e * e }
            between += (means[d] - grand) * (means[d] - grand)
        }
        let msw = within / Double(k * (m - 1)), msb = Double(m) * between / Double(k - 1)
        draws = k
        replicationsPerDraw = m
        simulationVariance = msw
        inputVariance = max(0, (msb - msw) / Double(m))
    }

    /// The draw means of `values` (consecutive runs of `perDraw`; a trailing incomplete draw is
    /// left out): the independent units every interval over a nested design is computed from.
    package static func drawMeans(_ values: [Double], perDraw m: Int) -> [Double] {
        guard m >= 2 else { return values }
        let k = values.count / m
        return (0..<k).map { d in values[(d * m)..<((d + 1) * m)].reduce(0, +) / Double(m) }
    }
}
