import Foundation
import InfraModel
import SimStats

/// One scalar headline metric of a replication.
public struct Metric: Codable, Sendable, Equatable {
    /// Dotted name, e.g. `tapToPaint.p50Seconds`.
    public var name: String
    public var value: Double
    /// Unit: `s`, `ratio`, `count`, `bytes`, `1/s`.
    public var unit: String
    /// Which direction is better: `lower`, `higher` or `none`.
    public var better: String

    public init(name: String, value: Double, unit: String, better: String) {
        self.name = name
        self.value = value
        self.unit = unit
        self.better = better
    }

    /// The metric of table row `spec` with `value`.
    public init(_ spec: MetricSpec, value: Double) {
        self.init(name: spec.name, value: value, unit: spec.unit.rawValue, better: spec.better.rawValue)
    }
}

/// Preload outcome per push: every targeted push is in exactly one bucket. "Handled" pushes
/// reached a handler without an OS hold: completed, partial, fetchTimedOut, fetchFailed,
/// timedOutOrKilled, skippedByPolicy. "Ready" means a selected critical asset was usable (fresh
/// or stale) in the device's store at delivery.
public struct OutcomeCounts: Codable, Sendable, Equatable {
    /// Every selected critical asset was ready at delivery.
    public var completed: UInt64 = 0
    /// Delivered after all fetches settled with some, but not all, selected critical assets
    /// ready (at least one stored or already there).
    public var partial: UInt64 = 0
    /// Delivered after all fetches settled with no selected critical asset ready, and at least
    /// one of the push's fetches ended by a timeout (PreloadKit's request timeout or InfraModel's):
    /// nothing stored because of timeouts.
    public var fetchTimedOut: UInt64 = 0
    /// Delivered after all fetches settled with no selected critical asset ready and no fetch
    /// timed out: every fetch failed otherwise (network failure, origin 503, a refused response).
    public var fetchFailed: UInt64 = 0
    /// Delivered at PreloadKit's hard deadline or the OS expiry warning, or the OS killed the
    /// handler (time or memory), or the run's horizon cut the session.
    public var timedOutOrKilled: UInt64 = 0
    /// PreloadKit fetched nothing and not every selected asset was ready (gated by network, Low
    /// Data Mode, Save-Data, storage, metered cap), or the push carried no pre-stage manifest.
    public var skippedByPolicy: UInt64 = 0
    /// Held by the OS (Doze, a deferred job, an iOS silent-push hold), then handled and completed.
    public var deferredThenCompleted: UInt64 = 0
    /// Held by the OS, then expired (message TTL, horizon, coalesced away) or handled without
    /// completing.
    public var deferredThenExpired: UInt64 = 0
    /// Reached a handler after its signed expiry (`exp` + PreloadKit's clock-skew tolerance):
    /// PreloadKit refused the payload and fetched nothing (held or not).
    public var payloadExpired: UInt64 = 0
    /// Never reached a handler: force-quit app (iOS silent), silent budget exhausted, not sent or
    /// still in the provider by the horizon.
    public var notDelivered: UInt64 = 0

    public init() {}

    /// Sum of the buckets (equals the pushes targeted).
    public var total: UInt64 {
        completed + partial + fetchTimedOut + fetchFailed + timedOutOrKilled + skippedByPolicy + deferredThenCompleted
            + deferredThenExpired + payloadExpired + notDelivered
    }

    /// Pushes handled without an OS hold (the denominator of `extension.timeoutShare`).
    public var handled: UInt64 { completed + partial + fetchTimedOut + fetchFailed + timedOutOrKilled + skippedByPolicy }
}

/// A tap-to-paint histogram of one platform × network class group.
public struct GroupHistogram: Codable, Sendable, Equatable {
    /// `ios` or `android`.
    public var platform: String
    /// InfraModel network class name (`wifi`, `5g`, `lte`, `4g`, `3g`, `2g`, `slow-2g`).
    public var network: String
    public var histogram: LatencyHistogram
}

/// Pre-stage request counts and upstream load of one PoP.
public struct PopCounts: Codable, Sendable, Equatable {
    public var pop: Int
    /// Background (pre-stage) device requests that reached the PoP (whatever their ending), and
    /// those whose lookup hit.
    public var prestageRequests: UInt64
    public var prestageHits: UInt64
    /// Fetches the PoP sent upstream (to its shield, or the origin without tiering) for misses
    /// and warming, all traffic: the PoP's share of the origin side's load.
    public var upstreamFetches: UInt64
}

/// Pre-stage edge misses of one region by time after the first campaign's send start.
public struct RegionMisses: Codable, Sendable, Equatable {
    public var region: Int
    /// `[bin, misses]` pairs sorted by bin; bin b covers `[b, b+1) × missBinSeconds` after the
    /// first send (requests before it count in bin 0).
    public var perBin: [[UInt64]]
}

/// Request counters of one CDN tier (InfraModel's node counters summed over the tier). Every
/// lookup is one request: `requests = freshHits + staleHits + misses`.
public struct TierCounts: Codable, Sendable, Equatable {
    /// The tier (origin: `requests`, `misses` = 0, `served` in `freshHits`).
    public var tier: Tier
    public var requests: UInt64
    public var freshHits: UInt64
    public var staleHits: UInt64
    public var misses: UInt64
    /// Edge only: device requests and the ones that hit; warm lookups.
    public var deviceRequests: UInt64
    public var deviceHits: UInt64
    public var warmRequests: UInt64
    /// Origin only: 503 rejections.
    public var rejected503: UInt64
}

/// Pre-stage (background session) requests by their edge lookup, whatever their ending:
/// `requests = hits + misses` counts every request that reached the edge (one that missed and
/// then timed out or was cancelled is a miss); `notReachingEdge` ended before it (network
/// failures, timeouts or cancels during connection set-up) and is not a request.
public struct PrestageCounts: Codable, Sendable, Equatable {
    public var requests: UInt64
    public var hits: UInt64
    public var misses: UInt64
    public var notReachingEdge: UInt64
}

/// Per-second time series over `[0, horizonSeconds)`.
public struct PushTimeSeries: Codable, Sendable, Equatable {
    public var pushesSent: PerSecondCounter
    /// Pushes reaching a handler (session started).
    public var deliveries: PerSecondCounter
    /// Pre-stage (background) requests at the edge and their hits.
    public var prestageEdgeRequests: PerSecondCounter
    public var prestageEdgeHits: PerSecondCounter
    /// Requests at the origin (all traffic) and 503 rejections.
    public var originRequests: PerSecondCounter
    public var origin503: PerSecondCounter
    public var taps: PerSecondCounter
    public var paints: PerSecondCounter
    /// Delivery receipts arriving at the analytics endpoint (by `Receipt.sendAt`); absent when
    /// the policy sends none.
    public var analyticsReceipts: PerSecondCounter?
}

/// Byte and storage counters.
public struct ByteCounts: Codable, Sendable, Equatable {
    /// Bytes the PoPs served to devices (all device traffic, InfraModel's count).
    public var cdnEgressBytes: UInt64 = 0
    /// Bytes devices received over cellular classes (background and foreground).
    public var cellularBytes: UInt64 = 0
    /// Bytes pre-staged (background) for pushes whose notification was never opened.
    public var neverOpenedBytes: UInt64 = 0
    /// Bytes received by pre-stage sessions, and by foreground fetches after taps.
    public var backgroundBytes: UInt64 = 0
    public var foregroundBytes: UInt64 = 0
    /// Preload store entries evicted to make room for a new asset (LRU).
    public var evictedForSpace: UInt64 = 0
    /// Preload store entries past their usable lifetime, removed when a session began.
    public var expiredRemoved: UInt64 = 0

    public init() {}
}

/// Everything a report needs from one replication. Encoding is deterministic (arrays only, sorted).
public struct ReplicationResult: Codable, Sendable {
    public var masterSeed: UInt64
    public var replication: Int
    /// Scalar headline metrics, sorted by name (quantiles of empty histograms are left out): one
    /// per `MetricID` and the per-network tap-to-paint quantiles
    /// (`MetricTable.tapToPaint(network:quantile:)`); `MetricTable` gives each one's unit, better
    /// direction, title, ratio parts, alarm level and bench gate.
    public var metrics: [Metric]
    public var outcomes: OutcomeCounts
    /// `outcomes.total`.
    public var pushesTargeted: UInt64
    /// Tap to first paint of the campaign content, all taps that painted.
    public var tapToPaint: LatencyHistogram
    /// Per platform × network class, sorted by (platform, network), non-empty groups only.
    public var tapToPaintByGroup: [GroupHistogram]
    /// Duration of each successful pre-stage (background) asset download.
    public var extensionDownloadLatency: LatencyHistogram
    /// Tap to first paint per window of tap time (10 s unless the horizon is very long): every tap
    /// that painted is in exactly the window its tap fell in (its counts sum to `tapToPaint.count`).
    public var tapToPaintWindows: WindowedLatencyHistogram
    public var series: PushTimeSeries
    /// Sorted by PoP; PoPs with neither pre-stage requests nor upstream fetches are left out.
    public var pops: [PopCounts]
    /// Sorted by region; regions without misses are left out.
    public var missesByRegion: [RegionMisses]
    /// Width of a `missesByRegion` bin, seconds (60 unless regions × minutes is very large).
    public var missBinSeconds: Int
    /// The first campaign's send start, seconds: bin 0 of `missesByRegion` starts here.
    public var firstSendSeconds: Double
    public var prestage: PrestageCounts
    /// Edge, shield and origin counters (all traffic: pre-stage, foreground, warming).
    public var tiers: [TierCounts]
    public var bytes: ByteCounts
    public var devices: Int
    public var eventsProcessed: UInt64
    public var virtualEndSeconds: Double
    /// Why the run stopped: `drained`, `timeLimit` (the horizon), `eventLimit`, `stopped`.
    public var stopReason: String

    /// The metric named `name`, if present.
    public func metric(_ name: String) -> Double? {
        metrics.first { $0.name == name }?.value
    }

    /// The metric `id`, if present.
    public func metric(_ id: MetricID) -> Double? { metric(id.rawValue) }
}

/// Receives progress reports during a run (every `RunLimits.progressEveryEvents` events, never
/// per event). Called on the thread running the simulation.
public protocol ProgressSink: AnyObject {
    func progress(virtualSeconds: Double, eventsProcessed: UInt64, devicesDone: Int, devicesTotal: Int)
}

extension ReplicationResult {
    /// The counters of `tier` (nil when the result does not carry it).
    public func tier(_ tier: Tier) -> TierCounts? { tiers.first { $0.tier == tier } }
}
