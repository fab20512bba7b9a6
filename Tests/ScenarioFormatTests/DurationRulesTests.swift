import Foundation
import InfraModel
import PushModel
import XCTest

@testable import ScenarioFormat

/// Every distribution-valued duration and size refuses what the model would clamp: a
/// distribution that can draw a negative value, and one beyond the most the model takes for the
/// field (its own clamp constant). Each refusal names the path, what was found and how to fix it.
final class DurationRulesTests: XCTestCase {
    private func diagnostics(_ json: String) -> [String] {
        switch StrictJSONDecoder().decode(PushWorldConfig.self, from: Data(json.utf8)) {
        case .success: return []
        case let .failure(errors): return errors.diagnostics.map(\.description)
        }
    }

    private func refuses(_ json: String, _ path: String, _ fragments: String..., line: UInt = #line) {
        let text = diagnostics(json)
        XCTAssertTrue(text.contains { d in d.hasPrefix(path) && fragments.allSatisfy { d.contains($0) } },
                      "expected a diagnostic at \(path) containing \(fragments): \(text)", line: line)
    }

    private func accepts(_ json: String, line: UInt = #line) {
        XCTAssertEqual(diagnostics(json), [], line: line)
    }

    /// The inputs that once ran and reported a 0 ms tap-to-paint median or a zero delivery delay.
    func testNegativeDurationsAreRefusedWithTheFix() {
        refuses(#"{"users": {"renderSeconds": {"kind": "constant", "value": -0.2}}}"#,
                "users.renderSeconds", "values down to -0.2", "values ≥ 0 s", "truncated with \"lower\": 0")
        refuses(#"{"users": {"renderSeconds": {"kind": "constant", "value": -1e308}}}"#, "users.renderSeconds", "values down to -1e+308")
        refuses(#"{"users": {"tapDelaySeconds": {"kind": "shift", "offset": -30, "distribution": {"kind": "exponential", "mean": 20}}}}"#,
                "users.tapDelaySeconds", "values down to -30")
        refuses(#"{"users": {"tapDelaySeconds": {"kind": "uniform", "lower": -5, "upper": -1}}}"#, "users.tapDelaySeconds", "values down to -5")
        refuses(#"{"campaigns": [{"name": "a", "deliveryLatencySeconds": {"kind": "constant", "value": -10}}]}"#,
                "campaigns[0].deliveryLatencySeconds", "values down to -10")
        refuses(#"{"campaigns": [{"name": "a", "deliveryLatencySeconds": {"kind": "normal", "mean": 0.3, "sd": 0.2}}]}"#,
                "campaigns[0].deliveryLatencySeconds", "values down to -inf")
        refuses(#"{"platforms": {"ios": {"silentHoldSeconds": {"kind": "constant", "value": -1}}}}"#, "platforms.ios.silentHoldSeconds", "down to -1")
        refuses(#"{"population": {"dozeNight": {"idleSeconds": {"kind": "uniform", "lower": -100, "upper": 100}}}}"#,
                "population.dozeNight.idleSeconds", "down to -100")
        refuses(#"{"population": {"preexistingStoreBytes": {"kind": "constant", "value": -1}}}"#,
                "population.preexistingStoreBytes", "values ≥ 0 bytes", "down to -1")
    }

    func testValuesBeyondTheModelsBoundAreRefused() {
        refuses(#"{"users": {"renderSeconds": {"kind": "constant", "value": 601}}}"#,
                "users.renderSeconds", "at most 600 s", "values up to 601")
        refuses(#"{"users": {"renderSeconds": {"kind": "constant", "value": 1e308}}}"#, "users.renderSeconds", "at most 600 s")
        refuses(#"{"users": {"renderSeconds": {"kind": "lognormal", "median": 900, "p90": 2000}}}"#,
                "users.renderSeconds", "a mean at most 600 s")
        refuses(#"{"users": {"renderSeconds": {"kind": "pareto", "alpha": 0.5, "scale": 1}}}"#, "users.renderSeconds", "a finite mean")
        refuses(#"{"campaigns": [{"name": "a", "deliveryLatencySeconds": {"kind": "uniform", "lower": 0, "upper": 90000}}]}"#,
                "campaigns[0].deliveryLatencySeconds", "at most 86400 s")
    }

    /// The same rule for the infrastructure's durations, bounded by InfraModel's clamp.
    func testInfrastructureDurationsFollowTheSameRule() {
        XCTAssertTrue(problems(InfraConfig.self, #"{"tiers": {"toOriginSeconds": {"kind": "uniform", "lower": -0.1, "upper": 0.5}}}"#)
            .contains { $0.hasPrefix("tiers.toOriginSeconds") && $0.contains("values down to -0.1") })
        XCTAssertTrue(problems(InfraConfig.self, #"{"tiers": {"toOriginSeconds": {"kind": "constant", "value": 2e6}}}"#)
            .contains { $0.hasPrefix("tiers.toOriginSeconds") && $0.contains("at most 1000000 s") })
        XCTAssertEqual(sampledSecondsMax, 1e6)
    }

    /// What stays allowed: non-negative supports, a normal truncated at 0, heavy tails with a
    /// mean within the bound, and the defaults themselves.
    func testNonNegativeDistributionsWithinTheBoundPass() {
        accepts(#"{"users": {"renderSeconds": {"kind": "constant", "value": 0}}}"#)
        accepts(#"{"users": {"renderSeconds": {"kind": "normal", "mean": 0.2, "sd": 0.1, "lower": 0}}}"#)
        accepts(#"{"users": {"renderSeconds": {"kind": "constant", "value": 600}}}"#)
        accepts(#"{"users": {"tapDelaySeconds": {"kind": "pareto", "alpha": 1.5, "scale": 10}}}"#)
        accepts(#"{"campaigns": [{"name": "a", "deliveryLatencySeconds": {"kind": "shift", "offset": 0.1, "distribution": {"kind": "exponential", "mean": 0.2}}}]}"#)
        accepts("{}")
    }
}
