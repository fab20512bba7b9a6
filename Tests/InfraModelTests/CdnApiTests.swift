import XCTest
import SimKernel
import Stochastic
@testable import InfraModel

/// Purge and warm through CDN API profiles: pacing by the published limits, batching, the
/// "no warm API" lookups, failures and retries.
final class CdnApiTests: XCTestCase {
    /// A world of `pops` PoPs and one shield whose catalog has `objects` objects tagged with
    /// surrogate key 0 (or key i for object i with `keyPerObject`).
    private func world(_ profile: CdnApiProfile, objects: Int, pops: Int = 4, keyPerObject: Bool = false,
                       edit: (inout CdnApiConfig) -> Void = { _ in }) throws -> InfraWorld {
        var config = deterministicConfig(pops: pops, shields: 1, hopSeconds: 0.01, originSeconds: 0.1)
        var api = CdnApiConfig.standard(profile)
        api.failureProbability = 0
        edit(&api)
        config.cdnApi = api
        var catalog = ObjectCatalog()
        for i in 0..<objects { try catalog.add(bytes: 10_000, policy: CachePolicy(), surrogateKey: keyPerObject ? UInt32(i) : 0) }
        return try InfraWorld(config: config, catalog: catalog, masterSeed: 7)
    }

    private func seconds(_ ticks: Int64) -> Double { Double(ticks) / 1e6 }

    /// Cloudflare Enterprise: 3 000 URLs/s as a moving average, 500 URLs per request. A 15 000-URL
    /// purge is 30 requests; request k is accepted once the k × 500 URLs since the call average at
    /// most 3 000/s, at k × 500 / 3 000 s, so the last at 15 000 / 3 000 = 5 s and the purge ends
    /// (its last cache's effect) after that. A purge called at the same instant joins the average:
    /// its last at 30 000 / 3 000 = 10 s. A 1 500-URL purge's last request is at 0.5 s.
    func testCloudflareEnterprisePurgeIsPacedByItsUrlRate() throws {
        var w = try world(.cloudflareEnterprise, objects: 15_000)
        var k = Kernel()
        try w.purge(surrogateKey: 0, kernel: &k)
        let big = try XCTUnwrap(w.cdnApiLastPurge)
        XCTAssertEqual(w.cdnApiCounters?.purgeRequests, 30)
        XCTAssertEqual(w.cdnApiCounters?.purgeItems, 15_000)
        XCTAssertEqual(seconds(big.lastBatchTicks), 5, accuracy: 1e-6)
        XCTAssertGreaterThan(big.completeTicks, big.lastBatchTicks, "the last batch still propagates")
        try w.purge(surrogateKey: 0, kernel: &k)
        let next = try XCTUnwrap(w.cdnApiLastPurge)
        XCTAssertEqual(seconds(next.lastBatchTicks), 10, accuracy: 1e-6)

        var small = try world(.cloudflareEnterprise, objects: 1_500)
        var k2 = Kernel()
        try small.purge(surrogateKey: 0, kernel: &k2)
        let s = try XCTUnwrap(small.cdnApiLastPurge)
        XCTAssertEqual(seconds(s.lastBatchTicks), 1_500.0 / 3_000, accuracy: 1e-6)
        XCTAssertLessThan(s.completeTicks, big.completeTicks)
    }

    /// The target: a 15 000-URL purge on Cloudflare Enterprise is paced to ≥ 5 s (15 000 URLs at
    /// 3 000 URLs/s): its last request is accepted, and the purge ends, no earlier than 5 s after
    /// the call, and its requests are 1 / 6 s apart (500 / 3 000), none early.
    func testFifteenThousandUrlPurgeOnCloudflareEnterpriseIsPacedToFiveSeconds() throws {
        var w = try world(.cloudflareEnterprise, objects: 15_000)
        var k = Kernel()
        try w.purge(surrogateKey: 0, kernel: &k)
        let p = try XCTUnwrap(w.cdnApiLastPurge)
        XCTAssertGreaterThanOrEqual(p.lastBatchTicks, 5_000_000, "the 30th request")
        XCTAssertGreaterThanOrEqual(p.completeTicks, 5_000_000, "the purge's end")
        var limit = CdnItemLimit(CdnApiConfig.standard(.cloudflareEnterprise))
        limit.beginCall(at: 0)
        for k in 1...30 {
            let at = limit.earliest(500, from: 0)
            XCTAssertEqual(at, Int64((Double(k) * 1e6 / 6).rounded(.up)), "request \(k)")
            limit.take(500, at: at)
        }
    }

    /// The moving average is the account's: a call made while the URLs already counted are within
    /// their budget (15 000 from t = 0: until 5 s) joins it, one made after starts its own.
    func testCloudflareMovingAverageIsSharedByOverlappingCallsOnly() {
        var limit = CdnItemLimit(CdnApiConfig.standard(.cloudflareEnterprise))
        limit.beginCall(at: 0)
        for _ in 0..<30 { limit.take(500, at: limit.earliest(500, from: 0)) }
        limit.beginCall(at: 4_000_000)
        XCTAssertEqual(limit.earliest(500, from: 4_000_000), Int64((15_500 * 1e6 / 3_000).rounded(.up)), "joins: 15 500 URLs since t = 0")
        limit.beginCall(at: 20_000_000)
        XCTAssertEqual(limit.earliest(500, from: 20_000_000), 20_000_000 + Int64((500 * 1e6 / 3_000).rounded(.up)), "a new average at 20 s")
        // Akamai's token bucket is as before: 10 000 URLs at once from the full bucket.
        var akamai = CdnItemLimit(CdnApiConfig.standard(.akamai))
        akamai.beginCall(at: 0)
        XCTAssertEqual(akamai.earliest(10_000, from: 0), 0)
    }

    /// Rates as small as the reader accepts (10⁻³⁰⁰ per second) hold the purge past any horizon
    /// without overflowing the clock, for the moving average and the token buckets alike.
    func testTinyRatesDoNotOverflowTheClock() throws {
        var average = try world(.cloudflareEnterprise, objects: 5_000) { $0.purgeItemsPerSecond = 1e-300 }
        var buckets = try world(.akamai, objects: 5_000) {
            $0.purgeItemsPerSecond = 1e-300
            $0.purgeRequestsPerSecond = 1e-300
            $0.purgeRequestBurst = 1
            $0.purgeItemsPerRequest = 100
            $0.purgeItemsBurst = 100
        }
        var k = Kernel()
        try average.purge(surrogateKey: 0, kernel: &k)
        try buckets.purge(surrogateKey: 0, kernel: &k)
        XCTAssertGreaterThan(try XCTUnwrap(average.cdnApiLastPurge).lastBatchTicks, Int64(1) << 59)
        XCTAssertGreaterThan(try XCTUnwrap(buckets.cdnApiLastPurge).lastBatchTicks, Int64(1) << 59)
    }

    /// Akamai: 200 URLs/s (12 000/min), a bucket of 10 000 that starts full. 15 000 URLs: the last
    /// batch at (15 000 − 10 000) / 200 = 25 s; with the bucket spent, the next 15 000 take
    /// 15 000 / 200 = 75 s more.
    func testAkamaiPurgeIsPacedByTwelveThousandUrlsAMinute() throws {
        var w = try world(.akamai, objects: 15_000)
        var k = Kernel()
        try w.purge(surrogateKey: 0, kernel: &k)
        XCTAssertEqual(seconds(w.cdnApiLastPurge!.lastBatchTicks), 25, accuracy: 1e-5)
        try w.purge(surrogateKey: 0, kernel: &k)
        XCTAssertGreaterThanOrEqual(seconds(w.cdnApiLastPurge!.lastBatchTicks), 25 + 75 - 1e-5)
        XCTAssertEqual(w.cdnApiCounters?.purgeRequests, 60, "500 URLs per request")
        // Propagation: within about 5 s of acceptance (uniform 1–5 s).
        let p = w.cdnApiLastPurge!
        XCTAssertLessThanOrEqual(seconds(p.completeTicks - p.lastBatchTicks), 5 + 1e-6)
        XCTAssertGreaterThanOrEqual(seconds(p.completeTicks - p.lastBatchTicks), 1 - 1e-6)
    }

    /// Fastly purges by key, 256 keys per request: n keys take ceil(n / 256) requests.
    func testFastlyBatchesTwoHundredFiftySixKeysPerRequest() throws {
        for n in [1, 255, 256, 257, 1_000] {
            var w = try world(.fastly, objects: n, keyPerObject: true)
            var k = Kernel()
            try w.purge(surrogateKeys: (0..<n).map { UInt32($0) }, kernel: &k)
            XCTAssertEqual(w.cdnApiCounters?.purgeRequests, (n + 255) / 256, "\(n) keys")
            XCTAssertEqual(w.cdnApiCounters?.purgeItems, n)
        }
    }

    /// CloudFront: 3 000 paths in progress per distribution. 6 000 URLs are two invalidations of
    /// 3 000; the second waits until the first has reached every cache (60–300 s).
    func testCloudFrontWaitsForTheInvalidationInProgress() throws {
        var w = try world(.cloudfront, objects: 6_000)
        var k = Kernel()
        try w.purge(surrogateKey: 0, kernel: &k)
        let p = try XCTUnwrap(w.cdnApiLastPurge)
        XCTAssertEqual(w.cdnApiCounters?.purgeRequests, 2)
        XCTAssertGreaterThanOrEqual(seconds(p.lastBatchTicks), 60)
        XCTAssertLessThanOrEqual(seconds(p.lastBatchTicks), 300)
        XCTAssertGreaterThanOrEqual(seconds(p.completeTicks), 120, "two invalidations one after the other")
    }

    /// A purged key stops hitting once its purge reached the PoP, and not before: with CloudFront's
    /// 60–300 s invalidation a request 30 s after the call still hits, one 301 s after misses.
    func testPurgeTakesEffectAfterTheProfilesPropagation() throws {
        var w = try world(.cloudfront, objects: 1, pops: 1)
        var k = Kernel()
        try w.warm(objects: [0], at: .zero, target: .allPops, kernel: &k)
        var d = Driver(world: w)
        try k.schedule(at: .seconds(10), kind: PurgeDriver.purgeKind, target: 0, payload: 0)
        try d.add(request(object: 0, entity: 1), at: .seconds(40), kernel: &k)
        try d.add(request(object: 0, entity: 2), at: .seconds(311), kernel: &k)
        var p = PurgeDriver(inner: d)
        _ = try k.run(&p)
        d = p.inner
        XCTAssertEqual(d.results[d.resultOfRequest[0]].outcome, .edgeFreshHit)
        XCTAssertNotEqual(d.results[d.resultOfRequest[1]].outcome, .edgeFreshHit)
        XCTAssertEqual(d.world.cdnApiCounters?.warmRequests, 1, "no warm API: one lookup")
        assertConservation(d.world)
    }

    /// Without a warm API (Fastly), a warm of 3 objects into 4 PoPs is 12 lookups sent at
    /// `warmRequestsPerSecond` (100/s: the last at 0.11 s), each missing and fetching through the
    /// shield (3 shield fetches from the origin, 9 collapsed or shield hits), no propagation
    /// draw; with a warm API (Cloudflare Enterprise) one batch, no lookups counted per cache.
    func testNoWarmApiWarmsByLookupsThroughTheShield() throws {
        var w = try world(.fastly, objects: 3, keyPerObject: true)
        var k = Kernel()
        try w.warm(objects: [0, 1, 2], at: .seconds(1), target: .allPops, kernel: &k)
        XCTAssertEqual(w.cdnApiCounters?.warmRequests, 12)
        XCTAssertEqual(seconds(w.cdnApiLastWarmTicks!), 11.0 / 100, accuracy: 1e-5)
        var d = Driver(world: w)
        _ = try k.run(&d)
        let edge = d.world.tierCounters(.edge), shield = d.world.tierCounters(.shield)
        XCTAssertEqual(edge.warmRequests, 12)
        XCTAssertEqual(edge.upstreamFetches, 12, "every PoP lookup misses and fetches through the shield")
        XCTAssertEqual(shield.requests, 12)
        XCTAssertEqual(d.world.originCounters.requests, 3, "the shield fetches each object once")
        assertConservation(d.world)

        var api = try world(.cloudflareEnterprise, objects: 3, keyPerObject: true)
        var k2 = Kernel()
        try api.warm(objects: [0, 1, 2], at: .seconds(1), target: .allPops, kernel: &k2)
        XCTAssertEqual(api.cdnApiCounters?.warmRequests, 1, "one prefetch request of 3 URLs")
    }

    /// Failures are retried with exponential backoff: with p = 0.5 and 20 attempts, about half the
    /// requests fail (each attempt independently), and every failure but the abandoned batches'
    /// last is followed by a retry. Batches never abandoned here: P(20 failures) = 2^-20 per batch.
    func testFailuresAreRetriedWithBackoff() throws {
        var w = try world(.cloudflareEnterprise, objects: 50_000) {
            $0.failureProbability = 0.5
            $0.attemptsMax = 20
            $0.retryBaseSeconds = 0.1
        }
        var k = Kernel()
        try w.purge(surrogateKey: 0, kernel: &k)
        let c = try XCTUnwrap(w.cdnApiCounters)
        XCTAssertEqual(c.batchesAbandoned, 0)
        XCTAssertEqual(c.purgeRequests, 100 + c.retries, "100 batches, each retry one request more")
        XCTAssertEqual(c.failures, c.retries)
        // Requests until success are geometric(1/2): mean 2 per batch, sd √2 each; over 100
        // batches the total is 200 ± 3.3 × √200 ≈ 47 (a 99.9 % normal bound).
        XCTAssertEqual(Double(c.purgeRequests), 200, accuracy: 47)
        // Backoff only delays: the last batch is later than without failures (50 000 / 3 000 s).
        XCTAssertGreaterThan(seconds(w.cdnApiLastPurge!.lastBatchTicks), 49_500.0 / 3_000)
    }

    /// The same world and seed give the same API draws (determinism).
    func testSameSeedSameResult() throws {
        func run() throws -> (CdnApiCounters, Int64) {
            var w = try world(.akamai, objects: 2_000) { $0.failureProbability = 0.3 }
            var k = Kernel()
            try w.purge(surrogateKey: 0, kernel: &k)
            return (w.cdnApiCounters!, w.cdnApiLastPurge!.completeTicks)
        }
        let a = try run(), b = try run()
        XCTAssertEqual(a.0, b.0)
        XCTAssertEqual(a.1, b.1)
    }
}
