import Foundation
import XCTest
@testable import PrestageCLI
@testable import ScenarioFormat

/// Reading `campaigns[].collapseKey`: it needs `collapsible: true` and a name's characters; a bad
/// one is bad input (exit 2) naming its path, the value found and the expectation; a good one
/// runs, and a scenario without it encodes as before.
final class CollapseKeyReadingTests: XCTestCase {
    func testCollapseKeyNeedsCollapsibleAndANameWithTheRightCharacters() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let file = try t.file("bad.json", #"""
            { "name": "bad", "question": "Bad collapse keys?", "providers": {},
              "campaigns": [ { "collapseKey": "scores" }, { "name": "b", "collapsible": true, "collapseKey": "two words" } ] }
            """#)
        XCTAssertEqual(t.run(["validate", file]), .badInput)
        let err = t.err.text
        XCTAssertTrue(err.contains("campaigns[0].collapseKey"), err)
        XCTAssertTrue(err.contains("collapsible true"), err)
        XCTAssertTrue(err.contains("campaigns[1].collapseKey"), err)
        XCTAssertTrue(err.contains("two words"), err)
        let good = try t.file("good.json", #"""
            { "name": "good", "question": "Two collapse keys?", "population": { "devices": 200 },
              "providers": { "offline": { "deviceShare": 1, "durationSeconds": { "kind": "constant", "value": 1200 } } },
              "campaigns": [ { "collapsible": true, "collapseKey": "scores" },
                             { "name": "b", "collapsible": true, "collapseKey": "news", "sendStartSeconds": 400 } ] }
            """#)
        XCTAssertEqual(t.run(["validate", good]), .ok, t.err.text)
    }

    func testAbsentCollapseKeyWritesNothing() throws {
        let library = ScenarioLibrary(directories: [TestEnvironment.repositoryScenarios])
        let scenario = try ScenarioLoader.load("offline-overnight", library: library).scenario
        let text = String(decoding: try CanonicalJSON.encode(scenario), as: UTF8.self)
        XCTAssertFalse(text.contains("\"collapseKey\""))
    }
}
