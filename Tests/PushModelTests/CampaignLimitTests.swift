import Foundation
import XCTest
import PushModel

/// The campaign count and the campaign timing through PushModel's public API only.
final class CampaignLimitTests: XCTestCase {
    /// A world of `count` campaigns, each named and sent a second apart.
    func world(campaigns count: Int) -> PushWorldConfig {
        var w = PushWorldConfig()
        w.population.devices = 200
        w.horizonSeconds = 900
        w.campaigns = (0..<count).map { i in
            var c = CampaignConfig()
            c.name = "c\(i)"
            c.sendStartSeconds = 60 + Double(i)
            return c
        }
        return w
    }

    /// One bit per campaign in a device's 64-bit campaign set: the limit is that width.
    func testCampaignsMaxIsTheCampaignSetWidth() {
        XCTAssertEqual(PushWorldConfig.campaignsMax, UInt64.bitWidth)
    }

    /// A 65th campaign is refused, by the preflight and by a run, naming `campaigns`; 64 pass the
    /// preflight.
    func testSixtyFifthCampaignIsRefused() throws {
        let over = world(campaigns: PushWorldConfig.campaignsMax + 1)
        XCTAssertThrowsError(try over.preflight()) { error in
            XCTAssertEqual((error as? PushModelError)?.path, "campaigns", "\(error)")
            XCTAssertTrue("\(error)".contains("at most 64 campaigns"), "\(error)")
        }
        XCTAssertThrowsError(try PushSimulation.run(over, masterSeed: 1, replication: 0)) { error in
            XCTAssertEqual((error as? PushModelError)?.path, "campaigns", "\(error)")
        }
        XCTAssertNoThrow(try world(campaigns: PushWorldConfig.campaignsMax).preflight())
    }

    /// The effective rate is the smaller of the platform's rate and the provider's quota.
    func testEffectiveSendRate() {
        var c = CampaignConfig()
        c.sendRatePerMinute = 120_000
        c.providerQuotaPerMinute = 60_000
        XCTAssertEqual(c.timing.sendRatePerMinute, 60_000)
        XCTAssertEqual(c.timing.sendRatePerSecond, 1_000)
        c.providerQuotaPerMinute = 600_000
        XCTAssertEqual(c.timing.sendRatePerMinute, 120_000)
        // 1 000 devices × half the audience × 1 push at 2 000/s: half a second.
        c.audienceShare = 0.5
        c.sendStartSeconds = 10
        XCTAssertEqual(c.timing.sendEndSeconds(devices: 1_000, partsAfterFirst: 0), 10.25)
    }

    /// Warm, swap and re-warm instants in seconds and ticks.
    func testInstants() {
        var c = CampaignConfig()
        c.sendStartSeconds = 600
        c.warm = WarmConfig(mode: .allPops, aheadSeconds: 300)
        XCTAssertEqual(c.timing.warmSeconds, 300)
        XCTAssertEqual(c.timing.warmTicks, 300_000_000)
        XCTAssertNil(c.timing.swapSeconds)
        XCTAssertNil(c.timing.swapTicks)
        XCTAssertNil(c.timing.rewarmSeconds)
        c.creativeSwap = CreativeSwapConfig(secondsBeforeSend: 120, rewarmDelaySeconds: 5)
        XCTAssertEqual(c.timing.swapSeconds, 480)
        XCTAssertEqual(c.timing.swapTicks, 480_000_000)
        XCTAssertEqual(c.timing.rewarmSeconds, 485)
        XCTAssertEqual(c.timing.rewarmDelayTicks, 5_000_000)
        // Clamped at 0 (the scenario format refuses a lead beyond the send start).
        c.warm.aheadSeconds = 900
        XCTAssertEqual(c.timing.warmSeconds, 0)
        XCTAssertEqual(c.timing.warmTicks, 0)
        // No warming: nothing is re-warmed.
        c.warm.mode = .none
        XCTAssertNil(c.timing.rewarmSeconds)
    }
}
