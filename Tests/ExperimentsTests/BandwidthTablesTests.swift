import Foundation
import PushModel
import SimStats
import XCTest
@testable import Experiments

/// The per-PoP and per-region bandwidth tables say what the replications say: bytes add up to the
/// edge's, the peak and billed figures are the means of the per-replication ones with their
/// intervals, and the CSVs' bins add up to the bytes.
final class BandwidthTablesTests: XCTestCase {
    func testTablesCombineTheReplications() throws {
        var world = PushWorldConfig()
        world.population.devices = 600
        world.horizonSeconds = 1_800
        let results = try (0..<3).map { try PushSimulation.run(world, masterSeed: 19, replication: $0) }
        let tables = BandwidthTables(results: results, confidenceLevel: 0.95)
        let egress = results.reduce(UInt64(0)) { $0 + $1.bytes.cdnEgressBytes }
        XCTAssertGreaterThan(egress, 0)
        XCTAssertEqual(tables.stepSeconds, 60)
        XCTAssertEqual(tables.pops.reduce(0) { $0 + $1.bytes } * 3, Double(egress), accuracy: 1e-6 * Double(egress))
        XCTAssertEqual(tables.regions.reduce(0) { $0 + $1.bytes } * 3, Double(egress), accuracy: 1e-6 * Double(egress))
        for row in tables.regions {
            let series = results.compactMap(\.bandwidth)
            let peaks = series.map { s in s.peakBitsPerSecond(s.regions.first { $0.index == row.index } ?? BinnedBytes(index: row.index, perBin: [], pastHorizon: 0)) }
            XCTAssertEqual(row.peakBitsPerSecond, peaks.reduce(0, +) / 3, accuracy: 1e-9 * max(1, row.peakBitsPerSecond))
            let ci = try XCTUnwrap(row.peakInterval)
            XCTAssertGreaterThanOrEqual(ci.lower, 0, "clipped to the rate's range")
            XCTAssertNotNil(row.billedBitsPerSecond, "60 s bins make 5-minute samples")
            // Five bins make a sample, so no sample's rate exceeds the busiest bin's.
            XCTAssertLessThanOrEqual(try XCTUnwrap(row.billedBitsPerSecond), row.peakBitsPerSecond * (1 + 1e-12))
        }
        let csv = String(decoding: tables.regionsCSV(), as: UTF8.self).split(separator: "\n")
        XCTAssertEqual(csv.first, "region,regionName,binStartSecond,binSeconds,bytes,bitsPerSecond")
        let binBytes = csv.dropFirst().reduce(0.0) { $0 + (Double($1.split(separator: ",")[4]) ?? .nan) }
        XCTAssertEqual(binBytes * 3, Double(egress), accuracy: 1e-3 * Double(egress), "the CSV's rounded means add up to the bytes")
        let pops = String(decoding: tables.popsCSV(), as: UTF8.self).split(separator: "\n")
        XCTAssertEqual(pops.first, "pop,name,binStartSecond,binSeconds,bytes,bitsPerSecond")
        XCTAssertEqual(pops.count, 1 + tables.popBins.count)
    }
}
