import InfraModel
import SimStats

/// Edge bytes of one PoP or one device region in bins of `BandwidthSeries.stepSeconds`.
package struct BinnedBytes: Codable, Sendable, Equatable {
    /// The PoP's index (`popIndex`) or the region's index in `infra.topology.regions`.
    package var index: Int
    /// The bins with bytes, ascending; bin b covers seconds [b · step, (b + 1) · step) of the horizon.
    package var bins: [UInt32]
    /// The bytes of each of `bins`.
    package var bytes: [UInt64]
    /// Bytes whose first byte left at or after the horizon (in no bin).
    package var pastHorizon: UInt64

    /// A series from `[bin, bytes]` pairs sorted by bin (pairs of another length are ignored).
    package init(index: Int, perBin: [[UInt64]], pastHorizon: UInt64) {
        self.index = index
        let pairs = perBin.filter { $0.count == 2 }
        bins = pairs.map { UInt32(clamping: $0[0]) }
        bytes = pairs.map { $0[1] }
        self.pastHorizon = pastHorizon
    }

    init(index: Int, bins: [UInt32], bytes: [UInt64], pastHorizon: UInt64) {
        self.index = index
        self.bins = bins
        self.bytes = bytes
        self.pastHorizon = pastHorizon
    }

    /// Σ bins + past horizon: the PoP's (or region's) edge bytes, exactly.
    package var total: UInt64 { bytes.reduce(pastHorizon, &+) }
}

/// The edge bytes of a replication per PoP and per device region at a coarse step (the per-second
/// series of each tier are in `PushTimeSeries`). Memory in the run: (PoPs + regions) ×
/// ⌈horizon / step⌉ × 8 bytes (`BandwidthBins`).
package struct BandwidthSeries: Codable, Sendable, Equatable {
    /// The bins' step, seconds: 60, or wider for very many PoPs × minutes (`BandwidthBins.step`).
    package var stepSeconds: Int
    /// The run's horizon, ⌈`horizonSeconds`⌉: the figures are over [0, horizon).
    package var horizonSeconds: Int
    /// PoPs that sent bytes, sorted by index.
    package var pops: [BinnedBytes]
    /// Device regions that received bytes, sorted by index.
    package var regions: [BinnedBytes]

    /// The series of `bins` over a run of `horizonSeconds` (InfraModel's bins may reach further:
    /// bins starting at or past the horizon count as past it).
    package init(_ bins: BandwidthBins, horizonSeconds: Int) {
        stepSeconds = bins.stepSeconds
        self.horizonSeconds = horizonSeconds
        // Bins starting inside the horizon are kept; one count pass first, so each series is
        // allocated once at its size (most rows are idle: they cost the scan only).
        let kept = min(bins.binCount, (max(0, horizonSeconds) + bins.stepSeconds - 1) / bins.stepSeconds)
        func sparse(_ index: Int, _ slice: ArraySlice<UInt64>, past: UInt64) -> BinnedBytes? {
            var busy = 0
            var past = past
            slice.withUnsafeBufferPointer { p in
                for k in 0..<p.count where p[k] != 0 {
                    if k < kept { busy &+= 1 } else { past &+= p[k] }
                }
            }
            guard busy > 0 || past != 0 else { return nil }
            var indices: [UInt32] = [], amounts: [UInt64] = []
            indices.reserveCapacity(busy)
            amounts.reserveCapacity(busy)
            slice.withUnsafeBufferPointer { p in
                for k in 0..<min(kept, p.count) where p[k] != 0 {
                    indices.append(UInt32(k))
                    amounts.append(p[k])
                }
            }
            return BinnedBytes(index: index, bins: indices, bytes: amounts, pastHorizon: past)
        }
        pops = (0..<bins.popCount).compactMap { sparse($0, bins.pop($0), past: bins.popPastHorizon[$0]) }
        regions = (0..<bins.regionCount).compactMap { sparse($0, bins.region($0), past: bins.regionPastHorizon[$0]) }
    }

    /// Whether bins of `stepSeconds` can be read by the billing rule (the step divides its 5-minute sample).
    package static func billable(stepSeconds: Int) -> Bool { stepSeconds > 0 && BandwidthBilling.sampleSeconds % stepSeconds == 0 }

    /// The seconds of bin `b` inside the horizon.
    package func binSeconds(_ b: Int) -> Int { max(0, min(stepSeconds, horizonSeconds - b * stepSeconds)) }

    /// The largest mean rate of one bin of `series`, bit/s (each bin's bytes × 8 over its seconds
    /// inside the horizon); 0 without bytes.
    package func peakBitsPerSecond(_ series: BinnedBytes) -> Double {
        var best = 0.0
        for (bin, n) in zip(series.bins, series.bytes) {
            let seconds = binSeconds(Int(bin))
            if seconds > 0 { best = max(best, Double(n) * 8 / Double(seconds)) }
        }
        return best
    }

    /// The billing rule's figure (`BandwidthBilling`: the 95th percentile of the 5-minute samples
    /// of the horizon, idle samples included) from the bins, bit/s; nil when the step does not
    /// divide the 5-minute sample.
    package func billedBitsPerSecond(_ series: BinnedBytes) -> Double? {
        let sample = BandwidthBilling.sampleSeconds
        guard Self.billable(stepSeconds: stepSeconds), horizonSeconds > 0 else { return nil }
        let samples = (horizonSeconds + sample - 1) / sample
        var bytes = [UInt64](repeating: 0, count: samples)
        for (bin, n) in zip(series.bins, series.bytes) {
            let k = Int(bin) * stepSeconds / sample
            if k < samples { bytes[k] &+= n }
        }
        let rates = bytes.indices.map { k in Double(bytes[k]) * 8 / Double(min(sample, horizonSeconds - k * sample)) }
        return BandwidthBilling.percentileOfSamples(rates)
    }
}

extension PushTimeSeries {
    /// A tier's per-second bytes over `horizonSeconds` (seconds past it, and bytes past InfraModel's
    /// own series, counted beyond the horizon), so `totalCount` is the tier's byte counter exactly.
    static func bytesCounter(_ perSecond: [UInt64], pastHorizon: UInt64, horizonSeconds: Int) -> PerSecondCounter? {
        guard var counter = try? PerSecondCounter(horizonSeconds: horizonSeconds) else { return nil }
        for (s, n) in perSecond.enumerated() where n > 0 { counter.add(atMicroseconds: Int64(s) * 1_000_000, times: n) }
        if pastHorizon > 0 { counter.add(atMicroseconds: Int64(horizonSeconds) * 1_000_000, times: pastHorizon) }
        return counter
    }

    /// Fills the edge, shield and origin byte series from InfraModel's.
    mutating func addBandwidth(_ ts: TimeSeries) {
        let h = pushesSent.horizonSeconds
        edgeBytes = Self.bytesCounter(ts.edgeBytes, pastHorizon: ts.bytesPastHorizon[Int(Tier.edge.rawValue)], horizonSeconds: h)
        shieldBytes = Self.bytesCounter(ts.shieldBytes, pastHorizon: ts.bytesPastHorizon[Int(Tier.shield.rawValue)], horizonSeconds: h)
        originBytes = Self.bytesCounter(ts.originBytes, pastHorizon: ts.bytesPastHorizon[Int(Tier.origin.rawValue)], horizonSeconds: h)
    }

    /// The byte series of `tier`.
    package func bytes(_ tier: Tier) -> PerSecondCounter? {
        switch tier {
        case .edge: edgeBytes
        case .shield: shieldBytes
        case .origin: originBytes
        }
    }
}
