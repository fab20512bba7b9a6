import Foundation
import XCTest
@testable import Stochastic

/// Morris screening and Sobol indices against functions whose answers are known exactly.
final class SensitivityDesignTests: XCTestCase {
    /// Ishigami (Ishigami & Homma 1990) on x ∈ [−π, π]³ with a = 7, b = 0.1.
    static func ishigami(_ u: [Double]) -> Double {
        let x = u.map { -Double.pi + 2 * Double.pi * $0 }
        return sin(x[0]) + 7 * sin(x[1]) * sin(x[1]) + 0.1 * pow(x[2], 4) * sin(x[0])
    }

    /// The Ishigami indices from its analytic variance decomposition (a = 7, b = 0.1):
    /// V = a²/8 + bπ⁴/5 + b²π⁸/18 + 1/2, V1 = (1 + bπ⁴/5)²/2, V2 = a²/8, V13 = b²π⁸(1/18 − 1/50).
    static var ishigamiExact: (first: [Double], total: [Double]) {
        let a = 7.0, b = 0.1, pi4 = pow(Double.pi, 4), pi8 = pow(Double.pi, 8)
        let v = a * a / 8 + b * pi4 / 5 + b * b * pi8 / 18 + 0.5
        let v1 = 0.5 * pow(1 + b * pi4 / 5, 2), v2 = a * a / 8, v13 = b * b * pi8 * (1.0 / 18 - 1.0 / 50)
        return ([v1 / v, v2 / v, 0], [(v1 + v13) / v, v2 / v, v13 / v])
    }

    func testIshigamiExactValuesAreTheLiterature() {
        let e = Self.ishigamiExact
        XCTAssertEqual(e.first[0], 0.314, accuracy: 0.0005)
        XCTAssertEqual(e.first[1], 0.442, accuracy: 0.0005)
        XCTAssertEqual(e.total[0], 0.558, accuracy: 0.0005)
        XCTAssertEqual(e.total[1], 0.442, accuracy: 0.0005)
        XCTAssertEqual(e.total[2], 0.244, accuracy: 0.0005)
    }

    /// Each estimator is a ratio of means of N independent rows, asymptotically normal (CLT and
    /// the delta method), so the normal bootstrap interval covers the true index with probability
    /// → its level. At 99.9 % per index, Bonferroni bounds the chance that any of the six misses
    /// by 0.6 %; the seed is fixed, so this is one draw of that event, not a tuned one. The
    /// intervals must also be narrow (half-width < 0.1, the estimators' standard errors at
    /// N = 4096 are ≈ 0.01–0.02) so that containment means something.
    func testSobolOnIshigamiCoversTheExactIndices() {
        let design = SensitivityDesign.saltelli(samples: 4096, factors: 3, seed: 20_261_202)
        XCTAssertEqual(design.points.count, 4096 * 5)
        let y = design.points.map(Self.ishigami)
        let indices = SensitivityDesign.sobol(design, outputs: y, bootstrap: 200, confidence: 0.999, seed: 7)
        let exact = Self.ishigamiExact
        for i in 0..<3 {
            let s = indices[i].first, t = indices[i].total
            XCTAssertTrue(s.contains(exact.first[i]), "S\(i + 1) \(s) should contain \(exact.first[i])")
            XCTAssertTrue(t.contains(exact.total[i]), "ST\(i + 1) \(t) should contain \(exact.total[i])")
            XCTAssertLessThan(s.upper - s.lower, 0.2)
            XCTAssertLessThan(t.upper - t.lower, 0.2)
        }
        // Same seeds, same bytes.
        let again = SensitivityDesign.sobol(SensitivityDesign.saltelli(samples: 4096, factors: 3, seed: 20_261_202), outputs: y,
                                            bootstrap: 200, confidence: 0.999, seed: 7)
        XCTAssertEqual(again, indices)
    }

    /// On f = 3x₀ − 2x₁ + 0.5x₂ (x₃ unused) every elementary effect of factor i is exactly its
    /// coefficient, whatever the base point and direction: μ = c, μ* = |c|, σ = 0, and the unused
    /// factor's effects are all 0 (interval [0, 0]). Up to rounding of (x + Δ − x) / Δ: 1e-12.
    func testMorrisOnALinearFunctionGivesItsCoefficients() {
        let c = [3.0, -2.0, 0.5, 0.0]
        let trajectories = SensitivityDesign.morrisTrajectories(factors: 4, trajectories: 12, levels: 4, seed: 11)
        let delta = SensitivityDesign.morrisDelta(levels: 4)
        XCTAssertEqual(delta, 2.0 / 3.0, accuracy: 1e-15)
        for t in trajectories {
            XCTAssertEqual(t.points.count, 5)
            XCTAssertEqual(t.order.sorted(), [0, 1, 2, 3])
            for p in t.points { XCTAssertTrue(p.allSatisfy { $0 >= 0 && $0 <= 1 }) }
            for s in t.steps { XCTAssertEqual(abs(s), delta, accuracy: 1e-15) }
        }
        let outputs = trajectories.map { $0.points.map { x in zip(c, x).reduce(0) { $0 + $1.0 * $1.1 } } }
        let effects = SensitivityDesign.morrisEffects(trajectories, outputs: outputs, factors: 4, bootstrap: 100, confidence: 0.95, seed: 3)
        for i in 0..<4 {
            XCTAssertEqual(effects[i].mu, c[i], accuracy: 1e-12)
            XCTAssertEqual(effects[i].muStar.value, abs(c[i]), accuracy: 1e-12)
            XCTAssertEqual(effects[i].sigma, 0, accuracy: 1e-12)
            XCTAssertEqual(effects[i].effects.count, 12)
            XCTAssertEqual(effects[i].muStar.upper - effects[i].muStar.lower, 0, accuracy: 1e-12)
        }
        XCTAssertEqual(effects[3].muStar.value, 0)
    }

    /// On the additive, non-linear f = x₀² + sin(2πx₁), the elementary effect of x₀ between a and
    /// a + Δ is ((a + Δ)² − a²) / Δ = 2a + Δ in either direction: each effect is checked against
    /// that, and σ > 0 since base points differ.
    func testMorrisEffectsAreTheExactFiniteDifferences() {
        let trajectories = SensitivityDesign.morrisTrajectories(factors: 2, trajectories: 20, levels: 6, seed: 5)
        let f = { (x: [Double]) in x[0] * x[0] + sin(2 * Double.pi * x[1]) }
        let outputs = trajectories.map { $0.points.map(f) }
        let effects = SensitivityDesign.morrisEffects(trajectories, outputs: outputs, factors: 2, bootstrap: 50, confidence: 0.95, seed: 1)
        for (t, trajectory) in trajectories.enumerated() {
            for (j, i) in trajectory.order.enumerated() where i == 0 {
                let a = min(trajectory.points[j][0], trajectory.points[j + 1][0])
                let expected = (pow(a + trajectory.steps[j].magnitude, 2) - a * a) / trajectory.steps[j].magnitude
                XCTAssertEqual(effects[0].effects[t], expected, accuracy: 1e-12)
            }
        }
        XCTAssertGreaterThan(effects[0].sigma, 0)
        XCTAssertTrue(effects[0].muStar.contains(effects[0].muStar.value))
    }

    func testDesignsAreTheSameForASeedAndDifferForAnother() {
        XCTAssertEqual(SensitivityDesign.morrisTrajectories(factors: 5, trajectories: 4, levels: 4, seed: 9),
                       SensitivityDesign.morrisTrajectories(factors: 5, trajectories: 4, levels: 4, seed: 9))
        XCTAssertNotEqual(SensitivityDesign.morrisTrajectories(factors: 5, trajectories: 4, levels: 4, seed: 9),
                          SensitivityDesign.morrisTrajectories(factors: 5, trajectories: 4, levels: 4, seed: 10))
        XCTAssertEqual(SensitivityDesign.saltelli(samples: 8, factors: 2, seed: 1), SensitivityDesign.saltelli(samples: 8, factors: 2, seed: 1))
    }

    /// Trajectory t and Saltelli row n depend only on (seed, t) and (seed, n): a larger design
    /// starts with the smaller one's points, so a rerun with more trajectories or samples reuses
    /// the replications already stored.
    func testALargerDesignExtendsASmallerOne() {
        let small = SensitivityDesign.morrisTrajectories(factors: 3, trajectories: 3, levels: 4, seed: 2)
        let large = SensitivityDesign.morrisTrajectories(factors: 3, trajectories: 7, levels: 4, seed: 2)
        XCTAssertEqual(Array(large.prefix(3)), small)
        let a = SensitivityDesign.saltelli(samples: 4, factors: 2, seed: 3), b = SensitivityDesign.saltelli(samples: 9, factors: 2, seed: 3)
        for matrix in 0..<4 {
            for row in 0..<4 { XCTAssertEqual(a.points[a.index(matrix: matrix, row: row)], b.points[b.index(matrix: matrix, row: row)]) }
        }
    }
}
