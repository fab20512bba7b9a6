import Foundation
import XCTest
import PushModel

@testable import ScenarioFormat

/// The tap-side user fields (`users.abandonment`, `users.readProbability`,
/// `users.foregroundFetchesKept`) and an asset naming an earlier campaign's URL: bad values are
/// errors at their path with what was expected and found.
final class UsersReadingTests: XCTestCase {
    private func diagnostics(_ json: String) -> [String] {
        switch StrictJSONDecoder().decode(PushWorldConfig.self, from: Data(json.utf8)) {
        case .success: return []
        case let .failure(errors): return errors.diagnostics.map(\.description)
        }
    }

    func testAbandonmentCurveIsRead() throws {
        let json = #"{"users": {"abandonment": {"waitSeconds": [2, 4], "leftShare": [0.1, 0.3]}, "readProbability": 0.8, "foregroundFetchesKept": false}}"#
        let c = try StrictJSONDecoder().decode(PushWorldConfig.self, from: Data(json.utf8)).get()
        XCTAssertEqual(c.users.abandonment, AbandonmentConfig(waitSeconds: [2, 4], leftShare: [0.1, 0.3]))
        XCTAssertEqual(c.users.readProbability, 0.8)
        XCTAssertFalse(c.users.foregroundFetchesKept)
        XCTAssertEqual(c.users.abandonment.leftShare(at: 1), 0.05, accuracy: 1e-12, "linear from (0, 0)")
        XCTAssertEqual(c.users.abandonment.leftShare(at: 3), 0.2, accuracy: 1e-12)
        XCTAssertEqual(c.users.abandonment.leftShare(at: 100), 0.3, "flat after the last point")
    }

    func testBadCurvesNameThePath() {
        func has(_ json: String, _ path: String, _ fragment: String, line: UInt = #line) {
            let text = diagnostics(json)
            XCTAssertTrue(text.contains { $0.hasPrefix(path) && $0.contains(fragment) }, "\(text)", line: line)
        }
        has(#"{"users": {"abandonment": {"waitSeconds": [3, 2], "leftShare": [0.1, 0.2]}}}"#, "users.abandonment.waitSeconds", "strictly increasing")
        has(#"{"users": {"abandonment": {"waitSeconds": [1, 2], "leftShare": [0.3, 0.2]}}}"#, "users.abandonment.leftShare", "non-decreasing")
        has(#"{"users": {"abandonment": {"waitSeconds": [1, 2], "leftShare": [0.3, 1.2]}}}"#, "users.abandonment.leftShare", "found 1.2")
        has(#"{"users": {"abandonment": {"waitSeconds": [1, 2], "leftShare": [0.3]}}}"#, "users.abandonment.leftShare", "one share per wait")
        has(#"{"users": {"abandonment": {"waitSeconds": [0], "leftShare": [0.3]}}}"#, "users.abandonment.waitSeconds", "found 0")
        has(#"{"users": {"readProbability": 2}}"#, "users.readProbability", "found 2")
    }

    func testURLCampaignMustNameAnEarlierCampaignWithTheAsset() {
        let ok = #"{"campaigns": [{"name": "a"}, {"name": "b", "assets": [{"name": "hero", "urlCampaign": "a"}]}]}"#
        XCTAssertEqual(diagnostics(ok), [])
        let later = #"{"campaigns": [{"name": "b", "assets": [{"name": "hero", "urlCampaign": "a"}]}, {"name": "a"}]}"#
        XCTAssertTrue(diagnostics(later).contains { $0.hasPrefix("campaigns[0].assets[0].urlCampaign") && $0.contains("earlier campaign") },
                      "\(diagnostics(later))")
        let noAsset = #"{"campaigns": [{"name": "a"}, {"name": "b", "assets": [{"name": "cover", "urlCampaign": "a"}]}]}"#
        XCTAssertTrue(diagnostics(noAsset).contains { $0.hasPrefix("campaigns[1].assets[0].urlCampaign") }, "\(diagnostics(noAsset))")
    }
}
