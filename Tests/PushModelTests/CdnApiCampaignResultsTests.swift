import Foundation
import InfraModel
import XCTest
@testable import PushModel

/// The CDN API metrics per campaign (`campaign:NAME/cdnApi.…`): each campaign's own warm and
/// purge calls, so its counts add up to the pooled counts and the pooled longest and latest times
/// are the campaigns' largest.
final class CdnApiCampaignResultsTests: XCTestCase {
    /// Two one-asset campaigns on 8 PoPs, sent at 300 s and 900 s, each warmed 300 s ahead into
    /// every PoP and its creative swapped 10 s before the send, re-warmed 5 s after the swap.
    /// Akamai: no warm API (lookups at 100/s), removal 1–5 s; a failure share of 0.3 makes
    /// retries (and perhaps abandoned batches).
    static func twoCampaigns(failure: Double = 0.3) -> PushWorldConfig {
        var w = oneAssetWorld(devices: 1_000)
        w.campaigns[0].name = "a"
        w.campaigns[0].warm = WarmConfig(mode: .allPops, aheadSeconds: 300)
        w.campaigns[0].creativeSwap = CreativeSwapConfig(secondsBeforeSend: 10, rewarmDelaySeconds: 5)
        var b = w.campaigns[0]
        b.name = "b"
        b.sendStartSeconds = 900
        w.campaigns.append(b)
        var api = CdnApiConfig.standard(.akamai)
        api.failureProbability = failure
        api.retryBaseSeconds = 0.5
        w.infra.cdnApi = api
        return w
    }

    static let counts = ["cdnApi.purgeCalls", "cdnApi.purgeRequests", "cdnApi.purgeItems", "cdnApi.warmCalls", "cdnApi.warmItems",
                         "cdnApi.warmRequests", "cdnApi.failures", "cdnApi.retries", "cdnApi.batchesAbandoned"]

    func testPerCampaignFiguresAddUpToThePooledOnes() throws {
        let world = Self.twoCampaigns()
        var retries = 0.0
        for seed: UInt64 in [3, 4, 5, 6] {
            let r = try simulate(world, seed: seed)
            func v(_ c: String, _ m: String) -> Double { r.value(MetricTable.campaignMetricName(c, m)) }
            for m in Self.counts { XCTAssertEqual(v("a", m) + v("b", m), r.value(m), "\(m), seed \(seed)") }
            retries += r.value("cdnApi.retries")
            for m in ["cdnApi.purgeCompleteSeconds", "cdnApi.warmCompleteSeconds", "cdnApi.purgeAfterSendSeconds", "cdnApi.warmAfterSendSeconds"] {
                XCTAssertEqual(max(v("a", m), v("b", m)), r.value(m), "\(m), seed \(seed)")
            }
            for m in ["cdnApi.purgeBeforeSendSeconds", "cdnApi.warmBeforeSendSeconds"] {
                XCTAssertEqual(min(v("a", m), v("b", m)), r.value(m), "\(m), seed \(seed)")
            }
            for c in ["a", "b"] {
                // One purge and two warm calls (the warm and the re-warm) of one URL each; every
                // warm call is 8 lookups (one per PoP).
                XCTAssertEqual(v(c, "cdnApi.purgeCalls"), 1)
                XCTAssertEqual(v(c, "cdnApi.purgeItems"), 1)
                XCTAssertEqual(v(c, "cdnApi.warmCalls"), 2)
                XCTAssertEqual(v(c, "cdnApi.warmItems"), 2)
                XCTAssertEqual(v(c, "cdnApi.warmRequests"), 16)
                XCTAssertEqual(v(c, "cdnApi.purgeRequests"), v(c, "cdnApi.retries") + 1, "one batch and its retries (lookups never fail)")
                // The latest warm is the re-warm: called 5 s before the send, its 8th lookup 70 ms
                // later, so it lands 4.93 s before the send.
                XCTAssertEqual(v(c, "cdnApi.warmBeforeSendSeconds"), 4.93, accuracy: 1e-6, c)
                XCTAssertEqual(v(c, "cdnApi.warmAfterSendSeconds"), 0, c)
                // The purge, 10 s before the send, is after it or before it: one part is 0.
                XCTAssertEqual(min(v(c, "cdnApi.purgeAfterSendSeconds"), v(c, "cdnApi.purgeBeforeSendSeconds")), 0, c)
                if v(c, "cdnApi.batchesAbandoned") == 0 {
                    XCTAssertEqual(v(c, "cdnApi.purgeBeforeSendSeconds") - v(c, "cdnApi.purgeAfterSendSeconds"),
                                   10 - v(c, "cdnApi.purgeCompleteSeconds"), accuracy: 1e-6, "the same instant from both ends (\(c), seed \(seed))")
                }
            }
        }
        XCTAssertGreaterThan(retries, 0, "a failure share of 0.3 over 8 purges retries some")
    }

    /// The API serves calls in the order made, so each warm call is made at its instant: "a"'s
    /// re-warm at 295 s is not held behind "b"'s warm due at 600 s (made at the start, it took
    /// the warm slots first and "a"'s re-warm landed 300.15 s after "a"'s send). Each call's 8
    /// lookups at 100/s take 70 ms.
    func testAReWarmIsNotHeldBehindALaterCampaignsWarm() throws {
        let r = try simulate(Self.twoCampaigns(failure: 0), seed: 3)
        for c in ["a", "b"] {
            XCTAssertEqual(r.value(MetricTable.campaignMetricName(c, "cdnApi.warmCompleteSeconds")), 0.07, accuracy: 1e-6, c)
            XCTAssertEqual(r.value(MetricTable.campaignMetricName(c, "cdnApi.warmAfterSendSeconds")), 0, c)
        }
        XCTAssertEqual(r.value("cdnApi.warmCompleteSeconds"), 0.07, accuracy: 1e-6)
    }

    /// CloudFront's invalidation (≥ 60 s) ends ≥ 50 s after a send 10 s after the swap; the
    /// generic profile's 150 ms purge ends 9.85 s before it.
    func testPurgeAfterTheSendOnCloudFrontBeforeItOnGeneric() throws {
        var slow = Self.twoCampaigns(failure: 0)
        slow.infra.cdnApi = CdnApiConfig.standard(.cloudfront)
        slow.infra.cdnApi?.failureProbability = 0
        var fast = slow
        fast.infra.cdnApi = CdnApiConfig.standard(.generic)
        let s = try simulate(slow, seed: 3), f = try simulate(fast, seed: 3)
        XCTAssertGreaterThanOrEqual(s.value("cdnApi.purgeAfterSendSeconds"), 50)
        XCTAssertEqual(s.value("cdnApi.purgeBeforeSendSeconds"), 0)
        XCTAssertEqual(f.value("cdnApi.purgeBeforeSendSeconds"), 9.85, accuracy: 1e-6)
        XCTAssertEqual(f.value("cdnApi.purgeAfterSendSeconds"), 0)
        XCTAssertEqual(f.value(MetricTable.campaignMetricName("b", "cdnApi.purgeBeforeSendSeconds")), 9.85, accuracy: 1e-6)
    }

    /// Without a warm or a purge call there is no latest one, pooled or per campaign; the counts
    /// are still there (0).
    func testNoCallsNoLatest() throws {
        var w = Self.twoCampaigns(failure: 0)
        for i in w.campaigns.indices {
            w.campaigns[i].warm = WarmConfig(mode: .none)
            w.campaigns[i].creativeSwap = nil
        }
        let r = try simulate(w, seed: 3)
        XCTAssertEqual(r.value("cdnApi.warmCalls"), 0)
        XCTAssertEqual(r.value(MetricTable.campaignMetricName("a", "cdnApi.warmCalls")), 0)
        for m in ["cdnApi.purgeAfterSendSeconds", "cdnApi.warmBeforeSendSeconds"] {
            XCTAssertNil(r.metric(m), m)
            XCTAssertNil(r.metric(MetricTable.campaignMetricName("a", m)), m)
        }
        XCTAssertNil(r.metric(MetricTable.campaignMetricName("a", "cdnApi.purgeCompleteSeconds")))
    }
}
