import PushModel
import SimStats

/// A per-second column of timeseries.csv, summed over replications; the cases are in CSV order.
package enum SeriesColumn: Int, CaseIterable, Sendable {
    case pushesSent, deliveries, prestageEdgeRequests, prestageEdgeHits, originRequests, origin503, taps, paints
    // bandwidth: response bytes per second of each tier
    case edgeBytes, shieldBytes, originBytes

    /// The column's name in the CSV header.
    package var name: String {
        switch self {
        case .pushesSent: return "pushesSent"
        case .deliveries: return "deliveries"
        case .prestageEdgeRequests: return "prestageEdgeRequests"
        case .prestageEdgeHits: return "prestageEdgeHits"
        case .originRequests: return "originRequests"
        case .origin503: return "origin503"
        case .taps: return "taps"
        case .paints: return "paints"
        case .edgeBytes: return "edgeBytes"
        case .shieldBytes: return "shieldBytes"
        case .originBytes: return "originBytes"
        }
    }

    /// This column's counter in one replication's series (nil: a result written before the column existed).
    func counter(in series: PushTimeSeries) -> PerSecondCounter? {
        switch self {
        case .pushesSent: return series.pushesSent
        case .deliveries: return series.deliveries
        case .prestageEdgeRequests: return series.prestageEdgeRequests
        case .prestageEdgeHits: return series.prestageEdgeHits
        case .originRequests: return series.originRequests
        case .origin503: return series.origin503
        case .taps: return series.taps
        case .paints: return series.paints
        case .edgeBytes: return series.edgeBytes
        case .shieldBytes: return series.shieldBytes
        case .originBytes: return series.originBytes
        }
    }
}
