import InfraModel

extension PushMetrics {
    /// The users' data metrics (always), and with `costs` the money metrics of the run and of each
    /// campaign (`CostBreakdown`).
    func appendCostAndUserDataMetrics(to m: inout [Metric], infra: InfraWorld) {
        // One pass over the counters: bytes of opened and never-opened pushes and the pushes, per class.
        let classes = NetworkClass.count
        var openedBytes = [UInt64](repeating: 0, count: classes), neverBytes = openedBytes
        var openedPushes = openedBytes, neverPushes = openedBytes
        let a = attribution
        for c in 0..<a.campaigns {
            for r in 0..<a.regions {
                for n in 0..<classes {
                    let never = a.value(campaign: c, region: r, network: n, .neverOpened)
                    neverBytes[n] &+= never
                    openedBytes[n] &+= a.value(campaign: c, region: r, network: n, .background) - never
                        + a.value(campaign: c, region: r, network: n, .foreground)
                }
            }
        }
        for r in 0..<a.regions {
            for n in 0..<classes {
                openedPushes[n] &+= a.pushes(region: r, network: n, opened: true)
                neverPushes[n] &+= a.pushes(region: r, network: n, opened: false)
            }
        }
        func mean(_ bytes: [UInt64], _ pushes: [UInt64], _ include: (Int) -> Bool) -> Double? {
            var b: UInt64 = 0, p: UInt64 = 0
            for n in 0..<classes where include(n) { b &+= bytes[n]; p &+= pushes[n] }
            return p > 0 ? Double(b) / Double(p) : nil
        }
        let wifi = Int(NetworkClass.wifi.rawValue)
        m.append(Metric(MetricID.userDataPushesReached.spec, value: Double(openedPushes.reduce(0, +) + neverPushes.reduce(0, +))))
        for opened in [true, false] {
            let bytes = opened ? openedBytes : neverBytes, pushes = opened ? openedPushes : neverPushes
            if let v = mean(bytes, pushes, { _ in true }) {
                m.append(Metric((opened ? MetricID.userDataOpenedMeanBytes : .userDataNeverOpenedMeanBytes).spec, value: v))
            }
            if let v = mean(bytes, pushes, { $0 != wifi }) {
                m.append(Metric((opened ? MetricID.userDataCellularOpenedMeanBytes : .userDataCellularNeverOpenedMeanBytes).spec, value: v))
            }
            for c in NetworkClass.allCases {
                if let v = mean(bytes, pushes, { $0 == Int(c.rawValue) }) {
                    m.append(Metric(MetricTable.userData(network: c.description, opened: opened), value: v))
                }
            }
        }
        appendUserDataQuantiles(to: &m)
        guard let costs else { return }
        let b = costBreakdown(costs, infra: infra)
        let r = b.run
        let rows: [(MetricID, Double)] = [
            (.costTotal, b.total), (.costPrestage, r.prestage), (.costForeground, r.foreground), (.costWarm, r.warm), (.costFill, r.fill),
            (.costNeverOpened, r.neverOpened), (.costRequests, r.requests),
        ]
        for (id, v) in rows { m.append(Metric(id.spec, value: v)) }
        if let commit = costs.commit {
            m.append(Metric(MetricID.costCommit.spec, value: b.commit))
            m.append(Metric(MetricID.costCommitOverage.spec, value: b.commitOverage))
            m.append(Metric(MetricID.costCommitUtilisation.spec, value: b.commitBilledGbps / commit.rateGbps))
        }
        if !costs.cellular.isEmpty { m.append(Metric(MetricID.costUsersCellular.spec, value: r.usersCellular)) }
        for (c, p) in b.campaigns.enumerated() where c < campaignNames.count {
            let values: [(MetricTable.CampaignCostPart, Double)] = [
                (.total, p.total), (.prestage, p.prestage), (.foreground, p.foreground), (.warm, p.warm), (.fill, p.fill),
                (.neverOpened, p.neverOpened),
            ] + (costs.cellular.isEmpty ? [] : [(.usersCellular, p.usersCellular)])
            for (part, v) in values { m.append(Metric(MetricTable.campaignCost(campaignNames[c], part), value: v)) }
        }
    }

    /// This replication's costs under `costs`.
    func costBreakdown(_ costs: CostsConfig, infra: InfraWorld) -> CostBreakdown {
        let ts = infra.timeSeries
        let tier = costs.commit?.tier ?? .edge
        let series: [UInt64]
        let total: UInt64
        switch tier {
        case .edge: series = ts.edgeBytes; total = infra.tierCounters(.edge).bytesServed
        case .shield: series = ts.shieldBytes; total = infra.tierCounters(.shield).bytesServed
        case .origin: series = ts.originBytes; total = infra.originCounters.bytesServed
        }
        return CostBreakdown.compute(costs, attribution: attribution, upstream: infra.upstreamBytes, objectCampaign: objectCampaign,
                                     tierBytesPerSecond: costs.commit == nil ? [] : series, tierBytes: total, horizonSeconds: horizonSeconds)
    }
}
