import InfraModel

// Bandwidth: each tier's response bytes per second read as bit/s, the figures capacity is bought
// and billed by. Every figure is over the seconds of the horizon, [0, ⌈horizonSeconds⌉), idle
// seconds included (the run is the billing period: an idle second is a second of the contract
// too); a response's bytes count in the second its first byte leaves the tier.

extension MetricTable {
    /// The four bandwidth figures of a tier.
    package enum BandwidthFigure: String, Sendable, CaseIterable {
        case peak
        case p95
        case p99
        /// The 95th percentile of the 5-minute samples (`BandwidthBilling`).
        case billed
    }

    /// The bandwidth metric of `figure` at `tier`.
    package static func bandwidth(_ tier: Tier, _ figure: BandwidthFigure) -> MetricID {
        switch (tier, figure) {
        case (.edge, .peak): .edgePeakBitsPerSecond
        case (.edge, .p95): .edgeP95BitsPerSecond
        case (.edge, .p99): .edgeP99BitsPerSecond
        case (.edge, .billed): .edgeBilledBitsPerSecond
        case (.shield, .peak): .shieldPeakBitsPerSecond
        case (.shield, .p95): .shieldP95BitsPerSecond
        case (.shield, .p99): .shieldP99BitsPerSecond
        case (.shield, .billed): .shieldBilledBitsPerSecond
        case (.origin, .peak): .originPeakBitsPerSecond
        case (.origin, .p95): .originP95BitsPerSecond
        case (.origin, .p99): .originP99BitsPerSecond
        case (.origin, .billed): .originBilledBitsPerSecond
        }
    }

    /// The tier and figure of a bandwidth metric (nil for any other metric).
    package static func bandwidthParts(_ id: MetricID) -> (tier: Tier, figure: BandwidthFigure)? {
        for tier in Tier.allCases {
            for figure in BandwidthFigure.allCases where bandwidth(tier, figure) == id { return (tier, figure) }
        }
        return nil
    }

    /// What the tier sends, in words.
    static func bandwidthBytesText(_ tier: Tier) -> String {
        switch tier {
        case .edge: "response bytes × 8 the PoPs sent to devices (bytes.cdnEgress)"
        case .shield: "response bytes × 8 the shields sent to the PoPs (bytes.shieldEgress)"
        case .origin: "response bytes × 8 the origin sent to the shields, or to the PoPs without tiering (bytes.originEgress)"
        }
    }

    static func bandwidthTierTitle(_ tier: Tier) -> String {
        switch tier {
        case .edge: "Edge egress"
        case .shield: "Shield egress"
        case .origin: "Origin egress"
        }
    }

    /// The denominator of the per-second figures.
    static let bandwidthSecond = "one second of the horizon (every second [0, ⌈horizonSeconds⌉) counts, idle ones included; bytes past the horizon are in none)"

    /// The row of a bandwidth metric.
    static func bandwidthSpec(_ id: MetricID) -> MetricSpec {
        guard let (tier, figure) = bandwidthParts(id) else { preconditionFailure("\(id.rawValue) is not a bandwidth metric") }
        let bytes = bandwidthBytesText(tier), title = bandwidthTierTitle(tier)
        switch figure {
        case .peak:
            return MetricSpec(id.rawValue, .bitsPerSecond, .lower, title + ", peak second",
                              rate: (bytes + " in the busiest second of the horizon (a response counts in the second of its first byte)", bandwidthSecond))
        case .p95:
            return MetricSpec(id.rawValue, .bitsPerSecond, .lower, title + ", p95 of seconds",
                              rate: (bytes + " in the second ranked ⌈0.95 · N⌉ of the N seconds sorted ascending (nearest rank)", bandwidthSecond))
        case .p99:
            return MetricSpec(id.rawValue, .bitsPerSecond, .lower, title + ", p99 of seconds",
                              rate: (bytes + " in the second ranked ⌈0.99 · N⌉ of the N seconds sorted ascending (nearest rank)", bandwidthSecond))
        case .billed:
            return MetricSpec(id.rawValue, .bitsPerSecond, .lower, title + ", billed (95th percentile of 5-minute samples)",
                              rate: (bytes + " in the 5-minute sample ranked ⌈0.95 · N⌉ of the horizon's N samples sorted ascending (idle samples included)",
                                     "that sample's seconds (300; a last partial sample its own length)"))
        }
    }
}
