import Foundation
import InfraModel
import XCTest
@testable import PushModel

/// What happens after a tap: foreground fetches kept in the store (a later push naming the same
/// URL paints from it), users who leave before the paint, and reads.
final class TapUserTests: XCTestCase {
    /// Two plain-alert campaigns (no pre-staging: the only way an asset reaches the store is a
    /// foreground fetch), the second naming the first's asset URLs, 2 h apart, 4 h horizon.
    func followUpWorld(devices: Int = 2_000) -> PushWorldConfig {
        var c = smallWorld(devices: devices)
        c.horizonSeconds = 14_400
        c.infra.metricsHorizonSeconds = 14_400
        c.campaigns[0].name = "story"
        c.campaigns[0].preStage = false
        var followUp = c.campaigns[0]
        followUp.name = "follow-up"
        followUp.sendStartSeconds = 7_500
        for i in followUp.assets.indices { followUp.assets[i].urlCampaign = "story" }
        c.campaigns.append(followUp)
        return c
    }

    /// Kept foreground fetches make the follow-up's taps paint from the store; not kept, no tap
    /// can (nothing is pre-staged). Expected instant taps with keeping: a follow-up tap is instant
    /// when the same device tapped the story (open probability ≈ 1/3, independent draws) before it
    /// and within the 4 h lifetime, so ≈ 1/3 · P(story tap first) of the follow-up taps, which
    /// are about half of all taps: with P(story tap first) ≥ 1/2 (the story is sent 2 h earlier,
    /// same delay law), the share is ≥ 1/12 ≈ 0.08 in expectation. Over ≈ 1 200 taps the count
    /// of instant taps has sd ≤ √(1200 · 0.08) ≈ 10 (≈ 0.008 as a share), so 0.04 is ≥ 4 sd
    /// below the expectation.
    func testKeptForegroundFetchesLetAFollowUpPaintInstantly() throws {
        let seed: UInt64 = 41
        var kept = followUpWorld()
        kept.users.foregroundFetchesKept = true
        var notKept = kept
        notKept.users.foregroundFetchesKept = false
        let on = try simulate(kept, seed: seed), off = try simulate(notKept, seed: seed)
        XCTAssertEqual(off.value("taps.instantShare"), 0, "nothing pre-staged, nothing kept (seed \(seed))")
        XCTAssertEqual(off.value("taps.foregroundKept"), 0, "seed \(seed)")
        XCTAssertGreaterThan(on.value("taps.foregroundKept"), 0, "seed \(seed)")
        XCTAssertGreaterThan(on.value("taps.instantShare"), 0.04, "seed \(seed)")
        XCTAssertEqual(on.value("taps.count"), off.value("taps.count"), "the same taps (seed \(seed))")
        XCTAssertLessThan(on.value("bytes.foreground"), off.value("bytes.foreground"), "instant taps fetch nothing (seed \(seed))")
        XCTAssertLessThan(try XCTUnwrap(on.tapToPaint.meanMicroseconds), try XCTUnwrap(off.tapToPaint.meanMicroseconds), "seed \(seed)")
    }

    /// An asset naming another campaign's URL must be that asset (same type and bytes): one URL
    /// is one CDN object.
    func testASharedURLWithOtherBytesIsRefused() {
        var c = followUpWorld(devices: 10)
        c.campaigns[1].assets[0].bytes += 1
        XCTAssertThrowsError(try PushSimulation.run(c, masterSeed: 1, replication: 0)) { error in
            XCTAssertTrue("\(error)".contains("campaigns[1].assets[0]"), "\(error)")
        }
    }

    /// A store too small for both campaigns' assets evicts (LRU) to keep what the follow-up's
    /// foreground fetch brought, and stays within its capacity (PreloadKit refuses an insert that
    /// does not fit; the invariant build checks usedBytes ≤ capacity on every insert).
    func testKeptForegroundFetchesEvictWithinCapacity() throws {
        let seed: UInt64 = 43
        var c = followUpWorld(devices: 1_000)
        for i in c.campaigns[1].assets.indices { c.campaigns[1].assets[i].urlCampaign = nil }  // two sets of URLs
        c.preloadPolicy.storeCapacityBytes = 60_000  // one campaign's 48 200 + 1 800 bytes fit, not two
        let r = try simulate(c, seed: seed)
        XCTAssertGreaterThan(r.value("taps.foregroundKept"), 0, "seed \(seed)")
        XCTAssertGreaterThan(r.value("storage.evictedForSpace"), 0, "seed \(seed)")
    }

    /// Abandonment only labels taps: tap-to-paint is the same histogram whatever the curve, and
    /// with common random numbers a curve above another (pointwise) abandons a superset of taps,
    /// so the counts are ordered exactly (no statistics needed); reads go the other way.
    func testAbandonmentFollowsTheCurveAndLeavesTapToPaintAlone() throws {
        let seed: UInt64 = 45
        var c = smallWorld(devices: 2_000)
        c.campaigns[0].preStage = false
        c.population.networkMix = NetworkMixConfig(wifi: 0, fiveG: 0, lte: 1, fourG: 0, threeG: 0, twoG: 0, slow2G: 0)
        var none = c
        none.users.abandonment = AbandonmentConfig(waitSeconds: [1], leftShare: [0])
        var impatient = c
        impatient.users.abandonment = AbandonmentConfig(waitSeconds: [1, 3], leftShare: [0.2, 0.9])
        let r0 = try simulate(none, seed: seed), r1 = try simulate(c, seed: seed), r2 = try simulate(impatient, seed: seed)
        XCTAssertEqual(r0.tapToPaint, r1.tapToPaint, "seed \(seed)")
        XCTAssertEqual(r1.tapToPaint, r2.tapToPaint, "seed \(seed)")
        XCTAssertEqual(r0.value("taps.abandoned"), r0.value("taps.paintFailed"), "nobody leaves a screen that paints (seed \(seed))")
        XCTAssertLessThan(r0.value("taps.abandoned"), r1.value("taps.abandoned"), "seed \(seed)")
        XCTAssertLessThan(r1.value("taps.abandoned"), r2.value("taps.abandoned"), "seed \(seed)")
        XCTAssertGreaterThan(r0.value("reads.perPush"), r1.value("reads.perPush"), "seed \(seed)")
        XCTAssertGreaterThan(r1.value("reads.perPush"), r2.value("reads.perPush"), "seed \(seed)")
        // Every tap is painted-and-stayed (read, probability 1) or abandoned, or still loading.
        XCTAssertEqual(r1.value("reads.count") + r1.value("taps.abandoned"), r1.value("taps.count"), accuracy: 0, "seed \(seed)")
    }

    /// Taps still loading when the run ends count as abandoned once their user has left: on
    /// slow-2G a 50 KB screen takes far longer than the 10 s left after the taps, and with every
    /// user gone by 0.5 s the abandoned taps exceed the painted plus failed ones (each of those is
    /// abandoned too, every paint taking over 0.5 s), the excess being the censored taps.
    func testTapsStillLoadingAtTheEndCountWhenTheirUserLeft() throws {
        let seed: UInt64 = 51
        var c = smallWorld(devices: 500)
        c.campaigns[0].preStage = false
        c.population.networkMix = NetworkMixConfig(wifi: 0, fiveG: 0, lte: 0, fourG: 0, threeG: 0, twoG: 0, slow2G: 1)
        c.users.tapDelaySeconds = .constant(value: 1)
        c.users.abandonment = AbandonmentConfig(waitSeconds: [0.5], leftShare: [1])
        c.horizonSeconds = 312
        c.infra.metricsHorizonSeconds = 312
        let r = try simulate(c, seed: seed)
        XCTAssertGreaterThan(r.value("taps.count"), 0, "seed \(seed)")
        XCTAssertEqual(r.value("reads.count"), 0, "seed \(seed)")
        XCTAssertGreaterThan(r.value("taps.abandoned"), Double(r.tapToPaint.count) + r.value("taps.paintFailed"), "seed \(seed)")
        XCTAssertLessThanOrEqual(r.value("taps.abandoned"), r.value("taps.count"), "seed \(seed)")
    }

    /// Pre-staging lowers the abandoned share and raises reads per push (the same users, common
    /// random numbers; LTE so that foreground fetches take seconds).
    func testPreStagingKeepsTappersAndRaisesReads() throws {
        let seed: UInt64 = 47
        var on = smallWorld(devices: 2_000)
        on.population.networkMix = NetworkMixConfig(wifi: 0, fiveG: 0, lte: 1, fourG: 0, threeG: 0, twoG: 0, slow2G: 0)
        on.preloadPolicy.meteredSessionBytesMax = 2_000_000
        on.campaigns[0].warm = WarmConfig(mode: .allPops, aheadSeconds: 300)
        var off = on
        off.campaigns[0].preStage = false
        let a = try simulate(on, seed: seed), b = try simulate(off, seed: seed)
        XCTAssertLessThan(a.value("taps.abandonedShare"), b.value("taps.abandonedShare"), "seed \(seed)")
        XCTAssertGreaterThan(a.value("reads.perPush"), b.value("reads.perPush"), "seed \(seed)")
    }

    /// Reads given paint: with probability q each painted, kept tap is read, independently. With
    /// q = 0.5 and n kept taps the reads are Binomial(n, 0.5): within 5 sd (5 · √n / 2) of n / 2.
    func testReadProbabilityThinsReads() throws {
        let seed: UInt64 = 49
        var c = smallWorld(devices: 2_000)
        c.users.readProbability = 0.5
        let half = try simulate(c, seed: seed)
        c.users.readProbability = 1
        let all = try simulate(c, seed: seed)
        let n = all.value("reads.count")
        XCTAssertEqual(all.value("taps.abandoned"), half.value("taps.abandoned"), "the same tappers leave (seed \(seed))")
        XCTAssertEqual(half.value("reads.count"), n / 2, accuracy: 5 * n.squareRoot() / 2, "seed \(seed)")
        XCTAssertEqual(all.value("reads.perPush"), n / all.value("pushes.targeted"), "seed \(seed)")
    }
}
