import Foundation
import PushModel
import SimStats

/// The per-PoP pre-stage table and the per-region miss series of a run, combined over its
/// replications (the model computes them per replication in `ReplicationResult.pops` and
/// `missesByRegion`): written as pops.csv and region-misses.csv, and shown in the report.
package struct PopAndRegionTables: Sendable {
    /// One PoP's pre-stage requests over the run.
    struct PopRow: Sendable, Equatable {
        var pop: Int
        /// The regions the PoP serves (`infra.topology.regions[i].popIndex`), ascending.
        var regions: [Int]
        /// Means per replication: pre-stage requests that reached the PoP (whatever their
        /// ending), their hits and misses, and the PoP's upstream fetches (all traffic).
        var requests: Double
        var hits: Double
        var misses: Double
        var upstreamFetches: Double
        /// Hits / requests pooled over the replications; nil without requests.
        var hitRatio: Double?
        /// The t interval of the per-replication hit ratios (replications where the PoP had
        /// requests; nil with fewer than two).
        var hitRatioInterval: ConfidenceInterval?
    }

    /// Misses of one region in one bin, mean per replication.
    struct RegionMissRow: Sendable, Equatable {
        var region: Int
        /// Bin start, seconds after the first campaign's send start.
        var binStartSeconds: Int
        var misses: Double
    }

    let pops: [PopRow]
    /// Width of a miss bin, seconds; bins start at `firstSendSeconds`.
    let missBinSeconds: Int
    let firstSendSeconds: Double
    /// Sorted by (region, bin); bins where no replication missed are left out.
    let regionMisses: [RegionMissRow]
    // bandwidth
    /// Edge bytes and rates per PoP and per region.
    package let bandwidth: BandwidthTables
    /// The PoPs' and regions' names in the files and the report.
    let names: TopologyNames

    /// Combines `results`; `regionPops[r]` is the PoP of region r; `names` names them.
    package init(results: [ReplicationResult], regionPops: [Int], confidenceLevel: Double, names: TopologyNames = TopologyNames()) {
        self.names = names
        let n = Double(max(1, results.count))
        var byPop: [Int: [PopCounts?]] = [:]
        for (k, r) in results.enumerated() {
            for p in r.pops {
                if byPop[p.pop] == nil { byPop[p.pop] = [PopCounts?](repeating: nil, count: results.count) }
                byPop[p.pop]?[k] = p
            }
        }
        pops = byPop.keys.sorted().map { pop in
            let reps = byPop[pop] ?? []
            let requests = reps.reduce(UInt64(0)) { $0 + ($1?.prestageRequests ?? 0) }
            let hits = reps.reduce(UInt64(0)) { $0 + ($1?.prestageHits ?? 0) }
            let upstream = reps.reduce(UInt64(0)) { $0 + ($1?.upstreamFetches ?? 0) }
            let ratios = reps.compactMap { c -> Double? in
                guard let c, c.prestageRequests > 0 else { return nil }
                return Double(c.prestageHits) / Double(c.prestageRequests)
            }
            return PopRow(pop: pop, regions: regionPops.indices.filter { regionPops[$0] == pop },
                          requests: Double(requests) / n, hits: Double(hits) / n, misses: Double(requests - hits) / n,
                          upstreamFetches: Double(upstream) / n, hitRatio: requests > 0 ? Double(hits) / Double(requests) : nil,
                          hitRatioInterval: ratios.count >= 2 ? (try? ConfidenceInterval.studentT(sample: ratios, level: confidenceLevel))?.clipped(to: 0...1) : nil)
        }
        missBinSeconds = results.first?.missBinSeconds ?? 60
        firstSendSeconds = results.first?.firstSendSeconds ?? 0
        var sums: [Int: [Int: UInt64]] = [:]
        for r in results {
            for region in r.missesByRegion {
                for pair in region.perBin where pair.count == 2 { sums[region.region, default: [:]][Int(pair[0]), default: 0] += pair[1] }
            }
        }
        var rows: [RegionMissRow] = []
        for region in sums.keys.sorted() {
            let bins = sums[region] ?? [:]
            for bin in bins.keys.sorted() {
                rows.append(RegionMissRow(region: region, binStartSeconds: bin * missBinSeconds, misses: Double(bins[bin] ?? 0) / n))
            }
        }
        regionMisses = rows
        bandwidth = BandwidthTables(results: results, confidenceLevel: confidenceLevel, names: names)
    }

    /// The PoPs with requests, worst hit ratio first (ties: more requests first, then PoP index).
    func worstPops(_ k: Int) -> [PopRow] {
        let ranked = pops.filter { $0.hitRatio != nil }.sorted { a, b in
            if a.hitRatio != b.hitRatio { return (a.hitRatio ?? 0) < (b.hitRatio ?? 0) }
            if a.requests != b.requests { return a.requests > b.requests }
            return a.pop < b.pop
        }
        return Array(ranked.prefix(k))
    }

    /// pops.csv: one row per PoP with requests or upstream fetches, with its code and its regions' names
    /// (`TopologyNames`); counts are means per
    /// replication, `hitRatio` pools the replications, the interval (mean, lower, upper; bounds
    /// clipped to [0, 1]) is over them (empty when not defined).
    package func popsCSV() -> Data {
        var out = "pop,name,regions,regionNames,prestageRequests,prestageHits,prestageMisses,hitRatio,hitRatioMean,hitRatioLower,hitRatioUpper,upstreamFetches" + BandwidthTables.popsColumns + "\n"
        for p in pops {
            let ci = p.hitRatioInterval
            var cells: [String] = [String(p.pop), names.pop(p.pop), p.regions.map(String.init).joined(separator: ";"),
                                   p.regions.map(names.region).joined(separator: ";")]
            cells.append(ResultFiles.csvNumber(p.requests))
            cells.append(ResultFiles.csvNumber(p.hits))
            cells.append(ResultFiles.csvNumber(p.misses))
            cells.append(p.hitRatio.map(ResultFiles.csvNumber) ?? "")
            cells.append(ci.map { ResultFiles.csvNumber($0.mean) } ?? "")
            cells.append(ci.map { ResultFiles.csvNumber(max(0, $0.lower)) } ?? "")
            cells.append(ci.map { ResultFiles.csvNumber(min(1, $0.upper)) } ?? "")
            cells.append(ResultFiles.csvNumber(p.upstreamFetches))
            cells += bandwidth.popCells(p.pop)
            out += cells.joined(separator: ",") + "\n"
        }
        return Data(out.utf8)
    }

    /// region-misses.csv: pre-stage edge misses per region and bin after the first send, mean per
    /// replication (bins without misses are left out).
    package func regionMissesCSV() -> Data {
        var out = "region,regionName,secondsAfterFirstSend,binSeconds,misses\n"
        for row in regionMisses {
            out += "\(row.region),\(names.region(row.region)),\(row.binStartSeconds),\(missBinSeconds),\(ResultFiles.csvNumber(row.misses))\n"
        }
        return Data(out.utf8)
    }
}
