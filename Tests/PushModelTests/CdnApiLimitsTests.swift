import Foundation
import InfraModel
import XCTest
@testable import PushModel

/// The CDN API limits `validate` lists (`cdnApiLimitWarnings`): each profile's figures, derived
/// here from the profile's own numbers, and the campaign plans that make them bind.
final class CdnApiLimitsTests: XCTestCase {
    private func purge(_ p: CdnApiProfile, items: Int, lead: Double = 3_600) -> [String] {
        CdnApiConfig.standard(p).purgeWarnings(campaign: "sale", items: items, secondsBeforeSend: lead)
    }

    /// Cloudflare Enterprise: 15 000 URLs are 30 requests of 500; URLs are limited as a moving
    /// average of 3 000/s since the call, so the last is accepted at 15 000 / 3 000 = 5 s, and the
    /// call spends 5 s of the URL budget (Instant Purge's propagation has no positive floor): the
    /// target, paced to ≥ 5 s, in validate's text.
    func testCloudflareEnterprisePurgeOfFifteenThousandUrls() {
        let b = CdnApiConfig.standard(.cloudflareEnterprise).purgeBounds(items: 15_000)
        XCTAssertEqual(b.requests, 30)
        XCTAssertEqual(b.lastAcceptedSeconds, 5, accuracy: 1e-9)
        XCTAssertEqual(b.budgetSeconds, 5, accuracy: 1e-9)
        XCTAssertGreaterThanOrEqual(b.completeSeconds, 5)
        XCTAssertEqual(purge(.cloudflareEnterprise, items: 15_000), [
            "warning: campaign sale's creative-swap purge of 15 000 URLs on cloudflareEnterprise (3 000 URLs/s (180 000/min) as a moving average, "
                + "50 requests/s, 500 URLs per request) takes ≥ 5.00 s: its last of 30 requests is accepted ≥ 5.00 s after the call and the call spends 5.00 s of the URL budget.",
        ])
        XCTAssertEqual(purge(.cloudflareEnterprise, items: 500), [], "one request: nothing to pace")
        XCTAssertEqual(purge(.cloudflareEnterprise, items: 500, lead: 0.1).count, 1, "its 0.17 s (500 / 3 000) against a 0.1 s lead")
    }

    /// The smallest URL rate the reader accepts gives a wait beyond any clock: stated, not a trap.
    func testATinyUrlRateIsStatedNotATrap() {
        var api = CdnApiConfig.standard(.cloudflareEnterprise)
        api.purgeItemsPerSecond = 1e-300
        let lines = api.purgeWarnings(campaign: "sale", items: 2, secondsBeforeSend: 3)
        XCTAssertEqual(lines.count, 1)
        XCTAssertTrue(lines[0].contains("≥ 2e+300 s after the call"), lines[0])
    }

    /// Akamai: 200 URLs/s = 12 000/min, a bucket of 10 000: 15 000 URLs' last batch at
    /// (15 000 − 10 000) / 200 = 25 s, spending 75 s of the budget; removal takes ≥ 1 s more.
    /// A swap 3 s before the send may lose to Akamai's 1–5 s removal.
    func testAkamaiTwelveThousandUrlsAMinute() {
        let lines = purge(.akamai, items: 15_000)
        XCTAssertEqual(lines.count, 1, "\(lines)")
        XCTAssertTrue(lines[0].contains("200 URLs/s (12 000/min), 50 requests/s, 500 URLs per request) takes ≥ 26.0 s"), lines[0])
        XCTAssertTrue(lines[0].contains("its last of 30 requests is accepted ≥ 25.0 s after the call and the call spends 75.0 s of the URL budget"), lines[0])
        XCTAssertEqual(purge(.akamai, items: 10_000), [], "the full bucket takes 10 000 at once")
        XCTAssertEqual(purge(.akamai, items: 2, lead: 3), [
            "warning: campaign sale's creative-swap purge of 2 URLs on akamai may reach the last cache after the send: propagation 1.00–5.00 s "
                + "against a swap 3.00 s before the send (creative.stalePrestages).",
        ])
    }

    /// Cloudflare below Enterprise: 100 URLs per request, 10 requests/s with a burst of 50: 15 000
    /// URLs are 150 requests, the last at (150 − 50) / 10 = 10 s (the URL rate alone would allow
    /// (15 000 − 100) / 1 500 = 9.93 s).
    func testCloudflareRequestRateBinds() {
        let b = CdnApiConfig.standard(.cloudflare).purgeBounds(items: 15_000)
        XCTAssertEqual(b.requests, 150)
        XCTAssertEqual(b.lastAcceptedSeconds, 10, accuracy: 1e-9)
        XCTAssertTrue(purge(.cloudflare, items: 15_000)[0].contains("takes ≥ 10.0 s: its last of 150 requests"))
    }

    /// Fastly purges by key, 256 per request, 100 requests/s with a burst of 100: 25 600 keys
    /// (100 requests) fit the burst; 30 000 keys are 118 requests, the last at 18 / 100 = 0.18 s.
    func testFastlyKeysPerRequest() {
        XCTAssertEqual(purge(.fastly, items: 25_600), [])
        let lines = purge(.fastly, items: 30_000)
        XCTAssertEqual(lines.count, 1)
        XCTAssertTrue(lines[0].contains("purge of 30 000 keys on fastly (no key rate limit, 100 requests/s, 256 keys per request)"), lines[0])
        XCTAssertTrue(lines[0].contains("its last of 118 requests is accepted ≥ 0.18 s after the call"), lines[0])
    }

    /// CloudFront: 3 000 paths in progress per distribution, each invalidation ≥ 60 s: 15 000 URLs
    /// are ≥ 5 invalidations one after the other, ≥ 15 000 × 60 / 3 000 = 300 s; one request a
    /// second (3 000 paths each) puts the 5th at ≥ 4 s. Even 1 URL takes ≥ 60 s: a swap 10 s
    /// before the send leaves ≥ 50 s of the send with the old creative.
    func testCloudFrontInvalidationsInProgress() {
        let lines = purge(.cloudfront, items: 15_000, lead: 600)
        XCTAssertEqual(lines.count, 2, "\(lines)")
        XCTAssertTrue(lines[0].contains("takes ≥ 300.0 s: its last of 5 requests is accepted ≥ 4.00 s after the call"), lines[0])
        XCTAssertEqual(lines[1], "warning: campaign sale's creative-swap purge of 15 000 URLs on cloudfront exceeds its 3 000 URLs in progress at once: "
                       + "it runs as ≥ 5 invalidations one after the other (each 60.0–300.0 s), ≥ 300.0 s.")
        XCTAssertEqual(purge(.cloudfront, items: 1, lead: 10), [
            "warning: campaign sale's creative-swap purge of 1 URL on cloudfront reaches every cache ≥ 60.0 s after the call (propagation 60.0–300.0 s), "
                + "but the swap is 10.0 s before the send: the send starts ≥ 50.0 s before the old creative is gone (creative.stalePrestages).",
        ])
    }

    /// The generic profile has no limits: nothing binds, whatever the size.
    func testGenericBindsNothing() {
        XCTAssertEqual(purge(.generic, items: 100_000, lead: 1), [])
    }

    /// A campaign world: one asset, warmed into every PoP (8) `ahead` seconds before the send,
    /// its creative swapped `swapLead` seconds before it.
    private func world(_ p: CdnApiProfile?, warm: WarmModeConfig = .allPops, ahead: Double = 300, swapLead: Double? = nil) -> PushWorldConfig {
        var c = oneAssetWorld(devices: 1_000)
        c.campaigns[0].warm = WarmConfig(mode: warm, aheadSeconds: ahead)
        if let s = swapLead { c.campaigns[0].creativeSwap = CreativeSwapConfig(secondsBeforeSend: s, rewarmDelaySeconds: 5) }
        c.infra.cdnApi = p.map { CdnApiConfig.standard($0) }
        return c
    }

    /// No warm API (Fastly): the warm is one lookup per PoP and object at 100/s: 8 PoPs × 1 object
    /// = 8 lookups, the last 7 / 100 = 0.07 s after the call; through the 2 shields, 2 lookups.
    /// Called 0.05 s ahead, the warm ends 0.02 s after the send.
    func testNoWarmApiIsLookups() {
        XCTAssertEqual(world(.fastly).cdnApiLimitWarnings(), [
            "warning: fastly has no pre-warm API: campaign campaign's warm is requests to each of 8 PoPs (8 lookups per warm call: 8 caches × 1 object, at 100/s), "
                + "the last sent ≥ 0.07 s after the call.",
        ])
        XCTAssertEqual(world(.fastly, warm: .shieldsOnly).cdnApiLimitWarnings(), [
            "warning: fastly has no pre-warm API: campaign campaign's warm is requests through the 2 shields (2 lookups per warm call: 2 caches × 1 object, at 100/s), "
                + "the last sent ≥ 0.01 s after the call.",
        ])
        let late = world(.cloudfront, ahead: 0.05).cdnApiLimitWarnings()
        XCTAssertEqual(late.count, 1)
        XCTAssertTrue(late[0].hasSuffix("the last sent ≥ 0.07 s after the call. campaign campaign's warm called 0.05 s before its send ends ≥ 0.02 s after it."), late[0])
    }

    /// A creative swap on CloudFront: the 1-URL invalidation (≥ 60 s) cannot finish in the 10 s
    /// before the send; the warm and the re-warm are lookups (2 warm calls).
    func testCampaignSwapOnCloudFront() {
        let lines = world(.cloudfront, swapLead: 10).cdnApiLimitWarnings()
        XCTAssertEqual(lines.count, 2, "\(lines)")
        XCTAssertTrue(lines[0].contains("campaign campaign's creative-swap purge of 1 URL on cloudfront reaches every cache ≥ 60.0 s after the call"), lines[0])
        XCTAssertTrue(lines[1].contains("cloudfront has no pre-warm API") && lines[1].contains("(2 warm calls)"), lines[1])
    }

    /// Nothing binds on Cloudflare Enterprise for a one-object campaign (one prefetch request, an
    /// Instant Purge), on the generic profile, or without a profile.
    func testQuietPlans() {
        XCTAssertEqual(world(.cloudflareEnterprise, swapLead: 3).cdnApiLimitWarnings(), [])
        XCTAssertEqual(world(.generic, swapLead: 3).cdnApiLimitWarnings(), [])
        XCTAssertEqual(world(nil, swapLead: 3).cdnApiLimitWarnings(), [])
    }

    /// Campaigns share the one warm pace: on 280 PoPs a one-object warm is 280 lookups at 100/s
    /// (2.79 s). "a" warms at 0 for its send at 300 s; "b" at 0 for its send at 3 s, fine alone
    /// (2.79 ≤ 3) but queued behind "a": its lookups start at 2.80 s and end at 5.59 s, 2.59 s
    /// after its send. The run's figure is the same (`cdnApi.warmAfterSendSeconds` of "b").
    func testWarmsQueueBehindOtherCampaignsOnTheOneWarmPace() throws {
        var w = world(.fastly)
        w.infra.topology = TopologyConfig(popCount: 280, shieldCount: 8)
        w.campaigns[0].name = "a"
        var b = w.campaigns[0]
        b.name = "b"
        b.sendStartSeconds = 3
        b.warm = WarmConfig(mode: .allPops, aheadSeconds: 3)
        w.campaigns.append(b)
        let lines = w.cdnApiLimitWarnings()
        XCTAssertEqual(lines.last, "warning: campaign b's warm called at t = 0.00 s waits ≥ 2.80 s behind earlier warm calls on fastly's one warm pace "
                       + "(100/s, shared by every campaign): it ends ≥ 2.59 s after its send.")
        XCTAssertEqual(lines.count, 3, "each campaign's lookups, then the queueing: \(lines)")
        let r = try simulate(w, seed: 3)
        XCTAssertEqual(r.value(MetricTable.campaignMetricName("b", "cdnApi.warmAfterSendSeconds")), 2.59, accuracy: 1e-6)
        XCTAssertEqual(r.value(MetricTable.campaignMetricName("a", "cdnApi.warmBeforeSendSeconds")), 300 - 2.79, accuracy: 1e-6)
    }

    /// A prefetch API binds when a warm call needs more than one request: 3 URLs at 1 per request
    /// and 50 requests/s are 3 requests, the last ≥ 2 / 50 = 0.04 s after the call.
    func testPrefetchApiBatches() {
        var api = CdnApiConfig.standard(.cloudflareEnterprise)
        api.warmItemsPerRequest = 1
        let line = api.warmWarning(campaign: "sale", objects: 3, targets: 8, target: .allPops, calls: [(0, 600)])
        XCTAssertEqual(line, "warning: campaign sale's warm of 3 URLs on cloudflareEnterprise's prefetch API (1 URLs per request, 50 requests/s) "
                       + "is 3 requests per warm call, the last accepted ≥ 0.04 s after the call.")
    }
}
