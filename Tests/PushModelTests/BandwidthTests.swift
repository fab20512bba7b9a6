import Foundation
import InfraModel
import SimStats
import XCTest
@testable import PushModel

/// Bandwidth over time: every per-second and per-bin byte series integrates to its tier's byte
/// counter exactly, the edge is the sum of its PoPs, the upstream tiers' bytes balance the misses,
/// and the bit/s figures are read from the series as MetricTable states.
final class BandwidthTests: XCTestCase {
    /// Σ seconds + bytes past the horizon = the tier's total, per replication, for every tier; the
    /// PoP bins and the region bins each sum to the edge total. Runs a default world (two
    /// campaigns' worth of traffic: pre-stage, taps, warming) and one where transfers stall and are
    /// cut by timeouts (bytes counted at first byte, then partly withdrawn), on two seeds each.
    func testEveryBytesSeriesIntegratesToItsTotalExactly() throws {
        var stalling = smallWorld(devices: 2_000)
        for cls in InfraNetworkClass.allCases { stalling.infra.networks[cls].stallProbability = 0.2 }
        for (name, world) in [("default", smallWorld(devices: 2_000)), ("stalling", stalling)] {
            for seed: UInt64 in [3, 11] {
                let r = try simulate(world, seed: seed)
                let context = "\(name) seed \(seed)"
                let edge = try XCTUnwrap(r.series.edgeBytes), shield = try XCTUnwrap(r.series.shieldBytes), origin = try XCTUnwrap(r.series.originBytes)
                XCTAssertGreaterThan(r.bytes.cdnEgressBytes, 0, context)
                XCTAssertEqual(edge.totalCount, r.bytes.cdnEgressBytes, context)
                XCTAssertEqual(Double(shield.totalCount), r.value(MetricID.bytesShieldEgress.rawValue), context)
                XCTAssertEqual(Double(origin.totalCount), r.value(MetricID.bytesOriginEgress.rawValue), context)
                // The run stops at the horizon: nothing is served past it.
                XCTAssertEqual(edge.beyondHorizonCount + shield.beyondHorizonCount + origin.beyondHorizonCount, 0, context)
                let bandwidth = try XCTUnwrap(r.bandwidth)
                XCTAssertEqual(bandwidth.stepSeconds, 60, context)
                XCTAssertEqual(bandwidth.pops.reduce(UInt64(0)) { $0 + $1.total }, r.bytes.cdnEgressBytes, "edge = Σ PoPs, \(context)")
                XCTAssertEqual(bandwidth.regions.reduce(UInt64(0)) { $0 + $1.total }, r.bytes.cdnEgressBytes, "edge = Σ regions, \(context)")
                // Each PoP's bins are the per-second edge series cut differently: the bins of one step hold the seconds they cover.
                var perBin = [UInt64](repeating: 0, count: (edge.horizonSeconds + 59) / 60)
                for p in bandwidth.pops { for (bin, n) in zip(p.bins, p.bytes) { perBin[Int(bin)] += n } }
                for b in perBin.indices {
                    let seconds = (b * 60)..<min(edge.horizonSeconds, (b + 1) * 60)
                    XCTAssertEqual(perBin[b], seconds.reduce(UInt64(0)) { $0 + edge[$1] }, "bin \(b), \(context)")
                }
            }
        }
    }

    /// One object of B bytes, no revalidation, no errors: each PoP upstream fetch is answered by its
    /// shield with the whole body (shield bytes = B × Σ PoP upstream fetches) and each shield miss
    /// that is not collapsed is one origin request answered with it (origin bytes = B × origin
    /// answers, origin requests ≤ shield misses).
    func testUpstreamBytesBalanceTheMisses() throws {
        var c = oneAssetWorld(devices: 1_500)
        // Signed URLs that outlive the run: no tap fetches the 512-byte token-refresh object, so
        // the campaign's asset is the only object answered upstream.
        c.campaigns[0].tokenLifetimeSeconds = 86_400
        let b = try XCTUnwrap(c.campaigns[0].assets.first).bytes
        let r = try simulate(c, seed: 5)
        let origin = try XCTUnwrap(r.tier(.origin)), shield = try XCTUnwrap(r.tier(.shield))
        XCTAssertEqual(origin.rejected503, 0, "a world without origin errors")
        XCTAssertEqual(r.value(MetricID.originNotModified.rawValue), 0)
        XCTAssertEqual(r.value(MetricID.shieldNotModified.rawValue), 0)
        XCTAssertEqual(r.value(MetricID.tapsTokenRefreshes.rawValue), 0)
        let popFetches = r.pops.reduce(UInt64(0)) { $0 + $1.upstreamFetches }
        XCTAssertGreaterThan(popFetches, 0)
        XCTAssertEqual(try XCTUnwrap(r.series.shieldBytes).totalCount, UInt64(b) * popFetches)
        XCTAssertEqual(try XCTUnwrap(r.series.originBytes).totalCount, UInt64(b) * origin.freshHits)
        XCTAssertEqual(origin.requests, origin.freshHits)
        XCTAssertLessThanOrEqual(origin.requests, shield.misses)
        XCTAssertGreaterThan(origin.requests, 0)
    }

    /// The figures: peak = the busiest second × 8, p95/p99 the nearest-rank seconds (idle ones
    /// included) × 8, the billed figure `BandwidthBilling` of the same seconds; all in bit/s.
    func testFiguresAreReadFromTheSeriesAsTheTableStates() throws {
        let r = try simulate(smallWorld(devices: 2_000), seed: 3)
        for tier in Tier.allCases {
            let counter = try XCTUnwrap(r.series.bytes(tier))
            let seconds = (0..<counter.horizonSeconds).map { counter[$0] }
            let sorted = seconds.sorted()
            func rank(_ p: Double) -> Double { Double(sorted[Int((p * Double(sorted.count)).rounded(.up)) - 1]) * 8 }
            XCTAssertEqual(r.value(MetricTable.bandwidth(tier, .peak).rawValue), Double(sorted.last ?? 0) * 8, tier.name)
            XCTAssertEqual(r.value(MetricTable.bandwidth(tier, .p95).rawValue), rank(0.95), tier.name)
            XCTAssertEqual(r.value(MetricTable.bandwidth(tier, .p99).rawValue), rank(0.99), tier.name)
            XCTAssertEqual(r.value(MetricTable.bandwidth(tier, .billed).rawValue),
                           BandwidthBilling.percentile95BitsPerSecond(bytesPerSecond: seconds), tier.name)
            XCTAssertEqual(MetricTable.bandwidth(tier, .peak).spec.unit, .bitsPerSecond)
            XCTAssertNotNil(MetricTable.bandwidth(tier, .billed).spec.rate)
        }
        XCTAssertGreaterThan(r.value(MetricID.edgePeakBitsPerSecond.rawValue), 0)
        // A one-hour horizon with a short send: most seconds are idle, so p95 of seconds is far below the peak.
        XCTAssertLessThan(r.value(MetricID.edgeP95BitsPerSecond.rawValue), r.value(MetricID.edgePeakBitsPerSecond.rawValue))
    }

    /// The per-bin figures of a PoP: the busiest bin's mean rate and the billing rule over 5-minute
    /// samples of five 60-second bins, checked by hand on a made-up series.
    func testBinnedFiguresByHand() {
        var bins = BandwidthSeries(BandwidthBins(horizonSeconds: 0, popCount: 0, regionCount: 0), horizonSeconds: 900)
        bins.stepSeconds = 60
        // 900 s = 15 bins = 3 samples of 5 minutes. Bin 0: 60 000 bytes (8 000 bit/s); bin 7: 600 000
        // bytes (80 000 bit/s). Samples: 60 000 B / 300 s = 1 600 bit/s, 16 000 bit/s, 0.
        let series = BinnedBytes(index: 0, perBin: [[0, 60_000], [7, 600_000]], pastHorizon: 0)
        XCTAssertEqual(bins.peakBitsPerSecond(series), 80_000)
        // Nearest rank ⌈0.95 · 3⌉ = 3: the highest sample.
        XCTAssertEqual(bins.billedBitsPerSecond(series), 16_000)
        bins.stepSeconds = 600
        XCTAssertNil(bins.billedBitsPerSecond(series), "a 600 s step cannot be read as 5-minute samples")
        XCTAssertEqual(BandwidthBins.step(horizonSeconds: 3_600, cells: 100), 60)
        XCTAssertEqual(BandwidthBins.step(horizonSeconds: 31 * 86_400, cells: 1_000), 2_400, "16 MB at most: 1 000 series × 31 days")
    }
}

/// docs/metrics.md states every bandwidth figure's numerator and denominator exactly as the table does.
final class BandwidthDocTests: XCTestCase {
    func testEveryRateIsDefinedInTheDocs() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let doc = try String(contentsOf: root.appendingPathComponent("docs/metrics.md"), encoding: .utf8)
        var missing: [String] = []
        for id in MetricID.allCases {
            guard let rate = id.spec.rate else { continue }
            let row = "| `\(id.rawValue)` | \(rate.numerator) | \(rate.denominator) |"
            if !doc.contains(row) { missing.append(row) }
        }
        XCTAssertEqual(missing, [], "rows docs/metrics.md lacks:\n" + missing.joined(separator: "\n"))
        // Twelve traffic rates; a bit/s figure that is not traffic (the mean BANDWIDTH of the HLS
        // variants chosen) states its parts as a mean's numerator and denominator instead.
        XCTAssertEqual(MetricID.allCases.filter { $0.spec.unit == .bitsPerSecond && $0.spec.rate != nil }.count, 12)
        XCTAssertTrue(MetricID.allCases.filter { $0.spec.unit == .bitsPerSecond }.allSatisfy { $0.spec.rate != nil || $0.spec.ratio != nil })
    }
}
