import Foundation
import XCTest
@testable import PrestageCLI
@testable import ScenarioFormat

/// live-score-updates uses what it promises: 120 collapsible updates 30 s apart through FCM under
/// two collapse keys (one a match), `validate` naming the burst, and a run whose throttle metrics
/// and per-match outcomes read as its notes say.
final class LiveScoreLibraryTests: XCTestCase {
    /// Match 1's update k (k = 1…60, key match-1) is sent at t_k = 600 + 30(k − 1) s, match 2's
    /// (k = 61…120, key match-2) at 2 385 + 30(k − 61) s. With burst 20 and one token every 180 s,
    /// update 24 (t = 1 290 s) is the first held, until 1 320 s. From then a held update is
    /// replaced by each next one of its key sent before it leaves, and a token is spent only when
    /// one leaves: updates 25 + 6(j − 1) … 30 + 6(j − 1) (j = 1…6) are held until 1 320 + 180 j s
    /// and the last of each six leaves then, 60 (match 1's last) at 2 400 s. Update 61 (2 385 s)
    /// has the other key, so it does not replace 60: it takes the next token and 61…67 are held
    /// until 2 580 s; then 68 + 6(i − 1) … 73 + 6(i − 1) (i = 1…8) until 2 580 + 180 i s, and
    /// 116…120 until 4 200 s. So 1 + 36 + 7 + 48 + 5 = 97 held, 30 + 6 + 40 + 4 = 80 replaced,
    /// the last (t = 4 155 s) leaving at 4 200 s.
    func testValidateNamesTheBurst() throws {
        let library = ScenarioLibrary(directories: [TestEnvironment.repositoryScenarios])
        let scenario = try ScenarioLoader.load("live-score-updates", library: library).scenario
        XCTAssertNotNil(scenario.world.providers)
        XCTAssertEqual(scenario.world.campaigns.reduce(0) { $0 + $1.pushesPerDevice }, 120)
        XCTAssertTrue(scenario.world.campaigns.allSatisfy(\.collapsible))
        XCTAssertEqual(scenario.world.campaigns.map(\.collapseKey), [String?](repeating: "match-1", count: 4) + [String?](repeating: "match-2", count: 4))
        let warnings = scenario.world.providerLimitWarnings()
        XCTAssertTrue(warnings.contains { $0.contains("FCM holds 97 of them") && $0.contains("80 replaced while held")
                && $0.contains("the last sent at t = 4 155 s leaves FCM at t = 4 200 s") }, "\(warnings)")
        XCTAssertTrue(scenario.notes.contains { $0.contains("prestage run live-score-updates") })
    }

    /// At 100 devices: every device's 97 held (9 700) and 80 replaced while held (8 000); the
    /// time held, added up, is 30 s for update 24, 180 s for each of match 1's six sixes (each
    /// from its first update's send to the last's release; a replaced one is held until
    /// replaced), 2 580 − 2 385 = 195 s for 61…67, and 165 s for each of the eight sixes after
    /// and for 116…120 (match 2 is 15 s later in the refill's phase), so the mean hold is
    /// (30 + 6 · 180 + 195 + 9 · 165) / 97 = 2 790 / 97 s. Delivered by FCM's burst: 23 updates
    /// at once and one of each of the 17 held groups after the throttle. Per match: score-4
    /// (updates 46…60) loses 46, 47 and 49…53, 55…59 (12 of 15, its last delivered); score-5
    /// (61…75) loses 61…66, 68…72, 74, 75 (13). With one key for both matches, 61 replaces 60
    /// instead: score-4 loses 13 and score-5 12, and the burst's totals are the same. The notes'
    /// variant with a burst of 200 holds none and emits no throttle metric (120 ≤ 200: no state kept).
    func testScaledRunHoldsWhatTheArithmeticSays() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        /// Campaign `campaign`'s notDelivered share in run `name`: FCM's collapsed-while-held only
        /// (Doze's replacements are deferredThenExpired; nothing is past the horizon at the send).
        func notDelivered(_ name: String, _ campaign: String) throws -> Double {
            let data = try Data(contentsOf: t.root.appendingPathComponent(name).appendingPathComponent("summary.json"))
            let json = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
            let campaigns = try XCTUnwrap(json["campaigns"] as? [[String: Any]])
            let c = try XCTUnwrap(campaigns.first { $0["name"] as? String == campaign }?["metrics"] as? [[String: Any]], campaign)
            return try XCTUnwrap(c.first { $0["name"] as? String == "outcomes.notDeliveredShare" }?["mean"] as? Double)
        }
        func metrics(_ extra: [String], _ name: String) throws -> [[String: Any]] {
            let out = t.root.appendingPathComponent(name).path
            XCTAssertEqual(t.run(["run", "live-score-updates", "--devices", "100", "--out", out] + extra), .ok, t.err.text)
            let data = try Data(contentsOf: URL(fileURLWithPath: out).appendingPathComponent("summary.json"))
            let json = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
            return try XCTUnwrap(json["metrics"] as? [[String: Any]])
        }
        let m = try metrics([], "live")
        func v(_ name: String) throws -> Double {
            try XCTUnwrap(m.first { $0["name"] as? String == name }?["mean"] as? Double, name)
        }
        XCTAssertEqual(try v("provider.fcm.collapsibleThrottled"), 9_700)
        XCTAssertEqual(try v("provider.fcm.collapsibleHeldMeanSeconds"), 2_790.0 / 97, accuracy: 1e-6)
        // The held ones FCM let go are delivered after the throttle unless Doze deferred them then.
        XCTAssertLessThanOrEqual(try v("provider.fcm.dataApi.delayedMessageThrottled"), 1_700)
        XCTAssertGreaterThan(try v("provider.fcm.dataApi.delayedMessageThrottled"), 0)
        XCTAssertEqual(try v("provider.fcm.dataApi.delivered"), try v("provider.fcm.dataApi.deliveredNoDelay")
                       + v("provider.fcm.dataApi.delayedDeviceDoze") + v("provider.fcm.dataApi.delayedMessageThrottled"))
        XCTAssertEqual(try notDelivered("live", "score-4"), 12.0 / 15, accuracy: 1e-9)
        XCTAssertEqual(try notDelivered("live", "score-5"), 13.0 / 15, accuracy: 1e-9)
        let oneKey = (4...7).flatMap { ["--set", "campaigns[\($0)].collapseKey=match-1"] }
        let one = try metrics(oneKey, "one-key")
        XCTAssertEqual(one.first { $0["name"] as? String == "provider.fcm.collapsibleThrottled" }?["mean"] as? Double, 9_700)
        XCTAssertEqual(try notDelivered("one-key", "score-4"), 13.0 / 15, accuracy: 1e-9, "match 2's first update replaces match 1's last")
        XCTAssertEqual(try notDelivered("one-key", "score-5"), 12.0 / 15, accuracy: 1e-9)
        XCTAssertEqual(try v("provider.fcm.collapsibleCollapsedWhileHeld"), 8_000)
        // The Data API's collapsed also counts updates a newer one replaced while Doze held them.
        XCTAssertGreaterThanOrEqual(try v("provider.fcm.dataApi.collapsed"), 8_000)
        XCTAssertEqual(try v("provider.fcm.dataApi.accepted"), 12_000)
        let wide = try metrics(["--set", "providers.fcm.collapsibleBurstMessages=200"], "wide")
        XCTAssertFalse(wide.contains { $0["name"] as? String == "provider.fcm.collapsibleThrottled" })
    }
}
