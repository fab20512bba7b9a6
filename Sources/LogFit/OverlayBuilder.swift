import Stochastic

/// Turns fits into scenario paths (see docs/calibrate.md for the mapping and its caveats).
package enum OverlayBuilder {
    /// The scenario's network classes, in `population.networkMix` order.
    static let networkClasses = ["wifi", "5g", "lte", "4g", "3g", "2g", "slow-2g"]

    package static func build(_ o: FitOutcome) -> ScenarioOverlay {
        var overlay = ScenarioOverlay(sources: o.request.logs + o.request.pushLogs)
        var uncertain: [OverlayValue.FittedInput] = []
        let level = o.request.confidenceLevel
        if let e = o.edge {
            if let hit = e.series("edge.hit.firstByteSeconds") {
                overlay.set["infra.tiers.edgeProcessingSeconds"] = .distribution(hit.best.distribution)
                uncertain += parameterInputs(hit.best, path: "infra.tiers.edgeProcessingSeconds", level: level)
            }
            if let upstream = e.series("origin.responseSeconds") {
                overlay.set["infra.tiers.toOriginSeconds"] = .distribution(upstream.best.distribution)
                uncertain += parameterInputs(upstream.best, path: "infra.tiers.toOriginSeconds", level: level)
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
                if let d = all.delivery {
                    overlay.set["campaigns[0].deliveryLatencySeconds"] = .distribution(d.best.distribution)
                    uncertain += parameterInputs(d.best, path: "campaigns[0].deliveryLatencySeconds", level: level)
                }
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
            if ios + android > 0 {
                let n = Double(ios + android), p = Double(ios) / n
                overlay.set["population.iosShare"] = .number(p)
                // Binomial standard error √(p(1 − p)/n), cut at ±3 of it and at [0, 1].
                let se = (p * (1 - p) / n).squareRoot()
                if se > 0 {
                    uncertain.append(.init(path: "population.iosShare",
                                           distribution: .normal(mean: p, sd: se, lower: max(0, p - 3 * se), upper: min(1, p + 3 * se)),
                                           source: "prestage fit: share of iOS pushes in the push log (\(ios + android) pushes), binomial standard error"))
                }
            }
        }
        if !uncertain.isEmpty { overlay.set["uncertain.fitted"] = .uncertainInputs(uncertain) }
        return overlay
    }

    /// One uncertain input per fitted parameter: a normal with the parameter's standard error
    /// (its Wald interval's width / (2 z) at the fit's level), cut at ±3 standard errors, and for a
    /// positive parameter (interval above 0) at 1 % of the estimate from below. Pareto's scale (an
    /// order statistic with no Wald interval) and a zero-width interval give no input.
    static func parameterInputs(_ fit: ParametricFit, path: String, level: Double) -> [OverlayValue.FittedInput] {
        let z = Quantiles.standardNormal(p: 0.5 + level / 2)
        return fit.parameters.compactMap { p in
            let se = (p.upper - p.lower) / (2 * z)
            guard se.isFinite, se > 0, p.estimate.isFinite else { return nil }
            let floor = p.lower > 0 ? max(p.estimate - 3 * se, 0.01 * p.estimate) : p.estimate - 3 * se
            return .init(path: path + "." + p.name, distribution: .normal(mean: p.estimate, sd: se, lower: floor, upper: p.estimate + 3 * se),
                         source: "prestage fit: \(fit.family) maximum likelihood on \(fit.observedCount) values, Wald \(Int((level * 100).rounded())) % interval [\(p.lower), \(p.upper)]")
        }
    }
}
