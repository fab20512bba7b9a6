import PushModel
import ReportKit
import ScenarioFormat

extension ReportBuilder {
    /// The time bands of every timeline chart: each campaign's send, then each scheduled fault.
    static func timelineBands(_ scenario: ScenarioFile) -> [TimeBand] {
        sendBands(scenario) + faultBands(scenario)
    }

    /// One band per scheduled fault (`infra.faults`, then `providers.outages`), clipped to the horizon.
    static func faultBands(_ scenario: ScenarioFile) -> [TimeBand] {
        let h = scenario.world.horizonSeconds
        return scenario.world.infra.faults.map { f in
            TimeBand(fromSeconds: f.startSeconds, toSeconds: min(f.startSeconds + f.durationSeconds, h), label: faultLabel(f, scenario: scenario))
        } + (scenario.world.providers?.outages ?? []).map { o in
            TimeBand(fromSeconds: o.startSeconds, toSeconds: min(o.startSeconds + o.durationSeconds, h), label: "\(providerTitle(o.provider)) outage")
        }
    }

    static func providerTitle(_ p: ProviderOutageConfig.Provider) -> String { p == .fcm ? "FCM" : "APNs" }

    /// "origin outage", "PoP AMS1 outage", "eu-west degraded".
    static func faultLabel(_ f: ScheduledFault, scenario: ScenarioFile) -> String {
        let names = TopologyNames(popNames: scenario.world.infra.topology.popNames, regionNames: scenario.world.infra.topology.regionNames)
        switch f.kind {
        case .originOutage: return "origin outage"
        case .popOutage: return "PoP \(names.pop(f.pop)) outage"
        case .networkDegradation: return "\(names.region(f.region)) degraded"
        }
    }

    /// The "Faults" section: each scheduled fault with its window and what it did (the `faults.*`
    /// metrics: means over replications). Nil without faults.
    static func faultsSection(scenario: ScenarioFile, aggregate: RunAggregate) -> ReportSection? {
        let faults = scenario.world.infra.faults, outages = scenario.world.providers?.outages ?? []
        guard !faults.isEmpty || !outages.isEmpty else { return nil }
        func mean(_ id: MetricID) -> Double { aggregate.metrics.first { $0.name == id.rawValue }?.mean ?? 0 }
        let rows: [[TableCell]] = faults.map { f in
            let what: String
            switch f.kind {
            case .originOutage: what = "every origin fetch answered with an error (stale-if-error copies served where allowed)"
            case .popOutage: what = "its regions served by the next PoP up; warm requests for it lost"
            case .networkDegradation:
                what = "downlink × \(TextNumber.format(f.throughputFactor, significant: 3)), failures +\(TextNumber.format(f.failureProbability * 100, significant: 3)) %"
            }
            return [.text(faultLabel(f, scenario: scenario)), .number(f.startSeconds, decimals: 0),
                    .number(min(f.startSeconds + f.durationSeconds, scenario.world.horizonSeconds), decimals: 0), .text(what)]
        } + outages.map { o in
            [.text("\(providerTitle(o.provider)) outage"), .number(o.startSeconds, decimals: 0),
             .number(min(o.startSeconds + o.durationSeconds, scenario.world.horizonSeconds), decimals: 0),
             .text("every send answered 503; the campaign service retries after its backoff (providers.retry)")]
        }
        let effects: [(MetricID, String)] = [
            (.faultsOriginOutageErrors, "origin errors during an outage"), (.faultsPopFailovers, "device requests failed over to another PoP"),
            (.faultsPopsAllDown, "device requests that found every PoP down"), (.faultsWarmsLost, "warm requests lost"),
            (.faultsDegradedRequests, "device requests inside a degradation"),
            (.providerFcmOutageRefused, "FCM sends refused during an outage"), (.providerApnsOutageRefused, "APNs sends refused during an outage"),
        ]
        let counts = effects.filter { mean($0.0) > 0 }
            .map { "\(TextNumber.format(mean($0.0), significant: 4)) \($0.1)" }
        let text = "Scheduled faults (infra.faults, providers.outages), shaded on every timeline chart. Per replication, on average: "
            + (counts.isEmpty ? "no request met a fault." : counts.joined(separator: "; ") + ".")
            + " Their effect on the outcomes shows in the charts above and in every metric against a run without them (prestage compare)."
        return ReportSection(title: "Faults", blocks: [
            .paragraph(text),
            .table(Table(caption: "Faults scheduled", columns: [Table.Column("fault"), Table.Column("from (s)", alignment: .trailing),
                                                                 Table.Column("to (s)", alignment: .trailing), Table.Column("what fails")], rows: rows)),
        ])
    }
}
