import InfraModel

extension PushMetrics {
    /// The users' data metrics (always), and with `costs` the money metrics of the run and of each
    /// campaign (`CostBreakdown`).
    func appendCostAndUserDataMetrics(to m: inout [Metric], infra: InfraWorld) {
        let a = attribution
        let wifi = Int(NetworkClass.wifi.rawValue)
        func mean(_ bytes: UInt64, _ pushes: UInt64) -> Double? { pushes > 0 ? Double(bytes) / Double(pushes) : nil }
        m.append(Metric(MetricID.userDataPushesReached.spec, value: Double(a.pushes(opened: true) + a.pushes(opened: false))))
        for opened in [true, false] {
            if let v = mean(a.userBytes(opened: opened), a.pushes(opened: opened)) {
                m.append(Metric((opened ? MetricID.userDataOpenedMeanBytes : .userDataNeverOpenedMeanBytes).spec, value: v))
            }
            let cellular: (Int, Int) -> Bool = { $1 != wifi }
            if let v = mean(a.userBytes(opened: opened, where: cellular), a.pushes(opened: opened, where: cellular)) {
                m.append(Metric((opened ? MetricID.userDataCellularOpenedMeanBytes : .userDataCellularNeverOpenedMeanBytes).spec, value: v))
            }
            for c in NetworkClass.allCases {
                let on: (Int, Int) -> Bool = { $1 == Int(c.rawValue) }
                if let v = mean(a.userBytes(opened: opened, where: on), a.pushes(opened: opened, where: on)) {
                    m.append(Metric(MetricTable.userData(network: c.description, opened: opened), value: v))
                }
            }
        }
        guard let costs else { return }
        let b = costBreakdown(costs, infra: infra)
        let r = b.run
        let rows: [(MetricID, Double)] = [
            (.costTotal, b.total), (.costPrestage, r.prestage), (.costForeground, r.foreground), (.costWarm, r.warm), (.costFill, r.fill),
            (.costNeverOpened, r.neverOpened), (.costRequests, r.requests),
        ]
        for (id, v) in rows { m.append(Metric(id.spec, value: v)) }
        if costs.commit != nil {
            m.append(Metric(MetricID.costCommit.spec, value: b.commit))
            m.append(Metric(MetricID.costCommitOverage.spec, value: b.commitOverage))
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
