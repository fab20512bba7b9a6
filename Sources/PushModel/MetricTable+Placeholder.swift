// The CDN placeholder redirect's metrics (emitted only with `infra.placeholder.enabled`).

extension MetricTable {
    /// The rows of the placeholder's metrics.
    static func placeholderSpec(_ id: MetricID) -> MetricSpec {
        let n = id.rawValue
        switch id {
        case .extensionPlaceholderRedirects: return MetricSpec(n, .count, .none, "Pre-stage fetches redirected to the placeholder")
        case .tapsPlaceholderPainted: return MetricSpec(n, .count, .none, "Taps that painted the placeholder")
        case .tapsPlaceholderShare:
            return MetricSpec(n, .ratio, .none, "Taps that painted the placeholder, share",
                              ratio: ("taps painted with the CDN's placeholder for at least one critical asset (a foreground fetch followed its 302)", "taps painted"))
        default:
            return MetricSpec(n, .count, .none, n)
        }
    }
}
