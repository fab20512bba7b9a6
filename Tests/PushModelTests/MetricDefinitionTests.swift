import Foundation
import InfraModel
import XCTest
@testable import PushModel

/// Each metric people plan and gate with means what its definition says, also where the
/// world is built to make a careless definition go wrong.
final class MetricDefinitionTests: XCTestCase {
    /// The origin is 9 s away and PreloadKit gives a request 8 s: every pre-stage request that
    /// misses at the edge times out (or is cancelled) before its fill arrives. Those requests
    /// reached the edge and missed: they are in the denominator of the hit ratio. (Filing them
    /// as "did not reach the edge" left only hits: a ratio of 1 in a world where no miss was
    /// ever served in time.)
    func testPrestageHitRatioCountsMissesThatTimedOut() throws {
        let seed: UInt64 = 5
        var c = oneAssetWorld()
        c.infra.tiers.toOriginSeconds = .constant(value: 9)
        c.preloadPolicy.requestTimeoutSeconds = 8
        c.campaigns[0].sendRatePerMinute = 200  // a 5-minute send: later pushes find filled PoPs
        for i in c.users.segments.indices {     // nobody opens: every edge device request is a pre-stage
            c.users.segments[i].iosOpenProbability = 0
            c.users.segments[i].androidOpenProbability = 0
        }
        let r = try simulate(c, seed: seed)
        let p = r.prestage
        XCTAssertGreaterThan(p.misses, 0, "misses that timed out are misses (seed \(seed))")
        XCTAssertGreaterThan(p.hits, 0, "later requests hit the filled PoPs (seed \(seed))")
        XCTAssertEqual(p.requests, p.hits + p.misses, "seed \(seed)")
        XCTAssertEqual(r.value("edge.prestageHitRatio"), Double(p.hits) / Double(p.requests), "seed \(seed)")
        XCTAssertLessThan(r.value("edge.prestageHitRatio"), 1, "seed \(seed)")
        // Without taps every edge device request is a pre-stage request: InfraModel's own count
        // of lookups and hits is the ratio's definition.
        XCTAssertEqual(r.value("taps.count"), 0, "seed \(seed)")
        let edge = try XCTUnwrap(r.tier(.edge))
        XCTAssertEqual(p.requests, edge.deviceRequests, "every request that reached the edge (seed \(seed))")
        XCTAssertEqual(p.hits, edge.deviceHits, "seed \(seed)")
    }

    /// Every image fetch times out (80 kbit/s for a 48 200-byte image with a 2 s request
    /// timeout): no push stores anything. Such a push is not "partial" (some assets stored):
    /// it is a fetch timeout, and the timeout share says so.
    func testNothingStoredBecauseOfTimeoutsIsNotPartial() throws {
        let seed: UInt64 = 23
        var c = oneAssetWorld()
        for cls in InfraNetworkClass.allCases {
            c.infra.networks[cls] = NetworkProfile(rttSeconds: .constant(value: 0.05), downlinkBitsPerSecond: .constant(value: 80_000),
                                                   failureProbability: 0, stallProbability: 0, sharedCapacityBitsPerSecond: 0)
        }
        c.preloadPolicy.requestTimeoutSeconds = 2
        let r = try simulate(c, seed: seed)
        XCTAssertEqual(r.outcomes.total, r.pushesTargeted, "seed \(seed)")
        XCTAssertEqual(r.value("extension.assetsStored"), 0, "seed \(seed)")
        XCTAssertEqual(r.outcomes.partial, 0, "nothing was stored, so no push is partial (seed \(seed))")
        XCTAssertGreaterThan(r.value("outcomes.fetchTimedOutShare"), 0.3, "seed \(seed)")
        XCTAssertGreaterThan(r.value("extension.timeoutShare"), 0.3, "seed \(seed)")
    }

    /// LRU evictions for space and removals of expired entries are two metrics: a store far too
    /// small for two campaigns evicts for space; a 60 s asset lifetime with a second campaign an
    /// hour later removes expired entries and evicts nothing for space.
    func testEvictionsSplitByReason() throws {
        let seed: UInt64 = 7
        var c = oneAssetWorld()
        var second = CampaignConfig()
        second.name = "second"
        second.sendStartSeconds = 1_800
        second.assets = [AssetConfig(name: "other")]
        c.campaigns.append(second)
        c.preloadPolicy.storeCapacityBytes = 60_000
        let small = try simulate(c, seed: seed)
        XCTAssertGreaterThan(small.value("storage.evictedForSpace"), 0, "seed \(seed)")
        XCTAssertEqual(small.value("storage.expiredRemoved"), 0, "seed \(seed)")
        c.preloadPolicy.storeCapacityBytes = 50_000_000
        c.campaigns[0].ttlSeconds = 60
        c.campaigns[0].cacheControl = CacheControlConfig(maxAgeSeconds: 60, staleWhileRevalidateSeconds: 0)
        let expiring = try simulate(c, seed: seed)
        XCTAssertEqual(expiring.value("storage.evictedForSpace"), 0, "seed \(seed)")
        XCTAssertGreaterThan(expiring.value("storage.expiredRemoved"), 0, "seed \(seed)")
    }

    /// A creative swap 1 s before the send with a 5 s purge: for a few seconds the PoPs (warmed
    /// with the old creative) still serve it. Those pre-stages are counted, and a 150 ms purge
    /// serves far fewer.
    func testSlowPurgeServesTheSupersededCreative() throws {
        let seed: UInt64 = 23
        var c = oneAssetWorld(devices: 2_000)
        c.campaigns[0].warm = WarmConfig(mode: .allPops, aheadSeconds: 300)
        c.campaigns[0].creativeSwap = CreativeSwapConfig(secondsBeforeSend: 1, rewarmDelaySeconds: 6)
        c.infra.purgePropagationSeconds = .constant(value: 5)
        let slow = try simulate(c, seed: seed)
        c.infra.purgePropagationSeconds = .constant(value: 0.150)
        let fast = try simulate(c, seed: seed)
        XCTAssertGreaterThan(slow.value("creative.stalePrestages"), 0, "seed \(seed)")
        XCTAssertGreaterThan(slow.value("creative.stalePrestageShare"), fast.value("creative.stalePrestageShare"), "seed \(seed)")
        XCTAssertGreaterThanOrEqual(slow.value("creative.staleTaps"), fast.value("creative.staleTaps"), "seed \(seed)")
        XCTAssertLessThanOrEqual(slow.value("creative.stalePrestages"), slow.value("extension.assetsStored") + slow.value("extension.fetchesStarted"),
                                 "seed \(seed)")
    }
}
