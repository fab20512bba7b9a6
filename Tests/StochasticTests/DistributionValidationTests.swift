import Foundation
import XCTest
@testable import Stochastic

/// Invalid scenario input is rejected with a `DistributionError` naming the full coding path of the
/// field and why.
final class DistributionValidationTests: XCTestCase {
    /// Decodes `distributionJSON` nested at `network.lte.rttSeconds` and returns the error thrown.
    private func decodingError(_ distributionJSON: String, decoder: JSONDecoder = JSONDecoder(),
                               file: StaticString = #filePath, line: UInt = #line) -> DistributionError? {
        let json = #"{"network": {"lte": {"rttSeconds": "# + distributionJSON + "}}}"
        do {
            let decoded = try decoder.decode([String: [String: [String: Distribution]]].self, from: Data(json.utf8))
            XCTFail("accepted \(distributionJSON) as \(decoded)", file: file, line: line)
        } catch DecodingError.dataCorrupted(let context) where context.underlyingError is DistributionError {
            return context.underlyingError as? DistributionError
        } catch {
            XCTFail("expected a DistributionError for \(distributionJSON), got \(error)", file: file, line: line)
        }
        return nil
    }

    private func assertRejected(_ json: String, path: String, mentions fragments: [String],
                                file: StaticString = #filePath, line: UInt = #line) {
        guard let error = decodingError(json, file: file, line: line) else { return }
        XCTAssertEqual(error.path, "network.lte.rttSeconds." + path, "for \(json)", file: file, line: line)
        let message = error.description
        XCTAssertTrue(message.hasPrefix("network.lte.rttSeconds." + path + ": "), "message \(message)", file: file, line: line)
        for fragment in fragments {
            XCTAssertTrue(message.contains(fragment), "message \"\(message)\" lacks \"\(fragment)\"", file: file, line: line)
        }
    }

    func testUnknownKindAndKeys() {
        assertRejected(#"{"kind": "lognormel", "mu": 0, "sigma": 1}"#, path: "kind", mentions: ["unknown kind \"lognormel\"", "lognormal"])
        assertRejected(#"{"mu": 0, "sigma": 1}"#, path: "kind", mentions: ["missing"])
        assertRejected(#"{"kind": 3}"#, path: "kind", mentions: ["expected a string"])
        assertRejected(#"{"kind": "normal", "mean": 0, "sdev": 1}"#, path: "sdev", mentions: ["unknown key", "sd"])
        assertRejected(#"{"kind": "exponential", "mean": "fast"}"#, path: "mean", mentions: ["expected a number"])
        assertRejected(#"{"kind": "lognormal", "mu": 0}"#, path: "sigma", mentions: ["missing"])
        assertRejected(#"{"kind": "exponential", "mean": null}"#, path: "mean", mentions: ["null"])
    }

    func testLognormalParameters() {
        assertRejected(#"{"kind": "lognormal", "mu": 0, "sigma": -1}"#, path: "sigma", mentions: ["> 0", "-1.0"])
        assertRejected(#"{"kind": "lognormal", "mu": 0, "sigma": 0}"#, path: "sigma", mentions: ["> 0", "0.0"])
        assertRejected(#"{"kind": "lognormal", "median": 0.1, "p90": 0.05}"#, path: "p90", mentions: ["> median", "0.05"])
        assertRejected(#"{"kind": "lognormal", "median": 0.1, "p90": 0.1}"#, path: "p90", mentions: ["> median"])
        assertRejected(#"{"kind": "lognormal", "median": -0.1, "p90": 0.1}"#, path: "median", mentions: ["> 0", "-0.1"])
        assertRejected(#"{"kind": "lognormal", "median": 0.1}"#, path: "p90", mentions: ["missing"])
        assertRejected(#"{"kind": "lognormal", "median": 0.1, "p90": 0.2, "sigma": 1}"#, path: "median", mentions: ["not both"])
    }

    func testScalarParameters() {
        assertRejected(#"{"kind": "uniform", "lower": 2, "upper": 2}"#, path: "upper", mentions: ["> lower"])
        assertRejected(#"{"kind": "exponential", "mean": 0}"#, path: "mean", mentions: ["> 0"])
        assertRejected(#"{"kind": "normal", "mean": 0, "sd": -0.5}"#, path: "sd", mentions: ["> 0", "-0.5"])
        assertRejected(#"{"kind": "normal", "mean": 0, "sd": 1, "lower": 3, "upper": 1}"#, path: "upper", mentions: ["> lower"])
        assertRejected(#"{"kind": "normal", "mean": 0, "sd": 1, "lower": 50}"#, path: "lower", mentions: ["probability 0"])
        assertRejected(#"{"kind": "gamma", "shape": 0, "scale": 1}"#, path: "shape", mentions: ["> 0"])
        assertRejected(#"{"kind": "weibull", "shape": 1, "scale": -2}"#, path: "scale", mentions: ["> 0", "-2.0"])
        assertRejected(#"{"kind": "pareto", "alpha": -1, "scale": 1}"#, path: "alpha", mentions: ["> 0"])
    }

    func testTables() {
        assertRejected(#"{"kind": "categorical", "values": [], "weights": []}"#, path: "values", mentions: ["empty"])
        assertRejected(#"{"kind": "categorical", "values": [1, 2], "weights": [1, -1]}"#, path: "weights[1]", mentions: [">= 0", "-1.0"])
        assertRejected(#"{"kind": "categorical", "values": [1, 2], "weights": [0, 0]}"#, path: "weights", mentions: ["all be zero"])
        assertRejected(#"{"kind": "categorical", "values": [1, 2], "weights": [1]}"#, path: "weights", mentions: ["1 entries", "2"])
        assertRejected(#"{"kind": "categorical", "values": [1, "x"], "weights": [1, 1]}"#, path: "values", mentions: ["array of numbers"])
        let point = { (p: Double, v: Double) in #"{"p": \#(p), "value": \#(v)}"# }
        assertRejected(#"{"kind": "empirical", "points": [\#(point(0, 1)), \#(point(0.5, 3)), \#(point(1, 2))]}"#,
                       path: "points[2].value", mentions: ["non-decreasing", "3.0", "2.0"])
        assertRejected(#"{"kind": "empirical", "points": [\#(point(0, 1)), \#(point(0, 3)), \#(point(1, 4))]}"#,
                       path: "points[1].p", mentions: ["strictly increasing"])
        assertRejected(#"{"kind": "empirical", "points": [\#(point(0.1, 1)), \#(point(1, 3))]}"#,
                       path: "points[0].p", mentions: ["p = 0", "0.1"])
        assertRejected(#"{"kind": "empirical", "points": [\#(point(0, 1)), \#(point(0.9, 3))]}"#,
                       path: "points[1].p", mentions: ["p = 1", "0.9"])
        assertRejected(#"{"kind": "empirical", "points": [\#(point(0, 1))]}"#, path: "points", mentions: ["at least 2"])
        assertRejected(#"{"kind": "empirical", "points": [{"p": 0, "v": 1}, \#(point(1, 2))]}"#,
                       path: "points[0].v", mentions: ["unknown key"])
    }

    /// A value that is not a JSON object where one is expected names what was expected.
    func testNonObjectsAreRejectedWithWhatWasExpected() {
        assertRejected(#"{"kind": "shift", "offset": 1, "distribution": 3}"#, path: "distribution",
                       mentions: ["expected a distribution object"])
        assertRejected(#"{"kind": "mixture", "components": [5]}"#, path: "components[0]", mentions: ["expected a mixture component"])
        assertRejected(#"{"kind": "empirical", "points": ["p"]}"#, path: "points[0]", mentions: ["expected a quantile point"])
    }

    func testNestedDistributions() {
        assertRejected(#"{"kind": "mixture", "components": []}"#, path: "components", mentions: ["empty"])
        assertRejected(#"{"kind": "mixture", "components": [{"weight": 1, "distribution": {"kind": "constant", "value": 1}}, {"weight": -2, "distribution": {"kind": "constant", "value": 1}}]}"#,
                       path: "components[1].weight", mentions: [">= 0", "-2.0"])
        assertRejected(#"{"kind": "mixture", "components": [{"weight": 0, "distribution": {"kind": "constant", "value": 1}}]}"#,
                       path: "components", mentions: ["all be zero"])
        assertRejected(#"{"kind": "mixture", "components": [{"weight": 1, "distribution": {"kind": "gamma", "shape": 1, "scale": 0}}]}"#,
                       path: "components[0].distribution.scale", mentions: ["> 0"])
        assertRejected(#"{"kind": "shift", "offset": 1, "distribution": {"kind": "exponential", "mean": -3}}"#,
                       path: "distribution.mean", mentions: ["> 0", "-3.0"])
        assertRejected(#"{"kind": "shift", "offset": 1}"#, path: "distribution", mentions: ["missing"])
        // 17 nested shifts exceed Limits.nestingDepthMax = 16.
        var json = #"{"kind": "constant", "value": 0}"#
        for _ in 0..<Distribution.Limits.nestingDepthMax { json = #"{"kind": "shift", "offset": 1, "distribution": \#(json)}"# }
        let error = decodingError(json)
        XCTAssertEqual(error?.path, "network.lte.rttSeconds")
        XCTAssertTrue(error?.reason.contains("17 deep") ?? false, "\(String(describing: error))")
    }

    /// Non-finite numbers (accepted by a decoder configured for them) are rejected, not propagated.
    func testNonFiniteNumbers() {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        let cases: [(String, String)] = [
            (#"{"kind": "constant", "value": "nan"}"#, "value"),
            (#"{"kind": "uniform", "lower": 0, "upper": "inf"}"#, "upper"),
            (#"{"kind": "lognormal", "mu": "-inf", "sigma": 1}"#, "mu"),
            (#"{"kind": "categorical", "values": [1, "nan"], "weights": [1, 1]}"#, "values[1]"),
            (#"{"kind": "categorical", "values": [1, 2], "weights": [1, "inf"]}"#, "weights[1]"),
            (#"{"kind": "normal", "mean": 0, "sd": 1, "upper": "nan"}"#, "upper"),
        ]
        for (json, field) in cases {
            guard let error = decodingError(json, decoder: decoder) else { continue }
            XCTAssertEqual(error.path, "network.lte.rttSeconds." + field, json)
            XCTAssertTrue(error.reason.contains("finite"), "\(error) for \(json)")
        }
    }

    /// Table sizes are limited (`Distribution.Limits`).
    func testSizeLimits() {
        let tooMany = Distribution.Limits.tableEntriesMax + 1
        let table = Distribution.categorical(values: [Double](repeating: 1, count: tooMany), weights: [Double](repeating: 1, count: tooMany))
        XCTAssertThrowsError(try table.validate(path: "t")) { error in
            XCTAssertEqual((error as? DistributionError)?.path, "t.values")
            XCTAssertTrue("\(error)".contains("\(tooMany) entries"), "\(error)")
        }
        let components = [Distribution.MixtureComponent](repeating: .init(weight: 1, distribution: .constant(value: 0)),
                                                          count: Distribution.Limits.mixtureComponentsMax + 1)
        XCTAssertThrowsError(try Distribution.mixture(components: components).validate(path: "m")) { error in
            XCTAssertEqual((error as? DistributionError)?.path, "m.components")
        }
    }

    /// `validate(path:)` and `Sampler.init` check programmatic values the same way.
    func testValidateAndSamplerRejectProgrammaticValues() {
        XCTAssertThrowsError(try Distribution.gamma(shape: .nan, scale: 1).validate(path: "device.cpu")) { error in
            XCTAssertEqual((error as? DistributionError)?.path, "device.cpu.shape")
        }
        XCTAssertThrowsError(try Sampler(.mixture(components: [.init(weight: 1, distribution: .exponential(mean: -1))]))) { error in
            XCTAssertEqual((error as? DistributionError)?.description, "components[0].distribution.mean: must be finite and > 0, got -1.0")
        }
        XCTAssertNoThrow(try Distribution.normal(mean: 0, sd: 1, lower: -1, upper: 1).validate(path: "x"))
    }
}
