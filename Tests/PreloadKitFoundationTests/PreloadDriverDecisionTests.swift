import Foundation
import PreloadKit
@testable import PreloadKitFoundation
import XCTest

/// The real driver consults the policy's decision kind with the device inputs its caller passes
/// and the push's signed hint: skipped pushes send no request to the loopback server.
final class PreloadDriverDecisionTests: DriverFixtureTestCase {
    override var directoryPrefix: String { "preload-driver-decision" }

    func makeDriver(_ decision: PrestageDecisionKind) throws -> PreloadDriver {
        var policy = try testPolicy()
        policy.decision = decision
        let configuration = PreloadDriverConfiguration(policy: policy, storeDirectory: directory.appendingPathComponent("store"))
        let driver = try PreloadDriver(configuration: configuration)
        drivers.append(driver)
        return driver
    }

    func payload(_ name: String, openPercent: Int) throws -> (Data, String) {
        let url = server.url("/asset/fresh/\(name).png?bytes=5000")
        var p = inlinePayload(manifestID: name, assets: [(url, "image", 5000)])
        var preload = p["cdn_preload"] as! [String: Any]
        preload["open_pct"] = openPercent
        p["cdn_preload"] = preload
        return (try signedJSON(p), url)
    }

    func context(_ network: NetworkClass = .wifi, _ inputs: DeviceInputs = .unknown) -> DeviceContext {
        DeviceContext(handlerKind: .iOSServiceExtension, network: network, freeStorageBytes: 10_000_000_000, receiptJitterUniform: 0, inputs: inputs)
    }

    func testThresholdSkipsUnlikelyPushesAndLowPowerMode() async throws {
        let driver = try makeDriver(.threshold(openProbabilityMin: 0.5))
        let (unlikely, _) = try payload("unlikely", openPercent: 30)
        let skipped = try await driver.run(payload: unlikely, context: context())
        XCTAssertEqual(skipped.fetches.count, 0)
        XCTAssertTrue(skipped.log.contains(.assetSkipped(assetIndex: 0, .decision(.belowThreshold(hint: 0.3, min: 0.5)))), "\(skipped.log)")
        XCTAssertEqual(skipped.delivery.readyAssets, 0)
        _ = try await driver.finished()

        let (likely, likelyURL) = try payload("likely", openPercent: 80)
        let lowPower = try await driver.run(payload: likely, context: context(.wifi, DeviceInputs(batteryLevel: 0.9, lowPowerMode: true)))
        XCTAssertEqual(lowPower.fetches.count, 0)
        XCTAssertTrue(lowPower.log.contains(.assetSkipped(assetIndex: 0, .decision(.lowPowerMode))))
        _ = try await driver.finished()
        let none = try await server.requests()
        XCTAssertEqual(none.count, 0, "nothing reached the server")

        let fetched = try await driver.run(payload: likely, context: context(.wifi, DeviceInputs(batteryLevel: 0.9, isCharging: true, lowPowerMode: true)))
        XCTAssertEqual(fetched.fetches.count, 1)
        XCTAssertEqual(fetched.delivery.readyAssets, 1)
        _ = try await driver.finished()
        let log = try await server.requests()
        XCTAssertEqual(log.count, 1)
        XCTAssertTrue(likelyURL.hasSuffix(log[0].path))
    }

    /// `budgeted` on cellular with room for one asset a day: the driver carries the ledger, so the
    /// second push is refused by the data budget.
    func testBudgetedCarriesTheLedgerAcrossPushes() async throws {
        var b = BudgetedPolicy()
        b.dailyDataBytes = 8_000
        b.initialDataWeightSecondsPerMegabyte = 1e-6
        b.initialEnergyWeightSecondsPerJoule = 1e-6
        b.controllerGain = 0
        let driver = try makeDriver(.budgeted(b))
        let (first, _) = try payload("first", openPercent: 90)
        let one = try await driver.run(payload: first, context: context(.cellular4G))
        XCTAssertEqual(one.fetches.count, 1)
        _ = try await driver.finished()
        let afterFirst = await driver.ledger
        XCTAssertEqual(afterFirst.spentDataBytes, 5_000)

        let (second, _) = try payload("second", openPercent: 90)
        let two = try await driver.run(payload: second, context: context(.cellular4G))
        XCTAssertEqual(two.fetches.count, 0)
        XCTAssertTrue(two.log.contains(.assetSkipped(assetIndex: 0, .decision(.dataBudgetExhausted(spentBytes: 5_000, budgetBytes: 8_000)))), "\(two.log)")
        _ = try await driver.finished()
        let log = try await server.requests()
        XCTAssertEqual(log.count, 1)

        // A caller-persisted ledger wins over the driver's (a fresh extension process): spent 0.
        let (third, _) = try payload("third", openPercent: 90)
        var fresh = context(.cellular4G)
        fresh.ledger = PrestageLedger(dayIndex: afterFirst.dayIndex, spentDataBytes: 0, spentEnergyJoules: 0,
                                      dataWeightSecondsPerMegabyte: 1e-6, energyWeightSecondsPerJoule: 1e-6)
        let three = try await driver.run(payload: third, context: fresh)
        XCTAssertEqual(three.fetches.count, 1)
        _ = try await driver.finished()
    }

    /// The budget day at the device's local midnight through the real driver (Unix time): a
    /// ledger that spent 5 000 of 8 000 bytes today (UTC) refuses a 5 000-byte asset on a device
    /// reporting UTC, and fetches it on one whose zone puts it in another local day already.
    func testBudgetedDayFollowsTheReportedTimeZone() async throws {
        var b = BudgetedPolicy()
        b.dailyDataBytes = 8_000
        b.initialDataWeightSecondsPerMegabyte = 1e-6
        b.initialEnergyWeightSecondsPerJoule = 1e-6
        b.controllerGain = 0
        let driver = try makeDriver(.budgeted(b))
        let now = Date()
        let secondOfDay = Int(now.timeIntervalSince1970.rounded(.down)) % 86_400
        // An offset that moves the local clock across a midnight (into tomorrow, or back into
        // yesterday), within ±18 h, a minute clear of it.
        let offset: Int32 = secondOfDay >= 21_660 ? Int32(86_400 - secondOfDay + 60) : -Int32(secondOfDay + 60)
        let utcDay = b.dayIndex(Instant(microseconds: Int64(now.timeIntervalSince1970 * 1e6)))
        func spentContext(_ utcOffset: Int32) -> DeviceContext {
            var c = context(.cellular4G, DeviceInputs(utcOffsetSeconds: utcOffset))
            c.ledger = PrestageLedger(dayIndex: utcDay, spentDataBytes: 5_000, spentEnergyJoules: 0,
                                      dataWeightSecondsPerMegabyte: 1e-6, energyWeightSecondsPerJoule: 1e-6)
            return c
        }
        let (first, _) = try payload("utc", openPercent: 90)
        let refused = try await driver.run(payload: first, context: spentContext(0))
        XCTAssertEqual(refused.fetches.count, 0, "\(refused.log)")
        _ = try await driver.finished()
        let (second, _) = try payload("zoned", openPercent: 90)
        let fetched = try await driver.run(payload: second, context: spentContext(offset))
        XCTAssertEqual(fetched.fetches.count, 1, "offset \(offset) s: another local day, its budget unspent (\(fetched.log))")
        _ = try await driver.finished()
        let ledger = await driver.ledger
        XCTAssertNotEqual(ledger.dayIndex, utcDay)
        XCTAssertEqual(ledger.spentDataBytes, 5_000)
        // The helper reads a zone's offset (a fixed one: named zones need the system's tzdata).
        XCTAssertEqual(DeviceInputs.utcOffsetSeconds(of: TimeZone(secondsFromGMT: -18_000)!, at: now), -18_000)
    }
}
