/// Access-network classes a device can be on.
///
/// Written in scenarios as the strings `"wifi"`, `"5g"`, `"lte"`, `"4g"`, `"3g"`, `"2g"`, `"slow-2g"`.
@usableFromInline package enum NetworkClass: UInt8, CaseIterable, Sendable, CustomStringConvertible {
    case wifi = 0, fiveG, lte, fourG, threeG, twoG, slow2G

    package static let count = 7

    @usableFromInline package var description: String {
        switch self {
        case .wifi: return "wifi"
        case .fiveG: return "5g"
        case .lte: return "lte"
        case .fourG: return "4g"
        case .threeG: return "3g"
        case .twoG: return "2g"
        case .slow2G: return "slow-2g"
        }
    }
}

/// Chrome's effective connection type (Network Information API, WICG netinfo): the slowest
/// type whose thresholds the measured round-trip time or downlink meets.
///
/// Thresholds (minimum RTT, maximum downlink): slow-2g 2000 ms / 50 kbit/s, 2g 1400 ms / 70 kbit/s,
/// 3g 270 ms / 700 kbit/s; anything faster is 4g.
///
/// Written in scenarios as `"slow-2g"`, `"2g"`, `"3g"`, `"4g"`.
package enum EffectiveConnectionType: UInt8, Comparable, CaseIterable, Sendable, CustomStringConvertible {
    case slow2G = 0, twoG, threeG, fourG

    package static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

    package var description: String {
        switch self {
        case .slow2G: return "slow-2g"
        case .twoG: return "2g"
        case .threeG: return "3g"
        case .fourG: return "4g"
        }
    }

    /// Classify a measured RTT and downlink.
    @inlinable
    package static func classify(rttSeconds: Double, downlinkBitsPerSecond: Double) -> EffectiveConnectionType {
        if rttSeconds >= 2.0 || downlinkBitsPerSecond <= 50_000 { return .slow2G }
        if rttSeconds >= 1.4 || downlinkBitsPerSecond <= 70_000 { return .twoG }
        if rttSeconds >= 0.27 || downlinkBitsPerSecond <= 700_000 { return .threeG }
        return .fourG
    }
}
