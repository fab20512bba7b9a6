import Foundation
import XCTest
@testable import PrestageCLI
@testable import ScenarioFormat

/// `validate` on the push providers: a plan above the FCM project quota is valid (exit 0) with a
/// warning stating the published limits and the numbers; a bad `providers` value is bad input
/// (exit 2) with its path, the value found and the expectation.
final class ProviderValidateTests: XCTestCase {
    func testAPlanAboveTheFCMQuotaWarnsWithTheNumbers() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let file = try t.file("big.json", #"""
            { "name": "big", "question": "Does 20 M fit the quota?", "population": { "devices": 20000000, "iosShare": 0 },
              "providers": {},
              "campaigns": [ { "sendRatePerMinute": 1200000, "providerQuotaPerMinute": 1200000 } ] }
            """#)
        XCTAssertEqual(t.run(["validate", file]), .ok, t.err.text)
        XCTAssertTrue(t.out.text.contains("  warning: campaign campaign sends 1 200 000 FCM messages/min at t = 600 s, above the default FCM quota (600 000/min)"), t.out.text)
        XCTAssertTrue(t.out.text.contains("20 000 000 sends at the default FCM quota (600 000/min) need ≥ 33.3 min; an increase is at most +25 % (750 000/min: ≥ 26.7 min) and must be requested ≥ 15 days ahead."), t.out.text)
        // At the quota the plan fits: no warning (the output so far is the first run's).
        let before = t.out.text.count
        XCTAssertEqual(t.run(["validate", file, "--set", "campaigns[0].sendRatePerMinute=600000"]), .ok, t.err.text)
        let second = String(t.out.text.dropFirst(before))
        XCTAssertTrue(second.contains(": ok (big"), second)
        XCTAssertFalse(second.contains("warning:"), second)
    }

    func testBadProviderValuesNameTheirPath() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let file = try t.file("bad.json", #"""
            { "name": "bad", "question": "Bad providers?",
              "providers": { "fcm": { "projectQuotaPerMinute": 0, "bucketSeconds": 120 },
                             "retry": { "initialBackoffSeconds": 60, "maxBackoffSeconds": 10 } },
              "campaigns": [ { "provider": "pigeon" } ] }
            """#)
        XCTAssertEqual(t.run(["validate", file]), .badInput)
        let err = t.err.text
        XCTAssertTrue(err.contains("providers.fcm.projectQuotaPerMinute"), err)
        XCTAssertTrue(err.contains("providers.fcm.bucketSeconds"), err)
        XCTAssertTrue(err.contains("providers.retry.maxBackoffSeconds"), err)
        XCTAssertTrue(err.contains("maxBackoffSeconds ≥ initialBackoffSeconds (60)"), err)
        XCTAssertTrue(err.contains("campaigns[0].provider"), err)
        XCTAssertTrue(err.contains("pigeon"), err)
    }
}
