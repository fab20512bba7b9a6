import Foundation
import XCTest
@testable import PrestageCLI
@testable import ScenarioFormat

/// Scheduled faults on the command line: bad faults are refused with path, value and expectation;
/// a run's report lists them in its "Faults" section and shades them on the timeline charts.
final class FaultsCommandTests: XCTestCase {
    func testBadFaultsAreRefusedWithPathValueAndExpectation() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let bad = try t.file("bad.json", """
        { "name": "faulty", "question": "Are bad faults refused?",
          "infra": { "topology": { "popCount": 2, "shieldCount": 1 },
            "faults": [ { "kind": "popOutage", "startSeconds": 0, "durationSeconds": 60, "pop": 1 },
                        { "kind": "networkDegradation", "startSeconds": 0, "durationSeconds": 60, "region": 0 },
                        { "kind": "originOutage", "startSeconds": -1, "durationSeconds": 0 },
                        { "kind": "meteor", "startSeconds": 0, "durationSeconds": 1 } ] } }
        """)
        XCTAssertEqual(t.run(["validate", bad]), .badInput)
        let e = t.err.text
        XCTAssertTrue(e.contains(bad + ": infra.faults[1].throughputFactor: expected a degradation: throughputFactor below 1 or failureProbability above 0"), e)
        XCTAssertTrue(e.contains(bad + ": infra.faults[2].startSeconds: expected"), e)
        XCTAssertTrue(e.contains(bad + ": infra.faults[2].durationSeconds: expected a duration > 0 seconds, found 0"), e)
        XCTAssertTrue(e.contains(bad + ": infra.faults[3].kind: expected"), e)
        let badOutage = try t.file("outage.json", """
        { "name": "faulty", "question": "Are bad provider outages refused?",
          "providers": { "outages": [ { "provider": "gcm", "startSeconds": 0, "durationSeconds": 10 },
                                      { "provider": "fcm", "startSeconds": 0, "durationSeconds": 0 } ] } }
        """)
        XCTAssertEqual(t.run(["validate", badOutage]), .badInput)
        XCTAssertTrue(t.err.text.contains(badOutage + ": providers.outages[0].provider: expected"), t.err.text)
        XCTAssertTrue(t.err.text.contains(badOutage + ": providers.outages[1].durationSeconds: expected a duration > 0 seconds, found 0"), t.err.text)
        // Cross-checks against the topology run once the faults themselves are valid.
        let unknownPop = try t.file("pop.json", """
        { "name": "faulty", "question": "Is an unknown PoP refused?",
          "infra": { "topology": { "popCount": 2, "shieldCount": 1 },
            "faults": [ { "kind": "popOutage", "startSeconds": 0, "durationSeconds": 60, "pop": 5 },
                        { "kind": "networkDegradation", "startSeconds": 0, "durationSeconds": 60, "region": 2, "throughputFactor": 0.5 } ] } }
        """)
        XCTAssertEqual(t.run(["validate", unknownPop]), .badInput)
        XCTAssertTrue(t.err.text.contains(unknownPop + ": infra.faults[0].pop: expected a PoP index in 0..<2, found 5"), t.err.text)
        XCTAssertTrue(t.err.text.contains(unknownPop + ": infra.faults[1].region: expected a region index in 0..<2, found 2"), t.err.text)
    }

    func testTheReportListsAndShadesTheFaults() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let scenario = try t.file("faulty.json", """
        { "name": "faulty", "question": "What does an origin outage during the send cost?",
          "run": { "seed": 3, "replications": 2 }, "population": { "devices": 2000 },
          "campaigns": [ { "name": "sale", "sendStartSeconds": 300 } ],
          "infra": { "topology": { "popCount": 2, "shieldCount": 1, "popNames": ["AMS1", "FRA1"] },
            "faults": [ { "kind": "originOutage", "startSeconds": 290, "durationSeconds": 120 },
                        { "kind": "popOutage", "startSeconds": 0, "durationSeconds": 3600, "pop": 1 } ] },
          "providers": { "outages": [ { "provider": "fcm", "startSeconds": 300, "durationSeconds": 30 } ] },
          "horizonSeconds": 1800 }
        """)
        let out = t.root.appendingPathComponent("out").path
        XCTAssertEqual(t.run(["run", scenario, "--out", out]), .ok, t.err.text)
        let md = try String(contentsOfFile: out + "/report.md", encoding: .utf8)
        XCTAssertTrue(md.contains("## Faults"), md)
        // One row per fault: its label, window and what fails (the table is padded for reading).
        let rows = md.split(separator: "\n").map { $0.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) } }
        XCTAssertTrue(rows.contains { $0.count >= 3 && $0[0] == "origin outage" && $0[1] == "290" && $0[2] == "410" }, md)
        XCTAssertTrue(rows.contains { $0.count >= 3 && $0[0] == "PoP FRA1 outage" && $0[1] == "0" && $0[2] == "1800" }, md)
        XCTAssertTrue(md.contains("origin errors during an outage"), md)
        XCTAssertTrue(rows.contains { $0.count >= 3 && $0[0] == "FCM outage" && $0[1] == "300" && $0[2] == "330" }, md)
        let html = try String(contentsOfFile: out + "/report.html", encoding: .utf8)
        XCTAssertTrue(html.contains("origin outage"), "the band's label is on the timeline charts")
        let summary = try String(contentsOfFile: out + "/summary.json", encoding: .utf8)
        XCTAssertTrue(summary.contains("\"faults.originOutageErrors\""))
        XCTAssertTrue(summary.contains("\"faults.popFailovers\""))
    }
}
