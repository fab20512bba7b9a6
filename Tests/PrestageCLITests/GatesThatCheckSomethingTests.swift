import Foundation
import XCTest
@testable import PrestageCLI

/// A CI gate that could pass by checking nothing is refused: `--fail-on-slo` on a scenario without
/// objectives, and a campaign that would never send within the horizon.
final class GatesThatCheckSomethingTests: XCTestCase {
    func testFailOnSLOWithoutObjectivesIsRefused() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let out = t.root.appendingPathComponent("r").path
        XCTAssertEqual(t.run(["run", "default", "--devices", "100", "--replications", "2", "--fail-on-slo", "--out", out]), .badInput)
        XCTAssertTrue(t.err.text.contains("--fail-on-slo: default has no objectives, so there is nothing to check"), t.err.text)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + ".partial"), "refused before any work")
    }

    func testACampaignThatNeverSendsWithinTheHorizonIsAValidateError() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let file = try t.file("late.json", """
            { "name": "late", "question": "q", "population": { "devices": 100 }, "horizonSeconds": 300,
              "campaigns": [ { "name": "c", "sendStartSeconds": 400, "assets": [ { "name": "hero", "bytes": 40000 } ] } ] }
            """)
        XCTAssertEqual(t.run(["validate", file]), .badInput)
        XCTAssertTrue(t.err.text.contains("campaigns[0].sendStartSeconds: expected a first send before horizonSeconds (300 s), or a longer horizonSeconds: the campaign would never send, found 400"),
                      t.err.text)
        XCTAssertEqual(t.run(["run", file, "--set", "horizonSeconds=400", "--out", t.root.appendingPathComponent("r").path]), .badInput,
                       "a first send at the horizon itself never happens either")
        let inTime = try t.file("in-time.json", String(contentsOfFile: file, encoding: .utf8).replacingOccurrences(of: "\"horizonSeconds\": 300", with: "\"horizonSeconds\": 401"))
        XCTAssertEqual(t.run(["validate", inTime]), .ok, t.err.text)
    }
}
