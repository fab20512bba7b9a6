import Foundation
@testable import InfraModel
import XCTest
@testable import PushModel

/// The cost arithmetic on inputs built by hand, where each answer follows by hand.
final class CostArithmeticTests: XCTestCase {
    /// 1 000 devices × one 250 000-byte asset = 0.25 GB (GB = 10⁹ bytes) at 0.085 per GB, and
    /// 1 000 requests at 0.01 per 10 000: 0.02125 + 0.001.
    func testDevicesTimesAssetTimesPrice() {
        var a = ByteAttribution(campaigns: 1, regions: 1)
        for _ in 0..<1_000 {
            a.add(250_000, campaign: 0, region: 0, network: 0, part: .background)
            a.add(1, campaign: 0, region: 0, network: 0, part: .backgroundRequests)
        }
        var costs = CostsConfig()
        costs.cdn = [CdnPriceConfig(tiers: [PriceTierConfig(fromGB: 0, pricePerGB: 0.085)], pricePer10kRequests: 0.01)]
        let b = CostBreakdown.compute(costs, attribution: a, upstream: UpstreamBytes(objectCount: 0), objectCampaign: [],
                                      tierBytesPerSecond: [], tierBytes: 0, horizonSeconds: 3_600)
        XCTAssertEqual(b.run.prestage, 0.25 * 0.085 + 1_000 * 0.01 / 10_000, accuracy: 1e-12)
        XCTAssertEqual(b.run.requests, 0.001, accuracy: 1e-12)
        XCTAssertEqual(b.total, b.run.prestage, accuracy: 1e-12)
        XCTAssertEqual(b.campaigns[0].total, b.total, accuracy: 1e-12)
    }

    /// Tiers: 1.5 GB on [0 → 0.10, 1 GB → 0.05] is 1 × 0.10 + 0.5 × 0.05 = 0.125; a volume inside
    /// the first tier pays its price only; a region group without `regions` prices the rest.
    func testTiersRegionsNeverOpenedAndUsersCellular() {
        XCTAssertEqual(CostsConfig.tieredCost(gb: 1.5, tiers: [PriceTierConfig(fromGB: 0, pricePerGB: 0.10), PriceTierConfig(fromGB: 1, pricePerGB: 0.05)]),
                       0.125, accuracy: 1e-12)
        XCTAssertEqual(CostsConfig.tieredCost(gb: 0.5, tiers: [PriceTierConfig(fromGB: 0, pricePerGB: 0.10), PriceTierConfig(fromGB: 1, pricePerGB: 0.05)]),
                       0.05, accuracy: 1e-12)
        let wifi = Int(NetworkClass.wifi.rawValue), lte = Int(NetworkClass.lte.rawValue)
        var a = ByteAttribution(campaigns: 1, regions: 2)
        // Region 0, Wi-Fi: 1.5 GB pre-staged (0.5 GB of it never opened), 1 000 requests.
        a.add(1_500_000_000, campaign: 0, region: 0, network: wifi, part: .background)
        a.add(500_000_000, campaign: 0, region: 0, network: wifi, part: .neverOpened)
        a.add(1_000, campaign: 0, region: 0, network: wifi, part: .backgroundRequests)
        // Region 1, LTE: 0.25 GB foreground, 500 requests.
        a.add(250_000_000, campaign: 0, region: 1, network: lte, part: .foreground)
        a.add(500, campaign: 0, region: 1, network: lte, part: .foregroundRequests)
        var costs = CostsConfig()
        costs.cdn = [CdnPriceConfig(regions: [0], tiers: [PriceTierConfig(fromGB: 0, pricePerGB: 0.10), PriceTierConfig(fromGB: 1, pricePerGB: 0.05)],
                                    pricePer10kRequests: 0.01),
                     CdnPriceConfig(tiers: [PriceTierConfig(fromGB: 0, pricePerGB: 0.2)], pricePer10kRequests: 0.02)]
        costs.cellular = [CellularPriceConfig(pricePerGB: 4)]
        let b = CostBreakdown.compute(costs, attribution: a, upstream: UpstreamBytes(objectCount: 0), objectCampaign: [],
                                      tierBytesPerSecond: [], tierBytes: 0, horizonSeconds: 3_600)
        XCTAssertEqual(b.run.prestage, 0.125 + 0.001, accuracy: 1e-12)
        // A third of the group's bytes, and a third of the pre-stage requests.
        XCTAssertEqual(b.run.neverOpened, 0.125 / 3 + 0.001 / 3, accuracy: 1e-12)
        XCTAssertEqual(b.run.foreground, 0.25 * 0.2 + 500 * 0.02 / 10_000, accuracy: 1e-12)
        // Users pay only for the LTE bytes: 0.25 GB × 4.
        XCTAssertEqual(b.run.usersCellular, 1.0, accuracy: 1e-12)
        XCTAssertEqual(b.total, 0.126 + 0.051, accuracy: 1e-12)
    }

    /// Origin and shield egress per object, warm and fill: 2 GB origin fill + 1 GB origin warm at
    /// 0.09, 1 GB shield warm at 0.02; an object of no campaign counts in the run only.
    func testUpstreamWarmAndFill() {
        var up = UpstreamBytes(objectCount: 2)
        up.add(2_000_000_000, object: 0, tier: .origin, warm: false)
        up.add(1_000_000_000, object: 0, tier: .origin, warm: true)
        up.add(1_000_000_000, object: 0, tier: .shield, warm: true)
        up.add(1_000_000_000, object: 1, tier: .origin, warm: false)
        var costs = CostsConfig()
        costs.originPricePerGB = 0.09
        costs.shieldPricePerGB = 0.02
        let b = CostBreakdown.compute(costs, attribution: ByteAttribution(campaigns: 1, regions: 1), upstream: up, objectCampaign: [0, -1],
                                      tierBytesPerSecond: [], tierBytes: 0, horizonSeconds: 3_600)
        XCTAssertEqual(b.campaigns[0].warm, 0.09 + 0.02, accuracy: 1e-12)
        XCTAssertEqual(b.campaigns[0].fill, 0.18, accuracy: 1e-12)
        XCTAssertEqual(b.run.fill, 0.18 + 0.09, accuracy: 1e-12)
        XCTAssertEqual(b.total, 0.11 + 0.27, accuracy: 1e-12)
    }

    /// The 95th-percentile commit on a series built by hand: 20 five-minute samples, 18 at 1 Gbit/s
    /// (1.25 × 10⁸ bytes/s) and 2 at 3 Gbit/s. Sample ⌈0.95 × 20⌉ = 19 of the sorted samples is
    /// 3 Gbit/s; against a 2 Gbit/s commit that is 1 Gbit/s over: fee 100 + 1 × 50. The commit is
    /// shared over the edge bytes (1.5 GB pre-stage, 0.5 GB of it never opened; 0.25 GB foreground).
    func testPercentile95CommitOverage() {
        var series = [UInt64](repeating: 125_000_000, count: 18 * 300)
        series += [UInt64](repeating: 375_000_000, count: 2 * 300)
        var commit = CommitConfig()
        commit.rateGbps = 2
        commit.price = 100
        commit.overagePricePerGbps = 50
        var costs = CostsConfig()
        costs.commit = commit
        var a = ByteAttribution(campaigns: 1, regions: 1)
        a.add(1_500_000_000, campaign: 0, region: 0, network: 0, part: .background)
        a.add(500_000_000, campaign: 0, region: 0, network: 0, part: .neverOpened)
        a.add(250_000_000, campaign: 0, region: 0, network: 0, part: .foreground)
        let b = CostBreakdown.compute(costs, attribution: a, upstream: UpstreamBytes(objectCount: 0), objectCampaign: [],
                                      tierBytesPerSecond: series, tierBytes: 0, horizonSeconds: 6_000)
        XCTAssertEqual(b.commitBilledGbps, 3, accuracy: 1e-12)
        XCTAssertEqual(b.commitOverage, 50, accuracy: 1e-9)
        XCTAssertEqual(b.commit, 150, accuracy: 1e-9)
        XCTAssertEqual(b.run.prestage, 150 * 1.5 / 1.75, accuracy: 1e-9)
        XCTAssertEqual(b.run.foreground, 150 * 0.25 / 1.75, accuracy: 1e-9)
        XCTAssertEqual(b.run.neverOpened, 150 * 0.5 / 1.75, accuracy: 1e-9)
        XCTAssertEqual(b.total, 150, accuracy: 1e-9)
        // Under the commit: the fee only.
        commit.rateGbps = 3
        costs.commit = commit
        XCTAssertEqual(CostBreakdown.compute(costs, attribution: a, upstream: UpstreamBytes(objectCount: 0), objectCampaign: [],
                                             tierBytesPerSecond: series, tierBytes: 0, horizonSeconds: 6_000).commit, 100, accuracy: 1e-9)
    }

    /// The per-GB commit: 1 Gbit/s over 100 s buys 12.5 GB; 20 GB sent is 7.5 GB over at 0.5.
    /// With nothing sent on the edge the commit is carried by no byte: the run's total only.
    func testPerGBCommit() {
        var commit = CommitConfig()
        commit.rateGbps = 1
        commit.billing = .perGB
        commit.pricePerGbps = 40
        commit.overagePricePerGB = 0.5
        var costs = CostsConfig()
        costs.commit = commit
        let b = CostBreakdown.compute(costs, attribution: ByteAttribution(campaigns: 1, regions: 1), upstream: UpstreamBytes(objectCount: 0),
                                      objectCampaign: [], tierBytesPerSecond: [], tierBytes: 20_000_000_000, horizonSeconds: 100)
        XCTAssertEqual(b.commitOverage, 3.75, accuracy: 1e-9)
        XCTAssertEqual(b.commit, 43.75, accuracy: 1e-9)
        XCTAssertEqual(b.unallocated, 43.75, accuracy: 1e-9)
        XCTAssertEqual(b.total, 43.75, accuracy: 1e-9)
        XCTAssertEqual(b.campaigns[0].total, 0)
    }
}

/// Byte attribution and users' data on simulated runs: exact conservation per replication.
final class CostConservationTests: XCTestCase {
    static func pricedWorld(devices: Int = 2_000) -> PushWorldConfig {
        var c = smallWorld(devices: devices)
        c.campaigns[0].warm = WarmConfig(mode: .allPops, aheadSeconds: 120)
        var follow = c.campaigns[0]
        follow.name = "follow-up"
        follow.sendStartSeconds = 900
        follow.audienceShare = 0.5
        c.campaigns.append(follow)
        var costs = CostsConfig()
        costs.cdn = [CdnPriceConfig(regions: [0, 1, 2], tiers: [PriceTierConfig(fromGB: 0, pricePerGB: 0.085), PriceTierConfig(fromGB: 0.05, pricePerGB: 0.08)],
                                    pricePer10kRequests: 0.01),
                     CdnPriceConfig(tiers: [PriceTierConfig(fromGB: 0, pricePerGB: 0.11)], pricePer10kRequests: 0.012)]
        costs.originPricePerGB = 0.09
        costs.shieldPricePerGB = 0.02
        costs.commit = CommitConfig()
        costs.cellular = [CellularPriceConfig(pricePerGB: 6)]
        c.costs = costs
        return c
    }

    /// Purpose splits sum to the run totals exactly; never-opened ≤ background; the campaigns'
    /// costs sum to the run's; users' data mean × pushes = the class's bytes.
    func testSplitsSumToTotalsExactly() throws {
        let c = Self.pricedWorld()
        for seed: UInt64 in [3, 11] {
            let r = try simulate(c, seed: seed)
            let a = try XCTUnwrap(r.attribution)
            let wifi = Int(NetworkClass.wifi.rawValue)
            XCTAssertGreaterThan(r.bytes.backgroundBytes, 0)
            XCTAssertEqual(a.sum(.background), r.bytes.backgroundBytes)
            XCTAssertEqual(a.sum(.foreground), r.bytes.foregroundBytes)
            XCTAssertEqual(a.sum(.neverOpened), r.bytes.neverOpenedBytes)
            XCTAssertEqual(a.sum(.background) { $2 != wifi } + a.sum(.foreground) { $2 != wifi }, r.bytes.cellularBytes)
            XCTAssertEqual(a.sum(.backgroundRequests), r.prestage.requests, "pre-stage requests that reached the edge")
            XCTAssertLessThanOrEqual(a.sum(.neverOpened), a.sum(.background))
            for cIndex in 0..<a.campaigns {
                XCTAssertLessThanOrEqual(a.sum(.neverOpened) { c, _, _ in c == cIndex }, a.sum(.background) { c, _, _ in c == cIndex })
            }
            XCTAssertGreaterThan(a.sum(.background) { c, _, _ in c == 1 }, 0, "the second campaign's bytes are its own")
            // Money: the run's parts are the campaigns' (every object of this world is a campaign's).
            let total = try XCTUnwrap(r.metric("cost.total"))
            let campaigns = (r.metric("cost.campaign.campaign.total") ?? .nan) + (r.metric("cost.campaign.follow-up.total") ?? .nan)
            XCTAssertEqual(campaigns, total, accuracy: 1e-9 * total)
            XCTAssertEqual(r.metric(.costPrestage) + r.metric(.costForeground) + r.metric(.costWarm) + r.metric(.costFill), total,
                           accuracy: 1e-9 * total)
            XCTAssertGreaterThan(r.metric(.costWarm), 0, "warming all PoPs makes warm fetches")
            XCTAssertLessThanOrEqual(r.metric(.costNeverOpened), r.metric(.costPrestage))
            // Users' data: mean × pushes = bytes, per class and overall (exact up to rounding).
            XCTAssertEqual(r.metric(.userDataPushesReached), Double(a.pushes(opened: true) + a.pushes(opened: false)))
            for n in NetworkClass.allCases {
                for opened in [true, false] {
                    let on: (Int, Int) -> Bool = { $1 == Int(n.rawValue) }
                    let pushes = a.pushes(opened: opened, where: on)
                    guard pushes > 0 else { continue }
                    let mean = try XCTUnwrap(r.metric(MetricTable.userData(network: n.description, opened: opened).name))
                    XCTAssertEqual(mean * Double(pushes), Double(a.userBytes(opened: opened, where: on)), accuracy: 1e-6)
                }
            }
            XCTAssertEqual(a.userBytes(opened: true) + a.userBytes(opened: false), r.bytes.backgroundBytes + r.bytes.foregroundBytes)
        }
    }

    /// Upstream bytes per object, warm + fill, equal each tier's egress: priced at 1 per GB at one
    /// tier and 0 elsewhere, warm + fill cost is that tier's egress in GB.
    func testUpstreamBytesBalanceTierEgress() throws {
        for tier in [Tier.origin, .shield] {
            var c = Self.pricedWorld()
            var costs = CostsConfig()
            costs.originPricePerGB = tier == .origin ? 1 : 0
            costs.shieldPricePerGB = tier == .shield ? 1 : 0
            c.costs = costs
            let r = try simulate(c, seed: 5)
            let egress = try XCTUnwrap(r.metric(tier == .origin ? MetricID.bytesOriginEgress.rawValue : MetricID.bytesShieldEgress.rawValue))
            XCTAssertGreaterThan(egress, 0)
            XCTAssertEqual((r.metric(.costWarm) + r.metric(.costFill)) * 1e9, egress, accuracy: 1e-6 * egress, "\(tier)")
            XCTAssertEqual(r.metric(.costTotal) * 1e9, egress, accuracy: 1e-6 * egress)
        }
    }

    /// Commit utilisation is the commit tier's billed rate over the committed rate: for the
    /// 95th-percentile rule the edge's billed metric over 10⁹ × rateGbps (halved when the commit
    /// doubles), for the per-GB rule the edge's bytes × 8 over the horizon over the same.
    func testCommitUtilisationIsBilledOverCommitted() throws {
        var c = Self.pricedWorld()
        var commit = CommitConfig()
        commit.rateGbps = 0.001
        c.costs?.commit = commit
        let r = try simulate(c, seed: 3)
        let billed = try XCTUnwrap(r.metric(MetricID.edgeBilledBitsPerSecond.rawValue))
        XCTAssertGreaterThan(billed, 0)
        XCTAssertEqual(r.metric(.costCommitUtilisation), billed / 1e6, accuracy: 1e-9 * billed)
        commit.rateGbps = 0.002
        c.costs?.commit = commit
        XCTAssertEqual(try simulate(c, seed: 3).metric(.costCommitUtilisation), billed / 2e6, accuracy: 1e-9 * billed)
        commit.billing = .perGB
        c.costs?.commit = commit
        let g = try simulate(c, seed: 3)
        let bytes = try XCTUnwrap(g.metric(MetricID.bytesCdnEgress.rawValue))
        XCTAssertEqual(g.metric(.costCommitUtilisation), bytes * 8 / c.horizonSeconds / 2e6, accuracy: 1e-9 * bytes)
        XCTAssertEqual(MetricTable.spec(named: MetricID.costCommitUtilisation.rawValue)?.unit.bounds, 0...Double.infinity,
                       "a utilisation may exceed 1")
        c.costs?.commit = nil
        XCTAssertNil(try simulate(c, seed: 3).metric(MetricID.costCommitUtilisation.rawValue))
    }

    /// Without `costs` no money metric appears, and every other metric and count is as with it
    /// (prices change no draw and no event).
    func testCostsAbsentChangeNothingElse() throws {
        let priced = Self.pricedWorld(devices: 1_500)
        var plain = priced
        plain.costs = nil
        let a = try simulate(plain, seed: 9), b = try simulate(priced, seed: 9)
        XCTAssertFalse(a.metrics.contains { $0.name.hasPrefix("cost.") })
        XCTAssertTrue(b.metrics.contains { $0.name == "cost.total" })
        XCTAssertEqual(a.metrics, b.metrics.filter { !$0.name.hasPrefix("cost.") })
        XCTAssertEqual(a.eventsProcessed, b.eventsProcessed)
        XCTAssertEqual(a.bytes, b.bytes)
        XCTAssertEqual(a.series, b.series)
        XCTAssertEqual(a.attribution, b.attribution)
    }
}

extension ReplicationResult {
    fileprivate func metric(_ id: MetricID) -> Double { metric(id.rawValue) ?? .nan }
}
