import Foundation
import InfraModel
import SimKernel
import XCTest
@testable import PushModel

/// A campaign sent at a local time swaps its creative before each of its waves, each swap timed
/// from that wave's own start, not once from `sendStartSeconds`.
final class CampaignCalendarSwapTests: XCTestCase {
    /// Three regions at UTC+1, UTC and UTC−5, one PoP each, the UTC clock at 07:30 at t = 0: a
    /// campaign at 09:00 local sends waves at 1 800 s, 5 400 s and 23 400 s (as in
    /// `CampaignCalendarWarmTests`), warmed 300 s before each, its creative swapped `lead` seconds
    /// before each wave and re-warmed 7 s after the purge. `sendStartSeconds` is 0.
    func swapWorld(lead: Double, devices: Int = 1_500) -> PushWorldConfig {
        var c = oneAssetWorld(devices: devices)
        placeInThreeTimeZones(&c, clockAtStartSeconds: 7.5 * 3_600)
        c.campaigns[0].sendAtLocalSeconds = 9 * 3_600
        c.campaigns[0].sendStartSeconds = 0
        c.campaigns[0].sendRatePerMinute = 600_000
        c.campaigns[0].providerQuotaPerMinute = 600_000
        c.campaigns[0].warm = WarmConfig(mode: .allPops, aheadSeconds: 300)
        c.campaigns[0].creativeSwap = CreativeSwapConfig(secondsBeforeSend: lead, rewarmDelaySeconds: 7)
        return c
    }

    /// The swaps happen `lead` before each wave and each re-warm 7 s after its swap, in the run's
    /// events, in what `validate` computes and in `campaigns.creativeSwaps` (one per wave).
    func testASwapBeforeEachWave() throws {
        let c = swapWorld(lead: 60)
        let ticks: (Double) -> Int64 = { SimDuration.seconds($0).ticks }
        XCTAssertEqual(CalendarRules.swapCallSeconds(c, campaign: 0).map(\.call), [1_740, 5_340, 23_340])
        XCTAssertEqual(CalendarRules.swapCallSeconds(c, campaign: 0).map(\.send), [1_800, 5_400, 23_400])
        struct Sink: EventTraceSink {
            var swaps: [Int64] = [], rewarms: [Int64] = []
            mutating func record(_ event: Event) {
                guard PushEventKind.range.contains(event.kind.rawValue), let e = PushEvent(event) else { return }
                switch e {
                case .creativeSwap: swaps.append(event.time.ticks)
                case .rewarm: rewarms.append(event.time.ticks)
                default: break
                }
            }
        }
        var sink = Sink()
        let r = try PushSimulation.run(c, masterSeed: 3, replication: 0, trace: &sink)
        XCTAssertEqual(sink.swaps, [1_740, 5_340, 23_340].map(ticks))
        XCTAssertEqual(sink.rewarms, [1_747, 5_347, 23_347].map(ticks))
        XCTAssertEqual(r.value("campaigns.creativeSwaps"), 3)
    }

    /// A purge that takes 120 s to reach the caches, made 60 s before each wave: each wave's
    /// pre-stages in the 60 s after its own send get the copy its swap superseded (warmed 300 s
    /// before the wave), so most pre-stages of every wave are stale. (With one swap timed from
    /// `sendStartSeconds` = 0, its purge is long done before the first wave's warm and no
    /// pre-stage is stale.) Made 300 s before each wave, the purge is done 180 s before the send:
    /// every wave's pre-stages get the new creative.
    func testEachWaveGetsTheCreativeOfItsOwnSwap() throws {
        var late = swapWorld(lead: 60)
        late.infra.purgePropagationSeconds = .constant(value: 120)
        let r = try simulate(late, seed: 3)
        let stale = try XCTUnwrap(r.value("creative.stalePrestages"))
        let share = try XCTUnwrap(r.value("creative.stalePrestageShare"))
        XCTAssertGreaterThan(stale, 500)
        // The three waves carry 1/3 of the devices each (equal region weights): a stale share
        // above 2/3 needs stale pre-stages in at least two waves, so in a wave after the first.
        XCTAssertGreaterThan(share, 2.0 / 3.0, "stale \(stale), share \(share)")

        var early = late
        early.campaigns[0].creativeSwap = CreativeSwapConfig(secondsBeforeSend: 300, rewarmDelaySeconds: 7)
        let e = try simulate(early, seed: 3)
        XCTAssertEqual(e.value("creative.stalePrestages"), 0)
        XCTAssertEqual(e.value("campaigns.creativeSwaps"), 3)
    }

    /// Through a CDN API profile (CloudFront, no warm API), `validate` counts a warm call before
    /// each wave and a re-warm after each wave's swap (6 for three waves), and the run makes a
    /// purge call per wave and those 6 warm calls.
    func testAPurgeAndReWarmPerWaveThroughTheCdnApi() throws {
        var c = swapWorld(lead: 60, devices: 300)
        c.infra.cdnApi = CdnApiConfig.standard(.cloudfront)
        let lines = c.cdnApiLimitWarnings()
        XCTAssertTrue(lines.contains { $0.contains("no pre-warm API") && $0.contains("(6 warm calls)") }, "\(lines)")
        let r = try simulate(c, seed: 3)
        XCTAssertEqual(r.value("cdnApi.purgeCalls"), 3)
        XCTAssertEqual(r.value("cdnApi.warmCalls"), 6)
    }
}
