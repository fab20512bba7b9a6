import Foundation
import ScenarioFormat
import SimStats
import Stochastic

/// The sizes of a sensitivity study (`prestage sensitivity`).
package struct SensitivitySettings: Codable, Sendable, Equatable {
    /// Morris trajectories r (each k + 1 design points).
    package var trajectories: Int
    /// Morris grid levels p (even).
    package var levels: Int
    /// Saltelli base samples N (N (k' + 2) design points for the k' factors kept); 0: no Sobol step.
    package var sobolSamples: Int
    /// How many factors (the first metric's highest μ*) the Sobol step keeps.
    package var sobolFactors: Int
    /// Replications per design point (0..<n, the same at every point: common random numbers).
    package var replications: Int
    /// Bootstrap resamples behind each interval.
    package var bootstrap: Int
    /// The intervals' confidence level.
    package var confidence: Double

    package init(trajectories: Int, levels: Int, sobolSamples: Int, sobolFactors: Int, replications: Int, bootstrap: Int, confidence: Double) {
        self.trajectories = trajectories
        self.levels = levels
        self.sobolSamples = sobolSamples
        self.sobolFactors = sobolFactors
        self.replications = replications
        self.bootstrap = bootstrap
        self.confidence = confidence
    }
}

/// One factor's Morris statistics for one metric.
package struct SensitivityMorrisRow: Codable, Sendable, Equatable {
    package var factor: String
    /// Signed mean elementary effect, in the metric's units per whole range.
    package var mu: Double
    /// Mean absolute elementary effect and its bootstrap interval.
    package var muStar: Double
    package var muStarLower: Double
    package var muStarUpper: Double
    /// Standard deviation of the effects.
    package var sigma: Double
}

/// One factor at the ends of its range, every other factor at its midpoint.
package struct SensitivityTornadoRow: Codable, Sendable, Equatable {
    package var factor: String
    package var low: ConfidenceInterval
    package var high: ConfidenceInterval
    /// |high − low| of the means.
    package var swing: Double
}

/// One factor's Sobol indices for one metric.
package struct SensitivitySobolRow: Codable, Sendable, Equatable {
    package var factor: String
    package var first: SensitivityDesign.Estimate
    package var total: SensitivityDesign.Estimate
}

/// Everything measured for one metric.
package struct SensitivityMetricResult: Codable, Sendable, Equatable {
    package var metric: String
    /// Ranked by μ*, highest first.
    package var morris: [SensitivityMorrisRow]
    /// The metric with every factor at its midpoint.
    package var midpoint: ConfidenceInterval
    /// Ranked by swing, widest first.
    package var tornado: [SensitivityTornadoRow]
    /// The Sobol step's factors, ranked by total index (empty without a Sobol step).
    package var sobol: [SensitivitySobolRow]
}

/// Why a study stopped.
package enum SensitivityFailure: Error, Sendable {
    /// A design point's scenario was refused (a value the scenario cannot take).
    case badInput(String)
    /// A replication failed or a file could not be written.
    case runFailed(String)
}

/// Runs the three designs of a sensitivity study over `factors` through `evaluate` (the metrics
/// of replications 0..<n of the scenario made by some assignments, one map per replication) and
/// computes μ*, σ, the tornado and S1 / ST.
package struct SensitivityStudy {
    package let factors: [ScenarioKnob]
    package let metrics: [String]
    package let settings: SensitivitySettings
    /// Seeds the designs and bootstraps (the scenario's seed).
    package let seed: UInt64

    package init(factors: [ScenarioKnob], metrics: [String], settings: SensitivitySettings, seed: UInt64) {
        self.factors = factors
        self.metrics = metrics
        self.settings = settings
        self.seed = seed
    }

    /// Design points: Morris r (k + 1), the tornado 2k + 1, Sobol N (k' + 2), k' = min(K, k).
    package var designPoints: Int {
        let k = factors.count, kept = min(settings.sobolFactors, k)
        return settings.trajectories * (k + 1) + 2 * k + 1 + (settings.sobolSamples > 0 && kept > 0 ? settings.sobolSamples * (kept + 2) : 0)
    }

    /// Design points of the screening (Morris r (k + 1), then the tornado 2k + 1): the first ones
    /// `run` evaluates, and the ones the Sobol step's factors depend on.
    package var screeningPoints: Int { settings.trajectories * (factors.count + 1) + 2 * factors.count + 1 }

    /// Factor `i`'s value at unit coordinate `u` (integers rounded to the nearest).
    package func value(_ i: Int, _ u: Double) -> Double {
        let f = factors[i]
        let x = f.lower + u * (f.upper - f.lower)
        return f.isInteger ? min(f.upper, max(f.lower, x.rounded())) : x
    }

    /// The assignments of the point `unit` over the factors `which` (the others at their midpoints).
    package func assignments(_ unit: [Double], factors which: [Int]) -> [String] {
        var u = [Double](repeating: 0.5, count: factors.count)
        for (j, i) in which.enumerated() { u[i] = unit[j] }
        return factors.indices.map { ScenarioKnob.assignment(factors[$0].path, value($0, u[$0])) }
    }

    /// The study's results, one per metric; `evaluate` is called once per design point, and
    /// `progress` after each with (done, total).
    package func run(evaluate: ([String]) throws(SensitivityFailure) -> [[String: Double]],
                     progress: (Int, Int) -> Void = { _, _ in }) throws(SensitivityFailure) -> [SensitivityMetricResult] {
        let k = factors.count, total = designPoints
        var done = 0
        func means(_ assignments: [String]) throws(SensitivityFailure) -> (means: [Double], perReplication: [[Double]]) {
            let replications = try evaluate(assignments)
            done += 1
            progress(done, total)
            var perMetric: [[Double]] = []
            for m in metrics {
                let values = replications.map { $0[m] ?? .nan }
                guard values.allSatisfy(\.isFinite) else {
                    throw .runFailed("\(m) has no value at \(assignments.joined(separator: " ")) (the metric needs something this scenario does not produce there)")
                }
                perMetric.append(values)
            }
            return (perMetric.map { $0.reduce(0, +) / Double($0.count) }, perMetric)
        }
        let all = Array(0..<k)
        // Morris.
        let trajectories = SensitivityDesign.morrisTrajectories(factors: k, trajectories: settings.trajectories, levels: settings.levels, seed: seed)
        var morrisOutputs = [[[Double]]](repeating: [], count: metrics.count)
        for t in trajectories {
            var perMetric = [[Double]](repeating: [], count: metrics.count)
            for p in t.points {
                let m = try means(assignments(p, factors: all)).means
                for j in metrics.indices { perMetric[j].append(m[j]) }
            }
            for j in metrics.indices { morrisOutputs[j].append(perMetric[j]) }
        }
        let morris = metrics.indices.map { j in
            SensitivityDesign.morrisEffects(trajectories, outputs: morrisOutputs[j], factors: k, bootstrap: settings.bootstrap,
                                            confidence: settings.confidence, seed: seed &+ UInt64(j))
        }
        // Tornado: the midpoint, then each factor at its low and high end.
        func interval(_ values: [Double]) -> ConfidenceInterval {
            (try? ConfidenceInterval.studentT(sample: values, level: settings.confidence))
                ?? ConfidenceInterval(mean: values.reduce(0, +) / Double(max(1, values.count)), halfWidth: .nan, level: settings.confidence, n: values.count, degreesOfFreedom: .nan)
        }
        let mid = try means(assignments([], factors: [])).perReplication
        var lows: [[[Double]]] = [], highs: [[[Double]]] = []
        for i in all {
            lows.append(try means(assignments([0], factors: [i])).perReplication)
            highs.append(try means(assignments([1], factors: [i])).perReplication)
        }
        // Sobol on the first metric's top factors.
        let ranked = all.sorted { (morris[0][$0].muStar.value, -$0) > (morris[0][$1].muStar.value, -$1) }
        let kept = Array(ranked.prefix(min(settings.sobolFactors, k)))
        var sobol = [[SensitivityDesign.SobolIndices]](repeating: [], count: metrics.count)
        if settings.sobolSamples > 0, !kept.isEmpty {
            let design = SensitivityDesign.saltelli(samples: settings.sobolSamples, factors: kept.count, seed: seed)
            var outputs = [[Double]](repeating: [], count: metrics.count)
            for p in design.points {
                let m = try means(assignments(p, factors: kept)).means
                for j in metrics.indices { outputs[j].append(m[j]) }
            }
            for j in metrics.indices {
                sobol[j] = SensitivityDesign.sobol(design, outputs: outputs[j], bootstrap: settings.bootstrap, confidence: settings.confidence,
                                                   seed: seed &+ UInt64(j))
            }
        }
        return metrics.indices.map { j in
            let rows = all.map { i in
                SensitivityMorrisRow(factor: factors[i].path, mu: morris[j][i].mu, muStar: morris[j][i].muStar.value,
                                     muStarLower: morris[j][i].muStar.lower, muStarUpper: morris[j][i].muStar.upper, sigma: morris[j][i].sigma)
            }.enumerated().sorted { ($0.element.muStar, -$0.offset) > ($1.element.muStar, -$1.offset) }.map(\.element)
            let tornado = all.map { i in
                let lo = interval(lows[i][j]), hi = interval(highs[i][j])
                return SensitivityTornadoRow(factor: factors[i].path, low: lo, high: hi, swing: abs(hi.mean - lo.mean))
            }.enumerated().sorted { ($0.element.swing, -$0.offset) > ($1.element.swing, -$1.offset) }.map(\.element)
            let sobolRows = sobol[j].enumerated().map { n, s in SensitivitySobolRow(factor: factors[kept[n]].path, first: s.first, total: s.total) }
                .enumerated().sorted { ($0.element.total.value, -$0.offset) > ($1.element.total.value, -$1.offset) }.map(\.element)
            return SensitivityMetricResult(metric: metrics[j], morris: rows, midpoint: interval(mid[j]), tornado: tornado, sobol: sobolRows)
        }
    }
}
