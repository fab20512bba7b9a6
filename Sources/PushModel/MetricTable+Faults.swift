// The scheduled faults' metrics (emitted only with `infra.faults`).

extension MetricTable {
    /// The rows of the `faults.*` metrics.
    static func faultSpec(_ id: MetricID) -> MetricSpec {
        let n = id.rawValue
        switch id {
        case .faultsOriginOutageErrors: return MetricSpec(n, .count, .lower, "Origin errors during an origin outage")
        case .faultsPopFailovers: return MetricSpec(n, .count, .none, "Device requests failed over to another PoP")
        case .faultsPopsAllDown: return MetricSpec(n, .count, .lower, "Device requests that found every PoP down")
        case .faultsWarmsLost: return MetricSpec(n, .count, .lower, "Warm requests lost to a PoP outage")
        case .faultsDegradedRequests: return MetricSpec(n, .count, .none, "Device requests inside a network degradation")
        default:
            return MetricSpec(n, .count, .none, n)
        }
    }
}
