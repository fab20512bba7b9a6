import XCTest
@testable import Stochastic

/// `supportLowerBound` / `supportUpperBound`: the closed hull of where draws fall, per kind.
final class DistributionSupportTests: XCTestCase {
    /// Every kind, with its expected (lower, upper).
    let cases: [(Distribution, Double, Double)] = [
        (.constant(value: -0.2), -0.2, -0.2),
        (.uniform(lower: -3, upper: -1), -3, -1),
        (.exponential(mean: 2), 0, .infinity),
        (.normal(mean: 0.3, sd: 1, lower: nil, upper: nil), -.infinity, .infinity),
        (.normal(mean: 0.3, sd: 1, lower: 0, upper: nil), 0, .infinity),
        (.normal(mean: 0.3, sd: 1, lower: -1, upper: 2), -1, 2),
        (.lognormal(mu: 0, sigma: 1), 0, .infinity),
        (.gamma(shape: 2, scale: 1), 0, .infinity),
        (.weibull(shape: 1.5, scale: 1), 0, .infinity),
        (.pareto(alpha: 3, scale: 2), 2, .infinity),
        // A value of weight 0 is never drawn.
        (.categorical(values: [-5, 1, 4, 9], weights: [0, 1, 1, 0]), 1, 4),
        (.empirical(points: [.init(p: 0, value: 0.5), .init(p: 0.5, value: 1), .init(p: 1, value: 3)]), 0.5, 3),
        (.mixture(components: [.init(weight: 1, distribution: .uniform(lower: 2, upper: 3)),
                               .init(weight: 0, distribution: .constant(value: -100)),
                               .init(weight: 2, distribution: .constant(value: 7))]), 2, 7),
        (.shift(offset: -10, distribution: .uniform(lower: 1, upper: 2)), -9, -8),
        (.shift(offset: 1, distribution: .lognormal(mu: 0, sigma: 1)), 1, .infinity),
    ]

    func testBoundsPerKind() {
        for (d, lower, upper) in cases {
            XCTAssertEqual(d.supportLowerBound, lower, "lower bound of \(d)")
            XCTAssertEqual(d.supportUpperBound, upper, "upper bound of \(d)")
        }
    }

    /// 20 000 draws of each kind lie inside the bounds. Where the bound is reached with positive
    /// probability mass near it, the smallest draw comes close: a uniform on [a, b] leaves
    /// [a, a + 0.001 (b − a)) empty in all 20 000 draws with probability 0.999^20000 ≈ 2e-9, and a
    /// categorical value of probability ≥ 1/3 is missed with probability (2/3)^20000 ≈ 0.
    func testDrawsStayInsideTheBounds() throws {
        let n = 20_000
        for (index, (d, lower, upper)) in cases.enumerated() {
            let xs = try draw(d, n: n, seed: 0x5EED_0000 + UInt64(index))
            let lo = try XCTUnwrap(xs.min()), hi = try XCTUnwrap(xs.max())
            XCTAssertGreaterThanOrEqual(lo, lower, "draws of \(d) below its lower bound")
            XCTAssertLessThanOrEqual(hi, upper, "draws of \(d) above its upper bound")
        }
        let u = try draw(.uniform(lower: -3, upper: -1), n: n, seed: 7)
        XCTAssertLessThan(try XCTUnwrap(u.min()), -3 + 0.002)
        XCTAssertGreaterThan(try XCTUnwrap(u.max()), -1 - 0.002)
        let c = try draw(.categorical(values: [-5, 1, 4, 9], weights: [0, 1, 1, 0]), n: n, seed: 8)
        XCTAssertEqual(c.min(), 1)
        XCTAssertEqual(c.max(), 4)
    }
}
