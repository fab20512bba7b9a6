import Foundation
import InfraModel
import SimStats

/// One scalar headline metric of a replication.
package struct Metric: Codable, Sendable, Equatable {
    /// Dotted name, e.g. `tapToPaint.p50Seconds`.
    package var name: String
    package var value: Double
    /// Unit: `s`, `ratio`, `count`, `bytes`, `1/s`.
    package var unit: String
    /// Which direction is better: `lower`, `higher` or `none`.
    package var better: String
}

extension Metric {
    /// The metric of table row `spec` with `value`.
    package init(_ spec: MetricSpec, value: Double) {
        self.init(name: spec.name, value: value, unit: spec.unit.rawValue, better: spec.better.rawValue)
    }
}

/// Preload outcome per push: every targeted push is in exactly one bucket. "Handled" pushes
/// reached a handler without an OS hold: completed, partial, fetchTimedOut, fetchFailed,
/// timedOutOrKilled, skippedByPolicy. "Ready" means a selected critical asset was usable (fresh
/// or stale) in the device's store at delivery.
package struct OutcomeCounts: Codable, Sendable, Equatable {
    /// Every selected critical asset was ready at delivery.
    package var completed: UInt64 = 0
    /// Delivered after all fetches settled with some, but not all, selected critical assets
    /// ready (at least one stored or already there).
    package var partial: UInt64 = 0
    /// Delivered after all fetches settled with no selected critical asset ready, and at least
    /// one of the push's fetches ended by a timeout (PreloadKit's request timeout or InfraModel's):
    /// nothing stored because of timeouts.
    package var fetchTimedOut: UInt64 = 0
    /// Delivered after all fetches settled with no selected critical asset ready and no fetch
    /// timed out: every fetch failed otherwise (network failure, origin 503, a refused response).
    package var fetchFailed: UInt64 = 0
    /// Delivered at PreloadKit's hard deadline or the OS expiry warning, or the OS killed the
    /// handler (time or memory), or the run's horizon cut the session.
    package var timedOutOrKilled: UInt64 = 0
    /// PreloadKit fetched nothing and not every selected asset was ready (gated by network, Low
    /// Data Mode, Save-Data, storage, metered cap), or the push carried no pre-stage manifest.
    package var skippedByPolicy: UInt64 = 0
    /// Held by the OS (Doze, a deferred job, an iOS silent-push hold), then handled and completed.
    package var deferredThenCompleted: UInt64 = 0
    /// Held by the OS, then expired (message TTL, horizon, coalesced away) or handled without
    /// completing.
    package var deferredThenExpired: UInt64 = 0
    /// Reached a handler after its signed expiry (`exp` + PreloadKit's clock-skew tolerance):
    /// PreloadKit refused the payload and fetched nothing (held or not).
    package var payloadExpired: UInt64 = 0
    /// Never reached a handler: force-quit app (iOS silent), silent budget exhausted, not sent or
    /// still in the provider by the horizon, or answered "unregistered" by the provider (a stale
    /// token, `providers.*.unregisteredShare`).
    package var notDelivered: UInt64 = 0

    package init() {}

    /// Sum of the buckets (equals the pushes targeted).
    package var total: UInt64 {
        completed + partial + fetchTimedOut + fetchFailed + timedOutOrKilled + skippedByPolicy + deferredThenCompleted
            + deferredThenExpired + payloadExpired + notDelivered
    }

    /// Pushes handled without an OS hold (the denominator of `extension.timeoutShare`).
    package var handled: UInt64 { completed + partial + fetchTimedOut + fetchFailed + timedOutOrKilled + skippedByPolicy }
}

/// A tap-to-paint histogram of one platform × network class group.
package struct GroupHistogram: Codable, Sendable, Equatable {
    /// `ios` or `android`.
    package var platform: String
    /// InfraModel network class name (`wifi`, `5g`, `lte`, `4g`, `3g`, `2g`, `slow-2g`).
    package var network: String
    package var histogram: LatencyHistogram
}

/// Pre-stage request counts and upstream load of one PoP.
package struct PopCounts: Codable, Sendable, Equatable {
    package var pop: Int
    /// Background (pre-stage) device requests that reached the PoP (whatever their ending), and
    /// those whose lookup hit.
    package var prestageRequests: UInt64
    package var prestageHits: UInt64
    /// Fetches the PoP sent upstream (to its shield, or the origin without tiering) for misses
    /// and warming, all traffic: the PoP's share of the origin side's load.
    package var upstreamFetches: UInt64
}

/// Pre-stage edge misses of one region by time after the first campaign's send start.
package struct RegionMisses: Codable, Sendable, Equatable {
    package var region: Int
    /// `[bin, misses]` pairs sorted by bin; bin b covers `[b, b+1) × missBinSeconds` after the
    /// first send (requests before it count in bin 0).
    package var perBin: [[UInt64]]
}

/// The users' data p95 of one device region: the 95th percentile over the region's sampled pushes
/// of one push's bytes (`PushBytesSample`), opened and never opened; nil where none was sampled.
package struct RegionUserData: Codable, Sendable, Equatable {
    package var region: Int
    package var openedP95Bytes: Double?
    package var neverOpenedP95Bytes: Double?
}

/// Request counters of one CDN tier (InfraModel's node counters summed over the tier). Every
/// lookup is one request: `requests = freshHits + staleHits + misses`.
package struct TierCounts: Codable, Sendable, Equatable {
    /// The tier (origin: `requests`, `misses` = 0, `served` in `freshHits`).
    package var tier: Tier
    package var requests: UInt64
    package var freshHits: UInt64
    package var staleHits: UInt64
    package var misses: UInt64
    /// Edge only: device requests and the ones that hit; warm lookups.
    package var deviceRequests: UInt64
    package var deviceHits: UInt64
    package var warmRequests: UInt64
    /// Origin only: 503 rejections.
    package var rejected503: UInt64
}

/// Pre-stage (background session) requests by their edge lookup, whatever their ending:
/// `requests = hits + misses` counts every request that reached the edge (one that missed and
/// then timed out or was cancelled is a miss); `notReachingEdge` ended before it (network
/// failures, timeouts or cancels during connection set-up) and is not a request.
package struct PrestageCounts: Codable, Sendable, Equatable {
    package var requests: UInt64
    package var hits: UInt64
    package var misses: UInt64
    package var notReachingEdge: UInt64
}

/// Per-second time series over `[0, horizonSeconds)`.
package struct PushTimeSeries: Codable, Sendable, Equatable {
    package var pushesSent: PerSecondCounter
    /// Pushes reaching a handler (session started).
    package var deliveries: PerSecondCounter
    /// Pre-stage (background) requests at the edge and their hits.
    package var prestageEdgeRequests: PerSecondCounter
    package var prestageEdgeHits: PerSecondCounter
    /// Requests at the origin (all traffic) and 503 rejections.
    package var originRequests: PerSecondCounter
    package var origin503: PerSecondCounter
    package var taps: PerSecondCounter
    package var paints: PerSecondCounter
    /// Delivery receipts arriving at the analytics endpoint (by `Receipt.sendAt`); absent when
    /// the policy sends none.
    package var analyticsReceipts: PerSecondCounter?
    // bandwidth
    /// Response bytes each tier sent per second (edge → devices, shield → PoPs, origin → shields or
    /// PoPs), counted in the second of the response's first byte; bytes past the horizon are in
    /// `beyondHorizonCount`, so `totalCount` is `bytes.cdnEgress`, `bytes.shieldEgress`,
    /// `bytes.originEgress` exactly. Absent only in results written before they existed.
    package var edgeBytes: PerSecondCounter? = nil
    package var shieldBytes: PerSecondCounter? = nil
    package var originBytes: PerSecondCounter? = nil
}

/// Byte and storage counters.
package struct ByteCounts: Codable, Sendable, Equatable {
    /// Bytes the PoPs served to devices (all device traffic, InfraModel's count).
    package var cdnEgressBytes: UInt64 = 0
    /// Bytes devices received over cellular classes (background and foreground).
    package var cellularBytes: UInt64 = 0
    /// Bytes pre-staged (background) for pushes whose notification was never opened.
    package var neverOpenedBytes: UInt64 = 0
    /// Bytes received by pre-stage sessions, and by foreground fetches after taps.
    package var backgroundBytes: UInt64 = 0
    package var foregroundBytes: UInt64 = 0
    /// Preload store entries evicted to make room for a new asset (LRU).
    package var evictedForSpace: UInt64 = 0
    /// Preload store entries past their usable lifetime, removed when a session began.
    package var expiredRemoved: UInt64 = 0

    package init() {}
}

/// Everything a report needs from one replication. Encoding is deterministic (arrays only, sorted).
package struct ReplicationResult: Codable, Sendable {
    package var masterSeed: UInt64
    package var replication: Int
    /// Scalar headline metrics, sorted by name (quantiles of empty histograms are left out): one
    /// per `MetricID` and the per-network tap-to-paint quantiles
    /// (`MetricTable.tapToPaint(network:quantile:)`); `MetricTable` gives each one's unit, better
    /// direction, title, ratio parts, alarm level and bench gate.
    package var metrics: [Metric]
    package var outcomes: OutcomeCounts
    /// `outcomes.total`.
    package var pushesTargeted: UInt64
    /// Tap to first paint of the campaign content, all taps that painted.
    package var tapToPaint: LatencyHistogram
    /// Per platform × network class, sorted by (platform, network), non-empty groups only.
    package var tapToPaintByGroup: [GroupHistogram]
    /// Duration of each successful pre-stage (background) asset download.
    package var extensionDownloadLatency: LatencyHistogram
    /// Tap to first paint per window of tap time (10 s unless the horizon is very long): every tap
    /// that painted is in exactly the window its tap fell in (its counts sum to `tapToPaint.count`).
    package var tapToPaintWindows: WindowedLatencyHistogram
    package var series: PushTimeSeries
    /// Sorted by PoP; PoPs with neither pre-stage requests nor upstream fetches are left out.
    package var pops: [PopCounts]
    /// Sorted by region; regions without misses are left out.
    package var missesByRegion: [RegionMisses]
    /// Width of a `missesByRegion` bin, seconds (60 unless regions × minutes is very large).
    package var missBinSeconds: Int
    /// The first campaign's send start, seconds: bin 0 of `missesByRegion` starts here.
    package var firstSendSeconds: Double
    package var prestage: PrestageCounts
    /// Edge, shield and origin counters (all traffic: pre-stage, foreground, warming).
    package var tiers: [TierCounts]
    package var bytes: ByteCounts
    package var devices: Int
    package var eventsProcessed: UInt64
    package var virtualEndSeconds: Double
    /// Why the run stopped: `drained`, `timeLimit` (the horizon), `eventLimit`, `stopped`.
    package var stopReason: String
    // bandwidth
    /// Edge bytes per PoP and per device region at a coarse step (absent only in results written
    /// before it existed).
    package var bandwidth: BandwidthSeries? = nil
    /// Bytes by purpose per campaign × region × class, and the pushes that reached devices
    /// (`ByteAttribution`); nil in results written before it existed.
    package var attribution: ByteAttribution?
    /// The users' data p95 per device region, sorted by region, regions with a sampled push only;
    /// nil in results written before it existed.
    package var userDataRegions: [RegionUserData]? = nil

    /// The metric named `name`, if present.
    package func metric(_ name: String) -> Double? {
        metrics.first { $0.name == name }?.value
    }

    /// The metric `id`, if present.
    package func metric(_ id: MetricID) -> Double? { metric(id.rawValue) }
}

/// Receives progress reports during a run (every `RunLimits.progressEveryEvents` events, never
/// per event). Called on the thread running the simulation.
package protocol ProgressSink: AnyObject {
    func progress(_ report: ProgressReport)
}

/// One progress report of a running replication: what is done and what is known to come, for a
/// progress display's estimate of the work left (see `ProgressBoard`). Built every
/// `RunLimits.progressEveryEvents` events, never per event.
package struct ProgressReport: Sendable, Equatable {
    /// Virtual time of the event just processed, seconds.
    package var virtualSeconds: Double
    /// The replication's horizon, seconds.
    package var horizonSeconds: Double
    /// Events processed so far.
    package var eventsProcessed: UInt64
    /// Events scheduled and not yet processed: the kernel's pending set plus the far-future buckets.
    package var pendingEvents: Int
    /// Pushes sent so far (expected, from the campaigns' send cursors: devices passed × audience
    /// share × pushes per device).
    package var pushesSent: Double
    /// Pushes the campaigns send by the horizon (expected: at most the audience, at most the send
    /// rate × the time from the send start to the horizon); never below `pushesSent`.
    package var pushesPlanned: Double
    /// Pushes sent and not yet arrived at their device (in the provider, each a pending
    /// `pushArrive` event): exact, unlike `pushesSent`.
    package var pushesInFlight: Double

    /// A report.
    package init(virtualSeconds: Double, horizonSeconds: Double, eventsProcessed: UInt64, pendingEvents: Int,
                 pushesSent: Double, pushesPlanned: Double, pushesInFlight: Double = 0) {
        self.pushesInFlight = max(0, pushesInFlight)
        self.virtualSeconds = virtualSeconds
        self.horizonSeconds = horizonSeconds
        self.eventsProcessed = eventsProcessed
        self.pendingEvents = pendingEvents
        self.pushesSent = pushesSent
        self.pushesPlanned = max(pushesPlanned, pushesSent)
    }
}

extension ReplicationResult {
    /// The counters of `tier` (nil when the result does not carry it).
    package func tier(_ tier: Tier) -> TierCounts? { tiers.first { $0.tier == tier } }
}
