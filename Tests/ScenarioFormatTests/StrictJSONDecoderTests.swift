import XCTest
@testable import ScenarioFormat

final class StrictJSONDecoderTests: XCTestCase {
    let valid = """
    {
      "replications": 30,
      "network": {"rttMilliseconds": 80.5},
      "campaign": {
        "name": "black-friday",
        "warmAheadSeconds": 600,
        "retry": {"maxAttempts": 3},
        "assets": [
          {"url": "https://cdn.example/hero.webp", "bytes": 180000, "priority": 1},
          {"url": "https://cdn.example/font.woff2", "bytes": 42000}
        ]
      }
    }
    """

    func testValidScenarioDecodesWithDefaults() throws {
        let scenario = try StrictJSONDecoder().decode(Scenario.self, from: Data(valid.utf8)).get()
        XCTAssertEqual(scenario.replications, 30)
        XCTAssertNil(scenario.seed)
        XCTAssertEqual(scenario.network, NetworkSection(rttMilliseconds: 80.5, lossRate: 0))
        XCTAssertEqual(scenario.campaign.warmAheadSeconds, 600)
        XCTAssertEqual(scenario.campaign.ttlSeconds, 3600)
        XCTAssertEqual(scenario.campaign.retry?.backoffSeconds, 1)
        XCTAssertEqual(scenario.campaign.assets.map(\.bytes), [180_000, 42_000])
        XCTAssertEqual(scenario.campaign.assets.map(\.priority), [1, 0])
    }

    func testUnknownKeyIsReportedWithTheClosestKnownKey() {
        let json = valid.replacingOccurrences(of: "\"warmAheadSeconds\": 600", with: "\"warmAheadSecs\": 600")
        XCTAssertEqual(problems(Scenario.self, json), [
            #"campaign.warmAheadSeconds: missing required key "warmAheadSeconds""#,
            #"campaign.warmAheadSecs: unknown key "warmAheadSecs"; did you mean "warmAheadSeconds"?"#,
        ])
        // Inside array elements the path carries the index.
        let typo = valid.replacingOccurrences(of: "\"bytes\": 42000", with: "\"byte\": 42000")
        XCTAssertEqual(problems(Scenario.self, typo), [
            #"campaign.assets[1].byte: unknown key "byte"; did you mean "bytes"?"#,
            #"campaign.assets[1].bytes: missing required key "bytes""#,
        ])
        let extraInElement = valid.replacingOccurrences(of: "\"bytes\": 42000", with: "\"bytes\": 42000, \"sha\": \"x\"")
        XCTAssertEqual(problems(Scenario.self, extraInElement),
                       [#"campaign.assets[1].sha: unknown key "sha"; known keys here: bytes, priority, url"#])
        // In a successfully decoded object every unknown key is reported; without a close match
        // the message lists the keys the type knows.
        let extra = valid.replacingOccurrences(of: "\"replications\": 30,", with: "\"replicatoins\": 30, \"colour\": \"red\",")
        XCTAssertEqual(problems(Scenario.self, extra), [
            #"colour: unknown key "colour"; known keys here: campaign, network, replications, seed"#,
            #"replicatoins: unknown key "replicatoins"; did you mean "replications"?"#,
        ])
    }

    func testSeveralErrorsInOnePassSortedByPath() {
        let json = """
        {
          "replicatoins": 5,
          "network": {"rttMilliseconds": "fast"},
          "campaign": {
            "name": "launch",
            "warmAheadSeconds": 60,
            "ttlSeconds": "ten",
            "retry": [1, 2],
            "assets": [
              {"url": "a", "bytes": 1},
              {"url": "b", "bytes": -5},
              {"url": "c", "bytes": 3, "priority": -3},
              {"url": 42, "bytes": 4}
            ]
          }
        }
        """
        let expected = [
            "campaign.assets[1].bytes: expected an integer ≥ 0, found -5",
            "campaign.assets[2].priority: expected an integer ≥ 0, found -3",
            "campaign.assets[3].url: expected a string, found 42",
            "campaign.retry: expected an object, found [1,2]",
            #"campaign.ttlSeconds: expected an integer, found "ten""#,
            #"network.rttMilliseconds: expected a number, found "fast""#,
            #"replicatoins: unknown key "replicatoins"; did you mean "replications"?"#,
        ]
        XCTAssertEqual(problems(Scenario.self, json), expected)
        // Deterministic: the same document gives the same report.
        XCTAssertEqual(problems(Scenario.self, json), expected)
    }

    func testDiagnosticFieldsAndValidationMessages() throws {
        let json = valid
            .replacingOccurrences(of: "\"rttMilliseconds\": 80.5", with: "\"rttMilliseconds\": 80.5, \"lossRate\": 1.5")
            .replacingOccurrences(of: "\"maxAttempts\": 3", with: "\"maxAttempts\": 0")
        guard case let .failure(errors) = StrictJSONDecoder().decode(Scenario.self, from: Data(json.utf8)) else {
            return XCTFail("expected failure")
        }
        XCTAssertEqual(errors.diagnostics.map(\.description), [
            "campaign.retry.maxAttempts: expected an integer ≥ 1, found 0",
            "network.lossRate: expected a probability in [0, 1], found 1.5",
        ])
        guard errors.diagnostics.count == 2 else { return }
        let loss = errors.diagnostics[1]
        XCTAssertEqual(loss.path, JSONPath([.key("network"), .key("lossRate")]))
        XCTAssertEqual(loss.kind, .invalidValue)
        XCTAssertEqual(loss.found, "1.5")
        XCTAssertEqual(errors.description.split(separator: "\n").count, 2)
        // A required field's validation error stops its object: the later optional `retry` is not reached.
        let negative = json.replacingOccurrences(of: "\"warmAheadSeconds\": 600", with: "\"warmAheadSeconds\": -3")
        XCTAssertEqual(problems(Scenario.self, negative), [
            "campaign.warmAheadSeconds: expected a number ≥ 0, found -3.0",
            "network.lossRate: expected a probability in [0, 1], found 1.5",
        ])
    }

    func testWrongTypesNameExpectedAndFound() {
        func campaignWith(_ fields: String) -> String {
            #"{"campaign": {"# + fields + "}}"
        }
        let assets = #""assets": []"#
        XCTAssertEqual(problems(Scenario.self, campaignWith(#""name": 7, "warmAheadSeconds": 1, "# + assets)),
                       ["campaign.name: expected a string, found 7"])
        XCTAssertEqual(problems(Scenario.self, campaignWith(#""name": "x", "warmAheadSeconds": "ten", "# + assets)),
                       [#"campaign.warmAheadSeconds: expected a number, found "ten""#])
        XCTAssertEqual(problems(Scenario.self, campaignWith(#""name": "x", "warmAheadSeconds": null, "# + assets)),
                       ["campaign.warmAheadSeconds: expected a number, found null"])
        XCTAssertEqual(problems(Scenario.self, campaignWith(#""name": "x", "warmAheadSeconds": true, "# + assets)),
                       ["campaign.warmAheadSeconds: expected a number, found true"])
        XCTAssertEqual(problems(Scenario.self, campaignWith(#""name": "x", "warmAheadSeconds": 1, "assets": {"url": "a"}"#)),
                       [#"campaign.assets: expected an array, found {"url":"a"}"#])
        XCTAssertEqual(problems(Scenario.self, campaignWith(#""name": "x", "warmAheadSeconds": 1, "assets": [[1]]"#)),
                       ["campaign.assets[0]: expected an object, found [1]"])
        XCTAssertEqual(problems(Scenario.self, campaignWith(#""name": "x", "warmAheadSeconds": 1"#)),
                       [#"campaign.assets: missing required key "assets""#])
        XCTAssertEqual(problems(Scenario.self, "[]"), ["(root): expected an object, found []"])
        // Integers: integral doubles are accepted, fractions are not; Int64 keeps full precision.
        XCTAssertEqual(problems(Scenario.self, #"{"replications": 2.5, "campaign": {"name": "x", "warmAheadSeconds": 1, "assets": []}}"#),
                       ["replications: expected an integer, found 2.5"])
        let big = try? StrictJSONDecoder().decode(Scenario.self, from: Data(
            #"{"replications": 1e2, "seed": 9007199254740993, "campaign": {"name": "x", "warmAheadSeconds": 1, "assets": []}}"#.utf8)).get()
        XCTAssertEqual(big?.replications, 100)
        XCTAssertEqual(big?.seed, 9_007_199_254_740_993)
        // Long found values are truncated.
        let long = String(repeating: "y", count: 200)
        XCTAssertEqual(problems(Scenario.self, campaignWith(#""name": "x", "warmAheadSeconds": ""# + long + #"", "# + assets)),
                       ["campaign.warmAheadSeconds: expected a number, found \"" + String(repeating: "y", count: 59) + "…"])
    }

    func testSyntaxErrorsNameLineColumnAndPath() {
        XCTAssertEqual(problems(Scenario.self, "{\n  \"campaign\": {\"name\": \"x\",, }\n}"),
                       [#"campaign: invalid JSON at line 2, column 28: expected a key in double quotes, found ", }\n}""#])
        XCTAssertEqual(problems(Scenario.self, #"{"replications": NaN}"#).first?.hasPrefix(
            "replications: invalid JSON at line 1, column 18: expected a value"), true)
        XCTAssertEqual(problems(Scenario.self, #"{"replications": 1e400}"#),
                       ["replications: invalid JSON at line 1, column 18: number 1e400 is out of range: expected a finite number"])
        XCTAssertEqual(problems(Scenario.self, #"{"seed": 1, "seed": 2}"#),
                       [#"seed: invalid JSON at line 1, column 13: duplicate key "seed""#])
        XCTAssertEqual(problems(Scenario.self, #"{"a": 1} x"#).first?.contains("expected the end of the document"), true)
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        XCTAssertEqual(problems(Scenario.self, deep).first?.contains("nesting deeper than 64 levels"), true)
        let small = StrictJSONDecoder(limits: JSONLimits(maxBytes: 10))
        guard case let .failure(e) = small.decode(Scenario.self, from: Data(valid.utf8)) else { return XCTFail() }
        XCTAssertTrue(e.description.hasPrefix("(root): document too large: expected at most 10 bytes"), e.description)
    }

    func testParserKeepsNumberFidelityAndDecodesEscapes() throws {
        let v = try JSONParser.parse(Array(#"{"i": -9223372036854775808, "d": 0.1, "big": 18446744073709551616, "s": "a\u00e9\ud83d\ude00\n"}"#.utf8))
        XCTAssertEqual(v[JSONPath([.key("i")])], .integer(Int64.min))
        XCTAssertEqual(v[JSONPath([.key("d")])], .double(0.1))
        XCTAssertEqual(v[JSONPath([.key("big")])], .double(18_446_744_073_709_551_616))
        XCTAssertEqual(v[JSONPath([.key("s")])], .string("aé😀\n"))
        XCTAssertThrowsError(try JSONParser.parse(Array(#"["\ud83d"]"#.utf8)))
        XCTAssertThrowsError(try JSONParser.parse(Array(#"[01]"#.utf8)))
        XCTAssertThrowsError(try JSONParser.parse(Array(#"[1,]"#.utf8)))
        XCTAssertThrowsError(try JSONParser.parse([0x22, 0xFF, 0x22]))
    }

    func testOptionalsOfRecordedErrorsContinueAndCountIsLimited() {
        // 150 bad elements of an optional array of optionals: all recorded, report capped at 100.
        struct Many: Decodable { let xs: [Int?]? }
        let json = #"{"xs": ["# + (0..<150).map { _ in #""a""# }.joined(separator: ",") + "]}"
        guard case let .failure(e) = StrictJSONDecoder().decode(Many.self, from: Data(json.utf8)) else { return XCTFail() }
        XCTAssertEqual(e.diagnostics.count, 100)
        XCTAssertEqual(e.omittedCount, 50)
        XCTAssertEqual(e.diagnostics[2].description, #"xs[2]: expected an integer, found "a""#)
        XCTAssertTrue(e.description.hasSuffix("… and 50 more"))
    }

    /// Unknown keys beyond the report limit are counted, not worded: the report lists the same
    /// first problems by path as an unlimited one and says how many more there are. The walk
    /// meets keys depth first (a parent's unknown keys before its children's), which is not path
    /// order, so the listed ones are chosen by path: here the nested "campaign.*" keys sort
    /// before the top-level "zz*" ones although the walk finds the latter first.
    func testUnknownKeysBeyondTheLimitAreCountedAndTheListedOnesAreTheFirstByPath() {
        let nested = (0..<4).map { #""extra\#($0)": 1"# }.joined(separator: ", ")
        let top = (0..<300).map { #""zz\#($0)": 1"# }.joined(separator: ", ")
        let json = valid.replacingOccurrences(of: "\"retry\": {\"maxAttempts\": 3},", with: "\"retry\": {\"maxAttempts\": 3}, \(nested),")
            .replacingOccurrences(of: "\"replications\": 30,", with: "\"replications\": 30, \(top),")
        func report(limit: Int) -> ScenarioErrors? {
            guard case let .failure(e) = StrictJSONDecoder(limits: JSONLimits(maxDiagnostics: limit)).decode(Scenario.self, from: Data(json.utf8)) else { return nil }
            return e
        }
        guard let all = report(limit: 1_000), let capped = report(limit: 5) else { return XCTFail("the document has unknown keys") }
        XCTAssertEqual(all.diagnostics.count, 304)
        XCTAssertEqual(capped.diagnostics, Array(all.diagnostics.prefix(5)))
        XCTAssertTrue(capped.diagnostics.first?.description.hasPrefix(#"campaign.extra0: unknown key "extra0""#) == true, capped.description)
        XCTAssertEqual(capped.omittedCount, 299)
        XCTAssertTrue(capped.description.hasSuffix("… and 299 more"), capped.description)
    }
}

final class EnumAndDictionaryTests: XCTestCase {
    enum Platform: String, Decodable, CaseIterable { case ios, android }
    struct Cohort: Decodable {
        let fallback: Platform?
        let platform: Platform
        let sharesByRegion: [String: Double]
    }

    func testUnknownEnumCaseListsTheCasesAndSuggestsOne() {
        XCTAssertEqual(problems(Cohort.self, #"{"platform": "andriod", "sharesByRegion": {}, "fallback": 3}"#), [
            #"fallback: expected one of "ios", "android", found 3"#,
            #"platform: expected one of "ios", "android", found "andriod"; did you mean "android"?"#,
        ])
    }

    func testDictionaryKeysAreNotUnknownKeys() throws {
        let c = try StrictJSONDecoder().decode(Cohort.self, from: Data(
            #"{"platform": "ios", "sharesByRegion": {"eu": 0.4, "us": 0.6}}"#.utf8)).get()
        XCTAssertEqual(c.sharesByRegion, ["eu": 0.4, "us": 0.6])
        XCTAssertEqual(problems(Cohort.self, #"{"platform": "ios", "sharesByRegion": {"eu": "x"}}"#),
                       [#"sharesByRegion.eu: expected a number, found "x""#])
    }
}

final class PathAndSpellingTests: XCTestCase {
    func testPathParsingRenderingAndOrder() throws {
        let p = try JSONPath(parsing: #"campaign.assets[2]["odd key"].bytes"#)
        XCTAssertEqual(p.components, [.key("campaign"), .key("assets"), .index(2), .key("odd key"), .key("bytes")])
        XCTAssertEqual(p.description, #"campaign.assets[2]["odd key"].bytes"#)
        XCTAssertEqual(JSONPath.root.description, "(root)")
        XCTAssertThrowsError(try JSONPath(parsing: "a..b"))
        XCTAssertThrowsError(try JSONPath(parsing: "a[x]"))
        XCTAssertThrowsError(try JSONPath(parsing: "a[-1]"))
        let sorted = try ["b", "a[10]", "a[2]", "a", "a.z"].map { try JSONPath(parsing: $0) }.sorted().map(\.description)
        XCTAssertEqual(sorted, ["a", "a.z", "a[2]", "a[10]", "b"])
    }

    func testSpellingSuggestions() {
        XCTAssertEqual(Spelling.distance("warmAheadSecs", "warmAheadSeconds"), 3)
        XCTAssertEqual(Spelling.distance("ttl", "tlt"), 1)  // transposition
        XCTAssertEqual(Spelling.closest(to: "replicatoins", among: ["seed", "replications"]), "replications")
        XCTAssertNil(Spelling.closest(to: "colour", among: ["seed", "replications"]))
    }
}
