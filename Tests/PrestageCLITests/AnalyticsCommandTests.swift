import Foundation
import XCTest
@testable import PrestageCLI
@testable import ScenarioFormat

/// The `analytics` section on the command line: bad values and a section without receipts are
/// refused with path, value and expectation; objectives on the endpoint's queue need the section.
final class AnalyticsCommandTests: XCTestCase {
    func testBadEndpointsAreRefusedWithPathValueAndExpectation() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let bad = try t.file("bad.json", """
        { "name": "endpoint", "question": "Are bad endpoints refused?",
          "preloadPolicy": { "receiptsEnabled": true },
          "analytics": { "capacityPerSecond": 0, "queueMax": -1 } }
        """)
        XCTAssertEqual(t.run(["validate", bad]), .badInput)
        XCTAssertTrue(t.err.text.contains(bad + ": analytics.capacityPerSecond: expected receipts served a second, a finite number > 0, found 0"), t.err.text)
        XCTAssertTrue(t.err.text.contains(bad + ": analytics.queueMax: expected"), t.err.text)
        let missing = try t.file("missing.json", """
        { "name": "endpoint", "question": "Is a capacity required?", "preloadPolicy": { "receiptsEnabled": true }, "analytics": { "queueMax": 5 } }
        """)
        XCTAssertEqual(t.run(["validate", missing]), .badInput)
        XCTAssertTrue(t.err.text.contains(missing + ": analytics.capacityPerSecond: "), t.err.text)
        let noReceipts = try t.file("off.json", """
        { "name": "endpoint", "question": "Is an endpoint without receipts refused?", "analytics": { "capacityPerSecond": 100 } }
        """)
        XCTAssertEqual(t.run(["validate", noReceipts]), .badInput)
        XCTAssertTrue(t.err.text.contains(noReceipts + ": analytics: expected preloadPolicy.receiptsEnabled = true"), t.err.text)
    }

    func testQueueObjectivesNeedTheSection() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let with = try t.file("with.json", """
        { "name": "endpoint", "question": "Does the endpoint hold?",
          "slo": [ { "metric": "analytics.rejected", "op": "<=", "threshold": 0, "probability": 0.9 } ],
          "preloadPolicy": { "receiptsEnabled": true }, "analytics": { "capacityPerSecond": 500 } }
        """)
        XCTAssertEqual(t.run(["validate", with]), .ok, t.err.text)
        let without = try t.file("without.json", """
        { "name": "endpoint", "question": "Does the endpoint hold?",
          "slo": [ { "metric": "analytics.waitP95Seconds", "op": "<=", "threshold": 5 } ],
          "preloadPolicy": { "receiptsEnabled": true } }
        """)
        XCTAssertEqual(t.run(["validate", without]), .badInput)
        XCTAssertTrue(t.err.text.contains("slo[0].metric: expected a metric this scenario can produce (analytics.waitP95Seconds needs an \"analytics\" section"), t.err.text)
        let off = try t.file("off.json", """
        { "name": "endpoint", "question": "Does the endpoint hold?",
          "slo": [ { "metric": "analytics.peakRequestsPerSecond", "op": "<=", "threshold": 500 } ] }
        """)
        XCTAssertEqual(t.run(["validate", off]), .badInput)
        XCTAssertTrue(t.err.text.contains("needs preloadPolicy.receiptsEnabled = true"), t.err.text)
    }
}
