import Stochastic
import XCTest
@testable import ScenarioFormat

/// Stochastic's `Distribution` validates in `init(from:)` and throws a `DecodingError` at the
/// offending field's coding path (carrying its `DistributionError`); the strict decoder must place
/// those at the right path, from the coding path alone, and not double-report.
final class DistributionIntegrationTests: XCTestCase {
    struct Network: Decodable {
        let jitterMilliseconds: Distribution?  // optional first: its failure does not stop the object
        let rttMilliseconds: Distribution
    }
    struct Root: Decodable {
        let network: Network
    }

    func testDistributionErrorsArePlacedAtTheirFieldPaths() throws {
        let ok = try StrictJSONDecoder().decode(Root.self, from: Data(
            #"{"network": {"rttMilliseconds": {"kind": "lognormal", "median": 40, "p90": 120}}}"#.utf8)).get()
        XCTAssertNil(ok.network.jitterMilliseconds)

        let bad = #"{"network": {"jitterMilliseconds": {"kind": "exponential", "mean": "ten"}, "# +
            #""rttMilliseconds": {"kind": "normal", "mean": 40, "sd": -1}}}"#
        let found = problems(Root.self, bad)
        XCTAssertEqual(found.count, 2, "\(found)")
        // The mistyped field is reported once, by the decoder, with the value found.
        XCTAssertEqual(found.first, #"network.jitterMilliseconds.mean: expected a number, found "ten""#)
        // Distribution's own validation message lands at the field it names.
        XCTAssertTrue(found.last?.hasPrefix("network.rttMilliseconds.sd: ") ?? false, "\(found)")
        XCTAssertTrue(found.last?.contains("-1") ?? false, "\(found)")
        XCTAssertFalse(found.last?.contains("found") ?? true, "says \"got\" already: \(found)")
    }
}
