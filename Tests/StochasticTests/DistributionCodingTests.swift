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

    /// The documented JSON forms decode to the intended cases (key names and meanings).
    func testDocumentedJSONForms() throws {
        let cases: [(String, Distribution)] = [
            (#"{"kind": "constant", "value": 2}"#, .constant(value: 2)),
            (#"{"kind": "uniform", "lower": 0.5, "upper": 1.5}"#, .uniform(lower: 0.5, upper: 1.5)),
            (#"{"kind": "exponential", "mean": 30}"#, .exponential(mean: 30)),
            (#"{"kind": "normal", "mean": 1, "sd": 0.25}"#, .normal(mean: 1, sd: 0.25, lower: nil, upper: nil)),
            (#"{"kind": "normal", "mean": 1, "sd": 0.25, "lower": 0}"#, .normal(mean: 1, sd: 0.25, lower: 0, upper: nil)),
            (#"{"kind": "normal", "mean": 1, "sd": 0.25, "upper": 2}"#, .normal(mean: 1, sd: 0.25, lower: nil, upper: 2)),
            (#"{"kind": "lognormal", "mu": -1, "sigma": 0.5}"#, .lognormal(mu: -1, sigma: 0.5)),
            (#"{"kind": "gamma", "shape": 2, "scale": 3}"#, .gamma(shape: 2, scale: 3)),
            (#"{"kind": "weibull", "shape": 0.8, "scale": 120}"#, .weibull(shape: 0.8, scale: 120)),
            (#"{"kind": "pareto", "alpha": 1.2, "scale": 1000}"#, .pareto(alpha: 1.2, scale: 1000)),
            (#"{"kind": "categorical", "values": [0, 1], "weights": [3, 1]}"#, .categorical(values: [0, 1], weights: [3, 1])),
            (#"{"kind": "empirical", "points": [{"p": 0, "value": 10}, {"p": 1, "value": 20}]}"#,
             .empirical(points: [.init(p: 0, value: 10), .init(p: 1, value: 20)])),
            (#"{"kind": "mixture", "components": [{"weight": 1, "distribution": {"kind": "constant", "value": 0}}]}"#,
             .mixture(components: [.init(weight: 1, distribution: .constant(value: 0))])),
            (#"{"kind": "shift", "offset": 0.1, "distribution": {"kind": "exponential", "mean": 1}}"#,
             .shift(offset: 0.1, distribution: .exponential(mean: 1))),
        ]
        for (json, expected) in cases {
            XCTAssertEqual(try decode(json), expected, json)
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
