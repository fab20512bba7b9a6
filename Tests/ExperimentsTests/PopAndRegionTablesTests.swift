import Foundation
import PushModel
import SimStats
import XCTest
@testable import Experiments

/// The per-PoP table and the per-region miss series reach the outputs, and say what the
/// replications say.
final class PopAndRegionTablesTests: XCTestCase {
    func testTablesCombineTheReplications() throws {
        var world = PushWorldConfig()
        world.population.devices = 600
        world.horizonSeconds = 1_800
        let seed: UInt64 = 19
        let results = try (0..<3).map { try PushSimulation.run(world, masterSeed: seed, replication: $0) }
        let regionPops = world.infra.topology.effectiveRegions.map(\.popIndex)
        let tables = PopAndRegionTables(results: results, regionPops: regionPops, confidenceLevel: 0.95)

        // Per-PoP means add up to the replications' pre-stage requests and hits.
        let requests = results.reduce(UInt64(0)) { $0 + $1.prestage.requests }
        let hits = results.reduce(UInt64(0)) { $0 + $1.prestage.hits }
        XCTAssertGreaterThan(requests, 0, "seed \(seed)")
        XCTAssertEqual(tables.pops.reduce(0) { $0 + $1.requests } * 3, Double(requests), accuracy: 1e-6)
        XCTAssertEqual(tables.pops.reduce(0) { $0 + $1.hits } * 3, Double(hits), accuracy: 1e-6)
        for p in tables.pops {
            XCTAssertEqual(p.regions, regionPops.indices.filter { regionPops[$0] == p.pop })
            let perReplication = results.compactMap { r -> Double? in
                guard let c = r.pops.first(where: { $0.pop == p.pop }), c.prestageRequests > 0 else { return nil }
                return Double(c.prestageHits) / Double(c.prestageRequests)
            }
            if perReplication.count >= 2 {
                let ci = try XCTUnwrap(p.hitRatioInterval)
                XCTAssertEqual(ci.mean, perReplication.reduce(0, +) / Double(perReplication.count), accuracy: 1e-12)
            }
            let upstream = results.reduce(UInt64(0)) { $0 + ($1.pops.first { $0.pop == p.pop }?.upstreamFetches ?? 0) }
            XCTAssertEqual(p.upstreamFetches * 3, Double(upstream), accuracy: 1e-6)
        }
        // Region misses add up to the pre-stage misses.
        let misses = results.reduce(UInt64(0)) { $0 + $1.prestage.misses }
        XCTAssertEqual(tables.regionMisses.reduce(0) { $0 + $1.misses } * 3, Double(misses), accuracy: 1e-6)
        // Worst PoPs come lowest hit ratio first.
        let worst = tables.worstPops(3).compactMap(\.hitRatio)
        XCTAssertEqual(worst, worst.sorted())

        // The CSVs: a header and one row per PoP / per (region, bin).
        let pops = String(decoding: tables.popsCSV(), as: UTF8.self).split(separator: "\n")
        XCTAssertEqual(pops.first, "pop,name,regions,regionNames,prestageRequests,prestageHits,prestageMisses,hitRatio,hitRatioMean,hitRatioLower,hitRatioUpper,upstreamFetches,bytes,peakBitsPerSecond,billedBitsPerSecond")
        XCTAssertEqual(pops.count, 1 + tables.pops.count)
        XCTAssertTrue(pops.dropFirst().allSatisfy { $0.split(separator: ",", omittingEmptySubsequences: false).count == 15 })
        // Each PoP carries its code and its regions' names, from the same indices.
        for (row, p) in zip(pops.dropFirst(), tables.pops) {
            let cells = row.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            XCTAssertEqual(cells[0], String(p.pop))
            XCTAssertEqual(cells[1], "pop-\(p.pop)")
            XCTAssertEqual(cells[3], p.regions.map { "region \($0)" }.joined(separator: ";"))
        }
        let regions = String(decoding: tables.regionMissesCSV(), as: UTF8.self).split(separator: "\n")
        XCTAssertEqual(regions.first, "region,regionName,secondsAfterFirstSend,binSeconds,misses")
        XCTAssertTrue(regions.dropFirst().allSatisfy { row in
            let cells = row.split(separator: ",").map(String.init)
            return cells.count == 5 && cells[1] == "region " + cells[0]
        })
        XCTAssertEqual(regions.count, 1 + tables.regionMisses.count)
    }
}
