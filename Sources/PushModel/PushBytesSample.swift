import InfraModel

/// The bytes each push brought its device, for the users' data quantiles (`userData.*P95Bytes`):
/// one cell per (device, campaign) of a systematic sample of devices, every device while
/// devices × campaigns ≤ `cellsMax`, else every `stride`-th device (device index divisible by
/// `stride`), so memory stays bounded: 16 bytes a cell, 4.2 MB at most (judgement: under 1 % of a
/// 5 M-device run's peak). A cell holds the bytes the device received for the campaign (pre-stage
/// and foreground, counted where `ByteAttribution` counts them), the pushes of the campaign that
/// reached it, whether its user opens the campaign, its network class and region. A push's bytes
/// are the cell's bytes over its pushes (exact when a campaign reaches a device once, the mean of
/// its pushes otherwise). The quantile is the nearest rank ⌈0.95 · N⌉ of the sampled pushes'
/// values, exact (no bins): resolution one byte.
struct PushBytesSample {
    /// Most cells kept (judgement, above).
    static let cellsMax = 1 << 18

    let campaigns: Int
    let stride: Int
    /// One (device, campaign) of the sample.
    struct Cell {
        var bytes: UInt64 = 0
        var region: UInt32 = 0
        /// Pushes that reached the cell's device (saturating at 255).
        var pushes: UInt8 = 0
        /// Bit 7: the user opens the campaign; bits 0–2: the device's own network class.
        var info: UInt8 = 0
    }
    /// The cells, one array (one uniqueness check an update).
    var cells: [Cell]
    /// Per InfraWorld request id: its cell, or −1 (not sampled).
    var requestCell: [Int32] = []

    init(devices: Int, campaigns: Int) {
        self.campaigns = max(1, campaigns)
        let devices = max(0, devices)
        stride = max(1, (devices * self.campaigns + Self.cellsMax - 1) / Self.cellsMax)
        let cells = (devices + stride - 1) / stride * self.campaigns
        self.cells = [Cell](repeating: Cell(), count: cells)
    }

    /// Device `d`'s cell for campaign `c`, or −1 when `d` is not in the sample.
    @inline(__always)
    func cell(device d: Int, campaign c: Int) -> Int {
        guard d % stride == 0, c >= 0, c < campaigns else { return -1 }
        let k = d / stride * campaigns + c
        return k < cells.count ? k : -1
    }

    /// A push of campaign `c` reached device `d` (region, own class, whether its user opens it).
    mutating func noteReached(device d: Int, campaign c: Int, region r: UInt32, network n: NetworkClass, opened: Bool) {
        let k = cell(device: d, campaign: c)
        guard k >= 0 else { return }
        cells.withUnsafeMutableBufferPointer { p in
            if p[k].pushes < .max { p[k].pushes += 1 }
            p[k].info = (opened ? 0x80 : 0) | (n.rawValue & 0x07)
            p[k].region = r
        }
    }

    /// InfraWorld request `id` was issued by device `d` for campaign `c`.
    @inline(__always)
    mutating func noteRequest(_ id: UInt32, device d: Int, campaign c: Int) {
        let i = Int(id)
        while requestCell.count <= i { requestCell.append(-1) }
        requestCell[i] = Int32(truncatingIfNeeded: cell(device: d, campaign: c))
    }

    /// `n` bytes of request `r` arrived (its cell's, if sampled).
    @inline(__always)
    mutating func add(_ n: UInt64, request r: Int) {
        guard r < requestCell.count else { return }
        let k = Int(requestCell[r])
        if k >= 0 { cells[k].bytes &+= n }
    }

    /// The nearest-rank quantile `p` of the per-push bytes of the sampled pushes whose cell
    /// `include` keeps (opened, class); nil without one. (A reference for tests: the metrics use
    /// `percentiles95()`, which reads every group in one pass.)
    func quantile(_ p: Double, where include: (_ opened: Bool, _ network: Int) -> Bool) -> Double? {
        var values: [Double] = []
        for c in cells where c.pushes > 0 && include(c.info & 0x80 != 0, Int(c.info & 0x07)) {
            // Each cell stands for its pushes (a device reached twice counts twice, as the means do).
            values += repeatElement(Double(c.bytes) / Double(c.pushes), count: Int(c.pushes))
        }
        guard !values.isEmpty else { return nil }
        values.sort()
        return values[BandwidthBilling.rank(p, of: values.count) - 1]
    }

    /// The p95s of the groups: per class (`classes[opened ? 1 : 0][class]`), over every class
    /// (`all`) and over the cellular ones (`cellular`), opened and never opened; nil where a group
    /// has no push. One pass sorts the sampled pushes into their class, then each group's nearest
    /// rank is selected in place (expected linear time, no full sort; the unions are read from a
    /// scratch copy of their classes, so at most two values per sampled push are held: 16 bytes).
    func percentiles95() -> (classes: [[Double?]], all: [Double?], cellular: [Double?]) {
        let classes = NetworkClass.count
        var count = [Int](repeating: 0, count: 2 * classes)
        for c in cells where c.pushes > 0 { count[(c.info & 0x80 != 0 ? classes : 0) + Int(c.info & 0x07)] += Int(c.pushes) }
        var groups = count.map { n -> [Double] in var a: [Double] = []; a.reserveCapacity(n); return a }
        for c in cells where c.pushes > 0 {
            let g = (c.info & 0x80 != 0 ? classes : 0) + Int(c.info & 0x07)
            let v = Double(c.bytes) / Double(c.pushes)
            for _ in 0..<Int(c.pushes) { groups[g].append(v) }
        }
        func p95(_ a: inout [Double]) -> Double? { a.isEmpty ? nil : Self.select(&a, rank: BandwidthBilling.rank(0.95, of: a.count)) }
        var perClass: [[Double?]] = [[], []]
        var all: [Double?] = [nil, nil], cellular: [Double?] = [nil, nil]
        let wifi = Int(NetworkClass.wifi.rawValue)
        var scratch: [Double] = []
        scratch.reserveCapacity(max(count[..<classes].reduce(0, +), count[classes...].reduce(0, +)))
        for o in 0..<2 {
            scratch.removeAll(keepingCapacity: true)
            for c in 0..<classes where c != wifi { scratch += groups[o * classes + c] }
            cellular[o] = p95(&scratch)
            scratch += groups[o * classes + wifi]
            all[o] = p95(&scratch)
            for c in 0..<classes { perClass[o].append(p95(&groups[o * classes + c])) }
        }
        return (perClass, all, cellular)
    }

    /// The p95s per device region, opened and never opened (`[opened ? 1 : 0][region]`, nil where
    /// the region has no sampled push of that kind): the sampled pushes counting-sorted into one
    /// array by (opened, region), each group's nearest rank selected in a copy of its slice (8 bytes
    /// a sampled push, the largest group's copy, 16 bytes a region). Regions at or past `regions`
    /// are left out.
    func regionPercentiles95(regions: Int) -> [[Double?]] {
        let groups = 2 * max(0, regions)
        guard groups > 0 else { return [[], []] }
        func group(_ c: Cell) -> Int? {
            Int(c.region) < regions ? (c.info & 0x80 != 0 ? regions : 0) + Int(c.region) : nil
        }
        var start = [Int](repeating: 0, count: groups + 1)
        for c in cells where c.pushes > 0 { if let g = group(c) { start[g + 1] += Int(c.pushes) } }
        for g in 0..<groups { start[g + 1] += start[g] }
        var values = [Double](repeating: 0, count: start[groups])
        var next = start
        for c in cells where c.pushes > 0 {
            guard let g = group(c) else { continue }
            let v = Double(c.bytes) / Double(c.pushes)
            for _ in 0..<Int(c.pushes) { values[next[g]] = v; next[g] += 1 }
        }
        var out: [[Double?]] = [[], []]
        for o in 0..<2 {
            for r in 0..<regions {
                let g = o * regions + r, n = start[g + 1] - start[g]
                guard n > 0 else { out[o].append(nil); continue }
                var slice = Array(values[start[g]..<start[g + 1]])
                out[o].append(Self.select(&slice, rank: BandwidthBilling.rank(0.95, of: n)))
            }
        }
        return out
    }

    /// The value of nearest rank `rank` (1-based) of `a`, by Hoare's selection (`a` is permuted).
    static func select(_ a: inout [Double], rank: Int) -> Double {
        let k = min(max(rank, 1), a.count) - 1
        return a.withUnsafeMutableBufferPointer { p -> Double in
            var lo = 0, hi = p.count - 1
            while lo < hi {
                // Median of three as the pivot: a value of the range, so both scans stop inside it.
                var x = p[lo], y = p[lo + (hi - lo) / 2], z = p[hi]
                if x > y { swap(&x, &y) }
                if y > z { swap(&y, &z) }
                if x > y { swap(&x, &y) }
                let pivot = y
                var i = lo, j = hi
                while i <= j {
                    while p[i] < pivot { i += 1 }
                    while p[j] > pivot { j -= 1 }
                    if i <= j {
                        p.swapAt(i, j)
                        i += 1
                        j -= 1
                    }
                }
                // [lo, j] ≤ pivot ≤ [i, hi]; between them every value is the pivot.
                if k <= j { hi = j } else if k >= i { lo = i } else { return p[k] }
            }
            return p[k]
        }
    }
}

extension PushMetrics {
    /// The users' data p95 metrics: overall, over the cellular classes and per class, opened and
    /// never opened (`userData.openedP95Bytes`, …), from `pushBytes`.
    func appendUserDataQuantiles(to m: inout [Metric]) {
        let q = pushBytes.percentiles95()
        for opened in [true, false] {
            let o = opened ? 1 : 0
            if let v = q.all[o] { m.append(Metric((opened ? MetricID.userDataOpenedP95Bytes : .userDataNeverOpenedP95Bytes).spec, value: v)) }
            if let v = q.cellular[o] {
                m.append(Metric((opened ? MetricID.userDataCellularOpenedP95Bytes : .userDataCellularNeverOpenedP95Bytes).spec, value: v))
            }
            for c in NetworkClass.allCases {
                if let v = q.classes[o][Int(c.rawValue)] { m.append(Metric(MetricTable.userDataP95(network: c.description, opened: opened), value: v)) }
            }
        }
    }
}
