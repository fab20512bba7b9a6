import Foundation

/// Prices, for the money view of a run (`costs` in a scenario). There are no default prices:
/// without this section no money appears anywhere. GB here is 10⁹ bytes (the unit CDN price
/// lists bill by). The run is one billing period: volume tiers apply to the run's volume, the
/// commit's price is per run.
package struct CostsConfig: Sendable, Equatable {
    /// The currency every price is in (a label, e.g. "USD"; 1–8 characters, no conversion).
    package var currency: String = "USD"
    /// CDN (edge → device) prices per group of regions; a group without `regions` prices every
    /// region no other group names. Empty: the edge costs nothing.
    package var cdn: [CdnPriceConfig] = []
    /// Origin egress (origin → shields, or PoPs without tiering), per GB.
    package var originPricePerGB: Double = 0
    /// Shield egress (shield → PoPs), per GB.
    package var shieldPricePerGB: Double = 0
    /// A committed rate on one tier, billed on top of the per-GB prices.
    package var commit: CommitConfig?
    /// What users pay their carrier per GB received over a cellular class, per group of regions
    /// (the "what it costs users" view; not part of `cost.total`).
    package var cellular: [CellularPriceConfig] = []

    package init() {}
}

/// A region group's CDN price list.
package struct CdnPriceConfig: Sendable, Equatable {
    /// The regions (indices into `infra.topology.regions`) this list prices; nil: every region no
    /// other list names.
    package var regions: [Int]?
    /// Volume tiers: each tier's price applies to the GB of the group's volume from its `fromGB`
    /// to the next tier's (the first tier starts at 0; ascending).
    package var tiers: [PriceTierConfig] = [PriceTierConfig()]
    /// Price per 10 000 device requests reaching the edge.
    package var pricePer10kRequests: Double = 0

    package init(regions: [Int]? = nil, tiers: [PriceTierConfig] = [PriceTierConfig()], pricePer10kRequests: Double = 0) {
        self.regions = regions
        self.tiers = tiers
        self.pricePer10kRequests = pricePer10kRequests
    }
}

/// One volume tier of a price list.
package struct PriceTierConfig: Sendable, Equatable {
    /// The tier starts at this volume, GB (10⁹ bytes).
    package var fromGB: Double = 0
    package var pricePerGB: Double = 0

    package init(fromGB: Double = 0, pricePerGB: Double = 0) {
        self.fromGB = fromGB
        self.pricePerGB = pricePerGB
    }
}

/// Users' cellular price in a region group.
package struct CellularPriceConfig: Sendable, Equatable {
    /// As `CdnPriceConfig.regions`.
    package var regions: [Int]?
    package var pricePerGB: Double = 0

    package init(regions: [Int]? = nil, pricePerGB: Double = 0) {
        self.regions = regions
        self.pricePerGB = pricePerGB
    }
}

/// The tier a commit is on.
package enum CommitTierConfig: String, Sendable, CaseIterable {
    case edge, shield, origin
}

/// How a commit is billed.
package enum CommitBillingConfig: String, Sendable, CaseIterable {
    /// The tier's 95th percentile of 5-minute samples (`BandwidthBilling`) against `rateGbps`;
    /// the excess is billed per Gbit/s.
    case percentile95
    /// The commit buys `rateGbps` sustained over the run (rate × horizon) as volume; bytes above
    /// it are billed per GB.
    case perGB
}

/// A committed rate.
package struct CommitConfig: Sendable, Equatable {
    package var tier: CommitTierConfig = .edge
    package var rateGbps: Double = 1
    package var billing: CommitBillingConfig = .percentile95
    /// The commit's price for the run: `price` + `pricePerGbps` × `rateGbps` (a contract states one
    /// or the other).
    package var price: Double = 0
    package var pricePerGbps: Double = 0
    /// Above the commit: per Gbit/s of billed rate (`percentile95`) or per GB (`perGB`).
    package var overagePricePerGbps: Double = 0
    package var overagePricePerGB: Double = 0

    package init() {}

    /// The commit's own price (before any overage).
    package var fee: Double { price + pricePerGbps * rateGbps }
}

extension CostsConfig {
    /// Bytes per GB: 10⁹ (decimal, as CDN price lists bill).
    package static let bytesPerGB = 1e9

    /// The cost of `gb` GB on `tiers` (each tier's price on the volume inside it).
    package static func tieredCost(gb: Double, tiers: [PriceTierConfig]) -> Double {
        var cost = 0.0
        for (i, t) in tiers.enumerated() {
            let upper = i + 1 < tiers.count ? tiers[i + 1].fromGB : Double.infinity
            let inTier = min(gb, upper) - t.fromGB
            if inTier > 0 { cost += inTier * t.pricePerGB }
        }
        return cost
    }

    /// The group of `groups` that prices region `r` (its own, else the one without `regions`).
    static func group<G>(of r: Int, in groups: [G], regions: KeyPath<G, [Int]?>) -> Int? {
        if let g = groups.firstIndex(where: { $0[keyPath: regions]?.contains(r) ?? false }) { return g }
        return groups.firstIndex { $0[keyPath: regions] == nil }
    }
}

extension CampaignPlans {
    /// Each catalogue object's campaign (its asset's, or its token endpoint's); -1 for none.
    func campaignOfObjects() -> [Int] {
        var out = objectCampaign.map(Int.init)
        for (c, o) in tokenObject.enumerated() where Int(o) < out.count { out[Int(o)] = c }
        for (c, o) in manifestObject.enumerated() where o != .max && Int(o) < out.count { out[Int(o)] = c }
        return out
    }
}
