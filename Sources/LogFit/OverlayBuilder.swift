import Stochastic

/// Turns fits into scenario paths (see docs/calibrate.md for the mapping and its caveats).
package enum OverlayBuilder {
    /// The scenario's network classes, in `population.networkMix` order.
    static let networkClasses = ["wifi", "5g", "lte", "4g", "3g", "2g", "slow-2g"]

    package static func build(_ o: FitOutcome) -> ScenarioOverlay {
        var overlay = ScenarioOverlay(sources: o.request.logs + o.request.pushLogs)
        if let e = o.edge {
            if let hit = e.series("edge.hit.firstByteSeconds") {
                overlay.set["infra.tiers.edgeProcessingSeconds"] = .distribution(hit.best.distribution)
            }
            if let upstream = e.series("origin.responseSeconds") {
                overlay.set["infra.tiers.toOriginSeconds"] = .distribution(upstream.best.distribution)
                overlay.notes.append("infra.tiers.toOriginSeconds: the logged upstream time (origin response, or miss minus median hit time to first byte); the simulated origin's service time and the edge-shield hop are added on top.")
            }
            var overrides: [OverlayValue.PopOverride] = []
            for (i, pop) in e.pops.enumerated() where pop.hitFirstByte != nil || pop.upstream != nil {
                overrides.append(.init(popIndex: i, edgeProcessingSeconds: pop.hitFirstByte?.best.distribution,
                                       upstreamSeconds: pop.upstream?.best.distribution))
                overlay.notes.append("popIndex \(i) = \(pop.code) (\(pop.requests) requests)")
            }
            if !overrides.isEmpty { overlay.set["infra.topology.popOverrides"] = .popOverrides(overrides) }
            // The audience behind each logged PoP, by its share of requests: one region per PoP.
            let known = e.pops.enumerated().filter { !$0.element.code.isEmpty && $0.element.code != "other" }
            if !known.isEmpty {
                overlay.set["infra.topology.regions"] = .regions(known.map { .init(popIndex: $0.offset, audienceWeight: Double($0.element.requests)) })
                // Each region by its logged PoP's code (and a scenario's own region names, one per region it had, replaced).
                if let names = Self.regionNames(known.map(\.element.code)) { overlay.set["infra.topology.regionNames"] = .names(names) }
            }
        }
        if let p = o.push {
            if let all = p.platform("all") {
                if let d = all.delivery { overlay.set["campaigns[0].deliveryLatencySeconds"] = .distribution(d.best.distribution) }
                if let t = all.taps { overlay.set["users.tapDelaySeconds"] = .distribution(t.distribution) }
                let known = networkClasses.reduce(0) { $0 + (all.networks[$1] ?? 0) }
                if known > 0 {
                    overlay.set["population.networkMix"] = .weights(Dictionary(uniqueKeysWithValues: networkClasses.map {
                        ($0, Double(all.networks[$0] ?? 0) / Double(known))
                    }))
                }
            }
            for (platform, key) in [("ios", "iosOpenProbability"), ("android", "androidOpenProbability")] {
                if let t = p.platform(platform)?.taps { overlay.set["users.segments[0].\(key)"] = .number(t.eventProbability) }
            }
            let ios = p.platform("ios")?.pushes ?? 0, android = p.platform("android")?.pushes ?? 0
            if ios + android > 0 { overlay.set["population.iosShare"] = .number(Double(ios) / Double(ios + android)) }
        }
        return overlay
    }
}
