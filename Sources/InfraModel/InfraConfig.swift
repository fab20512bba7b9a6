import Foundation
import Stochastic

// Configuration of the infrastructure model: plain values whose initialisers state the defaults.
// The scenario format (reading, ranges, error wording) lives in the Scenario module.

func lognormalMedian(_ median: Double, sigma: Double) -> Distribution {
    .lognormal(mu: log(median), sigma: sigma)
}

/// One access-network class: round-trip time and downlink throughput distributions, failure,
/// stall and segment loss probabilities, and the capacity of the shared bottleneck per region.
package struct NetworkProfile: Sendable, Equatable {
    /// Device ↔ network round-trip time (radio access + core), seconds, per request.
    package var rttSeconds: Distribution
    /// The device's own downlink throughput, bits per second, per request (caps the flow's rate).
    package var downlinkBitsPerSecond: Distribution
    /// Probability that a request fails outright (connection error) after its set-up.
    package var failureProbability: Double
    /// Probability that a transfer stalls and never completes (ends by the request timeout).
    package var stallProbability: Double
    /// Capacity of this class's shared bottleneck in one region (cell cluster), bits per second,
    /// shared by processor sharing among active flows; 0 = not shared (e.g. home Wi-Fi).
    package var sharedCapacityBitsPerSecond: Double
    /// Probability that one TCP segment of a response is lost; each loss holds the transfer one
    /// retransmission timeout (``LossRecovery``). 0 = no loss.
    package var segmentLossProbability: Double

    package init(rttSeconds: Distribution, downlinkBitsPerSecond: Distribution, failureProbability: Double,
                stallProbability: Double, sharedCapacityBitsPerSecond: Double, segmentLossProbability: Double = 0) {
        self.rttSeconds = rttSeconds
        self.downlinkBitsPerSecond = downlinkBitsPerSecond
        self.failureProbability = failureProbability
        self.stallProbability = stallProbability
        self.sharedCapacityBitsPerSecond = sharedCapacityBitsPerSecond
        self.segmentLossProbability = segmentLossProbability
    }

    /// Default profile of `c`. Medians follow WebPageTest's connectivity presets where one exists
    /// (Cable 28 ms; LTE 70 ms / 12 Mbit/s; 4G 170 ms / 9 Mbit/s; 3G 300 ms / 1.6 Mbit/s;
    /// 2G 800 ms / 280 kbit/s); slow-2G sits past Chrome's slow-2g thresholds (≥ 2000 ms, ≤ 50 kbit/s);
    /// Wi-Fi downlink (20 Mbit/s), 5G (30 ms / 100 Mbit/s), failure/stall rates and shared
    /// capacities are assumptions to be replaced by measured data; no segment loss. RTT is lognormal with σ = 0.3,
    /// downlink lognormal with σ = 0.5 around those medians.
    package static func standard(_ c: NetworkClass) -> NetworkProfile {
        func p(_ rtt: Double, _ bps: Double, _ fail: Double, _ shared: Double) -> NetworkProfile {
            NetworkProfile(rttSeconds: lognormalMedian(rtt, sigma: 0.3),
                           downlinkBitsPerSecond: lognormalMedian(bps, sigma: 0.5),
                           failureProbability: fail, stallProbability: fail / 2,
                           sharedCapacityBitsPerSecond: shared)
        }
        switch c {
        case .wifi: return p(0.028, 20e6, 0.002, 0)
        case .fiveG: return p(0.030, 100e6, 0.003, 2e9)
        case .lte: return p(0.070, 12e6, 0.005, 300e6)
        case .fourG: return p(0.170, 9e6, 0.008, 200e6)
        case .threeG: return p(0.300, 1.6e6, 0.02, 20e6)
        case .twoG: return p(0.800, 280e3, 0.05, 2e6)
        case .slow2G: return p(2.2, 40e3, 0.08, 0.5e6)
        }
    }
}

/// Profiles of every ``NetworkClass``.
package struct NetworkConfig: Sendable, Equatable {
    /// Indexed by `NetworkClass.rawValue`.
    package var profiles: [NetworkProfile]

    package init(profiles: [NetworkProfile] = NetworkClass.allCases.map(NetworkProfile.standard)) {
        precondition(profiles.count == NetworkClass.count)
        self.profiles = profiles
    }

    package subscript(c: NetworkClass) -> NetworkProfile {
        get { profiles[Int(c.rawValue)] }
        set { profiles[Int(c.rawValue)] = newValue }
    }
}

/// Round trips spent setting up a new connection before the request can be sent (each costs one
/// device ↔ PoP RTT). A request flagged `connectionWarm` reuses a connection and pays none.
package struct ConnectionSetupConfig: Sendable, Equatable {
    /// DNS resolution (0 when the name is usually cached on the device).
    package var dnsRoundTrips: Int
    /// TCP handshake (0 for QUIC, whose handshake is folded into TLS).
    package var tcpRoundTrips: Int
    /// TLS handshake: 1 for TLS 1.3 (2 for TLS 1.2).
    package var tlsRoundTrips: Int

    package init(dnsRoundTrips: Int = 1, tcpRoundTrips: Int = 1, tlsRoundTrips: Int = 1) {
        self.dnsRoundTrips = dnsRoundTrips
        self.tcpRoundTrips = tcpRoundTrips
        self.tlsRoundTrips = tlsRoundTrips
    }

    var totalRoundTrips: Int { dnsRoundTrips + tcpRoundTrips + tlsRoundTrips }
}

/// A region: a population of devices served by one PoP through one shared bottleneck per network
/// class.
package struct RegionConfig: Sendable, Equatable {
    /// The PoP serving this region.
    package var popIndex: Int
    /// Extra round trip from the access network to the PoP, added to the class RTT. The class
    /// presets (WebPageTest) are end-to-end latencies to a nearby server, so the default is 0;
    /// set it for regions served by a distant PoP.
    package var pathRttSeconds: Double
    /// Relative audience size (used to rank PoPs for top-k warming).
    package var audienceWeight: Double
    /// Multiplies every class's `sharedCapacityBitsPerSecond` in this region.
    package var capacityScale: Double
    /// The region's civil time offset from UTC, seconds (the push world's local clock: the Doze
    /// night and campaigns sent at a local time). Default 0 (judgement: UTC).
    package var utcOffsetSeconds: Int = 0

    package init(popIndex: Int, pathRttSeconds: Double = 0, audienceWeight: Double = 1, capacityScale: Double = 1) {
        self.popIndex = popIndex
        self.pathRttSeconds = pathRttSeconds
        self.audienceWeight = audienceWeight
        self.capacityScale = capacityScale
    }
}

/// Traffic of the site's other content competing for the same LRU.
package enum BackgroundPressure: Sendable, Equatable {
    /// No other content: the cache holds only the tracked objects.
    case none
    /// Simulate every background request: a Poisson stream of `requestsPerSecond` per cache,
    /// objects drawn Zipf(`zipfExponent`) over `catalogueObjects` objects of `objectBytes` each.
    ///
    /// Right for validation and small worlds (a handful of PoPs, seconds to minutes of time):
    /// its cost is one event per background request.
    case explicitStream(requestsPerSecond: Double, catalogueObjects: Int, zipfExponent: Double, objectBytes: Int64)
    /// Che's approximation: background traffic is not simulated; a tracked object not requested
    /// for `seconds` (the cache's characteristic time T_C) is evicted.
    ///
    /// Right at scale (280 PoPs, hours, millions of devices): O(1) per tracked request and exact
    /// in the large-catalogue limit when the tracked objects are a small part of the cache's
    /// traffic. Derive `seconds` with ``CheApproximation/characteristicTimeSeconds(requestsPerSecond:catalogueObjects:zipfExponent:capacityObjects:)``
    /// or from the CDN's observed eviction age.
    case characteristicTime(seconds: Double)
}

/// One cache (a PoP's or a shield's share for this site).
package struct CacheConfig: Sendable, Equatable {
    package var capacityBytes: Int64
    /// Limit on entries (memory bound of the simulation; storage grows on demand up to it).
    package var entriesMax: Int
    package var background: BackgroundPressure

    package init(capacityBytes: Int64 = 1 << 30, entriesMax: Int = 1_000_000, background: BackgroundPressure = .none) {
        self.capacityBytes = capacityBytes
        self.entriesMax = entriesMax
        self.background = background
    }
}

/// Per-PoP overrides of the defaults.
package struct PopOverride: Sendable, Equatable {
    package var popIndex: Int
    /// Shield this PoP fetches through (default `popIndex % shieldCount`).
    package var shieldIndex: Int?
    package var edgeProcessingSeconds: Distribution?
    package var upstreamSeconds: Distribution?
    package var cacheCapacityBytes: Int64?

    package init(popIndex: Int, shieldIndex: Int? = nil, edgeProcessingSeconds: Distribution? = nil,
                upstreamSeconds: Distribution? = nil, cacheCapacityBytes: Int64? = nil) {
        self.popIndex = popIndex
        self.shieldIndex = shieldIndex
        self.edgeProcessingSeconds = edgeProcessingSeconds
        self.upstreamSeconds = upstreamSeconds
        self.cacheCapacityBytes = cacheCapacityBytes
    }
}

/// PoPs, shields and regions.
package struct TopologyConfig: Sendable, Equatable {
    package var popCount: Int
    package var shieldCount: Int
    /// Regions; empty = one region per PoP (region i served by PoP i).
    package var regions: [RegionConfig]
    package var popOverrides: [PopOverride]
    // names
    /// PoP codes by `popIndex` (empty: "pop-N"); names only, no effect on the model.
    package var popNames: [String] = []
    /// Region names by index among `effectiveRegions` (empty: "region N"); names only.
    package var regionNames: [String] = []

    package init(popCount: Int = 280, shieldCount: Int = 8, regions: [RegionConfig] = [], popOverrides: [PopOverride] = []) {
        self.popCount = popCount
        self.shieldCount = shieldCount
        self.regions = regions
        self.popOverrides = popOverrides
    }

    /// The regions in effect (the default one-per-PoP list when `regions` is empty).
    package var effectiveRegions: [RegionConfig] {
        regions.isEmpty ? (0..<popCount).map { RegionConfig(popIndex: $0) } : regions
    }
}

/// Latencies and switches of the edge → shield → origin path.
package struct TierConfig: Sendable, Equatable {
    /// Edge → regional shield → origin when true; edge → origin when false.
    package var tieringEnabled: Bool = true
    /// Concurrent misses for the same object at a node share one upstream fetch.
    package var requestCollapsingEnabled: Bool = true
    /// Edge processing per response (a hit costs set-up + RTT + this + transfer end to end).
    package var edgeProcessingSeconds: Distribution = lognormalMedian(0.004, sigma: 0.5)
    /// Round trip edge ↔ shield including shield processing.
    package var edgeToShieldSeconds: Distribution = lognormalMedian(0.030, sigma: 0.4)
    /// Round trip to the origin over TLS (from the shield, or from the edge without tiering),
    /// excluding origin service time (see ``OriginConfig``).
    package var toOriginSeconds: Distribution = .uniform(lower: 0.38, upper: 0.58)
    /// Size of a 304 Not Modified answer between tiers, and from a PoP to a device (status line
    /// and headers, no body):
    /// 300 bytes, engineering judgement for an HTTP/1.1 header block of Date, ETag,
    /// Cache-Control, Age, Via and the CDN's own headers (HTTP/2 header compression makes it less).
    package var notModifiedBytes: Int64 = 300

    package init() {}
}

/// The origin server pool.
package struct OriginConfig: Sendable, Equatable {
    package var workers: Int
    package var serviceSeconds: Distribution
    /// Bounded wait queue; arrivals finding it full get 503.
    package var queueMax: Int
    /// The origin sends a validator (`ETag`, RFC 9110 §8.8.3) and answers a conditional request
    /// whose `If-None-Match` matches with 304 Not Modified, no body (RFC 9110 §13.1.2, §15.4.5);
    /// PoPs and shields then revalidate a stored copy conditionally, and devices a stale store
    /// entry (its `ETag` is the version it was served). On by default: static-file
    /// origins send an ETag unasked (nginx's `etag` directive defaults to on; Amazon S3 returns
    /// one with every object). Off: every revalidation is a full refetch.
    package var sendsValidators: Bool

    package init(workers: Int = 64, serviceSeconds: Distribution = .exponential(mean: 0.020), queueMax: Int = 1_024,
                sendsValidators: Bool = true) {
        self.workers = workers
        self.serviceSeconds = serviceSeconds
        self.queueMax = queueMax
        self.sendsValidators = sendsValidators
    }
}

/// Redirect slow or data-saving clients to a small placeholder (HTTP 302).
package struct PlaceholderPolicy: Sendable, Equatable {
    package var enabled: Bool
    package var placeholderBytes: Int64
    /// Redirect requests carrying `Save-Data: on`.
    package var onSaveData: Bool
    /// Redirect when the request's effective connection type is at or below this.
    package var maxEffectiveConnectionType: EffectiveConnectionType

    package init(enabled: Bool = false, placeholderBytes: Int64 = 30_000, onSaveData: Bool = true,
                maxEffectiveConnectionType: EffectiveConnectionType = .twoG) {
        self.enabled = enabled
        self.placeholderBytes = placeholderBytes
        self.onSaveData = onSaveData
        self.maxEffectiveConnectionType = maxEffectiveConnectionType
    }
}

/// The whole infrastructure model.
package struct InfraConfig: Sendable, Equatable {
    package var networks = NetworkConfig()
    package var connectionSetup = ConnectionSetupConfig()
    package var topology = TopologyConfig()
    package var edgeCache = CacheConfig()
    package var shieldCache = CacheConfig(capacityBytes: 8 << 30)
    package var tiers = TierConfig()
    package var origin = OriginConfig()
    /// Surrogate-key purge reaches each PoP/shield this long after the purge call
    /// (~150 ms on instant-purge CDNs, ~5 s on others).
    package var purgePropagationSeconds: Distribution = .constant(value: 0.150)
    /// A warm request reaches each targeted PoP/shield this long after the warm call.
    package var warmPropagationSeconds: Distribution = .uniform(lower: 0.5, upper: 5)
    /// Cache key includes the signed-URL query token: every token is a different object (each
    /// device misses). Off = the token is stripped from the key.
    package var cacheKeyIncludesSignedToken: Bool = false
    package var placeholder = PlaceholderPolicy()
    /// Scheduled faults (origin or PoP outages, network degradations); empty: none.
    package var faults: [InfraFault] = []
    /// The CDN's purge and warm APIs (`CdnApiConfig`); nil: warm and purge are free calls.
    package var cdnApi: CdnApiConfig? = nil
    /// Length of the per-second time series; activity later is counted in `timeSeriesOverflow`.
    package var metricsHorizonSeconds: Int = 3_600
    /// Limits on concurrently tracked device requests and upstream fetches.
    package var requestsInFlightMax: Int = 1 << 22
    package var fetchesInFlightMax: Int = 1 << 20

    package init() {}
}
