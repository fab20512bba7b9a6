import Foundation
import InfraModel
import XCTest
@testable import PushModel

/// A campaign's warm and creative-swap purge through a CDN API profile (`infra.cdnApi`).
final class CdnApiCampaignTests: XCTestCase {
    /// Warmed 300 s ahead into every PoP, the creative swapped 10 s before the send and re-warmed
    /// 5 s after the purge call.
    private func swapWorld() -> PushWorldConfig {
        var c = oneAssetWorld(devices: 2_000)
        c.campaigns[0].warm = WarmConfig(mode: .allPops, aheadSeconds: 300)
        c.campaigns[0].creativeSwap = CreativeSwapConfig(secondsBeforeSend: 10, rewarmDelaySeconds: 5)
        return c
    }

    /// The creative swap's purge costs what the profile says: CloudFront's invalidation (60–300 s)
    /// leaves the old creative in the PoPs well into the send, so more pre-stages get it than with
    /// an instant purge (generic: 150 ms, the re-warm then fetching the new one).
    func testSlowerPurgeServesTheSupersededCreativeLonger() throws {
        var instant = swapWorld()
        instant.infra.cdnApi = CdnApiConfig.standard(.generic)
        var slow = swapWorld()
        slow.infra.cdnApi = CdnApiConfig.standard(.cloudfront)
        for seed: UInt64 in [3, 4] {
            let a = try simulate(instant, seed: seed), b = try simulate(slow, seed: seed)
            XCTAssertEqual(a.value("cdnApi.purgeCalls"), 1)
            XCTAssertEqual(b.value("cdnApi.purgeCalls"), 1)
            XCTAssertLessThan(a.value("cdnApi.purgeCompleteSeconds"), 1, "seed \(seed)")
            XCTAssertGreaterThanOrEqual(b.value("cdnApi.purgeCompleteSeconds"), 60, "seed \(seed)")
            XCTAssertGreaterThan(b.value("creative.stalePrestages"), a.value("creative.stalePrestages"), "seed \(seed)")
            XCTAssertGreaterThan(b.value("creative.stalePrestageShare"), 0.5, "most of the send precedes the invalidation (seed \(seed))")
        }
    }

    /// Without a warm API the campaign's warm is one lookup per PoP and object (8 PoPs, 1 asset:
    /// 8, and 8 more for the re-warm), paced at 100/s.
    func testNoWarmApiWarmIsLookupsPerPop() throws {
        var c = swapWorld()
        c.infra.cdnApi = CdnApiConfig.standard(.fastly)
        let r = try simulate(c, seed: 5)
        XCTAssertEqual(r.value("cdnApi.warmRequests"), 16)
        XCTAssertEqual(r.value("cdnApi.warmCompleteSeconds"), 0.07, accuracy: 1e-6, "8 lookups at 100/s: the last after 70 ms")
        XCTAssertEqual(r.value("cdnApi.purgeRequests"), 1, "one key, one request")
    }

    /// Absent `cdnApi`, no `cdnApi.*` metric is emitted and the run is the free calls' run:
    /// the result is the same as one from a config that never had the field (the default is nil).
    func testAbsentProfileEmitsNoApiMetrics() throws {
        let c = swapWorld()
        XCTAssertNil(c.infra.cdnApi)
        let r = try simulate(c, seed: 3)
        XCTAssertFalse(r.metrics.contains { $0.name.hasPrefix("cdnApi.") })
    }
}
