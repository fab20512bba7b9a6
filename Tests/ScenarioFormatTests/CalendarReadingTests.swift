import Foundation
import XCTest
import InfraModel
import PushModel

@testable import ScenarioFormat

/// The scenario format of the campaign calendar: regions' `utcOffsetSeconds`, a campaign's
/// `sendAtLocalSeconds`, `regions`, `segments` and `audience`, and the checks relating them.
final class CalendarReadingTests: XCTestCase {
    private func diagnostics(_ json: String) -> [Diagnostic] {
        switch StrictJSONDecoder().decode(PushWorldConfig.self, from: Data(json.utf8)) {
        case .success: return []
        case let .failure(errors): return errors.diagnostics
        }
    }

    /// Two named regions at UTC+1 and UTC−5, two segments, and `campaigns` as given.
    func world(_ campaigns: String) -> String {
        #"""
        {"infra": {"topology": {"popCount": 2, "shieldCount": 1,
           "regions": [{"popIndex": 0, "utcOffsetSeconds": 3600}, {"popIndex": 1, "utcOffsetSeconds": -18000}],
           "regionNames": ["paris", "new-york"]}},
         "users": {"segments": [{"name": "loyal", "share": 1}, {"name": "casual", "share": 3}]},
         "campaigns": \#(campaigns)}
        """#
    }

    func testCalendarFieldsRead() throws {
        let json = world(#"""
            [{"name": "a", "sendAtLocalSeconds": 32400, "regions": ["paris"], "segments": ["loyal"], "audienceShare": 0.5},
             {"name": "b", "audienceShare": 0.5, "audience": {"rule": "disjointFrom", "campaign": "a"}}]
            """#)
        let w = try StrictJSONDecoder().decode(PushWorldConfig.self, from: Data(json.utf8)).get()
        XCTAssertEqual(w.infra.topology.regions.map(\.utcOffsetSeconds), [3_600, -18_000])
        XCTAssertEqual(w.campaigns[0].sendAtLocalSeconds, 32_400)
        XCTAssertEqual(w.campaigns[0].regions, ["paris"])
        XCTAssertEqual(w.campaigns[0].segments, ["loyal"])
        XCTAssertEqual(w.campaigns[1].audience, CampaignAudienceConfig(rule: .disjointFrom, campaign: "a"))
        // Round trip.
        let data = try JSONEncoder().encode(w)
        XCTAssertEqual(try StrictJSONDecoder().decode(PushWorldConfig.self, from: data).get(), w)
    }

    /// Left at their defaults, the calendar fields are not written: a scenario without them
    /// encodes (and hashes) as before they existed.
    func testDefaultsAreNotWritten() throws {
        var w = PushWorldConfig()
        w.infra.topology.regions = [RegionConfig(popIndex: 0)]
        let text = String(decoding: try JSONEncoder().encode(w), as: UTF8.self)
        for key in ["utcOffsetSeconds", "sendAtLocalSeconds", "\"audience\"", "\"regions\":[]", "\"segments\":[]"] {
            XCTAssertFalse(text.contains(key), key)
        }
    }

    func testUnknownRegionAndSegmentNamed() {
        let d = diagnostics(world(#"[{"regions": ["paris", "tokyo"], "segments": ["vip"]}]"#))
        XCTAssertEqual(d.map(\.path.description), ["campaigns[0].regions[1]", "campaigns[0].segments[0]"])
        XCTAssertTrue(d[0].message.contains(#"found "tokyo""#), d[0].message)
        XCTAssertTrue(d[0].message.contains(#""paris", "new-york""#), d[0].message)
        XCTAssertTrue(d[1].message.contains(#""loyal", "casual""#), d[1].message)
    }

    /// Without `regionNames` the regions are "region N".
    func testDefaultRegionNames() {
        XCTAssertEqual(diagnostics(#"{"infra": {"topology": {"popCount": 3}}, "campaigns": [{"regions": ["region 2"]}]}"#).count, 0)
        XCTAssertEqual(diagnostics(#"{"infra": {"topology": {"popCount": 3}}, "campaigns": [{"regions": ["region 3"]}]}"#)
            .map(\.path.description), ["campaigns[0].regions[0]"])
    }

    func testOffsetAndLocalTimeRanges() {
        let d = diagnostics(#"{"infra": {"topology": {"popCount": 1, "regions": [{"popIndex": 0, "utcOffsetSeconds": 54000}]}}, "campaigns": [{"sendAtLocalSeconds": 86400}]}"#)
        XCTAssertEqual(Set(d.map(\.path.description)), ["infra.topology.regions[0].utcOffsetSeconds", "campaigns[0].sendAtLocalSeconds"])
        XCTAssertEqual(diagnostics(#"{"infra": {"topology": {"popCount": 1, "regions": [{"popIndex": 0, "utcOffsetSeconds": 1.5}]}}}"#).count, 1)
    }

    func testAudienceRuleNeedsAnotherCampaign() {
        let d = diagnostics(world(#"""
            [{"name": "a", "audience": {"rule": "nestedIn"}},
             {"name": "b", "audience": {"rule": "disjointFrom", "campaign": "b"}},
             {"name": "c", "audience": {"rule": "independent", "campaign": "a"}},
             {"name": "d", "audience": {"rule": "nestedIn", "campaign": "zz"}}]
            """#))
        XCTAssertEqual(d.map(\.path.description), ["campaigns[0].audience.campaign", "campaigns[1].audience.campaign",
                                                   "campaigns[2].audience.campaign", "campaigns[3].audience.campaign"])
        XCTAssertTrue(d[0].message.hasSuffix("found absent"), d[0].message)
        XCTAssertTrue(d[3].message.contains(#"found "zz""#), d[3].message)
    }

    func testCycleRefused() {
        let d = diagnostics(world(#"""
            [{"name": "a", "audienceShare": 0.2, "audience": {"rule": "nestedIn", "campaign": "c"}},
             {"name": "b", "audienceShare": 0.2, "audience": {"rule": "disjointFrom", "campaign": "a"}},
             {"name": "c", "audienceShare": 0.3, "audience": {"rule": "nestedIn", "campaign": "b"}}]
            """#))
        XCTAssertEqual(d.map(\.path.description), ["campaigns[0].audience.campaign", "campaigns[1].audience.campaign", "campaigns[2].audience.campaign"])
        XCTAssertTrue(d[0].message.contains("without a cycle"), d[0].message)
        XCTAssertTrue(d[0].message.contains(#""a" → "c" → "b" → "a""#), d[0].message)
    }

    func testInfeasibleSharesRefused() {
        let d = diagnostics(world(#"""
            [{"name": "a", "audienceShare": 0.7},
             {"name": "b", "audienceShare": 0.4, "audience": {"rule": "disjointFrom", "campaign": "a"}},
             {"name": "c", "audienceShare": 0.8, "audience": {"rule": "nestedIn", "campaign": "a"}},
             {"name": "d", "audienceShare": 0.3, "audience": {"rule": "disjointFrom", "campaign": "a"}}]
            """#))
        XCTAssertEqual(d.map(\.path.description), ["campaigns[1].audienceShare", "campaigns[2].audienceShare"])
        XCTAssertTrue(d[0].message.contains("≤ 1 − 0.7"), d[0].message)
        XCTAssertTrue(d[0].message.hasSuffix("found 0.4"), d[0].message)
        XCTAssertTrue(d[1].message.contains("≤ 0.7"), d[1].message)
    }
}

extension CalendarReadingTests {
    /// Each wave is signed when it is sent (its own `exp`): a wave hours after `sendStartSeconds`
    /// plus the payload lifetime is accepted (it used to be refused, every push of it expired).
    func testWaveAfterTheFirstSendsLifetimeAccepted() {
        let json = world(#"[{"sendStartSeconds": 0, "payloadLifetimeSeconds": 3600, "sendAtLocalSeconds": 32400}]"#)
        var d: [Diagnostic] = []
        if case let .failure(errors) = StrictJSONDecoder().decode(PushWorldConfig.self, from: Data(json.utf8)) { d = errors.diagnostics }
        XCTAssertEqual(d.map(\.path.description), [])
    }
}
