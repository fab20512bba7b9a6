import XCTest
@testable import PushModel

/// FCM holds a normal-priority message for a device in Doze; a collapsible one held there is
/// replaced by a newer deferred one with its collapse key (`PushWorld+DozeCollapse.swift`).
final class DozeCollapseTests: XCTestCase {
    /// Every device Android and in deep Doze (idles of 1 h doubling to 6 h, each followed by a
    /// 300 s maintenance window; an 8 h horizon, so every device reaches a window); two
    /// collapsible normal-priority campaigns sent 60 s apart. A device escapes the collapse only
    /// when the first arrives inside a window (p ≤ 300 / 3 900) or a window opens between the two
    /// arrivals (p ≤ 60 / 3 900): p ≤ 0.093, so of n ≈ 200 devices the escapes are binomial with
    /// mean ≤ 18.5 and sd ≤ 4.1; at least 80 % collapsing leaves 5 sd of room. Otherwise the
    /// second replaces the first while Doze holds it.
    /// Two collapse keys: nothing collapses. Every push stays in one outcome and the Data API's
    /// categories partition the accepted messages.
    func testTheNewerDozeHeldMessageOfAKeyReplacesTheOlder() throws {
        var c = smallWorld(devices: 400)
        c.horizonSeconds = 8 * 3_600
        c.infra.metricsHorizonSeconds = 8 * 3_600
        c.population.iosShare = 0
        c.population.doze.awake = 0
        c.population.doze.lightDoze = 0
        c.population.doze.deepDoze = 1
        c.providers = ProvidersConfig()
        c.campaigns[0].androidPriority = .normal
        c.campaigns[0].collapsible = true
        var second = c.campaigns[0]
        second.name = "second"
        second.sendStartSeconds = c.campaigns[0].sendStartSeconds + 60
        c.campaigns.append(second)
        XCTAssertTrue(DozeCollapseState(c).enabled)
        func check(_ r: ReplicationResult) {
            func v(_ s: String) -> Double { r.value("provider.fcm.dataApi." + s) }
            XCTAssertEqual(v("accepted"), v("delivered") + v("pending") + v("ttlExpired") + v("collapsed"))
            XCTAssertEqual(r.outcomes.total, r.pushesTargeted)
        }
        let one = try simulate(c, seed: 11)
        check(one)
        let devices = one.value("provider.fcm.dataApi.accepted") / 2
        XCTAssertGreaterThan(devices, 100)
        XCTAssertGreaterThanOrEqual(one.value("provider.fcm.dataApi.collapsed"), 0.8 * devices)
        XCTAssertLessThanOrEqual(one.value("provider.fcm.dataApi.collapsed"), devices)
        c.campaigns[0].collapseKey = "a"
        c.campaigns[1].collapseKey = "b"
        let two = try simulate(c, seed: 11)
        check(two)
        XCTAssertEqual(two.value("provider.fcm.dataApi.collapsed"), 0)
        XCTAssertEqual(PerDeviceStateBytes.dozeCollapse, 8)
    }

    /// Off: without a collapsible campaign, or without `providers`, nothing is kept.
    func testOffKeepsNothing() {
        var c = smallWorld(devices: 10)
        c.campaigns[0].androidPriority = .normal
        c.providers = ProvidersConfig()
        XCTAssertFalse(DozeCollapseState(c).enabled)
        XCTAssertTrue(DozeCollapseState(c).held.isEmpty)
        c.campaigns[0].collapsible = true
        c.providers = nil
        XCTAssertFalse(DozeCollapseState(c).enabled)
    }
}
