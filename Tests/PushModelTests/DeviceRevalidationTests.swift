import InfraModel
import XCTest
@testable import PushModel

/// Validators on the device side: a stale store entry is revalidated with `If-None-Match` (its
/// `ETag` is the object version it was served with) and the PoP answers 304, headers only, when
/// the copy it serves has that version.
final class DeviceRevalidationTests: XCTestCase {
    /// One critical image (48 200 bytes) pre-staged at 300 s with max-age 600 s, then a follow-up
    /// push at 1 500 s naming the same URL (`urlCampaign`): its handler finds the entry stale
    /// (age ≈ 1 200 s > max-age, < the 4 h TTL within stale-while-revalidate), delivers it at
    /// once and revalidates it in the background. Networks never fail or stall (`oneAssetWorld`).
    func followUpRevalidation(devices: Int = 1_000) -> PushWorldConfig {
        var c = oneAssetWorld(devices: devices)
        c.campaigns[0].name = "story"
        c.campaigns[0].cacheControl = CacheControlConfig(maxAgeSeconds: 600, staleWhileRevalidateSeconds: 86_400)
        var followUp = c.campaigns[0]
        followUp.name = "follow-up"
        followUp.sendStartSeconds = 1_500
        followUp.assets[0].urlCampaign = "story"
        c.campaigns.append(followUp)
        return c
    }

    /// With validators every revalidation is answered 304: no purge, so every tier's copy has
    /// version 0, the version each device entry was stored with (its `ETag`); no request fails
    /// or stalls, and a 304 (one RTT of 50 ms plus edge processing) arrives well within the
    /// handler's budget, so each conditional request's answer reaches its session and refreshes
    /// the entry: `device.notModified` = `device.conditionalRequests` exactly. Without
    /// validators the entries have no `ETag`: the same revalidations are full 200 refetches
    /// (same sessions and draws: the validators change no decision before the follow-up), each
    /// completing (50 Mbit/s, no loss, no shared link) and stored again. So the background bytes
    /// differ by exactly (body − 304 headers) per revalidation, and the stores by the refreshes.
    func testRevalidationIsA304WhenThePoPCopyIsCurrent() throws {
        let seed: UInt64 = 51
        let c = followUpRevalidation()
        var off = c
        off.infra.origin.sendsValidators = false
        let with = try simulate(c, seed: seed), without = try simulate(off, seed: seed)
        let revalidations = with.value("device.conditionalRequests")
        XCTAssertGreaterThan(revalidations, 100, "the follow-up finds stale entries (seed \(seed))")
        XCTAssertEqual(with.value("device.notModified"), revalidations, "seed \(seed)")
        XCTAssertEqual(without.value("device.conditionalRequests"), 0, "seed \(seed)")
        XCTAssertEqual(without.value("device.notModified"), 0, "seed \(seed)")
        XCTAssertEqual(with.value("extension.fetchesStarted"), without.value("extension.fetchesStarted"), "seed \(seed)")
        XCTAssertEqual(without.value("extension.assetsStored"), with.value("extension.assetsStored") + revalidations, "seed \(seed)")
        let saved = Double(c.campaigns[0].assets[0].bytes - c.infra.tiers.notModifiedBytes)
        XCTAssertEqual(without.value("bytes.background") - with.value("bytes.background"), revalidations * saved, "seed \(seed)")
        XCTAssertEqual(without.value("bytes.cdnEgress") - with.value("bytes.cdnEgress"), revalidations * saved, "seed \(seed)")
    }

    /// No device revalidation, no device-side change: with the default max-age (4 h) the
    /// follow-up finds its entries fresh, so the two runs differ only where the tiers' own
    /// validators act (their upstream revalidations: 304 counts and upstream egress).
    func testNothingChangesWhenNothingRevalidates() throws {
        let seed: UInt64 = 52
        var c = followUpRevalidation(devices: 500)
        c.campaigns[0].cacheControl = CacheControlConfig()
        var off = c
        off.infra.origin.sendsValidators = false
        let with = try simulate(c, seed: seed), without = try simulate(off, seed: seed)
        XCTAssertEqual(with.value("device.conditionalRequests"), 0, "seed \(seed)")
        // The upstream egress, its bandwidth figures (origin.*BitsPerSecond, shield.*BitsPerSecond) and the 304 counts.
        let upstream = Set(["bytes.originEgress", "bytes.shieldEgress", "origin.notModified", "shield.notModified"]
                           + MetricTable.BandwidthFigure.allCases.flatMap { [MetricTable.bandwidth(.origin, $0).rawValue, MetricTable.bandwidth(.shield, $0).rawValue] })
        XCTAssertEqual(with.metrics.filter { !upstream.contains($0.name) }, without.metrics.filter { !upstream.contains($0.name) },
                       "seed \(seed)")
        XCTAssertEqual(with.tapToPaint, without.tapToPaint, "seed \(seed)")
    }
}
