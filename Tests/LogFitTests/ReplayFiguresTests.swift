import XCTest
@testable import LogFit

/// The logged figures the replay compares: cut at the send, counted within a window after it.
final class ReplayFiguresTests: XCTestCase {
    func testEdgeCountsFromTheSendLeaveOutTheTrafficBeforeIt() {
        var e = EdgeAccumulator(timeoutSeconds: nil, sendSeconds: 1000)
        // Before the send: 2 hits, 2 misses, a 503. From it (1000 included): 3 hits, 1 miss, an error with 503.
        for (t, c, s) in [(10.0, CacheResult.hit, 200), (20, .miss, 200), (30, .miss, 200), (40, .hit, 200), (50, .error, 503),
                          (1000, .hit, 200), (1001, .hit, 200), (1002, .miss, 200), (1003, .hit, 200), (1004, .error, 503)] {
            e.add(EdgeRecord(timeSeconds: t, pop: "FRA", cache: c, status: s))
        }
        XCTAssertEqual([e.hitsFromSend, e.missesFromSend, e.originRequestsFromSend, e.origin503FromSend], [3, 1, 2, 1])
        let fits = LogFitter.fitEdge(e, level: 0.95, sendTime: 1000)
        XCTAssertEqual(fits.hitRatioFromSend?.successes, 3)
        XCTAssertEqual(fits.hitRatioFromSend?.trials, 4)
        XCTAssertEqual(fits.hitRatio?.trials, 8, "the whole log is still reported")
        XCTAssertEqual(fits.origin503ShareFromSend.map { [$0.successes, $0.trials] }, [1, 2])
        XCTAssertNil(LogFitter.fitEdge(EdgeAccumulator(timeoutSeconds: nil), level: 0.95, sendTime: nil).hitRatioFromSend,
                     "no send time, no cut")
    }

    func testPushSharesWithinAWindowOfTheSend() {
        var p = PushAccumulator()
        // Sent at 0: delivered at 1 and opened at 100; delivered at 2, opened at 5000; delivered at 3, never opened;
        // delivered at 4000 (after a 3000 s window), never opened; never delivered.
        let pushes: [(Double?, Double?)] = [(1, 100), (2, 5000), (3, nil), (4000, nil), (nil, nil)]
        for (d, o) in pushes { p.add(PushRecord(sentSeconds: 0, deliveredSeconds: d, openedSeconds: o, platform: "iOS", network: nil)) }
        let fits = LogFitter.fitPush(p, level: 0.95, bootstrap: 0)
        let all = try! XCTUnwrap(fits.platform("all"))
        XCTAssertEqual(all.deliveredWithin(3000, level: 0.95).map { [$0.successes, $0.trials] }, [3, 5])
        XCTAssertEqual(all.openedWithin(3000, level: 0.95).map { [$0.successes, $0.trials] }, [1, 3],
                       "of the pushes delivered within the window (the one delivered at 4000 s could not be opened in it)")
        XCTAssertEqual(all.openedWithin(6000, level: 0.95).map { [$0.successes, $0.trials] }, [2, 4])
        XCTAssertNil(all.openedWithin(0.5, level: 0.95), "nothing delivered within half a second")
    }

    /// Push analytics are read first (their first send cuts the edge log), yet problems are listed edge logs first.
    func testProblemsKeepTheOrderTheFilesWereGiven() throws {
        var request = FitRequest(logs: [Samples.path("cloudfront.log")], format: .cloudfront)
        request.pushLogs = [Samples.path("pushes.csv")]
        let outcome = try LogFitter.run(request)
        XCTAssertEqual(outcome.problems.quoted.count, 3)
        XCTAssertTrue(outcome.problems.quoted[0].contains("cloudfront.log:104"), outcome.problems.quoted[0])
        XCTAssertTrue(outcome.problems.quoted[2].contains("pushes.csv:303"), outcome.problems.quoted[2])
        XCTAssertEqual(outcome.edge?.hitRatioFromSend.map { [$0.successes, $0.trials] }, [313, 329])
    }
}
