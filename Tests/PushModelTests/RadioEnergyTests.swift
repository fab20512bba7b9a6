import Foundation
import InfraModel
import SimKernel
import XCTest
@testable import PushModel

/// The radio energy model against its closed form (docs/metrics.md, "Radio energy"), on one
/// device with constant timings: every duration of a fetch is known exactly (constant RTT and
/// downlink, no edge processing, a warmed CDN so every request is an edge hit, no loss or
/// failure), so the joules the simulator reports must be the formula's. The ±2 % allowance only
/// absorbs the microsecond rounding of durations and the per-charge rounding to 1 µJ; the
/// formula is computed independently of the simulator's code path from the parameter set.
final class RadioEnergyTests: XCTestCase {
    /// One device on `network`, Android (its FCM handler pre-stages at once), never opening (no
    /// foreground fetch), one campaign per entry of `sends` (seconds), each with one critical
    /// asset of `bytes`.
    func radioWorld(_ network: InfraNetworkClass, bytes: Int64, downlinkBitsPerSecond: Double, rttSeconds: Double,
                    sends: [Double]) -> PushWorldConfig {
        var c = smallWorld(devices: 1)
        c.population.iosShare = 0
        c.population.doze.awake = 1
        c.population.doze.lightDoze = 0
        c.population.doze.deepDoze = 0
        c.population.standbyBuckets = StandbyBucketSharesConfig()
        c.population.standbyBuckets.active = 1
        c.population.standbyBuckets.workingSet = 0
        c.population.standbyBuckets.frequent = 0
        c.population.standbyBuckets.rare = 0
        c.population.standbyBuckets.restricted = 0
        c.population.lowDataModeShare = 0
        c.population.saveDataShare = 0
        c.population.freeStorageBytes = .constant(value: 8e9)
        var weights = [Double](repeating: 0, count: InfraNetworkClass.count)
        weights[Int(network.rawValue)] = 1
        c.population.networkMix = NetworkMixConfig(wifi: weights[0], fiveG: weights[1], lte: weights[2], fourG: weights[3],
                                                   threeG: weights[4], twoG: weights[5], slow2G: weights[6])
        c.infra.networks[network] = NetworkProfile(rttSeconds: .constant(value: rttSeconds), downlinkBitsPerSecond: .constant(value: downlinkBitsPerSecond),
                                                   failureProbability: 0, stallProbability: 0, sharedCapacityBitsPerSecond: 0)
        c.infra.tiers.edgeProcessingSeconds = .constant(value: 0)
        c.infra.placeholder.enabled = false
        c.users.segments[0].iosOpenProbability = 0
        c.users.segments[0].androidOpenProbability = 0
        c.preloadPolicy.meteredSessionBytesMax = 1 << 30
        c.preloadPolicy.largeAssetThresholdBytes = 1 << 30
        c.campaigns = sends.enumerated().map { i, t in
            var campaign = CampaignConfig()
            campaign.name = "c\(i)"
            campaign.sendStartSeconds = t
            campaign.deliveryLatencySeconds = .constant(value: 0.1)
            campaign.assets = [AssetConfig(name: "a\(i)", type: .image, priority: .critical, bytes: bytes)]
            campaign.warm = WarmConfig(mode: .allPops, aheadSeconds: 120)
            return campaign
        }
        c.energy.enabled = true
        return c
    }

    /// Push arrivals and fetch replies (seconds), in order.
    struct Times: EventTraceSink {
        var arrivals: [Double] = []
        var replies: [Double] = []
        mutating func record(_ event: Event) {
            switch PushEvent(event) {
            case .pushArrive?: arrivals.append(event.time.seconds)
            case .fetchReply?: replies.append(event.time.seconds)
            default: break
            }
        }
    }

    func run(_ c: PushWorldConfig, seed: UInt64 = 1) throws -> (ReplicationResult, Times) {
        var times = Times()
        let r = try PushSimulation.run(c, masterSeed: seed, replication: 0, trace: &times)
        XCTAssertEqual(r.outcomes.completed, UInt64(c.campaigns.count), "every push pre-staged its asset")
        XCTAssertEqual(times.arrivals.count, c.campaigns.count)
        XCTAssertEqual(times.replies.count, c.campaigns.count)
        return (r, times)
    }

    /// The parameter set's closed form.
    struct Formula {
        let p: RadioProfile
        /// Seconds a fetch of `bytes` lasts: the promotion when the radio was idle, the connection
        /// set-up round trips, the request's own round trip (no edge processing), the transfer.
        func duration(bytes: Double, rtt: Double, setupRoundTrips: Int, promoted: Bool, downlink: Double) -> Double {
            (promoted ? p.promotionSeconds : 0) + Double(setupRoundTrips + 1) * rtt + bytes * 8 / downlink
        }
        var wholeTail: Double { p.tailWatts * p.tailSeconds + p.secondTailWatts * p.secondTailSeconds }
        var tailLength: Double { p.tailSeconds + p.secondTailSeconds }
        /// Tail joules spent in the first `g` seconds.
        func tail(_ g: Double) -> Double {
            p.tailWatts * min(g, p.tailSeconds) + p.secondTailWatts * min(max(0, g - p.tailSeconds), p.secondTailSeconds)
        }
        /// A fetch's joules up to its last byte: promotion (if idle), base power, throughput term.
        func connected(duration d: Double, bytes: Double, promoted: Bool) -> Double {
            (promoted ? p.promotionWatts * p.promotionSeconds : 0) + p.activeWatts * (d - (promoted ? p.promotionSeconds : 0))
                + p.downlinkWattsPerMbps * bytes * 8 / 1e6
        }
    }

    /// One fetch from an idle radio: promotion + base · (D − T_pro) + αd · Mbit + whole tail, and
    /// the first byte waits for the promotion (reply − arrival = D, promotion included).
    func checkOneFetch(_ network: InfraNetworkClass, bytes: Int64, downlink: Double, rtt: Double) throws {
        let c = radioWorld(network, bytes: bytes, downlinkBitsPerSecond: downlink, rttSeconds: rtt, sends: [300])
        let (r, times) = try run(c)
        let f = Formula(p: c.energy[c.energy.kind(of: network)])
        let b = r.value("bytes.background")
        XCTAssertGreaterThanOrEqual(b, Double(bytes))
        let setup = c.infra.connectionSetup.dnsRoundTrips + c.infra.connectionSetup.tcpRoundTrips + c.infra.connectionSetup.tlsRoundTrips
        let d = f.duration(bytes: b, rtt: rtt, setupRoundTrips: setup, promoted: true, downlink: downlink)
        XCTAssertEqual(times.replies[0] - times.arrivals[0], d, accuracy: 0.001, "\(network): the fetch lasts its closed form, promotion included")
        let expected = f.connected(duration: d, bytes: b, promoted: true) + f.wholeTail
        let joules = r.value("energy.joules")
        XCTAssertEqual(joules, expected, accuracy: 0.02 * expected, "\(network), \(bytes) B: simulator \(joules) J, closed form \(expected) J")
        XCTAssertEqual(r.value("energy.\(network.description).joules"), joules, accuracy: 1e-9)
        XCTAssertEqual(r.value("energy.promotions"), 1)
        XCTAssertEqual(r.value("energy.background.tailJoulesPerPush"), f.wholeTail, accuracy: 0.02 * f.wholeTail)
        // The push is never opened: all of its energy is spent on a push never opened.
        XCTAssertEqual(r.value("energy.neverOpenedShare"), 1, accuracy: 1e-12)
        XCTAssertEqual(r.value("energy.foreground.joulesPerPush"), 0)
    }

    /// Two fetches whose pushes arrive 5 s apart: the second opens g = 5 − D₁ after the first
    /// ended. Within the tail it pays no promotion and cuts the first's tail to g; past the whole
    /// tail (Wi-Fi's 0.25 s) the radio went idle and both fetches are isolated.
    func checkTwoFetches(_ network: InfraNetworkClass, bytes: Int64, downlink: Double, rtt: Double) throws {
        let c = radioWorld(network, bytes: bytes, downlinkBitsPerSecond: downlink, rttSeconds: rtt, sends: [300, 305])
        let (r, times) = try run(c)
        let f = Formula(p: c.energy[c.energy.kind(of: network)])
        let b = r.value("bytes.background") / 2
        let setup = c.infra.connectionSetup.dnsRoundTrips + c.infra.connectionSetup.tcpRoundTrips + c.infra.connectionSetup.tlsRoundTrips
        XCTAssertEqual(times.arrivals[1] - times.arrivals[0], 5, accuracy: 1e-6)
        let d1 = f.duration(bytes: b, rtt: rtt, setupRoundTrips: setup, promoted: true, downlink: downlink)
        let g = times.arrivals[1] - (times.arrivals[0] + d1)
        let withinTail = g < f.tailLength
        let d2 = f.duration(bytes: b, rtt: rtt, setupRoundTrips: setup, promoted: !withinTail, downlink: downlink)
        XCTAssertEqual(times.replies[0] - times.arrivals[0], d1, accuracy: 0.001)
        XCTAssertEqual(times.replies[1] - times.arrivals[1], d2, accuracy: 0.001)
        let expected = f.connected(duration: d1, bytes: b, promoted: true) + (withinTail ? f.tail(g) : f.wholeTail)
            + f.connected(duration: d2, bytes: b, promoted: !withinTail) + f.wholeTail
        let joules = r.value("energy.joules")
        XCTAssertEqual(joules, expected, accuracy: 0.02 * expected, "\(network), two fetches 5 s apart (gap \(g) s): simulator \(joules) J, closed form \(expected) J")
        XCTAssertEqual(r.value("energy.promotions"), withinTail ? 1 : 2)
    }

    // LTE (Huang et al.): a small fetch, two 5 s apart (one promotion, the first tail cut to
    // ≈ 4.4 s), a 5 MB fetch at 10 Mbit/s (4 s of transfer, 40 Mbit of throughput term).
    func testLTESmallFetchFromIdle() throws { try checkOneFetch(.lte, bytes: 20_000, downlink: 12e6, rtt: 0.07) }
    func testLTETwoSmallFetchesFiveSecondsApart() throws { try checkTwoFetches(.lte, bytes: 20_000, downlink: 12e6, rtt: 0.07) }
    func testLTEFiveMegabytesAtTenMbps() throws { try checkOneFetch(.lte, bytes: 5_000_000, downlink: 10e6, rtt: 0.07) }

    // Wi-Fi: no promotion, a 0.25 s tail: two fetches 5 s apart are two isolated fetches.
    func testWiFiSmallFetch() throws { try checkOneFetch(.wifi, bytes: 20_000, downlink: 20e6, rtt: 0.028) }
    func testWiFiTwoSmallFetchesFiveSecondsApart() throws { try checkTwoFetches(.wifi, bytes: 20_000, downlink: 20e6, rtt: 0.028) }
    func testWiFiFiveMegabytesAtTenMbps() throws { try checkOneFetch(.wifi, bytes: 5_000_000, downlink: 10e6, rtt: 0.028) }

    // 3G (i997): 2 s promotion; the second fetch lands in the DCH stage of the first's tail.
    func testThreeGSmallFetchFromIdle() throws { try checkOneFetch(.threeG, bytes: 20_000, downlink: 1.6e6, rtt: 0.3) }
    func testThreeGTwoSmallFetchesFiveSecondsApart() throws { try checkTwoFetches(.threeG, bytes: 20_000, downlink: 1.6e6, rtt: 0.3) }
    func testThreeGFiveMegabytesAtTenMbps() throws { try checkOneFetch(.threeG, bytes: 5_000_000, downlink: 10e6, rtt: 0.3) }

    /// The figure: one isolated small fetch costs about 11 J of radio overhead on LTE
    /// (promotion 0.31 J + tail 10.6 J) and about 0.1 J on Wi-Fi (a 0.25 s tail at 0.403 W).
    func testOverheadOfAnIsolatedSmallFetchIsTheArticlesFigure() {
        let lte = RadioProfile.lte, wifi = RadioProfile.wifi
        XCTAssertEqual(lte.promotionWatts * lte.promotionSeconds + lte.tailWatts * lte.tailSeconds, 10.9, accuracy: 0.05)
        XCTAssertEqual(wifi.promotionWatts * wifi.promotionSeconds + wifi.tailWatts * wifi.tailSeconds, 0.1, accuracy: 0.001)
    }

    /// Energy off, the default: no energy metric and no per-device state. Energy on with the
    /// promotion costing energy only (`promotionDelaysFirstByte` false): the model only observes,
    /// so every other metric is the same as with it off (same seed, same draws).
    func testEnergyOffEmitsNothingAndObservingChangesNothing() throws {
        var off = smallWorld(devices: 1_500)
        off.population.networkChanges.switchesPerDay = 4
        let r0 = try simulate(off, seed: 11)
        XCTAssertFalse(r0.metrics.contains { $0.name.hasPrefix("energy.") })
        var observing = off
        observing.energy.enabled = true
        observing.energy.promotionDelaysFirstByte = false
        let r1 = try simulate(observing, seed: 11)
        XCTAssertGreaterThan(r1.value("energy.joules"), 0)
        let others = r1.metrics.filter { !$0.name.hasPrefix("energy.") }
        XCTAssertEqual(others, r0.metrics)
        XCTAssertEqual(r1.outcomes, r0.outcomes)
        // With the delay, taps from an idle radio wait for the promotion: tap to paint cannot get faster.
        var delaying = observing
        delaying.energy.promotionDelaysFirstByte = true
        let r2 = try simulate(delaying, seed: 11)
        XCTAssertGreaterThanOrEqual(r2.value("tapToPaint.p95Seconds"), r0.value("tapToPaint.p95Seconds"))
        XCTAssertEqual(r2.outcomes.total, r0.outcomes.total)
    }

    /// Every bucket adds up: background and foreground per push are the sums of their three
    /// parts, the network classes sum to the total, and never-opened energy is background energy.
    func testPartsSumToTheWhole() throws {
        var c = smallWorld(devices: 2_000)
        c.energy.enabled = true
        let r = try simulate(c, seed: 3)
        let pushes = r.value("pushes.targeted")
        for kind in ["background", "foreground"] {
            let parts = ["promotion", "transfer", "tail"].map { r.value("energy.\(kind).\($0)JoulesPerPush") }.reduce(0, +)
            XCTAssertEqual(parts, r.value("energy.\(kind).joulesPerPush"), accuracy: 1e-9, kind)
        }
        XCTAssertEqual((r.value("energy.background.joulesPerPush") + r.value("energy.foreground.joulesPerPush")) * pushes,
                       r.value("energy.joules"), accuracy: 1e-6 * r.value("energy.joules"))
        let byNetwork = MetricTable.networkNames.map { r.value("energy.\($0).joules") }.reduce(0, +)
        XCTAssertEqual(byNetwork, r.value("energy.joules"), accuracy: 1e-6 * r.value("energy.joules"))
        XCTAssertLessThanOrEqual(r.value("energy.neverOpenedJoules"), r.value("energy.background.joulesPerPush") * pushes * (1 + 1e-9))
        XCTAssertGreaterThan(r.value("energy.foreground.joulesPerPush"), 0)
        XCTAssertEqual(r.value("energy.batteryShare"), r.value("energy.joulesPerDevice") / (15 * 3_600), accuracy: 1e-12)
        for m in r.metrics where m.name.hasPrefix("energy.") { XCTAssertGreaterThanOrEqual(m.value, 0, m.name) }
    }
}
