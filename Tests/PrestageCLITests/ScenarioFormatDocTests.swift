import Foundation
import InfraModel
import XCTest
@testable import Experiments
@testable import PrestageCLI
import PushModel
@testable import ScenarioFormat

/// docs/scenario-format.md must match the decoder: every documented field is a key the decoder
/// reads, every key it reads is documented, and every default written as `code` equals the
/// decoder's default.
final class ScenarioFormatDocTests: XCTestCase {
    /// A scenario setting every optional field that is absent by default, so that encoding the
    /// decoded scenario lists every key the decoder reads (encoding and decoding share the coding
    /// keys; `testResolvedScenarioRoundTripsAndHashIsCanonical` checks they agree).
    static let everyField = """
    {
      "name": "every-field", "question": "Does every key appear?", "notes": ["n"],
      "run": { "devices": 10 },
      "slo": [ { "metric": "origin.rejected503", "op": "<=", "threshold": 0, "confidence": 0.9, "probability": 0.9 } ],
      "uncertain": { "replicationsPerDraw": 1,
                     "inputs": [ { "path": "infra.origin.workers", "distribution": { "kind": "uniform", "lower": 8, "upper": 16 }, "source": "judgement" } ],
                     "fitted": [ { "path": "population.iosShare", "distribution": { "kind": "uniform", "lower": 0.4, "upper": 0.6 }, "source": "fit" } ] },
      "population": { "regionWeights": [1, 1], "regionNetworkMix": [ { "region": 0, "mix": { "wifi": 1 } } ], "devicePower": {} },
      "users": { "segments": [ { "name": "a" } ], "foregroundFetchesKept": false,
                 "abandonment": { "waitSeconds": [2], "leftShare": [0.5] }, "readProbability": 0.9, "openHint": {} },
      "campaigns": [ {
        "carouselIntervalSeconds": 30, "creativeSwap": { "secondsBeforeSend": 60 }, "payloadLifetimeSeconds": 3600, "provider": "fcm", "collapsible": true, "collapseKey": "scores",
        "sendAs": "topic", "apnsPriority": 5,
        "assets": [ { "name": "hero", "variants": [ { "network": "4g", "bytes": 1000 } ] } ]
      }, { "name": "follow-up", "assets": [ { "name": "hero", "variants": [ { "network": "4g", "bytes": 1000 } ], "urlCampaign": "campaign" },
                                            { "name": "clip", "type": "hls", "variantsKbps": [400, 1200], "segmentSeconds": 4, "segmentCount": 5, "audioKbps": 128, "hlsByteRanges": true } ],
           "sendAtLocalSeconds": 32400, "sendOnLocalDay": 1, "payloadLifetimeSeconds": 259200, "regions": ["eu-west"], "segments": ["a"], "audience": { "rule": "nestedIn", "campaign": "campaign" } } ],
      "preloadPolicy": { "receiptsEnabled": true, "receiptJitterWindowSeconds": 60, "decision": { "kind": "budgeted" }, "hlsSegmentsToPreStage": 2 },
      "energy": { "enabled": true },
      "providers": { "outages": [ { "provider": "apns", "startSeconds": 0, "durationSeconds": 1 } ],
                     "fcm": { "unregisteredShare": 0.05, "deliveryLatencySeconds": { "kind": "constant", "value": 2 }, "inactiveShare": 0.01,
                              "fanOutPerSecond": 5000, "deviceMessagesPerMinuteMax": 200, "deviceMessagesPerHourMax": 4000,
                              "collapsibleBurstMessages": 10, "collapsibleRefillSeconds": 120 },
                     "offline": { "deviceShare": 0.2, "startSeconds": 0, "startSpreadSeconds": 60, "durationSeconds": { "kind": "constant", "value": 600 } },
                     "apns": { "unregisteredShare": 0.05, "deliveryLatencySeconds": { "kind": "constant", "value": 1 },
                               "priority5BurstIntervalSeconds": 600 } },
      "analytics": { "capacityPerSecond": 100, "queueMax": 1000 },
      "infra": { "cdnApi": { "profile": "akamai", "purgeBy": "url", "purgeRequestsPerSecond": 50, "purgeRequestBurst": 100,
                             "purgeItemsPerRequest": 500, "purgeItemsPerSecond": 200, "purgeItemsBurst": 10000, "purgeItemsPacing": "tokenBucket",
                             "purgeItemsInProgressMax": 0,
                             "purgePropagationSeconds": { "kind": "constant", "value": 1 }, "warmMethod": "requests",
                             "warmRequestsPerSecond": 100, "warmItemsPerRequest": 500, "warmPropagationSeconds": { "kind": "constant", "value": 1 },
                             "failureProbability": 0.001, "retryBaseSeconds": 5, "attemptsMax": 5 },
                 "faults": [ { "kind": "networkDegradation", "startSeconds": 0, "durationSeconds": 60, "pop": 0, "region": 0,
                               "throughputFactor": 0.5, "failureProbability": 0.1 } ],
                 "networks": { "3g": { "segmentLossProbability": 0.01 } }, "topology": { "popCount": 2, "shieldCount": 1,
        "regions": [ { "popIndex": 0 }, { "popIndex": 1, "utcOffsetSeconds": 3600 } ], "popNames": ["AMS1", "FRA1"], "regionNames": ["eu-west", "eu-central"],
        "popOverrides": [ { "popIndex": 0, "shieldIndex": 0, "cacheCapacityBytes": 1000,
                            "edgeProcessingSeconds": { "kind": "constant", "value": 0.001 },
                            "upstreamSeconds": { "kind": "constant", "value": 0.01 } } ] } },
      "costs": { "currency": "USD", "originPricePerGB": 0.02, "shieldPricePerGB": 0.01,
        "cdn": [ { "regions": [0, 1], "tiers": [ { "fromGB": 0, "pricePerGB": 0.085 } ], "pricePer10kRequests": 0.01 } ],
        "commit": { "tier": "edge", "rateGbps": 1, "billing": "percentile95", "price": 100, "pricePerGbps": 0, "overagePricePerGbps": 10, "overagePricePerGB": 0 },
        "cellular": [ { "regions": [0], "pricePerGB": 5 }, { "pricePerGB": 1 } ] }
    }
    """

    struct Row { let section: String; let field: String; let typeCell: String; let unitCell: String; let defaultCell: String }

    /// Rows of every `### \`path\`` section's table ("(top level)" is the root).
    static func documentedRows() throws -> [Row] {
        let url = TestEnvironment.packageRoot.appendingPathComponent("docs/scenario-format.md")
        let text = try String(contentsOf: url, encoding: .utf8)
        var sections: [String] = []
        var rows: [Row] = []
        var inSections = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("## ") { inSections = line == "## Sections"; sections = []; continue }
            guard inSections else { continue }
            if line.hasPrefix("### ") {
                sections = line == "### (top level)" ? [""] : codeSpans(line)
                continue
            }
            guard line.hasPrefix("| `"), !sections.isEmpty else { continue }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 6, let field = codeSpans(cells[1]).first else { continue }
            for s in sections { rows.append(Row(section: s, field: field, typeCell: cells[2], unitCell: cells[3], defaultCell: cells[4])) }
        }
        return rows
    }

    static func codeSpans(_ s: String) -> [String] {
        s.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    /// (section, key) for every key of every object in `value`; arrays of objects are entered
    /// through their elements (`[]`), network-class keys under infra.networks become `CLASS`, radio
    /// keys under energy.profiles `RADIO`, and distributions (objects with a `kind` other than a
    /// decision kind) are leaves.
    static func keys(_ value: Any, section: String, into out: inout Set<String>, values: inout [String: Any]) {
        if let object = value as? [String: Any] {
            for (k, v) in object {
                out.insert(section + "|" + k)
                if values[section + "|" + k] == nil { values[section + "|" + k] = v }  // the first array element's
                // A distribution's `kind` names its family; `preloadPolicy.decision` also has a `kind`.
                if let o = v as? [String: Any], let kind = o["kind"], DecisionConfig.Kind(rawValue: kind as? String ?? "") == nil { continue }
                let child = section == "infra.networks" ? "infra.networks.CLASS"
                    : section == "energy.profiles" ? "energy.profiles.RADIO" : (section.isEmpty ? k : section + "." + k)
                keys(v, section: child, into: &out, values: &values)
            }
        } else if let array = value as? [Any] {
            for element in array {
                // A fault's `kind` names what fails, not a distribution family.
                if let o = element as? [String: Any], o["kind"] == nil || InfraFault.Kind(rawValue: o["kind"] as? String ?? "") != nil {
                    keys(o, section: section + "[]", into: &out, values: &values)
                }
            }
        }
    }

    private func decodedKeys(_ json: String) throws -> (Set<String>, [String: Any]) {
        let decoded = StrictJSONDecoder().decode(ScenarioFile.self, from: Data(json.utf8))
        guard case let .success(scenario) = decoded else { throw XCTSkip("fixture does not decode: \(decoded)") }
        let data = try CanonicalJSON.encode(scenario)
        var out: Set<String> = [], values: [String: Any] = [:]
        Self.keys(try JSONSerialization.jsonObject(with: data), section: "", into: &out, values: &values)
        return (out, values)
    }

    func testEveryDocumentedFieldIsReadAndEveryReadFieldIsDocumented() throws {
        let rows = try Self.documentedRows()
        XCTAssertGreaterThan(rows.count, 150)
        let documented = Set(rows.map { $0.section + "|" + $0.field })
        XCTAssertEqual(documented.count, rows.count, "a field is documented twice")
        guard case .success = StrictJSONDecoder().decode(ScenarioFile.self, from: Data(Self.everyField.utf8)) else {
            return XCTFail("the every-field fixture must decode strictly: \(StrictJSONDecoder().decode(ScenarioFile.self, from: Data(Self.everyField.utf8)))")
        }
        let (read, _) = try decodedKeys(Self.everyField)
        XCTAssertEqual(documented.subtracting(read).sorted(), [], "documented in docs/scenario-format.md but not read by the decoder (or missing from the fixture)")
        XCTAssertEqual(read.subtracting(documented).sorted(), [], "read by the decoder but not documented in docs/scenario-format.md")
    }

    static func canonical(_ value: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys]), as: UTF8.self)
    }

    func testDocumentedDefaultsAreTheDecodersDefaults() throws {
        let (_, defaults) = try decodedKeys(#"{"name": "d", "question": "defaults?"}"#)
        var checked = 0
        for row in try Self.documentedRows() {
            let spans = Self.codeSpans(row.defaultCell)
            // Only a cell that is exactly one code span is a machine-checkable default.
            guard spans.count == 1, row.defaultCell == "`" + spans[0] + "`",
                  let literal = try? JSONSerialization.jsonObject(with: Data(spans[0].utf8), options: [.fragmentsAllowed]) else { continue }
            let key = row.section + "|" + row.field
            guard let actual = defaults[key] else {
                // Present only in non-default scenarios (e.g. array element sections).
                continue
            }
            checked += 1
            XCTAssertEqual(try Self.canonical(actual), try Self.canonical(literal),
                           "\(row.section).\(row.field): documented default \(spans[0]) differs from the decoder's")
        }
        XCTAssertGreaterThan(checked, 100)
    }

    /// Every documented numeric field's unit as its name declares it (`ScenarioFieldUnit`, which
    /// `prestage plan` labels its knob axis with) is the unit its row documents.
    func testDocumentedUnitsAreTheUnitsTheFieldNamesDeclare() throws {
        var checked = 0
        for row in try Self.documentedRows() where row.typeCell == "number" || row.typeCell == "integer" {
            let expected: ScenarioFieldUnit
            switch row.unitCell {
            case "s": expected = .seconds
            case "bytes": expected = .bytes
            case "bit/s": expected = .bitsPerSecond
            case "pushes/min": expected = .pushesPerMinute
            case "pushes/h": expected = .pushesPerHour
            case "share", "probability": expected = .fraction
            default: expected = row.typeCell == "integer" ? .count : .none
            }
            XCTAssertEqual(ScenarioFieldUnit(key: row.field, isInteger: row.typeCell == "integer"), expected,
                           "\(row.section).\(row.field): documented unit \(row.unitCell)")
            checked += 1
        }
        XCTAssertGreaterThan(checked, 80)
        XCTAssertEqual(ScenarioFieldUnit(path: "campaigns[0].sendRatePerMinute", isInteger: false), .pushesPerMinute)
        XCTAssertEqual(ScenarioFieldUnit(path: "infra.topology.popOverrides[0].cacheCapacityBytes", isInteger: true), .bytes)
        // A distribution's members: location and scale in the field's unit, shape parameters without one.
        XCTAssertEqual(ScenarioFieldUnit(path: "infra.origin.serviceSeconds.mean", isInteger: false), .seconds)
        XCTAssertEqual(ScenarioFieldUnit(path: "users.tapDelaySeconds.components[1].distribution.median", isInteger: false), .seconds)
        XCTAssertEqual(ScenarioFieldUnit(path: "population.freeStorageBytes.median", isInteger: false), .bytes)
        XCTAssertEqual(ScenarioFieldUnit(path: "population.freeStorageBytes.sigma", isInteger: false), .none)
    }

    /// The `--set` path of a documented row, on the every-field fixture: array sections take their
    /// first element and network classes `wifi`.
    static func setPath(_ row: Row) -> String {
        let section = row.section.replacingOccurrences(of: "[]", with: "[0]").replacingOccurrences(of: "CLASS", with: "wifi")
            .replacingOccurrences(of: "RADIO", with: "wifi")
        return section.isEmpty ? row.field : section + "." + row.field
    }

    /// A scenario typo names the path, the value and what was expected, for every documented field:
    /// each one, given a value of the wrong JSON type, is rejected with a diagnostic at exactly its
    /// own path whose text says what it expected and what it found. Out-of-range extremes (±1e300,
    /// −1, 2⁶³−1) must either load or be rejected with diagnostics that all say what was expected;
    /// none may trap (a trap here fails the whole test run).
    func testEveryDocumentedFieldRejectsAWrongTypeAtItsOwnPath() throws {
        let data = Data(Self.everyField.utf8)
        var checked = 0
        for row in try Self.documentedRows() {
            let path = Self.setPath(row)
            let target = try JSONPath(parsing: path)
            let type = row.typeCell
            // A value of a JSON type the field cannot take.
            let wrong = type.hasPrefix("string") ? "12345" : (type.hasPrefix("array") ? "{\"a\": 1}" : "\"wrong\"")
            do {
                _ = try ScenarioLoader.decode(data, label: "f.json", set: ["\(path)=\(wrong)"])
                XCTFail("\(path) accepted \(wrong) (documented type: \(type))")
            } catch {
                let here = error.diagnostics.filter { $0.path == target }
                XCTAssertFalse(here.isEmpty, "\(path)=\(wrong): no diagnostic at the path: \(error.description)")
                for d in here {
                    XCTAssertTrue(d.message.contains("expected ") && d.message.contains("found "),
                                  "\(path)=\(wrong): \(d) does not say what it expected and found")
                }
            }
            if type.hasPrefix("number") || type.hasPrefix("integer") {
                for extreme in ["1e300", "-1e300", "-1", "9223372036854775807"] {
                    do {
                        _ = try ScenarioLoader.decode(data, label: "f.json", set: ["\(path)=\(extreme)"])
                    } catch {
                        XCTAssertFalse(error.diagnostics.isEmpty, "\(path)=\(extreme): \(error.description)")
                        for d in error.diagnostics {
                            XCTAssertTrue(d.message.contains("expected "), "\(path)=\(extreme): \(d) does not say what it expected")
                        }
                    }
                }
            }
            checked += 1
        }
        XCTAssertGreaterThan(checked, 150)
    }
}
