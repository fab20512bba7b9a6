import InfraModel

/// The bytes devices received, split by purpose, per campaign × region × network class, and the
/// pushes that reached devices per region × network class × opened (users' data). Counted at the
/// points `ByteCounts` counts (`PushMetrics.countPrestageTransfer`, `countForegroundTransfer`), so
/// per replication, summed over campaigns, regions and classes:
///
///     background  = bytes.background       foreground = bytes.foreground
///     neverOpened = bytes.neverOpened      Σ non-Wi-Fi (background + foreground) = bytes.cellular
///
/// exactly. Compact: fixed arrays of campaigns × regions × 7 classes (no per-device state: 0 bytes
/// per device). Region is the request's region, class the network the request was made on.
package struct ByteAttribution: Codable, Sendable, Equatable {
    /// What a counter of `counts` holds.
    package enum Part: Int, CaseIterable, Sendable {
        /// Bytes received by pre-stage (background) sessions.
        case background
        /// Bytes received by foreground fetches after taps.
        case foreground
        /// Of `background`: bytes pre-staged for pushes whose user never opens them.
        case neverOpened
        /// Pre-stage and foreground device requests that reached the edge (billable requests).
        case backgroundRequests
        case foregroundRequests
    }

    package let campaigns: Int
    package let regions: Int
    /// `((campaign * regions + region) * 7 + class) * Part.allCases.count + part`.
    package private(set) var counts: [UInt64]
    /// Pushes that reached a device (a handler ran, or a notification without a pre-stage manifest
    /// was shown): `(region * 7 + class) * 2 + (opened ? 1 : 0)`, the device's region and its own
    /// network class (`population.networkMix`, before any network change).
    package private(set) var pushesReached: [UInt64]

    static let classes = NetworkClass.count
    static let parts = Part.allCases.count

    package init(campaigns: Int, regions: Int) {
        self.campaigns = max(1, campaigns)
        self.regions = max(1, regions)
        counts = [UInt64](repeating: 0, count: self.campaigns * self.regions * Self.classes * Self.parts)
        pushesReached = [UInt64](repeating: 0, count: self.regions * Self.classes * 2)
    }

    @inline(__always)
    func index(campaign c: Int, region r: Int, network n: Int, part: Part) -> Int {
        ((c &* regions &+ r) &* Self.classes &+ n) &* Self.parts &+ part.rawValue
    }

    @inline(__always)
    mutating func add(_ value: UInt64, campaign c: Int, region r: Int, network n: Int, part: Part) {
        let i = index(campaign: min(c, campaigns - 1), region: min(r, regions - 1), network: min(n, Self.classes - 1), part: part)
        counts[i] &+= value
    }

    /// One transfer's counters at once (the row of campaign × region × class computed once, one
    /// uniqueness check): `request` adds 1 to the requests part of its purpose, `bytes` to its
    /// bytes part, and to `neverOpened` too when `neverOpened` is set (pre-stage only).
    @inline(__always)
    mutating func addTransfer(campaign c: Int, region r: Int, network n: Int, foreground: Bool, request: Bool, bytes: UInt64, neverOpened: Bool) {
        let row = index(campaign: min(c, campaigns - 1), region: min(r, regions - 1), network: min(n, Self.classes - 1), part: .background)
        counts.withUnsafeMutableBufferPointer { p in
            if request { p[row &+ (foreground ? Part.foregroundRequests : Part.backgroundRequests).rawValue] &+= 1 }
            guard bytes > 0 else { return }
            p[row &+ (foreground ? Part.foreground : Part.background).rawValue] &+= bytes
            if neverOpened { p[row &+ Part.neverOpened.rawValue] &+= bytes }
        }
    }

    @inline(__always)
    mutating func notePush(region r: UInt32, network n: NetworkClass, opened: Bool) {
        pushesReached[(min(Int(r), regions - 1) &* Self.classes &+ Int(n.rawValue)) &* 2 &+ (opened ? 1 : 0)] &+= 1
    }

    /// The counter of `part` for one campaign, region and class.
    package func value(campaign c: Int, region r: Int, network n: Int, _ part: Part) -> UInt64 {
        counts[index(campaign: c, region: r, network: n, part: part)]
    }

    /// `part` summed over the campaigns, regions and classes `include` keeps.
    package func sum(_ part: Part, where include: (_ campaign: Int, _ region: Int, _ network: Int) -> Bool = { _, _, _ in true }) -> UInt64 {
        var total: UInt64 = 0
        for c in 0..<campaigns {
            for r in 0..<regions {
                for n in 0..<Self.classes where include(c, r, n) { total &+= counts[index(campaign: c, region: r, network: n, part: part)] }
            }
        }
        return total
    }

    /// Pushes reached in region `r` on class `n`, opened or not.
    package func pushes(region r: Int, network n: Int, opened: Bool) -> UInt64 {
        pushesReached[(r * Self.classes + n) * 2 + (opened ? 1 : 0)]
    }

    /// Pushes reached over the regions and classes `include` keeps, opened or not.
    package func pushes(opened: Bool, where include: (_ region: Int, _ network: Int) -> Bool = { _, _ in true }) -> UInt64 {
        var total: UInt64 = 0
        for r in 0..<regions { for n in 0..<Self.classes where include(r, n) { total &+= pushes(region: r, network: n, opened: opened) } }
        return total
    }

    /// Bytes of opened pushes (pre-stage of pushes the user opens, and every foreground byte) and of
    /// never-opened pushes, over the regions and classes `include` keeps.
    package func userBytes(opened: Bool, where include: (_ region: Int, _ network: Int) -> Bool = { _, _ in true }) -> UInt64 {
        let never = sum(.neverOpened) { include($1, $2) }
        guard opened else { return never }
        return sum(.background) { include($1, $2) } - never + sum(.foreground) { include($1, $2) }
    }
}

extension PushMetrics {
    /// Attributes a finished or cancelled request's bytes (and, when it reached the edge, the
    /// request) to its campaign, region and class; `neverOpened` by the request's flag.
    @inline(__always)
    mutating func attribute(_ result: FetchResult, request r: Int, foreground: Bool) {
        let reached: Bool
        if case .notReached = result.edgeLookup { reached = false } else { reached = true }  // no Equatable witness call
        guard reached || result.bytes > 0 else { return }
        let flags = reqFlags[r]
        attribution.addTransfer(campaign: Int(reqCampaign[r]), region: Int(reqRegion[r]), network: Int(flags >> 2), foreground: foreground,
                                request: reached, bytes: UInt64(max(0, result.bytes)),
                                neverOpened: !foreground && flags & PushMetrics.requestNeverOpened != 0)
        if result.bytes > 0 { pushBytes.add(UInt64(result.bytes), request: r) }
    }
}
