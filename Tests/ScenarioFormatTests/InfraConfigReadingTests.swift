import Foundation
import XCTest
import InfraModel
import PushModel

import Stochastic
@testable import ScenarioFormat

/// The scenario format of InfraModel's configuration (the `infra` section).
final class InfraConfigReadingTests: XCTestCase {
    private func decode<T: Decodable>(_ type: T.Type = InfraConfig.self, _ json: String) throws -> T {
        try StrictJSONDecoder().decode(T.self, from: Data(json.utf8)).get()
    }

    /// Decoding `json` fails with a diagnostic at `path` or below it (a distribution's own field).
    private func assertRejected(_ json: String, path: String, file: StaticString = #filePath, line: UInt = #line) {
        switch StrictJSONDecoder().decode(InfraConfig.self, from: Data(json.utf8)) {
        case .success: XCTFail("\(json) accepted", file: file, line: line)
        case let .failure(errors):
            guard let expected = try? JSONPath(parsing: path) else { return XCTFail("bad path \(path)", file: file, line: line) }
            XCTAssertTrue(errors.diagnostics.contains { $0.path.components.starts(with: expected.components) }, "\(errors) does not name \(path)",
                          file: file, line: line)
        }
    }

    /// Each section decoded from `{}` equals its `init()`: the reader takes its defaults from it.
    func testEmptySectionsGiveTheirInitDefaults() throws {
        XCTAssertEqual(try decode(ConnectionSetupConfig.self, "{}"), ConnectionSetupConfig())
        XCTAssertEqual(try decode(CacheConfig.self, "{}"), CacheConfig())
        XCTAssertEqual(try decode(TopologyConfig.self, "{}"), TopologyConfig())
        XCTAssertEqual(try decode(OriginConfig.self, "{}"), OriginConfig())
        XCTAssertEqual(try decode(PlaceholderPolicy.self, "{}"), PlaceholderPolicy())
        XCTAssertEqual(try decode(RegionConfig.self, #"{"popIndex": 3}"#), RegionConfig(popIndex: 3))
    }

    func testEmptyObjectGivesDefaults() throws {
        let c = try decode(InfraConfig.self, "{}")
        XCTAssertEqual(c, InfraConfig())
        XCTAssertEqual(c.topology.popCount, 280)
        XCTAssertEqual(c.topology.effectiveRegions.count, 280)
        XCTAssertEqual(c.networks[.lte], NetworkProfile.standard(.lte))
    }

    func testRoundTrip() throws {
        var c = InfraConfig()
        c.topology.popCount = 3
        c.topology.regions = [RegionConfig(popIndex: 2, pathRttSeconds: 0.02, audienceWeight: 4)]
        c.topology.popOverrides = [PopOverride(popIndex: 1, shieldIndex: 0, edgeProcessingSeconds: .constant(value: 0.01))]
        c.edgeCache.background = .characteristicTime(seconds: 600)
        c.shieldCache.background = .explicitStream(requestsPerSecond: 10, catalogueObjects: 100, zipfExponent: 0.8, objectBytes: 1_000)
        c.placeholder = PlaceholderPolicy(enabled: true, maxEffectiveConnectionType: .threeG)
        let data = try JSONEncoder().encode(c)
        XCTAssertEqual(try JSONDecoder().decode(InfraConfig.self, from: data), c)
        XCTAssertEqual(try StrictJSONDecoder().decode(InfraConfig.self, from: data).get(), c)
    }

    func testPartialNetworkProfileKeepsClassDefaults() throws {
        let c = try decode(InfraConfig.self, #"{"networks": {"3g": {"failureProbability": 0.5}}}"#)
        XCTAssertEqual(c.networks[.threeG].failureProbability, 0.5)
        XCTAssertEqual(c.networks[.threeG].rttSeconds, NetworkProfile.standard(.threeG).rttSeconds)
        XCTAssertEqual(c.networks[.lte], NetworkProfile.standard(.lte))
    }

    /// Segment loss: read per class; 0 (the default) is not written, so scenarios without it
    /// encode (and hash) as before the field existed; 1 and beyond are rejected at the path.
    func testSegmentLossProbability() throws {
        let c = try decode(InfraConfig.self, #"{"networks": {"3g": {"segmentLossProbability": 0.01}}}"#)
        XCTAssertEqual(c.networks[.threeG].segmentLossProbability, 0.01)
        XCTAssertEqual(c.networks[.lte].segmentLossProbability, 0)
        let written = String(decoding: try JSONEncoder().encode(c), as: UTF8.self)
        XCTAssertEqual(written.components(separatedBy: "segmentLossProbability").count - 1, 1, written)
        XCTAssertEqual(try StrictJSONDecoder().decode(InfraConfig.self, from: Data(written.utf8)).get(), c)
        for bad in ["1", "1.5", "-0.01"] {
            assertRejected(#"{"networks": {"3g": {"segmentLossProbability": \#(bad)}}}"#, path: "networks.3g.segmentLossProbability")
        }
        switch StrictJSONDecoder().decode(InfraConfig.self, from: Data(#"{"networks": {"3g": {"segmentLossProbability": 1}}}"#.utf8)) {
        case .success: XCTFail("accepted 1")
        case let .failure(errors): XCTAssertTrue(errors.description.contains("a probability in [0, 1)"), errors.description)
        }
    }

    func testErrorsNameThePath() {
        assertRejected(#"{"origin": {"workers": 0}}"#, path: "origin.workers")
        assertRejected(#"{"origin": {"queueMax": -1}}"#, path: "origin.queueMax")
        assertRejected(#"{"networks": {"lte": {"failureProbability": 2}}}"#, path: "networks.lte.failureProbability")
        assertRejected(#"{"networks": {"6g": {}}}"#, path: "networks.6g")
        assertRejected(#"{"topology": {"popCount": 2, "regions": [{"popIndex": 0}, {"popIndex": 5}]}}"#,
                       path: "topology.regions[1].popIndex")
        assertRejected(#"{"topology": {"popCount": 2, "popOverrides": [{"popIndex": 1, "shieldIndex": 9}]}}"#,
                       path: "topology.popOverrides[0].shieldIndex")
        assertRejected(#"{"edgeCache": {"capacityBytes": -5}}"#, path: "edgeCache.capacityBytes")
        assertRejected(#"{"edgeCache": {"background": {"kind": "characteristicTime", "seconds": 0}}}"#,
                       path: "edgeCache.background.seconds")
        assertRejected(#"{"shieldCache": {"background": {"kind": "lru"}}}"#, path: "shieldCache.background.kind")
        assertRejected(#"{"metricsHorizonSeconds": 0}"#, path: "metricsHorizonSeconds")
        assertRejected(#"{"placeholder": {"maxEffectiveConnectionType": "5g"}}"#, path: "placeholder.maxEffectiveConnectionType")
        assertRejected(#"{"connectionSetup": {"tlsRoundTrips": 9}}"#, path: "connectionSetup.tlsRoundTrips")
        assertRejected(#"{"tiers": {"toOriginSeconds": {"kind": "exponential", "mean": -1}}}"#, path: "tiers.toOriginSeconds")
    }

    /// A rejected value reads `expected …, found …` at its own path, with no text re-parsed.
    func testIssueRendersExpectedAndFound() {
        switch StrictJSONDecoder().decode(InfraConfig.self, from: Data(#"{"topology": {"popCount": 2, "regions": [{"popIndex": 5}]}}"#.utf8)) {
        case .success: XCTFail("accepted")
        case let .failure(errors):
            XCTAssertEqual(errors.diagnostics.map(\.description), ["topology.regions[0].popIndex: expected an index in 0..<2, found 5"])
        }
    }

    /// The run's InfraModel configuration covers the horizon; the scenario keeps what was written.
    func testEffectiveInfraCoversTheHorizon() {
        var w = PushWorldConfig()
        w.horizonSeconds = 7_200.5
        w.infra.metricsHorizonSeconds = 3_600
        XCTAssertEqual(w.effectiveInfra.metricsHorizonSeconds, 7_201)
        XCTAssertEqual(w.infra.metricsHorizonSeconds, 3_600)
        w.infra.metricsHorizonSeconds = 9_000
        XCTAssertEqual(w.effectiveInfra.metricsHorizonSeconds, 9_000)
    }
}
