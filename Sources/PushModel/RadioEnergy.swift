import InfraModel

/// The radio energy model (`energy` section): one radio state per device, driven by that
/// device's simulated transfers (pre-stage fetches and revalidations in the handler, foreground
/// fetches at tap), and the run's joules by network class, fetch kind (background pre-stage or
/// foreground at tap), whether the push was ever opened, and component (promotion, transfer,
/// tail). See docs/metrics.md ("Radio energy") for the formulas.
///
/// A device's radio is idle until a fetch opens; a fetch from an idle radio (never used, or past
/// its whole tail) pays the promotion (energy, and with `promotionDelaysFirstByte` the delay
/// before its connection set-up). While one or more fetches are open the radio is connected:
/// base power over the union of the open fetches' times, plus the throughput term per byte of
/// each. When the last open fetch ends the tail is charged in full; a fetch that opens within it
/// pays no promotion and refunds the part of the tail it cut off (so fetches that overlap or
/// fall within one tail share it). The base power of a connected stretch and its tail go to the
/// fetch that closed it; promotion to the fetch that opened it. Idle paging (LTE: 43 ms every
/// 1.28 s at 0.594 W) is the phone's background cost whatever the pushes do and is not charged.
///
/// State per device: 8 bytes (`state`), only when enabled: bits 0–47 a time in microseconds (the
/// end of the last connected stretch when no fetch is open, else the instant the radio is
/// connected from), bits 48–55 the open fetches, bit 56 "has been used", bits 57–61 the class,
/// kind and opened flag of the fetch whose tail was charged last (for the refund).
struct RadioEnergy {
    let enabled: Bool
    let promotionDelaysFirstByte: Bool
    /// Joules in a typical battery (`batteryCapacityWh` · 3 600).
    let batteryJoules: Double
    /// One device's radio state word (the layout above).
    typealias DeviceState = UInt64
    var state: [DeviceState] = []
    /// Per InfraWorld request id (only when enabled): device << 5 | class << 2 | foreground << 1 | never opened.
    var requestInfo: [UInt64] = []
    /// Microjoules by `bucket(class, foreground, neverOpened, component)`.
    var microjoules: [Int64]
    /// Promotions (idle → connected) by fetch kind (0 background, 1 foreground).
    var promotions: [UInt64] = []

    // Per InfraModel network class.
    let promotionTicks: [Int64]
    let promotionMicrojoules: [Int64]
    let activeWatts: [Double]
    let microjoulesPerByte: [Double]
    let tailTicks: [Int64]
    let tailWatts: [Double]
    let secondTailTicks: [Int64]
    let secondTailWatts: [Double]
    let tailMicrojoules: [Int64]

    static let components = 3
    static let timeMask: UInt64 = (1 << 48) - 1
    static let openOne: UInt64 = 1 << 48
    static let usedBit: UInt64 = 1 << 56

    enum Component: Int, CaseIterable {
        case promotion = 0, transfer, tail
        var name: String {
            switch self {
            case .promotion: return "promotion"
            case .transfer: return "transfer"
            case .tail: return "tail"
            }
        }
    }

    init(config: EnergyConfig, devices: Int) {
        enabled = config.enabled
        promotionDelaysFirstByte = config.promotionDelaysFirstByte
        batteryJoules = config.batteryCapacityWh * 3_600
        // Off: no tables at all (a world without the model builds nothing for it).
        let profiles = enabled ? InfraNetworkClass.allCases.map { config[config.kind(of: $0)] } : []
        func ticks(_ s: Double) -> Int64 { Int64((s * 1e6).rounded()) }
        promotionTicks = profiles.map { ticks($0.promotionSeconds) }
        promotionMicrojoules = profiles.map { Int64(($0.promotionWatts * $0.promotionSeconds * 1e6).rounded()) }
        activeWatts = profiles.map(\.activeWatts)
        // αd W per Mbit/s × 8e-6 Mbit a byte = αd · 8e-6 J = αd · 8 µJ a byte.
        microjoulesPerByte = profiles.map { $0.downlinkWattsPerMbps * 8 }
        let t1 = profiles.map { ticks($0.tailSeconds) }, w1 = profiles.map(\.tailWatts)
        let t2 = profiles.map { ticks($0.secondTailSeconds) }, w2 = profiles.map(\.secondTailWatts)
        tailTicks = t1
        tailWatts = w1
        secondTailTicks = t2
        secondTailWatts = w2
        microjoules = enabled ? [Int64](repeating: 0, count: InfraNetworkClass.count * 4 * Self.components) : []
        tailMicrojoules = profiles.indices.map { c in Self.tail(ticks: .max, t1[c], w1[c], t2[c], w2[c]) }
        if enabled {
            state = [DeviceState](repeating: 0, count: devices)
            promotions = [0, 0]
        }
    }

    /// Microjoules of the first `g` microseconds of a tail (rounded once, so a cut tail never
    /// exceeds the whole).
    static func tail(ticks g: Int64, _ t1: Int64, _ w1: Double, _ t2: Int64, _ w2: Double) -> Int64 {
        let first = min(g, t1)
        let second = max(0, min(g - first, t2))
        return Int64((Double(first) * w1 + Double(second) * w2).rounded())
    }

    @inline(__always)
    static func bucket(_ c: Int, foreground: Bool, neverOpened: Bool, _ k: Component) -> Int {
        ((c &* 2 &+ (foreground ? 1 : 0)) &* 2 &+ (neverOpened ? 1 : 0)) &* components &+ k.rawValue
    }

    /// A fetch of device `d` on class `network` opens now: charges the promotion when the radio
    /// is idle (or refunds the tail it cuts short) and returns the microseconds its first byte
    /// waits for the radio.
    mutating func open(device d: Int, network: InfraNetworkClass, foreground: Bool, neverOpened: Bool, now: Int64) -> Int64 {
        let c = Int(network.rawValue)
        var s = state[d]
        let t = Int64(s & Self.timeMask)
        let open = (s >> 48) & 0xFF
        if open > 0 {
            // Connected or promoting: joins the stretch (waits out the rest of a promotion).
            if open < 0xFF { s &+= Self.openOne }
            state[d] = s
            return promotionDelaysFirstByte ? max(0, t - now) : 0
        }
        let last = Int((s >> 57) & 0x7)
        let gap = now - t
        if s & Self.usedBit == 0 || gap >= tailTicks[last] + secondTailTicks[last] {
            microjoules[Self.bucket(c, foreground: foreground, neverOpened: neverOpened, .promotion)] += promotionMicrojoules[c]
            promotions[foreground ? 1 : 0] += 1
            let delay = promotionDelaysFirstByte ? promotionTicks[c] : 0
            state[d] = UInt64(now + promotionTicks[c]) | Self.openOne | Self.usedBit
            return delay
        }
        // Within the last tail: it ends now; give back the part not spent.
        let cut = tailMicrojoules[last] - Self.tail(ticks: gap, tailTicks[last], tailWatts[last], secondTailTicks[last], secondTailWatts[last])
        microjoules[Self.bucket(last, foreground: (s >> 60) & 1 == 1, neverOpened: (s >> 61) & 1 == 1, .tail)] -= cut
        state[d] = UInt64(now) | Self.openOne | Self.usedBit
        return 0
    }

    /// Records which device opened InfraWorld request `id` (dense, recycled ids).
    mutating func noteRequest(_ id: UInt32, device d: Int, network: InfraNetworkClass, foreground: Bool, neverOpened: Bool) {
        let i = Int(id)
        while requestInfo.count <= i { requestInfo.append(0) }
        requestInfo[i] = UInt64(d) << 5 | UInt64(network.rawValue) << 2 | (foreground ? 2 : 0) | (neverOpened ? 1 : 0)
    }

    /// Request `id` ended (replied or cancelled) with `result`: its throughput term; when it was
    /// the device's last open fetch, the connected stretch's base power and the full tail.
    mutating func close(_ result: FetchResult, request id: Int) {
        let info = requestInfo[id]
        let d = Int(info >> 5)
        let c = Int((info >> 2) & 0x7)
        let foreground = info & 2 != 0
        let neverOpened = info & 1 != 0
        var s = state[d]
        microjoules[Self.bucket(c, foreground: foreground, neverOpened: neverOpened, .transfer)]
            += Int64((Double(max(0, result.bytes)) * microjoulesPerByte[c]).rounded())
        let open = (s >> 48) & 0xFF
        if open > 1 {
            s &-= Self.openOne
            state[d] = s
            return
        }
        let end = result.endTime.ticks
        let since = Int64(s & Self.timeMask)
        microjoules[Self.bucket(c, foreground: foreground, neverOpened: neverOpened, .transfer)]
            += Int64((Double(max(0, end - since)) * activeWatts[c]).rounded())
        microjoules[Self.bucket(c, foreground: foreground, neverOpened: neverOpened, .tail)] += tailMicrojoules[c]
        state[d] = UInt64(max(end, since)) | Self.usedBit | UInt64(c) << 57 | (foreground ? 1 << 60 : 0) | (neverOpened ? 1 << 61 : 0)
    }

    // MARK: - Totals

    /// Joules of the buckets `include` selects (class, foreground, never opened, component).
    func joules(_ include: (Int, Bool, Bool, Component) -> Bool) -> Double {
        var sum: Int64 = 0
        for c in 0..<InfraNetworkClass.count {
            for fg in [false, true] {
                for no in [false, true] {
                    for k in Component.allCases where include(c, fg, no, k) {
                        sum += microjoules[Self.bucket(c, foreground: fg, neverOpened: no, k)]
                    }
                }
            }
        }
        return Double(sum) / 1e6
    }
}
