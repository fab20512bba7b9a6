import InfraModel
import XCTest
@testable import PushModel

/// HTTP caching at the tiers: RFC 5861 stale-if-error.
final class HTTPCachingTests: XCTestCase {
    /// Every PoP holds a copy of the assets that expired before the send (warmed 240 s ahead,
    /// max-age 60 s, no stale-while-revalidate), and a small origin without shields or collapsing
    /// rejects most of the send's refetches (4 workers × 20 ms: ~200 requests/s, 16 queued,
    /// against ~2 000 devices × 2 assets within 0.2 s).
    func expiredCopiesOverloadedOrigin(staleIfErrorSeconds: Int64) -> PushWorldConfig {
        var c = smallWorld(devices: 2_000)
        c.infra.tiers.tieringEnabled = false
        c.infra.tiers.requestCollapsingEnabled = false
        c.infra.origin = OriginConfig(workers: 4, queueMax: 16)
        c.campaigns[0].warm = WarmConfig(mode: .allPops, aheadSeconds: 240)
        c.campaigns[0].cacheControl = CacheControlConfig(maxAgeSeconds: 60, staleWhileRevalidateSeconds: 0,
                                                         staleIfErrorSeconds: staleIfErrorSeconds)
        return c
    }

    func testStaleIfErrorServesExpiredCopiesInsteadOfOrigin503s() throws {
        let seed: UInt64 = 31
        let without = try simulate(expiredCopiesOverloadedOrigin(staleIfErrorSeconds: 0), seed: seed)
        let with = try simulate(expiredCopiesOverloadedOrigin(staleIfErrorSeconds: 3_600), seed: seed)
        // The premise: the origin rejects, and without stale-if-error devices get the 503s.
        XCTAssertGreaterThan(without.value("origin.rejected503"), 0, "seed \(seed)")
        XCTAssertGreaterThan(without.value("edge.errorResponses"), 0, "seed \(seed)")
        XCTAssertGreaterThan(with.value("origin.rejected503"), 0, "seed \(seed)")
        // The bound: each PoP's copy (warmed, never purged, never evicted: no background traffic
        // and 1 GB per PoP) is at most horizon = 3 600 s old < max-age + stale-if-error = 3 660 s,
        // so every failed upstream fetch finds it: no device gets an error from an asset fetch.
        // Token refreshes (max-age 0, no stale-if-error) come at taps ≥ 900 s after the send,
        // when the origin is idle, so they are not rejected.
        XCTAssertEqual(with.value("edge.errorResponses"), 0, "seed \(seed)")
        XCTAssertGreaterThan(with.value("edge.staleOnError"), 0, "seed \(seed)")
        XCTAssertGreaterThan(with.value("extension.fetchSuccessRatio"), without.value("extension.fetchSuccessRatio"), "seed \(seed)")
        XCTAssertEqual(with.value("shield.staleOnError"), 0, "no shields (seed \(seed))")
    }

    func testStaleIfErrorAtTheShield() throws {
        // With shields and only the shields warmed, the PoPs are cold: every device request
        // misses, the PoP asks its shield, whose copy expired, and the shield's refetch from the
        // overloaded origin is rejected. The shield's copy (same age bound as above) then answers
        // the PoP instead of the 503, so again no device gets an error.
        // The origin takes 2 s a request, so no refetch succeeds while the send's ~4 000 requests
        // arrive (0.2 s) and beyond the first 4 + 16 every one is rejected while the shields hold
        // only their expired copies: without stale-if-error devices certainly get errors. (With
        // the default 20 ms mean an early refetch can refresh a shield's copy before the
        // rejections, and whether any device then saw an error depended on the seed.)
        let seed: UInt64 = 32
        var c = expiredCopiesOverloadedOrigin(staleIfErrorSeconds: 3_600)
        c.infra.origin.serviceSeconds = .constant(value: 2)
        c.infra.tiers.tieringEnabled = true
        c.campaigns[0].warm = WarmConfig(mode: .shieldsOnly, aheadSeconds: 240)
        var off = c
        off.campaigns[0].cacheControl.staleIfErrorSeconds = 0
        let with = try simulate(c, seed: seed), without = try simulate(off, seed: seed)
        XCTAssertGreaterThan(without.value("edge.errorResponses"), 0, "seed \(seed)")
        XCTAssertGreaterThan(with.value("shield.staleOnError"), 0, "seed \(seed)")
        XCTAssertEqual(with.value("edge.errorResponses"), 0, "seed \(seed)")
        XCTAssertEqual(with.value("edge.staleOnError"), 0, "the PoPs hold no copy (seed \(seed))")
    }

    /// A short max-age over the hour: the PoPs' and shields' copies go stale again and again and
    /// are revalidated (stale-while-revalidate). With validators each revalidation of an
    /// unchanged creative is a 304 of `notModifiedBytes` instead of the body, and nothing else
    /// changes (a tier hop's time does not depend on the bytes): every metric but the upstream
    /// egress and the 304 counts is identical, and each 304 saves between (smallest body − 304
    /// size) and (largest body − 304 size) bytes.
    func testRevalidationBy304CutsUpstreamEgressOnly() throws {
        let seed: UInt64 = 33
        var c = smallWorld(devices: 2_000)
        c.campaigns[0].cacheControl = CacheControlConfig(maxAgeSeconds: 60, staleWhileRevalidateSeconds: 3_600)
        var off = c
        off.infra.origin.sendsValidators = false
        let with = try simulate(c, seed: seed), without = try simulate(off, seed: seed)
        // The upstream egress, its bandwidth figures (origin.*BitsPerSecond, shield.*BitsPerSecond) and the 304 counts.
        let upstream = Set(["bytes.originEgress", "bytes.shieldEgress", "origin.notModified", "shield.notModified"]
                           + MetricTable.BandwidthFigure.allCases.flatMap { [MetricTable.bandwidth(.origin, $0).rawValue, MetricTable.bandwidth(.shield, $0).rawValue] })
        XCTAssertEqual(with.metrics.filter { !upstream.contains($0.name) }, without.metrics.filter { !upstream.contains($0.name) },
                       "seed \(seed)")
        XCTAssertEqual(without.value("origin.notModified") + without.value("shield.notModified"), 0, "seed \(seed)")
        let notModifiedBytes = Double(c.infra.tiers.notModifiedBytes)
        // The assets, and the 512-byte signed-URL token document refreshed at late taps.
        let sizes = c.campaigns[0].assets.map { Double($0.bytes) } + [512]
        for (tier, count) in [("origin", "origin.notModified"), ("shield", "shield.notModified")] {
            let n = with.value(count)
            XCTAssertGreaterThan(n, 0, "\(tier) (seed \(seed))")
            let saved = without.value("bytes.\(tier)Egress") - with.value("bytes.\(tier)Egress")
            XCTAssertGreaterThanOrEqual(saved, n * (sizes.min()! - notModifiedBytes), "\(tier) (seed \(seed))")
            XCTAssertLessThanOrEqual(saved, n * (sizes.max()! - notModifiedBytes), "\(tier) (seed \(seed))")
        }
    }
}
