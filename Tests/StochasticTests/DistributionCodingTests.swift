import Foundation
import XCTest
@testable import Stochastic

final class DistributionCodingTests: XCTestCase {
    private func decode(_ json: String) throws -> Distribution {
        try JSONDecoder().decode(Distribution.self, from: Data(json.utf8))
    }

    /// Every kind survives encode -> decode unchanged.
    func testJSONRoundTripOfEveryKind() throws {
        let all: [Distribution] = [
            .constant(value: 3.5),
            .uniform(lower: -1, upper: 2.25),
            .exponential(mean: 0.2),
            .normal(mean: 1, sd: 0.5, lower: nil, upper: nil),
            .normal(mean: 1, sd: 0.5, lower: 0, upper: nil),
            .normal(mean: 1, sd: 0.5, lower: 0.2, upper: 1.7),
            .lognormal(mu: -2.6, sigma: 0.59),
            .gamma(shape: 2.5, scale: 0.1),
            .weibull(shape: 1.5, scale: 3),
            .pareto(alpha: 2.2, scale: 1000),
            .categorical(values: [1, 2, 5], weights: [0.5, 0.3, 0.2]),
            .empirical(points: [.init(p: 0, value: 1), .init(p: 0.5, value: 2), .init(p: 1, value: 10)]),
            .mixture(components: [
                .init(weight: 0.9, distribution: .exponential(mean: 1)),
                .init(weight: 0.1, distribution: .shift(offset: 5, distribution: .uniform(lower: 0, upper: 1))),
            ]),
            .shift(offset: -0.25, distribution: .gamma(shape: 3, scale: 2)),
        ]
        for d in all {
            let data = try JSONEncoder().encode(d)
            let back = try JSONDecoder().decode(Distribution.self, from: data)
            XCTAssertEqual(back, d, "round trip of \(String(decoding: data, as: UTF8.self))")
        }
    }

    /// The median/p90 form decodes to mu = ln(median), sigma = ln(p90/median)/z_0.9.
    func testLognormalMedianP90Form() throws {
        let d = try decode(#"{"kind": "lognormal", "median": 0.07, "p90": 0.15}"#)
        guard case .lognormal(let mu, let sigma) = d else { return XCTFail("decoded \(d)") }
        XCTAssertEqual(mu, log(0.07), accuracy: 1e-15)
        // z_0.9 = 1.2815515655446004 (standard normal table), independent of GSL.
        XCTAssertEqual(sigma, log(0.15 / 0.07) / 1.2815515655446004, accuracy: 1e-12)
    }
}
