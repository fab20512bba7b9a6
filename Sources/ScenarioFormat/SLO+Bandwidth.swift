import InfraModel
import PushModel

extension ServiceLevelObjective {
    /// The objectives on a shield bandwidth metric in a world without tiering: no shield serves
    /// there, so the metric reads 0 and the objective could not fail.
    static func bandwidthIssues(_ objectives: [ServiceLevelObjective], in world: PushWorldConfig) -> [ConfigIssue] {
        guard !world.infra.tiers.tieringEnabled else { return [] }
        let shield = Set(MetricTable.BandwidthFigure.allCases.map { MetricTable.bandwidth(.shield, $0).rawValue })
        return objectives.enumerated().compactMap { i, o in
            guard shield.contains(o.metric) else { return nil }
            return ConfigIssue(at: [.key("slo"), .index(i), .key("metric")],
                               expected: "a metric this scenario can produce (infra.tiers.tieringEnabled is false: no shield serves, so shield bandwidth is always 0; "
                                   + "an objective on the origin's, origin.\(o.metric.dropFirst("shield.".count)), bounds the upstream traffic)",
                               found: "\"\(o.metric)\"")
        }
    }
}
