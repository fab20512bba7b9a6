import Foundation
import Stochastic

// Configuration of the infrastructure model. Every struct is Codable with defaults for absent
// keys; decoding validates and throws ``InfraConfigError`` naming the field path.

/// Validate a distribution field: parameters valid, and (when `nonNegative`) a non-negative
/// mean where one is known. Samples are additionally clamped at 0 where a negative value is
/// meaningless (times, rates).
func validateDistribution(_ d: Distribution, _ path: String, _ field: String,
                          nonNegative: Bool = true) throws(InfraConfigError) {
    let p = joinPath(path, field)
    do {
        try d.validate(path: p)
    } catch {
        throw InfraConfigError(path: p, value: "\(d)", expected: "valid distribution parameters (\(error))")
    }
    if nonNegative, let m = d.mean {
        try require(m >= 0 && m.isFinite, path, field, "mean \(m)", "a finite non-negative mean")
    }
}

func lognormalMedian(_ median: Double, sigma: Double) -> Distribution {
    .lognormal(mu: log(median), sigma: sigma)
}

/// One access-network class: round-trip time and downlink throughput distributions, failure and
/// stall probabilities, and the capacity of the shared bottleneck per region.
public struct NetworkProfile: Codable, Sendable, Equatable {
    /// Device ↔ network round-trip time (radio access + core), seconds, per request.
    public var rttSeconds: Distribution
    /// The device's own downlink throughput, bits per second, per request (caps the flow's rate).
    public var downlinkBitsPerSecond: Distribution
    /// Probability that a request fails outright (connection error) after its set-up.
    public var failureProbability: Double
    /// Probability that a transfer stalls and never completes (ends by the request timeout).
    public var stallProbability: Double
    /// Capacity of this class's shared bottleneck in one region (cell cluster), bits per second,
    /// shared by processor sharing among active flows; 0 = not shared (e.g. home Wi-Fi).
    public var sharedCapacityBitsPerSecond: Double

    public init(rttSeconds: Distribution, downlinkBitsPerSecond: Distribution, failureProbability: Double,
                stallProbability: Double, sharedCapacityBitsPerSecond: Double) {
        self.rttSeconds = rttSeconds
        self.downlinkBitsPerSecond = downlinkBitsPerSecond
        self.failureProbability = failureProbability
        self.stallProbability = stallProbability
        self.sharedCapacityBitsPerSecond = sharedCapacityBitsPerSecond
    }

    /// Default profile of `c`. Medians follow WebPageTest's connectivity presets where one exists
    /// (Cable 28 ms; LTE 70 ms / 12 Mbit/s; 4G 170 ms / 9 Mbit/s; 3G 300 ms / 1.6 Mbit/s;
    /// 2G 800 ms / 280 kbit/s); slow-2G sits past Chrome's slow-2g thresholds (≥ 2000 ms, ≤ 50 kbit/s);
    /// Wi-Fi downlink (20 Mbit/s), 5G (30 ms / 100 Mbit/s), failure/stall rates and shared
    /// capacities are assumptions to be replaced by measured data. RTT is lognormal with σ = 0.3,
    /// downlink lognormal with σ = 0.5 around those medians.
    public static func standard(_ c: NetworkClass) -> NetworkProfile {
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

    enum CodingKeys: String, CodingKey {
        case rttSeconds, downlinkBitsPerSecond, failureProbability, stallProbability, sharedCapacityBitsPerSecond
    }

    /// Absent keys take the values of `NetworkProfile.standard(.lte)`; use ``NetworkConfig`` to get
    /// per-class defaults.
    public init(from decoder: any Decoder) throws {
        try self.init(from: decoder, defaults: .standard(.lte))
    }

    init(from decoder: any Decoder, defaults d: NetworkProfile) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        rttSeconds = try c.value(.rttSeconds, or: d.rttSeconds)
        downlinkBitsPerSecond = try c.value(.downlinkBitsPerSecond, or: d.downlinkBitsPerSecond)
        failureProbability = try c.value(.failureProbability, or: d.failureProbability)
        stallProbability = try c.value(.stallProbability, or: d.stallProbability)
        sharedCapacityBitsPerSecond = try c.value(.sharedCapacityBitsPerSecond, or: d.sharedCapacityBitsPerSecond)
        try validate(path: codingPathString(decoder.codingPath))
    }

    public func validate(path: String) throws(InfraConfigError) {
        try validateDistribution(rttSeconds, path, "rttSeconds")
        try validateDistribution(downlinkBitsPerSecond, path, "downlinkBitsPerSecond")
        if let m = downlinkBitsPerSecond.mean {
            try require(m > 0, path, "downlinkBitsPerSecond", "mean \(m)", "a positive mean")
        }
        try require((0...1).contains(failureProbability), path, "failureProbability", "\(failureProbability)", "a probability in [0, 1]")
        try require((0...1).contains(stallProbability), path, "stallProbability", "\(stallProbability)", "a probability in [0, 1]")
        try require(sharedCapacityBitsPerSecond >= 0 && sharedCapacityBitsPerSecond.isFinite, path,
                    "sharedCapacityBitsPerSecond", "\(sharedCapacityBitsPerSecond)", "a finite value >= 0 (0 = not shared)")
    }
}

/// Profiles of every ``NetworkClass`` (JSON keys are the class names).
public struct NetworkConfig: Codable, Sendable, Equatable {
    /// Indexed by `NetworkClass.rawValue`.
    public var profiles: [NetworkProfile]

    public init(profiles: [NetworkProfile] = NetworkClass.allCases.map(NetworkProfile.standard)) {
        precondition(profiles.count == NetworkClass.count)
        self.profiles = profiles
    }

    public subscript(c: NetworkClass) -> NetworkProfile {
        get { profiles[Int(c.rawValue)] }
        set { profiles[Int(c.rawValue)] = newValue }
    }

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        let path = codingPathString(decoder.codingPath)
        for k in c.allKeys where !NetworkClass.allCases.contains(where: { $0.description == k.stringValue }) {
            throw InfraConfigError(path: joinPath(path, k.stringValue), value: "unknown network class",
                                   expected: "one of wifi, 5g, lte, 4g, 3g, 2g, slow-2g")
        }
        var ps: [NetworkProfile] = []
        for cls in NetworkClass.allCases {
            let key = Key(stringValue: cls.description)
            if c.contains(key) {
                let sub = try c.superDecoder(forKey: key)
                ps.append(try NetworkProfile(from: sub, defaults: .standard(cls)))
            } else {
                ps.append(.standard(cls))
            }
        }
        profiles = ps
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        for cls in NetworkClass.allCases {
            try c.encode(self[cls], forKey: Key(stringValue: cls.description))
        }
    }

    public func validate(path: String) throws(InfraConfigError) {
        for cls in NetworkClass.allCases { try self[cls].validate(path: joinPath(path, cls.description)) }
    }
}

/// Round trips spent setting up a new connection before the request can be sent (each costs one
/// device ↔ PoP RTT). A request flagged `connectionWarm` reuses a connection and pays none.
public struct ConnectionSetupConfig: Codable, Sendable, Equatable {
    /// DNS resolution (0 when the name is usually cached on the device).
    public var dnsRoundTrips: Int = 1
    /// TCP handshake (0 for QUIC, whose handshake is folded into TLS).
    public var tcpRoundTrips: Int = 1
    /// TLS handshake: 1 for TLS 1.3 (2 for TLS 1.2).
    public var tlsRoundTrips: Int = 1

    public init(dnsRoundTrips: Int = 1, tcpRoundTrips: Int = 1, tlsRoundTrips: Int = 1) {
        self.dnsRoundTrips = dnsRoundTrips
        self.tcpRoundTrips = tcpRoundTrips
        self.tlsRoundTrips = tlsRoundTrips
    }

    enum CodingKeys: String, CodingKey { case dnsRoundTrips, tcpRoundTrips, tlsRoundTrips }

    public init(from decoder: any Decoder) throws {
        let d = ConnectionSetupConfig()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        dnsRoundTrips = try c.value(.dnsRoundTrips, or: d.dnsRoundTrips)
        tcpRoundTrips = try c.value(.tcpRoundTrips, or: d.tcpRoundTrips)
        tlsRoundTrips = try c.value(.tlsRoundTrips, or: d.tlsRoundTrips)
        try validate(path: codingPathString(decoder.codingPath))
    }

    public func validate(path: String) throws(InfraConfigError) {
        try require((0...4).contains(dnsRoundTrips), path, "dnsRoundTrips", "\(dnsRoundTrips)", "an integer in 0...4")
        try require((0...4).contains(tcpRoundTrips), path, "tcpRoundTrips", "\(tcpRoundTrips)", "an integer in 0...4")
        try require((0...4).contains(tlsRoundTrips), path, "tlsRoundTrips", "\(tlsRoundTrips)", "an integer in 0...4")
    }

    var totalRoundTrips: Int { dnsRoundTrips + tcpRoundTrips + tlsRoundTrips }
}

/// A region: a population of devices served by one PoP through one shared bottleneck per network
/// class.
public struct RegionConfig: Codable, Sendable, Equatable {
    /// The PoP serving this region.
    public var popIndex: Int
    /// Extra round trip from the access network to the PoP, added to the class RTT. The class
    /// presets (WebPageTest) are end-to-end latencies to a nearby server, so the default is 0;
    /// set it for regions served by a distant PoP.
    public var pathRttSeconds: Double = 0
    /// Relative audience size (used to rank PoPs for top-k warming).
    public var audienceWeight: Double = 1
    /// Multiplies every class's `sharedCapacityBitsPerSecond` in this region.
    public var capacityScale: Double = 1

    public init(popIndex: Int, pathRttSeconds: Double = 0, audienceWeight: Double = 1, capacityScale: Double = 1) {
        self.popIndex = popIndex
        self.pathRttSeconds = pathRttSeconds
        self.audienceWeight = audienceWeight
        self.capacityScale = capacityScale
    }

    enum CodingKeys: String, CodingKey { case popIndex, pathRttSeconds, audienceWeight, capacityScale }

    public init(from decoder: any Decoder) throws {
        let d = RegionConfig(popIndex: 0)  // the defaults do not depend on the index
        let c = try decoder.container(keyedBy: CodingKeys.self)
        popIndex = try c.decode(Int.self, forKey: .popIndex)
        pathRttSeconds = try c.value(.pathRttSeconds, or: d.pathRttSeconds)
        audienceWeight = try c.value(.audienceWeight, or: d.audienceWeight)
        capacityScale = try c.value(.capacityScale, or: d.capacityScale)
        try validate(path: codingPathString(decoder.codingPath), popCount: nil)
    }

    public func validate(path: String, popCount: Int?) throws(InfraConfigError) {
        try require(popIndex >= 0 && popIndex < (popCount ?? Int(UInt32.max)), path, "popIndex", "\(popIndex)",
                    "an index in 0..<\(popCount.map(String.init) ?? "popCount")")
        try require(pathRttSeconds >= 0 && pathRttSeconds <= 10, path, "pathRttSeconds", "\(pathRttSeconds)", "seconds in [0, 10]")
        try require(audienceWeight >= 0 && audienceWeight.isFinite, path, "audienceWeight", "\(audienceWeight)", "a finite weight >= 0")
        try require(capacityScale > 0 && capacityScale.isFinite, path, "capacityScale", "\(capacityScale)", "a finite factor > 0")
    }
}

/// Traffic of the site's other content competing for the same LRU.
public enum BackgroundPressure: Codable, Sendable, Equatable {
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

    enum CodingKeys: String, CodingKey { case kind, requestsPerSecond, catalogueObjects, zipfExponent, objectBytes, seconds }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let path = codingPathString(decoder.codingPath)
        switch try c.decode(String.self, forKey: .kind) {
        case "none": self = .none
        case "explicitStream":
            self = .explicitStream(requestsPerSecond: try c.decode(Double.self, forKey: .requestsPerSecond),
                                   catalogueObjects: try c.decode(Int.self, forKey: .catalogueObjects),
                                   zipfExponent: try c.decode(Double.self, forKey: .zipfExponent),
                                   objectBytes: try c.decode(Int64.self, forKey: .objectBytes))
        case "characteristicTime": self = .characteristicTime(seconds: try c.decode(Double.self, forKey: .seconds))
        case let other:
            throw InfraConfigError(path: joinPath(path, "kind"), value: other, expected: "none, explicitStream or characteristicTime")
        }
        try validate(path: path)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .none: try c.encode("none", forKey: .kind)
        case let .explicitStream(r, n, a, b):
            try c.encode("explicitStream", forKey: .kind)
            try c.encode(r, forKey: .requestsPerSecond)
            try c.encode(n, forKey: .catalogueObjects)
            try c.encode(a, forKey: .zipfExponent)
            try c.encode(b, forKey: .objectBytes)
        case let .characteristicTime(s):
            try c.encode("characteristicTime", forKey: .kind)
            try c.encode(s, forKey: .seconds)
        }
    }

    public func validate(path: String) throws(InfraConfigError) {
        switch self {
        case .none: break
        case let .explicitStream(r, n, a, b):
            try require(r > 0 && r <= 1e6, path, "requestsPerSecond", "\(r)", "a rate in (0, 1e6]")
            try require(n >= 1 && n <= 10_000_000, path, "catalogueObjects", "\(n)", "an integer in 1...10000000")
            try require(a >= 0 && a <= 5, path, "zipfExponent", "\(a)", "an exponent in [0, 5]")
            try require(b >= 1 && b <= 1 << 34, path, "objectBytes", "\(b)", "bytes in 1...2^34")
        case let .characteristicTime(s):
            try require(s > 0 && s <= 365 * 86400, path, "seconds", "\(s)", "seconds in (0, 1 year]")
        }
    }
}

/// One cache (a PoP's or a shield's share for this site).
public struct CacheConfig: Codable, Sendable, Equatable {
    public var capacityBytes: Int64 = 1 << 30
    /// Limit on entries (memory bound of the simulation; storage grows on demand up to it).
    public var entriesMax: Int = 1_000_000
    public var background: BackgroundPressure = .none

    public init(capacityBytes: Int64 = 1 << 30, entriesMax: Int = 1_000_000, background: BackgroundPressure = .none) {
        self.capacityBytes = capacityBytes
        self.entriesMax = entriesMax
        self.background = background
    }

    enum CodingKeys: String, CodingKey { case capacityBytes, entriesMax, background }

    public init(from decoder: any Decoder) throws {
        let d = CacheConfig()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        capacityBytes = try c.value(.capacityBytes, or: d.capacityBytes)
        entriesMax = try c.value(.entriesMax, or: d.entriesMax)
        background = try c.value(.background, or: d.background)
        try validate(path: codingPathString(decoder.codingPath))
    }

    public func validate(path: String) throws(InfraConfigError) {
        try require(capacityBytes >= 0 && capacityBytes <= 1 << 50, path, "capacityBytes", "\(capacityBytes)", "bytes in 0...2^50")
        try require(entriesMax >= 1 && entriesMax <= 100_000_000, path, "entriesMax", "\(entriesMax)", "an integer in 1...100000000")
        try background.validate(path: joinPath(path, "background"))
    }
}

/// Per-PoP overrides of the defaults.
public struct PopOverride: Codable, Sendable, Equatable {
    public var popIndex: Int
    /// Shield this PoP fetches through (default `popIndex % shieldCount`).
    public var shieldIndex: Int?
    public var edgeProcessingSeconds: Distribution?
    public var upstreamSeconds: Distribution?
    public var cacheCapacityBytes: Int64?

    public init(popIndex: Int, shieldIndex: Int? = nil, edgeProcessingSeconds: Distribution? = nil,
                upstreamSeconds: Distribution? = nil, cacheCapacityBytes: Int64? = nil) {
        self.popIndex = popIndex
        self.shieldIndex = shieldIndex
        self.edgeProcessingSeconds = edgeProcessingSeconds
        self.upstreamSeconds = upstreamSeconds
        self.cacheCapacityBytes = cacheCapacityBytes
    }

    public func validate(path: String, popCount: Int, shieldCount: Int) throws(InfraConfigError) {
        try require(popIndex >= 0 && popIndex < popCount, path, "popIndex", "\(popIndex)", "an index in 0..<\(popCount)")
        if let s = shieldIndex {
            try require(s >= 0 && s < shieldCount, path, "shieldIndex", "\(s)", "an index in 0..<\(shieldCount)")
        }
        if let d = edgeProcessingSeconds { try validateDistribution(d, path, "edgeProcessingSeconds") }
        if let d = upstreamSeconds { try validateDistribution(d, path, "upstreamSeconds") }
        if let b = cacheCapacityBytes {
            try require(b >= 0 && b <= 1 << 50, path, "cacheCapacityBytes", "\(b)", "bytes in 0...2^50")
        }
    }
}

/// PoPs, shields and regions.
public struct TopologyConfig: Codable, Sendable, Equatable {
    public var popCount: Int = 280
    public var shieldCount: Int = 8
    /// Regions; empty = one region per PoP (region i served by PoP i).
    public var regions: [RegionConfig] = []
    public var popOverrides: [PopOverride] = []

    public init(popCount: Int = 280, shieldCount: Int = 8, regions: [RegionConfig] = [], popOverrides: [PopOverride] = []) {
        self.popCount = popCount
        self.shieldCount = shieldCount
        self.regions = regions
        self.popOverrides = popOverrides
    }

    enum CodingKeys: String, CodingKey { case popCount, shieldCount, regions, popOverrides }

    public init(from decoder: any Decoder) throws {
        let d = TopologyConfig()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        popCount = try c.value(.popCount, or: d.popCount)
        shieldCount = try c.value(.shieldCount, or: d.shieldCount)
        regions = try c.value(.regions, or: d.regions)
        popOverrides = try c.value(.popOverrides, or: d.popOverrides)
        try validate(path: codingPathString(decoder.codingPath))
    }

    public func validate(path: String) throws(InfraConfigError) {
        try require(popCount >= 1 && popCount <= 10_000, path, "popCount", "\(popCount)", "an integer in 1...10000")
        try require(shieldCount >= 1 && shieldCount <= 1_000, path, "shieldCount", "\(shieldCount)", "an integer in 1...1000")
        try require(regions.count <= 1_000_000, path, "regions", "\(regions.count) regions", "at most 1000000")
        for (i, r) in regions.enumerated() { try r.validate(path: joinPath(path, "regions[\(i)]"), popCount: popCount) }
        for (i, o) in popOverrides.enumerated() {
            try o.validate(path: joinPath(path, "popOverrides[\(i)]"), popCount: popCount, shieldCount: shieldCount)
        }
    }

    /// The regions in effect (the default one-per-PoP list when `regions` is empty).
    public var effectiveRegions: [RegionConfig] {
        regions.isEmpty ? (0..<popCount).map { RegionConfig(popIndex: $0) } : regions
    }
}

/// Latencies and switches of the edge → shield → origin path.
public struct TierConfig: Codable, Sendable, Equatable {
    /// Edge → regional shield → origin when true; edge → origin when false.
    public var tieringEnabled: Bool = true
    /// Concurrent misses for the same object at a node share one upstream fetch.
    public var requestCollapsingEnabled: Bool = true
    /// Edge processing per response (a hit costs set-up + RTT + this + transfer end to end).
    public var edgeProcessingSeconds: Distribution = lognormalMedian(0.004, sigma: 0.5)
    /// Round trip edge ↔ shield including shield processing.
    public var edgeToShieldSeconds: Distribution = lognormalMedian(0.030, sigma: 0.4)
    /// Round trip to the origin over TLS (from the shield, or from the edge without tiering),
    /// excluding origin service time (see ``OriginConfig``).
    public var toOriginSeconds: Distribution = .uniform(lower: 0.38, upper: 0.58)

    public init() {}

    enum CodingKeys: String, CodingKey {
        case tieringEnabled, requestCollapsingEnabled, edgeProcessingSeconds, edgeToShieldSeconds, toOriginSeconds
    }

    public init(from decoder: any Decoder) throws {
        let d = TierConfig()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        tieringEnabled = try c.value(.tieringEnabled, or: d.tieringEnabled)
        requestCollapsingEnabled = try c.value(.requestCollapsingEnabled, or: d.requestCollapsingEnabled)
        edgeProcessingSeconds = try c.value(.edgeProcessingSeconds, or: d.edgeProcessingSeconds)
        edgeToShieldSeconds = try c.value(.edgeToShieldSeconds, or: d.edgeToShieldSeconds)
        toOriginSeconds = try c.value(.toOriginSeconds, or: d.toOriginSeconds)
        try validate(path: codingPathString(decoder.codingPath))
    }

    public func validate(path: String) throws(InfraConfigError) {
        try validateDistribution(edgeProcessingSeconds, path, "edgeProcessingSeconds")
        try validateDistribution(edgeToShieldSeconds, path, "edgeToShieldSeconds")
        try validateDistribution(toOriginSeconds, path, "toOriginSeconds")
    }
}

/// The origin server pool.
public struct OriginConfig: Codable, Sendable, Equatable {
    public var workers: Int = 64
    public var serviceSeconds: Distribution = .exponential(mean: 0.020)
    /// Bounded wait queue; arrivals finding it full get 503.
    public var queueMax: Int = 1_024

    public init(workers: Int = 64, serviceSeconds: Distribution = .exponential(mean: 0.020), queueMax: Int = 1_024) {
        self.workers = workers
        self.serviceSeconds = serviceSeconds
        self.queueMax = queueMax
    }

    enum CodingKeys: String, CodingKey { case workers, serviceSeconds, queueMax }

    public init(from decoder: any Decoder) throws {
        let d = OriginConfig()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        workers = try c.value(.workers, or: d.workers)
        serviceSeconds = try c.value(.serviceSeconds, or: d.serviceSeconds)
        queueMax = try c.value(.queueMax, or: d.queueMax)
        try validate(path: codingPathString(decoder.codingPath))
    }

    public func validate(path: String) throws(InfraConfigError) {
        try require(workers >= 1 && workers <= 100_000, path, "workers", "\(workers)", "an integer in 1...100000")
        try require(queueMax >= 0 && queueMax <= 10_000_000, path, "queueMax", "\(queueMax)", "an integer in 0...10000000")
        try validateDistribution(serviceSeconds, path, "serviceSeconds")
    }
}

/// Redirect slow or data-saving clients to a small placeholder (HTTP 302).
public struct PlaceholderPolicy: Codable, Sendable, Equatable {
    public var enabled: Bool = false
    public var placeholderBytes: Int64 = 30_000
    /// Redirect requests carrying `Save-Data: on`.
    public var onSaveData: Bool = true
    /// Redirect when the request's effective connection type is at or below this.
    public var maxEffectiveConnectionType: EffectiveConnectionType = .twoG

    public init(enabled: Bool = false, placeholderBytes: Int64 = 30_000, onSaveData: Bool = true,
                maxEffectiveConnectionType: EffectiveConnectionType = .twoG) {
        self.enabled = enabled
        self.placeholderBytes = placeholderBytes
        self.onSaveData = onSaveData
        self.maxEffectiveConnectionType = maxEffectiveConnectionType
    }

    enum CodingKeys: String, CodingKey { case enabled, placeholderBytes, onSaveData, maxEffectiveConnectionType }

    public init(from decoder: any Decoder) throws {
        let d = PlaceholderPolicy()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        enabled = try c.value(.enabled, or: d.enabled)
        placeholderBytes = try c.value(.placeholderBytes, or: d.placeholderBytes)
        onSaveData = try c.value(.onSaveData, or: d.onSaveData)
        maxEffectiveConnectionType = try c.value(.maxEffectiveConnectionType, or: d.maxEffectiveConnectionType)
        try validate(path: codingPathString(decoder.codingPath))
    }

    public func validate(path: String) throws(InfraConfigError) {
        try require(placeholderBytes >= 1 && placeholderBytes <= 1 << 24, path, "placeholderBytes", "\(placeholderBytes)", "bytes in 1...2^24")
    }
}

/// The whole infrastructure model.
public struct InfraConfig: Codable, Sendable, Equatable {
    public var networks = NetworkConfig()
    public var connectionSetup = ConnectionSetupConfig()
    public var topology = TopologyConfig()
    public var edgeCache = CacheConfig()
    public var shieldCache = CacheConfig(capacityBytes: 8 << 30)
    public var tiers = TierConfig()
    public var origin = OriginConfig()
    /// Surrogate-key purge reaches each PoP/shield this long after the purge call
    /// (~150 ms on instant-purge CDNs, ~5 s on others).
    public var purgePropagationSeconds: Distribution = .constant(value: 0.150)
    /// A warm request reaches each targeted PoP/shield this long after the warm call.
    public var warmPropagationSeconds: Distribution = .uniform(lower: 0.5, upper: 5)
    /// Cache key includes the signed-URL query token: every token is a different object (each
    /// device misses). Off = the token is stripped from the key.
    public var cacheKeyIncludesSignedToken: Bool = false
    public var placeholder = PlaceholderPolicy()
    /// Length of the per-second time series; activity later is counted in `timeSeriesOverflow`.
    public var metricsHorizonSeconds: Int = 3_600
    /// Limits on concurrently tracked device requests and upstream fetches.
    public var requestsInFlightMax: Int = 1 << 22
    public var fetchesInFlightMax: Int = 1 << 20

    public init() {}

    enum CodingKeys: String, CodingKey {
        case networks, connectionSetup, topology, edgeCache, shieldCache, tiers, origin, purgePropagationSeconds,
             warmPropagationSeconds, cacheKeyIncludesSignedToken, placeholder, metricsHorizonSeconds,
             requestsInFlightMax, fetchesInFlightMax
    }

    public init(from decoder: any Decoder) throws {
        let d = InfraConfig()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        networks = try c.value(.networks, or: d.networks)
        connectionSetup = try c.value(.connectionSetup, or: d.connectionSetup)
        topology = try c.value(.topology, or: d.topology)
        edgeCache = try c.value(.edgeCache, or: d.edgeCache)
        shieldCache = try c.value(.shieldCache, or: d.shieldCache)
        tiers = try c.value(.tiers, or: d.tiers)
        origin = try c.value(.origin, or: d.origin)
        purgePropagationSeconds = try c.value(.purgePropagationSeconds, or: d.purgePropagationSeconds)
        warmPropagationSeconds = try c.value(.warmPropagationSeconds, or: d.warmPropagationSeconds)
        cacheKeyIncludesSignedToken = try c.value(.cacheKeyIncludesSignedToken, or: d.cacheKeyIncludesSignedToken)
        placeholder = try c.value(.placeholder, or: d.placeholder)
        metricsHorizonSeconds = try c.value(.metricsHorizonSeconds, or: d.metricsHorizonSeconds)
        requestsInFlightMax = try c.value(.requestsInFlightMax, or: d.requestsInFlightMax)
        fetchesInFlightMax = try c.value(.fetchesInFlightMax, or: d.fetchesInFlightMax)
        try validate(path: codingPathString(decoder.codingPath))
    }

    /// Validate every field; errors name the path below `path`.
    public func validate(path: String = "") throws(InfraConfigError) {
        try networks.validate(path: joinPath(path, "networks"))
        try connectionSetup.validate(path: joinPath(path, "connectionSetup"))
        try topology.validate(path: joinPath(path, "topology"))
        try edgeCache.validate(path: joinPath(path, "edgeCache"))
        try shieldCache.validate(path: joinPath(path, "shieldCache"))
        try tiers.validate(path: joinPath(path, "tiers"))
        try origin.validate(path: joinPath(path, "origin"))
        try validateDistribution(purgePropagationSeconds, path, "purgePropagationSeconds")
        try validateDistribution(warmPropagationSeconds, path, "warmPropagationSeconds")
        try placeholder.validate(path: joinPath(path, "placeholder"))
        try require(metricsHorizonSeconds >= 1 && metricsHorizonSeconds <= 7 * 86_400, path, "metricsHorizonSeconds",
                    "\(metricsHorizonSeconds)", "seconds in 1...604800")
        try require(requestsInFlightMax >= 1 && requestsInFlightMax <= 1 << 26, path, "requestsInFlightMax",
                    "\(requestsInFlightMax)", "an integer in 1...2^26")
        try require(fetchesInFlightMax >= 1 && fetchesInFlightMax <= 1 << 26, path, "fetchesInFlightMax",
                    "\(fetchesInFlightMax)", "an integer in 1...2^26")
    }
}
