import Foundation
import XCTest
@testable import Experiments
@testable import PrestageCLI
import InfraModel
import ReportKitTesting
@testable import ScenarioFormat

/// PoP codes and region names from `infra.topology.popNames` / `regionNames`: validated like every
/// field (path, value, expectation, exit 2), shown in every output that names a PoP or a region
/// (pops.csv, region-misses.csv, the report's PoP table and region chart), and absent they leave the
/// defaults ("pop-N", "region N") and the scenario's encoding (so its hash) as before.
final class TopologyNamesTests: XCTestCase {
    static func scenario(popNames: String, regionNames: String) -> String {
        """
        { "name": "named-tiny", "question": "Do the PoP and region names reach every output?",
          "run": { "replications": 2, "seed": 3 }, "population": { "devices": 300 },
          "campaigns": [ { "name": "c", "sendStartSeconds": 10, "sendRatePerMinute": 6000, "providerQuotaPerMinute": 6000000,
                           "warm": { "mode": "none" }, "assets": [ { "name": "hero", "bytes": 40000 } ] } ],
          "infra": { "topology": { "popCount": 3, "shieldCount": 1,
                                   "regions": [ { "popIndex": 0 }, { "popIndex": 0 }, { "popIndex": 1 }, { "popIndex": 2 } ],
                                   "popNames": \(popNames), "regionNames": \(regionNames) } },
          "horizonSeconds": 600 }
        """
    }

    func testNamesAreCheckedForCountCharactersAndUniqueness() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let bad = try t.file("bad.json", Self.scenario(popNames: #"["IAD1", "IAD1", "fra,2"]"#, regionNames: #"["us-east", " eu", ""]"#))
        XCTAssertEqual(t.run(["validate", bad]), .badInput)
        let lines = t.err.text.split(separator: "\n").map(String.init)
        func line(_ path: String) -> String? { lines.first { $0.hasPrefix(bad + ": " + path + ": ") } }
        let rule = "a name of 1–40 ASCII letters, digits, spaces, '-', '_' or '.', starting and ending with a letter or digit"
        XCTAssertEqual(line("infra.topology.popNames[1]"),
                       bad + #": infra.topology.popNames[1]: expected a name not already used in popNames (popNames[0] is "IAD1"), found "IAD1""#, t.err.text)
        XCTAssertEqual(line("infra.topology.popNames[2]"), bad + #": infra.topology.popNames[2]: expected "# + rule + #", found "fra,2" (the character ",")"#, t.err.text)
        XCTAssertEqual(line("infra.topology.regionNames"),
                       bad + ": infra.topology.regionNames: expected 4 names, one per region (4, the length of `regions`), or none, found 3 names", t.err.text)
        // With the count right, each name is checked.
        let badNames = try t.file("names.json", Self.scenario(popNames: #"["IAD1", "FRA2", "SIN3"]"#, regionNames: #"["us-east", " eu", "", "ap"]"#))
        XCTAssertEqual(t.run(["validate", badNames]), .badInput)
        XCTAssertTrue(t.err.text.contains(#"infra.topology.regionNames[1]: expected "# + rule + #", found " eu" (a name starting or ending with " ")"#), t.err.text)
        XCTAssertTrue(t.err.text.contains(#"infra.topology.regionNames[2]: expected "# + rule + #", found "" (empty)"#), t.err.text)
        // Without `regions`, one region per PoP: the count is popCount.
        let perPop = try t.file("per-pop.json", Self.scenario(popNames: "[]", regionNames: #"["a", "b"]"#)
            .replacingOccurrences(of: #""regions": [ { "popIndex": 0 }, { "popIndex": 0 }, { "popIndex": 1 }, { "popIndex": 2 } ],"#, with: ""))
        let before = t.err.text.count
        XCTAssertEqual(t.run(["validate", perPop]), .badInput)
        let perPopErrors = String(t.err.text.dropFirst(before))
        XCTAssertTrue(perPopErrors.contains("infra.topology.regionNames: expected 3 names, one per region (3, one per PoP, as `regions` is empty), or none, found 2 names"),
                      perPopErrors)
        XCTAssertFalse(perPopErrors.contains("popNames"), "an empty list is no names: \(perPopErrors)")
    }

    func testNamesReachPopsCSVRegionMissesAndTheReport() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let file = try t.file("named.json", Self.scenario(popNames: #"["IAD1", "FRA2", "SIN3"]"#,
                                                          regionNames: #"["us-east-1", "us-east-2", "eu-central-1", "ap-southeast-1"]"#))
        let out = t.root.appendingPathComponent("r")
        XCTAssertEqual(t.run(["run", file, "--out", out.path]), .ok, t.err.text)
        let pops = try String(contentsOf: out.appendingPathComponent("pops.csv"), encoding: .utf8).split(separator: "\n").map(String.init)
        XCTAssertTrue(pops.contains { $0.hasPrefix("0,IAD1,0;1,us-east-1;us-east-2,") }, pops.joined(separator: "\n"))
        XCTAssertTrue(pops.dropFirst().allSatisfy { !$0.contains("pop-") && !$0.contains("region ") }, pops.joined(separator: "\n"))
        let misses = try String(contentsOf: out.appendingPathComponent("region-misses.csv"), encoding: .utf8).split(separator: "\n").dropFirst()
        XCTAssertFalse(misses.isEmpty, "a cold send misses")
        let named = ["us-east-1", "us-east-2", "eu-central-1", "ap-southeast-1"]
        for row in misses {
            let cells = row.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            XCTAssertEqual(cells[1], named[Int(cells[0]) ?? -1], String(row))
        }
        let html = try String(contentsOf: out.appendingPathComponent("report.html"), encoding: .utf8)
        XCTAssertTrue(html.range(of: #"<td data-label="PoP">(IAD1|FRA2|SIN3)</td><td data-label="Regions">"#, options: .regularExpression) != nil,
                      "PoP codes in the PoP table")
        XCTAssertTrue(html.contains("<td data-label=\"Regions\">us-east-1, us-east-2</td>"), "a PoP's regions by name")
        XCTAssertFalse(html.contains(">pop-") || html.contains(">region "), "no default name left in the report")
        let markdown = try String(contentsOf: out.appendingPathComponent("report.md"), encoding: .utf8)
        XCTAssertTrue(named.contains { markdown.contains($0) }, "region names in report.md")
        // Laid out in Chromium at desktop and phone width like every report (screenshots kept).
        try assertReportLayout(html: html, name: "run-named-topology", expectedCharts: html.components(separatedBy: "<figure").count - 1)
    }

    func testUnnamedTopologyKeepsTheDefaultNamesAndItsEncoding() throws {
        let names = TopologyNames(popNames: TopologyConfig().popNames, regionNames: TopologyConfig().regionNames)
        XCTAssertEqual(names.pop(3), "pop-3")
        XCTAssertEqual(names.region(3), "region 3")
        let named = TopologyNames(popNames: ["IAD1"], regionNames: ["us-east-1"])
        XCTAssertEqual(named.pop(0), "IAD1")
        XCTAssertEqual(named.region(0), "us-east-1")
        let encoded = String(decoding: try JSONEncoder().encode(TopologyConfig()), as: UTF8.self)
        XCTAssertFalse(encoded.contains("Names"), "unnamed, the topology encodes (and a scenario hashes) as before: \(encoded)")
        // The library scenario with names validates and names every PoP and region once.
        let library = ScenarioLibrary(directories: [TestEnvironment.repositoryScenarios])
        let topology = try ScenarioLoader.load("black-friday-flash-sale", library: library).scenario.world.infra.topology
        XCTAssertEqual(topology.popNames.count, topology.popCount)
        XCTAssertEqual(topology.regionNames.count, topology.effectiveRegions.count)
        XCTAssertEqual(topology.popNames.first, "IAD1")
    }
}
