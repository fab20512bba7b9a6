/// Edge bytes per PoP and per device region over the horizon, at a coarser step than the per-second
/// tier series so memory stays bounded: (PoPs + regions) × ⌈horizon / step⌉ × 8 bytes. The step is
/// 60 s, or 300 s when that would exceed `cellsMax` cells, then doubled from 300 s until it fits
/// (judgement: 16 MB per replication at most, the bound the per-region miss bins use). A step that
/// divides `BandwidthBilling.sampleSeconds` (60 or 300 s) lets the billing rule read the bins.
///
/// Bytes are counted where the tier series counts them: in the bin of the second the response's
/// first byte leaves the PoP (a transfer cut short is taken back from that same bin). Bytes at or
/// after the horizon are in `popPastHorizon` / `regionPastHorizon`, so for every PoP
/// Σ bins + past horizon = its `NodeCounters.bytesServed`.
package struct BandwidthBins: Sendable {
    /// Most cells (PoPs + regions) × bins at one step before the step widens.
    package static let cellsMax = 2_000_000
    /// The preferred step, seconds.
    package static let stepSecondsPreferred = 60

    package let stepSeconds: Int
    package let horizonSeconds: Int
    package let binCount: Int
    package let popCount: Int
    package let regionCount: Int
    /// PoP rows, then region rows, one array (one uniqueness check a response): PoP `p`'s bin `b`
    /// at `p * binCount + b`, region `r`'s at `(popCount + r) * binCount + b`.
    package private(set) var cells: [UInt64]
    package private(set) var popPastHorizon: [UInt64]
    package private(set) var regionPastHorizon: [UInt64]

    /// The step for `cells` series over `horizonSeconds`.
    package static func step(horizonSeconds: Int, cells: Int) -> Int {
        func bins(_ step: Int) -> Int { (max(0, horizonSeconds) + step - 1) / step }
        if cells * bins(stepSecondsPreferred) <= cellsMax { return stepSecondsPreferred }
        var step = BandwidthBilling.sampleSeconds
        while cells * bins(step) > cellsMax { step *= 2 }
        return step
    }

    package init(horizonSeconds: Int, popCount: Int, regionCount: Int) {
        self.popCount = popCount
        self.horizonSeconds = max(0, horizonSeconds)
        self.regionCount = regionCount
        stepSeconds = Self.step(horizonSeconds: horizonSeconds, cells: popCount + regionCount)
        binCount = (max(0, horizonSeconds) + stepSeconds - 1) / stepSeconds
        cells = [UInt64](repeating: 0, count: (popCount + regionCount) * binCount)
        popPastHorizon = [UInt64](repeating: 0, count: popCount)
        regionPastHorizon = [UInt64](repeating: 0, count: regionCount)
    }

    /// Bin of virtual second `s` (−1 at or past the horizon, as the per-second series).
    @inline(__always)
    func bin(second s: Int) -> Int { s >= 0 && s < horizonSeconds ? s / stepSeconds : -1 }

    @inline(__always)
    mutating func add(second s: Int, pop: Int, region: Int, _ n: UInt64) {
        let b = bin(second: s)
        guard b >= 0 else {
            if pop < popCount { popPastHorizon[pop] &+= n }
            if region < regionCount { regionPastHorizon[region] &+= n }
            return
        }
        let inPop = pop >= 0 && pop < popCount, inRegion = region >= 0 && region < regionCount
        guard inPop || inRegion else { return }
        let popCell = pop &* binCount &+ b, regionCell = (popCount &+ region) &* binCount &+ b
        precondition(b < binCount)
        cells.withUnsafeMutableBufferPointer { p in
            if inPop { p[popCell] &+= n }
            if inRegion { p[regionCell] &+= n }
        }
    }

    @inline(__always)
    mutating func withdraw(second s: Int, pop: Int, region: Int, _ n: UInt64) {
        let b = bin(second: s)
        if pop < popCount { if b >= 0 { cells[pop * binCount + b] &-= n } else { popPastHorizon[pop] &-= n } }
        if region < regionCount { if b >= 0 { cells[(popCount + region) * binCount + b] &-= n } else { regionPastHorizon[region] &-= n } }
    }

    /// PoP `pop`'s bins (bin b covers seconds [b · step, (b + 1) · step) of the horizon).
    package func pop(_ pop: Int) -> ArraySlice<UInt64> { cells[pop * binCount..<(pop + 1) * binCount] }

    /// Region `region`'s bins.
    package func region(_ region: Int) -> ArraySlice<UInt64> { cells[(popCount + region) * binCount..<(popCount + region + 1) * binCount] }
}

extension TimeSeries {
    /// `n` bytes a PoP sent to a device of `region` starting at `t`: the edge tier's per-second
    /// series and the PoP's and region's bins.
    @inline(__always)
    mutating func edgeResponse(at t: Int64, pop: Int, region: Int, _ n: Int64) {
        bytes(at: t, tier: .edge, n)
        bins.add(second: t >= 0 ? Int(t / 1_000_000) : -1, pop: pop, region: region, UInt64(n))
    }

    /// Takes back `n` bytes counted by ``edgeResponse(at:pop:region:_:)`` at `t` (a transfer cut short).
    mutating func withdrawEdgeResponse(at t: Int64, pop: Int, region: Int, _ n: Int64) {
        withdrawBytes(at: t, tier: .edge, n)
        bins.withdraw(second: t >= 0 ? Int(t / 1_000_000) : -1, pop: pop, region: region, UInt64(n))
    }
}
