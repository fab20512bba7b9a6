import Foundation
import XCTest
import SimKernel
import Stochastic
@testable import InfraModel

final class ConfigTests: XCTestCase {
    /// Defaults are stated once, in the initialisers; the scenario format's reading of them is
    /// tested in ScenarioTests (InfraConfigReadingTests).
    func testDefaultsBuildInSwift() {
        let c = InfraConfig()
        XCTAssertEqual(c.topology.popCount, 280)
        XCTAssertEqual(c.topology.effectiveRegions.count, 280)
        XCTAssertEqual(c.networks[.lte], NetworkProfile.standard(.lte))
        XCTAssertEqual(c.shieldCache.capacityBytes, 8 << 30)
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
