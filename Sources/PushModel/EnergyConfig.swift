import InfraModel

// Configuration of the radio energy model (the scenario's `energy` section): plain values whose
// initialisers state the defaults. The scenario format reads and checks them.

/// One radio's power model: an idle → connected promotion, a base power while connected plus a
/// term per downlink throughput (Huang et al., MobiSys 2012: P = αu·tu + αd·td + β; uplink
/// request bytes, a few hundred per fetch, are not counted), and a tail of one or two stages
/// after the last byte (LTE: the DRX tail at its average power; 3G: DCH, then FACH).
package struct RadioProfile: Sendable, Equatable {
    /// Idle → connected promotion time: the radio draws `promotionWatts` and the fetch's first
    /// byte waits for it (``EnergyConfig/promotionDelaysFirstByte``).
    package var promotionSeconds: Double
    package var promotionWatts: Double
    /// Base power while connected with a fetch open (β).
    package var activeWatts: Double
    /// Power per Mbit/s of downlink throughput (αd), so a transfer's throughput term is αd × its
    /// megabits, whatever its duration.
    package var downlinkWattsPerMbps: Double
    /// The tail after the last byte: `tailSeconds` at `tailWatts`, then `secondTailSeconds` at
    /// `secondTailWatts` (0 s: none), then idle. A fetch within the tail pays no promotion and
    /// cuts the tail short.
    package var tailSeconds: Double
    package var tailWatts: Double
    package var secondTailSeconds: Double
    package var secondTailWatts: Double

    package init(promotionSeconds: Double, promotionWatts: Double, activeWatts: Double, downlinkWattsPerMbps: Double,
                 tailSeconds: Double, tailWatts: Double, secondTailSeconds: Double = 0, secondTailWatts: Double = 0) {
        self.promotionSeconds = promotionSeconds
        self.promotionWatts = promotionWatts
        self.activeWatts = activeWatts
        self.downlinkWattsPerMbps = downlinkWattsPerMbps
        self.tailSeconds = tailSeconds
        self.tailWatts = tailWatts
        self.secondTailSeconds = secondTailSeconds
        self.secondTailWatts = secondTailWatts
    }

    /// LTE: Huang et al., "A Close Examination of Performance and Power Characteristics of 4G LTE
    /// Networks" (MobiSys 2012), as encoded in AT&T Video Optimizer's `lte.conf`: promotion
    /// 0.26 s at 1.21 W; tail ≈ 10 s at 1.06 W (short and long DRX averaged into one tail power,
    /// not modelled cycle by cycle); 51.97 mW per Mbit/s downlink; base 1.2 W.
    package static let lte = RadioProfile(promotionSeconds: 0.26, promotionWatts: 1.21, activeWatts: 1.2, downlinkWattsPerMbps: 0.05197,
                                          tailSeconds: 10, tailWatts: 1.06)
    /// 3G: Video Optimizer's i997 profile: promotion 2.0 s (typical of 1.5–4.0 s) at 0.65 W, DCH
    /// 1.30 W, DCH → FACH after 4 s, FACH (0.30 W) → idle after 10 s. Power in DCH is flat (no
    /// throughput term). A fetch in FACH pays no promotion (the profile's FACH → DCH promotion is
    /// not modelled).
    package static let threeG = RadioProfile(promotionSeconds: 2.0, promotionWatts: 0.65, activeWatts: 1.30, downlinkWattsPerMbps: 0,
                                             tailSeconds: 4, tailWatts: 1.30, secondTailSeconds: 10, secondTailWatts: 0.30)
    /// Wi-Fi: Video Optimizer's `POWER_WIFI_ACTIVE` 0.403 W, a 0.25 s tail (at the same power:
    /// judgement), no promotion (judgement: power-save wake-up is a few ms).
    package static let wifi = RadioProfile(promotionSeconds: 0, promotionWatts: 0, activeWatts: 0.403, downlinkWattsPerMbps: 0,
                                           tailSeconds: 0.25, tailWatts: 0.403)
    /// 5G non-standalone (mid-band): 2.5 × LTE's powers (Xu et al., SIGCOMM 2020, measured 2–3×;
    /// 2.5 is judgement), LTE's promotion time (the LTE anchor connects first) and tail timer
    /// (judgement).
    package static let fiveGNonStandalone = RadioProfile(promotionSeconds: 0.26, promotionWatts: 2.5 * 1.21, activeWatts: 2.5 * 1.2,
                                                         downlinkWattsPerMbps: 2.5 * 0.05197, tailSeconds: 10, tailWatts: 2.5 * 1.06)
    /// 5G standalone: NSA's powers; RRC_INACTIVE shortens both the tail and the return to
    /// connected: 2 s tail, 0.1 s resume (both judgement: no published timer found).
    package static let fiveGStandalone = RadioProfile(promotionSeconds: 0.1, promotionWatts: 2.5 * 1.21, activeWatts: 2.5 * 1.2,
                                                      downlinkWattsPerMbps: 2.5 * 0.05197, tailSeconds: 2, tailWatts: 2.5 * 1.06)
}

/// The radio parameter sets a scenario may override (`energy.profiles`).
package enum RadioKind: UInt8, CaseIterable, Sendable, CustomStringConvertible {
    case wifi = 0, lte, threeG, fiveGNonStandalone, fiveGStandalone

    package var description: String {
        switch self {
        case .wifi: return "wifi"
        case .lte: return "lte"
        case .threeG: return "3g"
        case .fiveGNonStandalone: return "5g-nsa"
        case .fiveGStandalone: return "5g-sa"
        }
    }

    package var standard: RadioProfile {
        switch self {
        case .wifi: return .wifi
        case .lte: return .lte
        case .threeG: return .threeG
        case .fiveGNonStandalone: return .fiveGNonStandalone
        case .fiveGStandalone: return .fiveGStandalone
        }
    }
}

/// How 5G devices attach.
package enum FiveGMode: String, Sendable, Equatable, CaseIterable, Codable {
    /// Non-standalone (an LTE anchor): the common deployment (judgement).
    case nonStandalone = "nsa"
    case standalone = "sa"
}

/// The radio energy model of every device (off by default).
package struct EnergyConfig: Sendable, Equatable {
    package var enabled = false
    /// Battery capacity of a typical phone: 15 Wh (judgement: a 3 900 mAh cell at 3.85 V
    /// nominal, between the 12.4 Wh of an iPhone 13 and the 19 Wh of a 5 000 mAh Android phone).
    package var batteryCapacityWh: Double = 15
    /// Whether a fetch from an idle radio waits for the promotion before its connection set-up.
    /// The network classes' RTTs (WebPageTest presets) are connected-radio latencies, so the
    /// promotion is not in them.
    package var promotionDelaysFirstByte = true
    /// Which radio the `5g` class uses.
    package var fiveGMode: FiveGMode = .nonStandalone
    /// The parameter sets (each as sourced unless the scenario overrides it).
    package var profiles = RadioProfiles()

    package init() {}

    package subscript(kind: RadioKind) -> RadioProfile {
        get { profiles[kind] }
        set { profiles[kind] = newValue }
    }

    /// The radio of network class `c`: Wi-Fi; 5G as `fiveGMode`; LTE and 4G the LTE set; 3G,
    /// 2G and slow 2G the 3G set (judgement: no 2G set was sourced, and 2G's circuit radio
    /// keeps a tail of the same kind).
    package func kind(of c: InfraModel.NetworkClass) -> RadioKind {
        switch c {
        case .wifi: return .wifi
        case .fiveG: return fiveGMode == .standalone ? .fiveGStandalone : .fiveGNonStandalone
        case .lte, .fourG: return .lte
        case .threeG, .twoG, .slow2G: return .threeG
        }
    }
}

/// Every radio's parameter set.
package struct RadioProfiles: Sendable, Equatable {
    /// Indexed by `RadioKind.rawValue`.
    package var profiles: [RadioProfile] = RadioKind.allCases.map(\.standard)

    package init() {}

    package subscript(kind: RadioKind) -> RadioProfile {
        get { profiles[Int(kind.rawValue)] }
        set { profiles[Int(kind.rawValue)] = newValue }
    }
}
