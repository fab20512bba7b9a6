import Foundation
import InfraModel

/// One campaign's (or the run's) cost, split by what the money bought, in `CostsConfig.currency`.
///
///     total = prestage + foreground + warm + fill (+ the run's unallocated commit)
///
/// - prestage / foreground: the CDN's per-GB price (tiered, by the region's price group) on the
///   bytes devices received by pre-stage sessions / foreground fetches, its price per 10 000 edge
///   requests, and an edge commit's fee and overage in proportion to those bytes;
/// - warm: origin and shield egress answering warm calls' fetches (`UpstreamBytes`);
/// - fill: origin and shield egress answering misses and revalidations;
/// - neverOpened: the part of `prestage` for pushes whose user never opens them (pro rata of bytes
///   in the price group, plus their requests);
/// - usersCellular: what users pay their carriers for the bytes received over cellular classes
///   (not part of `total`: it is not the operator's bill).
package struct CostParts: Codable, Sendable, Equatable {
    package var prestage = 0.0
    package var foreground = 0.0
    package var warm = 0.0
    package var fill = 0.0
    package var neverOpened = 0.0
    package var usersCellular = 0.0
    package var requests = 0.0

    package init() {}

    package var total: Double { prestage + foreground + warm + fill }
}

/// A replication's costs (`CostBreakdown.compute`).
package struct CostBreakdown: Sendable, Equatable {
    package var run = CostParts()
    /// Per campaign, in scenario order.
    package var campaigns: [CostParts] = []
    /// The commit's fee and overage (included in the parts above), and the billed rate, Gbit/s
    /// (the tier's 95th percentile, or its mean rate over the run for `perGB`).
    package var commit = 0.0
    package var commitOverage = 0.0
    package var commitBilledGbps = 0.0
    /// Commit money no byte could carry (the commit's tier sent nothing): in the run's total only.
    package var unallocated = 0.0

    /// The run's total: the parts plus the unallocated commit.
    package var total: Double { run.total + unallocated }

    /// The costs of one replication.
    /// - Parameters:
    ///   - objectCampaign: the campaign of each catalogue object (-1: none, counted in the run only).
    ///   - tierBytesPerSecond: the commit tier's per-second bytes (`TimeSeries`).
    ///   - tierBytes: the commit tier's total bytes (the per-GB rule's volume).
    package static func compute(_ costs: CostsConfig, attribution a: ByteAttribution, upstream: UpstreamBytes, objectCampaign: [Int],
                                tierBytesPerSecond: [UInt64], tierBytes: UInt64, horizonSeconds: Double) -> CostBreakdown {
        let gb = CostsConfig.bytesPerGB
        var b = CostBreakdown()
        b.campaigns = [CostParts](repeating: CostParts(), count: a.campaigns)
        // Edge: each price group's tiered cost on its volume, shared pro rata of bytes.
        let groupOf = (0..<a.regions).map { CostsConfig.group(of: $0, in: costs.cdn, regions: \.regions) }
        let cellularOf = (0..<a.regions).map { CostsConfig.group(of: $0, in: costs.cellular, regions: \.regions) }
        var groupBytes = [UInt64](repeating: 0, count: costs.cdn.count)
        for c in 0..<a.campaigns {
            for r in 0..<a.regions {
                guard let g = groupOf[r] else { continue }
                for n in 0..<NetworkClass.count {
                    groupBytes[g] += a.value(campaign: c, region: r, network: n, .background) + a.value(campaign: c, region: r, network: n, .foreground)
                }
            }
        }
        let pricePerByte = groupBytes.indices.map { g -> Double in
            groupBytes[g] == 0 ? 0 : CostsConfig.tieredCost(gb: Double(groupBytes[g]) / gb, tiers: costs.cdn[g].tiers) / Double(groupBytes[g])
        }
        var edgeBytes: [(prestage: Double, foreground: Double, neverOpened: Double)] = Array(repeating: (0, 0, 0), count: a.campaigns)
        for c in 0..<a.campaigns {
            var p = CostParts()
            for r in 0..<a.regions {
                for n in 0..<NetworkClass.count {
                    let bg = a.value(campaign: c, region: r, network: n, .background)
                    let fg = a.value(campaign: c, region: r, network: n, .foreground)
                    let never = a.value(campaign: c, region: r, network: n, .neverOpened)
                    edgeBytes[c].prestage += Double(bg)
                    edgeBytes[c].foreground += Double(fg)
                    edgeBytes[c].neverOpened += Double(never)
                    if let g = groupOf[r] {
                        let perRequest = costs.cdn[g].pricePer10kRequests / 10_000
                        let bgRequests = Double(a.value(campaign: c, region: r, network: n, .backgroundRequests)) * perRequest
                        let fgRequests = Double(a.value(campaign: c, region: r, network: n, .foregroundRequests)) * perRequest
                        p.prestage += Double(bg) * pricePerByte[g] + bgRequests
                        p.foreground += Double(fg) * pricePerByte[g] + fgRequests
                        // A never-opened push's requests: its share of the pre-stage requests by bytes.
                        p.neverOpened += Double(never) * pricePerByte[g] + (bg > 0 ? bgRequests * Double(never) / Double(bg) : 0)
                        p.requests += bgRequests + fgRequests
                    }
                    if n != Int(NetworkClass.wifi.rawValue), let k = cellularOf[r] {
                        p.usersCellular += Double(bg + fg) / gb * costs.cellular[k].pricePerGB
                    }
                }
            }
            b.campaigns[c] = p
        }
        // Origin and shield egress, per object's campaign.
        var upstreamByCampaign: [(warm: Double, fill: Double)] = Array(repeating: (0, 0), count: a.campaigns + 1)  // last: no campaign
        for o in 0..<upstream.objectCount {
            let c = o < objectCampaign.count && objectCampaign[o] >= 0 && objectCampaign[o] < a.campaigns ? objectCampaign[o] : a.campaigns
            for tier in [Tier.shield, Tier.origin] {
                let price = tier == .origin ? costs.originPricePerGB : costs.shieldPricePerGB
                upstreamByCampaign[c].warm += Double(upstream.bytes(object: o, tier: tier, warm: true)) / gb * price
                upstreamByCampaign[c].fill += Double(upstream.bytes(object: o, tier: tier, warm: false)) / gb * price
            }
        }
        for c in 0..<a.campaigns {
            b.campaigns[c].warm += upstreamByCampaign[c].warm
            b.campaigns[c].fill += upstreamByCampaign[c].fill
        }
        var loose = CostParts()
        loose.warm = upstreamByCampaign[a.campaigns].warm
        loose.fill = upstreamByCampaign[a.campaigns].fill
        // The commit: fee plus overage, carried by the commit tier's bytes.
        if let commit = costs.commit {
            switch commit.billing {
            case .percentile95:
                b.commitBilledGbps = BandwidthBilling.percentile95BitsPerSecond(bytesPerSecond: tierBytesPerSecond) / 1e9
                b.commitOverage = max(0, b.commitBilledGbps - commit.rateGbps) * commit.overagePricePerGbps
            case .perGB:
                b.commitBilledGbps = horizonSeconds > 0 ? Double(tierBytes) * 8 / horizonSeconds / 1e9 : 0
                let committedBytes = commit.rateGbps * 1e9 / 8 * horizonSeconds
                b.commitOverage = max(0, Double(tierBytes) - committedBytes) / gb * commit.overagePricePerGB
            }
            b.commit = commit.fee + b.commitOverage
            b.allocate(commit: b.commit, tier: commit.tier, edgeBytes: edgeBytes, upstream: upstream, objectCampaign: objectCampaign)
        }
        b.run = loose
        for p in b.campaigns {
            b.run.prestage += p.prestage; b.run.foreground += p.foreground; b.run.warm += p.warm; b.run.fill += p.fill
            b.run.neverOpened += p.neverOpened; b.run.usersCellular += p.usersCellular; b.run.requests += p.requests
        }
        return b
    }

    /// Shares `money` over the campaigns' parts by the commit tier's bytes.
    private mutating func allocate(commit money: Double, tier: CommitTierConfig, edgeBytes: [(prestage: Double, foreground: Double, neverOpened: Double)],
                                   upstream: UpstreamBytes, objectCampaign: [Int]) {
        switch tier {
        case .edge:
            let total = edgeBytes.reduce(0) { $0 + $1.prestage + $1.foreground }
            guard total > 0 else { unallocated = money; return }
            for c in campaigns.indices {
                campaigns[c].prestage += money * edgeBytes[c].prestage / total
                campaigns[c].foreground += money * edgeBytes[c].foreground / total
                campaigns[c].neverOpened += money * edgeBytes[c].neverOpened / total
            }
        case .shield, .origin:
            let t: Tier = tier == .shield ? .shield : .origin
            var warm = [Double](repeating: 0, count: campaigns.count), fill = warm
            var total = 0.0
            for o in 0..<upstream.objectCount {
                let w = Double(upstream.bytes(object: o, tier: t, warm: true)), f = Double(upstream.bytes(object: o, tier: t, warm: false))
                total += w + f
                if o < objectCampaign.count, objectCampaign[o] >= 0, objectCampaign[o] < campaigns.count {
                    warm[objectCampaign[o]] += w
                    fill[objectCampaign[o]] += f
                }
            }
            let carried = warm.reduce(0, +) + fill.reduce(0, +)
            guard total > 0, carried > 0 else { unallocated = money; return }
            for c in campaigns.indices {
                campaigns[c].warm += money * warm[c] / carried
                campaigns[c].fill += money * fill[c] / carried
            }
        }
    }
}
