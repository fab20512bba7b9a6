import XCTest
import Stochastic
@testable import SimStats

final class PairedComparisonTests: XCTestCase {
    func testCommonRandomNumbersNarrowThePairedInterval() throws {
        // Model: Aᵢ = 100 + 10 Z₁ᵢ, Bᵢ = Aᵢ + δ + 1·Z₂ᵢ with δ = 1 (B is worse when lower is better).
        // σ_A² = 100, σ_B² = 101, σ_d² = 1, so the expected ratio of the interval widths' scale is
        // ρ = σ_d / √(σ_A² + σ_B²) = 1/√201 ≈ 0.0705.
        // hw_paired / hw_welch = (t_{n−1} / t_ν) · S_d / √(S_A² + S_B²) exactly (both divide by √n).
        // Bound on the sample part: each of S_d²/σ_d², S_A²/σ_A², S_B²/σ_B² is χ²₄₉/49; with
        // probability ≥ 1 − 6·0.0005 all lie in [lo, hi] = χ²₄₉ quantiles at 0.0005 / 0.9995 over 49,
        // and then S_d/√(S_A²+S_B²) ∈ ρ·[√(lo/hi), √(hi/lo)].
        let seed: UInt64 = 4242
        let n = 50, delta = 1.0
        let z = try normalDraws(seed: seed, count: 2 * n)
        let a = (0..<n).map { 100 + 10 * z[$0] }
        let b = (0..<n).map { a[$0] + delta + z[n + $0] }
        let cmp = try PairedComparison(baseline: a, variant: b, better: .lower, level: 0.95)

        let rho = 1 / 201.0.squareRoot()
        let lo = Quantiles.chiSquare(p: 0.0005, degreesOfFreedom: 49) / 49
        let hi = Quantiles.chiSquare(p: 0.9995, degreesOfFreedom: 49) / 49
        let tRatio = Quantiles.studentT(p: 0.975, degreesOfFreedom: 49)
            / Quantiles.studentT(p: 0.975, degreesOfFreedom: cmp.welchDifference.degreesOfFreedom)
        let sampleRatio = cmp.pairedDifference.halfWidth / cmp.welchDifference.halfWidth / tRatio
        XCTAssertGreaterThanOrEqual(sampleRatio, rho * (lo / hi).squareRoot(), "seed \(seed)")
        XCTAssertLessThanOrEqual(sampleRatio, rho * (hi / lo).squareRoot(), "seed \(seed)")
        XCTAssertLessThan(cmp.pairedDifference.halfWidth, 0.2 * cmp.welchDifference.halfWidth, "seed \(seed)")

        // Both intervals estimate the same difference: mean(B) − mean(A) = mean(d).
        XCTAssertEqual(cmp.pairedDifference.mean, cmp.welchDifference.mean, accuracy: 1e-9)
        // Paired: d̄ ~ N(1, 1/50), hw = t₄₉·S_d/√50 ≤ 2.01·√hi/√50 ≈ 0.38, so the interval excludes 0
        // unless d̄ is ≥ 4.5 standard errors low: the variant is a significant regression.
        XCTAssertEqual(cmp.verdict, .significantRegression, "paired \(cmp.pairedDifference), seed \(seed)")
        // Welch: hw ≥ 1.98·√(201·lo/50) ≈ 2.8 > |d̄| (≤ 1 + 4.5/√50 ≈ 1.64): it cannot see the effect.
        XCTAssertTrue(cmp.welchDifference.contains(0), "welch \(cmp.welchDifference), seed \(seed)")
    }

    func testVerdictFollowsTheBetterDirection() throws {
        let a: [Double] = [10, 20, 30, 40, 50]
        let up = zip(a, [1.1, 0.9, 1.0, 1.05, 0.95]).map { $0 + $1 }
        XCTAssertEqual(try PairedComparison(baseline: a, variant: up, better: .higher, level: 0.95).verdict,
                       .significantImprovement)
        XCTAssertEqual(try PairedComparison(baseline: a, variant: up, better: .lower, level: 0.95).verdict,
                       .significantRegression)
        let down = zip(a, [-1.1, -0.9, -1.0, -1.05, -0.95]).map { $0 + $1 }
        XCTAssertEqual(try PairedComparison(baseline: a, variant: down, better: .lower, level: 0.95).verdict,
                       .significantImprovement)
        let noise = zip(a, [0.5, -0.5, 0.25, -0.25, 0.0]).map { $0 + $1 }
        XCTAssertEqual(try PairedComparison(baseline: a, variant: noise, better: .lower, level: 0.95).verdict,
                       .noSignificantDifference)
    }

    func testWelchDegreesOfFreedomAndErrors() throws {
        // Equal variances and sizes: Welch–Satterthwaite gives ν = 2(n − 1).
        let a = try RunningMoments(validating: [1, 2, 3, 4])
        let b = try RunningMoments(validating: [11, 12, 13, 14])
        let w = try PairedComparison.welch(baseline: a, variant: b, level: 0.95)
        XCTAssertEqual(w.degreesOfFreedom, 6, accuracy: 1e-12)
        XCTAssertEqual(w.mean, 10, accuracy: 1e-12)
        // t_{6, 0.975} = 2.446912 (t table); se = √(2·(5/3)/4).
        XCTAssertEqual(w.halfWidth, 2.446912 * (2 * (5.0 / 3) / 4).squareRoot(), accuracy: 1e-5)
        XCTAssertThrowsError(try PairedComparison(baseline: [1, 2], variant: [1], better: .lower, level: 0.9)) {
            XCTAssertEqual($0 as? StatisticsError, .mismatchedPairCount(baseline: 2, variant: 1))
        }
    }
}
