import Foundation
import XCTest
import SimKernel
import Stochastic
@testable import InfraModel

final class ConfigTests: XCTestCase {
    private func decode(_ json: String) throws -> InfraConfig {
        try JSONDecoder().decode(InfraConfig.self, from: Data(json.utf8))
    }

    /// Decoding `json` fails with an error that names `path`.
    private func assertRejected(_ json: String, path: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try decode(json), file: file, line: line) { error in
            if let e = error as? InfraConfigError {
                XCTAssertEqual(e.path, path, "\(e)", file: file, line: line)
            } else {
                XCTAssertTrue("\(error)".contains(path), "error \(error) does not name \(path)", file: file, line: line)
            }
        }
    }

    /// Each section decoded from `{}` equals its `init()`: the decoders take their defaults from it.
    func testEmptySectionsGiveTheirInitDefaults() throws {
        func empty<T: Decodable>(_: T.Type) throws -> T { try JSONDecoder().decode(T.self, from: Data("{}".utf8)) }
        XCTAssertEqual(try empty(ConnectionSetupConfig.self), ConnectionSetupConfig())
        XCTAssertEqual(try empty(CacheConfig.self), CacheConfig())
        XCTAssertEqual(try empty(TopologyConfig.self), TopologyConfig())
        XCTAssertEqual(try empty(OriginConfig.self), OriginConfig())
        XCTAssertEqual(try empty(PlaceholderPolicy.self), PlaceholderPolicy())
        XCTAssertEqual(try empty(CachePolicy.self), CachePolicy())
        let region = try JSONDecoder().decode(RegionConfig.self, from: Data(#"{"popIndex": 3}"#.utf8))
        XCTAssertEqual(region, RegionConfig(popIndex: 3))
    }

    func testEmptyObjectGivesDefaults() throws {
        let c = try decode("{}")
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
    }

    func testPartialNetworkProfileKeepsClassDefaults() throws {
        let c = try decode(#"{"networks": {"3g": {"failureProbability": 0.5}}}"#)
        XCTAssertEqual(c.networks[.threeG].failureProbability, 0.5)
        XCTAssertEqual(c.networks[.threeG].rttSeconds, NetworkProfile.standard(.threeG).rttSeconds)
        XCTAssertEqual(c.networks[.lte], NetworkProfile.standard(.lte))
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

    func testCatalogueRejectsBadObjects() {
        var catalog = ObjectCatalog()
        XCTAssertThrowsError(try catalog.add(bytes: 0)) { XCTAssertEqual(($0 as? InfraConfigError)?.path, "objects[0].bytes") }
        XCTAssertThrowsError(try catalog.add(bytes: 10, policy: CachePolicy(maxAgeSeconds: -1))) {
            XCTAssertEqual(($0 as? InfraConfigError)?.path, "objects[0].policy.maxAgeSeconds")
        }
        XCTAssertThrowsError(try catalog.add(bytes: 10, surrogateKey: 1 << 20)) {
            XCTAssertEqual(($0 as? InfraConfigError)?.path, "objects[0].surrogateKey")
        }
    }

    func testEffectiveConnectionTypeThresholds() {
        XCTAssertEqual(EffectiveConnectionType.classify(rttSeconds: 2.0, downlinkBitsPerSecond: 1e6), .slow2G)
        XCTAssertEqual(EffectiveConnectionType.classify(rttSeconds: 0.1, downlinkBitsPerSecond: 50_000), .slow2G)
        XCTAssertEqual(EffectiveConnectionType.classify(rttSeconds: 1.4, downlinkBitsPerSecond: 1e6), .twoG)
        XCTAssertEqual(EffectiveConnectionType.classify(rttSeconds: 0.27, downlinkBitsPerSecond: 1e6), .threeG)
        XCTAssertEqual(EffectiveConnectionType.classify(rttSeconds: 0.1, downlinkBitsPerSecond: 700_000), .threeG)
        XCTAssertEqual(EffectiveConnectionType.classify(rttSeconds: 0.1, downlinkBitsPerSecond: 1e6), .fourG)
    }

    /// The default world reproduces the reference figures at the median: an edge hit of a
    /// small asset on a warm LTE connection takes 45–110 ms end to end, and an origin fetch
    /// adds 400–600 ms. Medians of the default distributions (no sampling): RTT 70 ms (path
    /// RTT 0 by default), edge processing 4 ms, 48.2 KB at 12 Mbit/s = 32 ms; origin hop uniform 0.38–0.58
    /// plus service mean 20 ms.
    func testDefaultsMatchReferenceFigures() throws {
        let c = InfraConfig()
        guard case let .lognormal(mu, _) = c.networks[.lte].rttSeconds,
              case let .lognormal(pmu, _) = c.tiers.edgeProcessingSeconds,
              case let .lognormal(bmu, _) = c.networks[.lte].downlinkBitsPerSecond,
              case let .uniform(lo, hi) = c.tiers.toOriginSeconds,
              let service = c.origin.serviceSeconds.mean else { return XCTFail("defaults changed shape") }
        let hit = exp(mu) + RegionConfig(popIndex: 0).pathRttSeconds + exp(pmu) + 48_200 * 8 / exp(bmu)
        XCTAssertTrue((0.045...0.110).contains(hit), "median warm LTE hit \(hit) s")
        XCTAssertTrue((0.4...0.6).contains(lo + service) && (0.4...0.6).contains(hi + service))
        XCTAssertEqual(c.topology.popCount, 280)
    }
}
