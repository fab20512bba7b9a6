import Foundation
import PushModel
import SimStats

/// Edge bandwidth per PoP and per device region of a run, combined over its replications (the
/// model bins each replication's edge bytes in `ReplicationResult.bandwidth`): written as
/// bandwidth-pops.csv and bandwidth-regions.csv, as bytes columns of pops.csv, and shown in the
/// report's region table.
package struct BandwidthTables: Sendable {
    /// One PoP's or region's figures over the run.
    struct Row: Sendable, Equatable {
        var index: Int
        /// Edge bytes, mean per replication.
        var bytes: Double
        /// The busiest bin's mean rate, bit/s: mean over replications and t interval (nil with
        /// fewer than two replications); a replication without bytes there reads 0.
        var peakBitsPerSecond: Double
        var peakInterval: ConfidenceInterval?
        /// The 95th percentile of the 5-minute samples, bit/s (nil when the step does not divide 5 min).
        var billedBitsPerSecond: Double?
        var billedInterval: ConfidenceInterval?
    }

    /// One bin of one PoP or region, mean per replication.
    struct BinRow: Sendable, Equatable {
        var index: Int
        var binStartSeconds: Int
        /// The bin's seconds inside the horizon.
        var binSeconds: Int
        var bytes: Double
        /// bytes × 8 / binSeconds.
        var bitsPerSecond: Double { binSeconds > 0 ? bytes * 8 / Double(binSeconds) : 0 }
    }

    /// The bins' step, seconds (0 when no replication carried the series).
    let stepSeconds: Int
    /// Sorted by index; PoPs (regions) with bytes in some replication only.
    let pops: [Row]
    let regions: [Row]
    /// Sorted by (index, bin); bins where no replication sent bytes are left out.
    let popBins: [BinRow]
    let regionBins: [BinRow]

    package init(results: [ReplicationResult], confidenceLevel: Double, names: TopologyNames = TopologyNames()) {
        self.names = names
        let series = results.compactMap(\.bandwidth)
        stepSeconds = series.first?.stepSeconds ?? 0
        (pops, popBins) = Self.combine(series, results: results.count, level: confidenceLevel, pick: \.pops)
        (regions, regionBins) = Self.combine(series, results: results.count, level: confidenceLevel, pick: \.regions)
    }

    private static func combine(_ series: [BandwidthSeries], results: Int, level: Double,
                                pick: KeyPath<BandwidthSeries, [BinnedBytes]>) -> ([Row], [BinRow]) {
        let n = Double(max(1, results))
        let byIndex = series.map { s in Dictionary(s[keyPath: pick].map { ($0.index, $0) }, uniquingKeysWith: { a, _ in a }) }
        let indices = Set(byIndex.flatMap(\.keys))
        var rows: [Row] = [], bins: [BinRow] = []
        for index in indices.sorted() {
            var total: UInt64 = 0
            var peaks: [Double] = [], billed: [Double] = []
            var perBin: [Int: UInt64] = [:]
            for (k, s) in series.enumerated() {
                let b = byIndex[k][index] ?? BinnedBytes(index: index, perBin: [], pastHorizon: 0)
                total &+= b.total
                peaks.append(s.peakBitsPerSecond(b))
                if let v = s.billedBitsPerSecond(b) { billed.append(v) }
                for (bin, n) in zip(b.bins, b.bytes) { perBin[Int(bin), default: 0] &+= n }
            }
            func interval(_ values: [Double]) -> ConfidenceInterval? {
                guard values.count >= 2 else { return nil }
                return (try? ConfidenceInterval.studentT(sample: values, level: level))?.clipped(to: 0...Double.infinity)
            }
            rows.append(Row(index: index, bytes: Double(total) / n,
                            peakBitsPerSecond: peaks.reduce(0, +) / Double(max(1, peaks.count)), peakInterval: interval(peaks),
                            billedBitsPerSecond: billed.count == series.count && !billed.isEmpty ? billed.reduce(0, +) / Double(billed.count) : nil,
                            billedInterval: billed.count == series.count ? interval(billed) : nil))
            let first = series.first
            for bin in perBin.keys.sorted() {
                bins.append(BinRow(index: index, binStartSeconds: bin * (first?.stepSeconds ?? 0), binSeconds: first?.binSeconds(bin) ?? 0,
                                   bytes: Double(perBin[bin] ?? 0) / n))
            }
        }
        return (rows, bins)
    }

    /// The PoPs' and regions' names in the CSVs.
    let names: TopologyNames

    /// The row of PoP `pop`, if it sent bytes.
    func pop(_ pop: Int) -> Row? { pops.first { $0.index == pop } }

    /// bandwidth-pops.csv: edge bytes per PoP and bin, mean per replication, and the bin's mean rate.
    package func popsCSV() -> Data {
        var out = "pop,name,binStartSecond,binSeconds,bytes,bitsPerSecond\n"
        for row in popBins {
            out += "\(row.index),\(names.pop(row.index)),\(row.binStartSeconds),\(row.binSeconds),"
                + "\(ResultFiles.csvNumber(row.bytes)),\(ResultFiles.csvNumber(row.bitsPerSecond))\n"
        }
        return Data(out.utf8)
    }

    /// bandwidth-regions.csv: edge bytes received by the devices of each region per bin, mean per
    /// replication, and the bin's mean rate.
    package func regionsCSV() -> Data {
        var out = "region,regionName,binStartSecond,binSeconds,bytes,bitsPerSecond\n"
        for row in regionBins {
            out += "\(row.index),\(names.region(row.index)),\(row.binStartSeconds),\(row.binSeconds),"
                + "\(ResultFiles.csvNumber(row.bytes)),\(ResultFiles.csvNumber(row.bitsPerSecond))\n"
        }
        return Data(out.utf8)
    }

    /// The bytes columns of pops.csv, after the pre-stage ones.
    static let popsColumns = ",bytes,peakBitsPerSecond,billedBitsPerSecond"

    /// PoP `pop`'s cells of `popsColumns` (means per replication; empty where not defined).
    func popCells(_ pop: Int) -> [String] {
        guard let row = self.pop(pop) else { return ["0", "0", stepSeconds > 0 && BandwidthTables.billable(stepSeconds) ? "0" : ""] }
        return [ResultFiles.csvNumber(row.bytes), ResultFiles.csvNumber(row.peakBitsPerSecond),
                row.billedBitsPerSecond.map(ResultFiles.csvNumber) ?? ""]
    }

    /// Whether bins of `step` seconds can be read by the billing rule (the step divides 5 minutes).
    static func billable(_ step: Int) -> Bool { BandwidthSeries.billable(stepSeconds: step) }
}
