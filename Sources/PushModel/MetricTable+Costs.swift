import InfraModel

// The money metrics (emitted only when the scenario has `costs`) and users' data (always):
// their table rows, and the per-campaign and per-network names.

extension MetricTable {
    /// The parts a campaign's cost is reported in (`cost.campaign.NAME.PART`).
    package enum CampaignCostPart: String, Sendable, CaseIterable {
        case total, prestage, foreground, warm, fill, neverOpened, usersCellular

        var title: String {
            switch self {
            case .total: "total cost"
            case .prestage: "pre-stage cost"
            case .foreground: "foreground cost"
            case .warm: "warm cost"
            case .fill: "cache-fill cost"
            case .neverOpened: "cost of pre-stages never opened"
            case .usersCellular: "users' cellular cost"
            }
        }
    }

    /// Campaign `campaign`'s cost part `part`: `cost.campaign.NAME.PART`.
    package static func campaignCost(_ campaign: String, _ part: CampaignCostPart) -> MetricSpec {
        MetricSpec("cost.campaign.\(campaign).\(part.rawValue)", .money, .lower,
                   "Campaign \(campaign), \(part.title)")
    }

    /// Users' data on network class `network` (its name, e.g. "lte"): `userData.NETWORK.openedMeanBytes`
    /// or `.neverOpenedMeanBytes`.
    package static func userData(network: String, opened: Bool) -> MetricSpec {
        MetricSpec("userData.\(network).\(opened ? "opened" : "neverOpened")MeanBytes", .bytes, .lower,
                   "Data per push on \(network), \(opened ? "opened" : "never opened")",
                   ratio: ("bytes received on \(network) for \(opened ? "pushes the user opens (pre-stage and foreground)" : "pushes never opened (pre-stage)")",
                           "pushes that reached a handler on devices whose network class is \(network), \(opened ? "opened" : "never opened")"))
    }

    /// The users' data p95 of devices on network class `network`: `userData.NETWORK.openedP95Bytes`
    /// or `.neverOpenedP95Bytes` (a quantile of per-push bytes: no numerator and denominator).
    package static func userDataP95(network: String, opened: Bool) -> MetricSpec {
        MetricSpec("userData.\(network).\(opened ? "opened" : "neverOpened")P95Bytes", .bytes, .lower,
                   "Data per push on \(network), \(opened ? "opened" : "never opened"), p95")
    }

    /// The money and users' data metric named `name` that has no fixed row (per campaign, per network).
    static func costSpec(named name: String) -> MetricSpec? {
        if name.hasPrefix("cost.campaign.") {
            for part in CampaignCostPart.allCases where name.hasSuffix(".\(part.rawValue)") {
                let campaign = name.dropFirst("cost.campaign.".count).dropLast(part.rawValue.count + 1)
                if !campaign.isEmpty { return campaignCost(String(campaign), part) }
            }
        }
        if name.hasPrefix("userData.") {
            for opened in [true, false] {
                let suffix = opened ? ".openedMeanBytes" : ".neverOpenedMeanBytes"
                guard name.hasSuffix(suffix) else { continue }
                let network = String(name.dropFirst("userData.".count).dropLast(suffix.count))
                if networkNames.contains(network) { return userData(network: network, opened: opened) }
            }
            for opened in [true, false] {
                let suffix = opened ? ".openedP95Bytes" : ".neverOpenedP95Bytes"
                guard name.hasSuffix(suffix) else { continue }
                let network = String(name.dropFirst("userData.".count).dropLast(suffix.count))
                if networkNames.contains(network) { return userDataP95(network: network, opened: opened) }
            }
        }
        return nil
    }

    static let reachedPushes = "pushes that reached a handler (a pre-stage session started, or a push without a usable manifest was shown)"

    /// The rows of the fixed money and users' data metrics.
    static func costSpec(_ id: MetricID) -> MetricSpec? {
        let n = id.rawValue
        switch id {
        case .costTotal:
            return MetricSpec(n, .money, .lower, "Cost of the run",
                              ratio: ("pre-stage + foreground + warm + cache-fill cost (and a commit no byte carried)", "the run (one billing period)"))
        case .costPrestage: return MetricSpec(n, .money, .lower, "Pre-stage cost (CDN bytes, requests, edge commit share)")
        case .costForeground: return MetricSpec(n, .money, .lower, "Foreground cost after taps")
        case .costWarm: return MetricSpec(n, .money, .lower, "Warm cost (origin and shield egress for warm calls)")
        case .costFill: return MetricSpec(n, .money, .lower, "Cache-fill cost (origin and shield egress for misses)")
        case .costNeverOpened: return MetricSpec(n, .money, .lower, "Cost of pre-stages never opened")
        case .costRequests: return MetricSpec(n, .money, .lower, "CDN request cost")
        case .costCommit: return MetricSpec(n, .money, .lower, "Commit fee and overage")
        case .costCommitOverage: return MetricSpec(n, .money, .lower, "Commit overage")
        case .costCommitUtilisation:
            return MetricSpec(n, .factor, .lower, "Commit utilisation (billed rate over the committed rate)",
                              ratio: ("the commit tier's billed rate, bit/s (percentile95: the 95th percentile of its 5-minute samples; perGB: its bytes × 8 over the horizon)",
                                      "the committed rate, costs.commit.rateGbps × 10⁹ bit/s (above 1: the commit is exceeded)"))
        case .costUsersCellular: return MetricSpec(n, .money, .lower, "What users pay for cellular data")
        case .userDataPushesReached: return MetricSpec(n, .count, .none, "Pushes that reached a handler")
        case .userDataOpenedMeanBytes:
            return MetricSpec(n, .bytes, .lower, "Data per opened push",
                              ratio: ("bytes devices received for pushes their user opens (pre-stage and foreground)", reachedPushes + ", opened"))
        case .userDataNeverOpenedMeanBytes:
            return MetricSpec(n, .bytes, .lower, "Data per push never opened",
                              ratio: ("bytes pre-staged for pushes their user never opens (bytes.neverOpened)", reachedPushes + ", never opened"))
        case .userDataCellularOpenedMeanBytes:
            return MetricSpec(n, .bytes, .lower, "Cellular data per opened push",
                              ratio: ("bytes received over cellular classes for pushes their user opens",
                                      reachedPushes + " on devices whose network class is cellular, opened"))
        case .userDataCellularNeverOpenedMeanBytes:
            return MetricSpec(n, .bytes, .lower, "Cellular data per push never opened",
                              ratio: ("bytes pre-staged over cellular classes for pushes their user never opens",
                                      reachedPushes + " on devices whose network class is cellular, never opened"))
        default: return nil
        }
    }
}
