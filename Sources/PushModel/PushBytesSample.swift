import InfraModel

/// The bytes each push brought its device, for the users' data quantiles (`userData.*P95Bytes`):
/// one cell per (device, campaign) of a systematic sample of devices, every device while
/// devices × campaigns ≤ `cellsMax`, else every `stride`-th device (device index divisible by
/// `stride`), so memory stays bounded: 14 bytes a cell, 3.7 MB at most (judgement: under 1 % of a
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
    var bytes: [UInt64]
    /// Pushes that reached the cell's device (saturating at 255).
    var pushes: [UInt8]
    /// Bit 7: the user opens the campaign; bits 0–2: the device's own network class.
    var info: [UInt8]
    var region: [UInt32]
    /// Per InfraWorld request id: its cell, or −1 (not sampled).
    var requestCell: [Int32] = []

    init(devices: Int, campaigns: Int) {
        self.campaigns = max(1, campaigns)
        let devices = max(0, devices)
        stride = max(1, (devices * self.campaigns + Self.cellsMax - 1) / Self.cellsMax)
        let cells = (devices + stride - 1) / stride * self.campaigns
        bytes = [UInt64](repeating: 0, count: cells)
        pushes = [UInt8](repeating: 0, count: cells)
        info = pushes
        region = [UInt32](repeating: 0, count: cells)
    }

    /// Device `d`'s cell for campaign `c`, or −1 when `d` is not in the sample.
    @inline(__always)
    func cell(device d: Int, campaign c: Int) -> Int {
        guard d % stride == 0, c >= 0, c < campaigns else { return -1 }
        let k = d / stride * campaigns + c
        return k < bytes.count ? k : -1
    }

    /// A push of campaign `c` reached device `d` (region, own class, whether its user opens it).
    mutating func noteReached(device d: Int, campaign c: Int, region r: UInt32, network n: NetworkClass, opened: Bool) {
        let k = cell(device: d, campaign: c)
        guard k >= 0 else { return }
        if pushes[k] < .max { pushes[k] += 1 }
        info[k] = (opened ? 0x80 : 0) | (n.rawValue & 0x07)
        region[k] = r
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
        if k >= 0 { bytes[k] &+= n }
    }

    /// The nearest-rank quantile `p` of the per-push bytes of the sampled pushes whose cell
    /// `include` keeps (opened, class), and how many; nil without one.
    func quantile(_ p: Double, where include: (_ opened: Bool, _ network: Int) -> Bool) -> Double? {
        var values: [Double] = []
        var weights: [Int] = []
        for k in pushes.indices where pushes[k] > 0 && include(info[k] & 0x80 != 0, Int(info[k] & 0x07)) {
            values.append(Double(bytes[k]) / Double(pushes[k]))
            weights.append(Int(pushes[k]))
        }
        guard !values.isEmpty else { return nil }
        // Each cell stands for its pushes (a device reached twice counts twice, as the means do).
        let order = values.indices.sorted { values[$0] < values[$1] }
        let total = weights.reduce(0, +)
        let rank = BandwidthBilling.rank(p, of: total)
        var seen = 0
        for i in order {
            seen += weights[i]
            if seen >= rank { return values[i] }
        }
        return values[order[order.count - 1]]
    }
}

extension PushMetrics {
    /// The users' data p95 metrics: overall, over the cellular classes and per class, opened and
    /// never opened (`userData.openedP95Bytes`, …), from `pushBytes`.
    func appendUserDataQuantiles(to m: inout [Metric]) {
        let wifi = Int(NetworkClass.wifi.rawValue)
        for opened in [true, false] {
            if let v = pushBytes.quantile(0.95, where: { o, _ in o == opened }) {
                m.append(Metric((opened ? MetricID.userDataOpenedP95Bytes : .userDataNeverOpenedP95Bytes).spec, value: v))
            }
            if let v = pushBytes.quantile(0.95, where: { o, n in o == opened && n != wifi }) {
                m.append(Metric((opened ? MetricID.userDataCellularOpenedP95Bytes : .userDataCellularNeverOpenedP95Bytes).spec, value: v))
            }
            for c in NetworkClass.allCases {
                if let v = pushBytes.quantile(0.95, where: { o, n in o == opened && n == Int(c.rawValue) }) {
                    m.append(Metric(MetricTable.userDataP95(network: c.description, opened: opened), value: v))
                }
            }
        }
    }
}
