import XCTest
@testable import ScenarioFormat

final class OverrideTests: XCTestCase {
    let base = #"{"campaign": {"name": "x", "warmAheadSeconds": 1, "assets": [{"url": "a", "bytes": 1}, {"url": "b", "bytes": 2}]}}"#

    func testOverridesReplaceAndCreateValuesBeforeDecoding() throws {
        let overrides = try [
            "campaign.assets[1].bytes=2048",
            "campaign.name=spring sale",       // not JSON: taken as a string
            #"campaign.retry={"maxAttempts": 4}"#,  // creates a missing key
            "network.rttMilliseconds=120",     // creates the missing `network` object
            "seed=\"7\"",                      // JSON string "7": the decoder then rejects it for UInt64
        ].map { try JSONOverride(parsing: $0) }
        let result = StrictJSONDecoder().decode(Scenario.self, from: Data(base.utf8), overrides: Array(overrides.dropLast()))
        let s = try result.get()
        XCTAssertEqual(s.campaign.assets.map(\.bytes), [1, 2048])
        XCTAssertEqual(s.campaign.name, "spring sale")
        XCTAssertEqual(s.campaign.retry?.maxAttempts, 4)
        XCTAssertEqual(s.network.rttMilliseconds, 120)
        XCTAssertEqual(problems(Scenario.self, base, overrides: overrides), [#"seed: expected an integer ≥ 0, found "7""#])
    }

    func testOverrideThroughANullMemberCreatesItAsTheDecoderReadsNullAsAbsent() throws {
        // `run: null` decodes as an absent `run`; a later `--set run.devices=…` (what `--devices`
        // becomes) must then create it rather than fail on the null.
        let withNull = #"{"campaign": {"name": "x", "warmAheadSeconds": 1, "assets": []}, "network": null}"#
        let overrides = try ["network.rttMilliseconds=90"].map { try JSONOverride(parsing: $0) }
        let s = try StrictJSONDecoder().decode(Scenario.self, from: Data(withNull.utf8), overrides: overrides).get()
        XCTAssertEqual(s.network.rttMilliseconds, 90)
        // Setting the null member itself still replaces it; indexing into it is the absent member's error.
        let replaced = try StrictJSONDecoder().decode(Scenario.self, from: Data(withNull.utf8),
                                                      overrides: [try JSONOverride(parsing: #"network={"rttMilliseconds": 7}"#)]).get()
        XCTAssertEqual(replaced.network.rttMilliseconds, 7)
        XCTAssertEqual(problems(Scenario.self, withNull, overrides: [try JSONOverride(parsing: "network[0]=1")]),
                       ["network[0]: --set: network does not exist, so it has no element to set"])
    }

    func testOverrideValueParsing() throws {
        XCTAssertEqual(try JSONOverride(parsing: "a=10").value, .integer(10))
        XCTAssertEqual(try JSONOverride(parsing: "a=1.5").value, .double(1.5))
        XCTAssertEqual(try JSONOverride(parsing: "a=true").value, .bool(true))
        XCTAssertEqual(try JSONOverride(parsing: "a=[1]").value, .array([.integer(1)]))
        XCTAssertEqual(try JSONOverride(parsing: "a=x=y").value, .string("x=y"))
        XCTAssertEqual(try JSONOverride(parsing: "a=").value, .string(""))
        XCTAssertThrowsError(try JSONOverride(parsing: "no-equals-sign")) {
            XCTAssertEqual(($0 as? Diagnostic)?.description, #"(root): --set: expected path=value, found "no-equals-sign""#)
        }
        XCTAssertThrowsError(try JSONOverride(parsing: "=1"))
    }

    func testOverrideErrorsNameThePath() throws {
        func errors(_ assignment: String) throws -> [String] {
            problems(Scenario.self, base, overrides: [try JSONOverride(parsing: assignment)])
        }
        XCTAssertEqual(try errors("campaign.assets[2].bytes=1"),
                       ["campaign.assets[2].bytes: --set: index 2 is out of range: campaign.assets has 2 elements"])
        XCTAssertEqual(try errors("campaign.name.first=1"),
                       [#"campaign.name.first: --set: expected an object at campaign.name, found "x""#])
        XCTAssertEqual(try errors("campaign[0]=1"),
                       [#"campaign[0]: --set: expected an array at campaign, found {"assets":[{"bytes":1,"url":"a"},{"bytes":2,"url":"b"}],"nam…"#])  // 60 characters, then "…"
        XCTAssertEqual(try errors("network.hosts[0]=1"),
                       ["network.hosts[0]: --set: network.hosts does not exist, so it has no element to set"])
        // Several bad overrides are reported together.
        let both = problems(Scenario.self, base, overrides: try ["campaign.assets[9]=1", "campaign.name.x=1"].map { try JSONOverride(parsing: $0) })
        XCTAssertEqual(both.count, 2)
    }
}
