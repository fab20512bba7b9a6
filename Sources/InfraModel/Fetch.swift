import SimKernel

/// How a device request ended.
public enum FetchOutcome: UInt8, Sendable, Codable {
    /// Served from the PoP's fresh copy.
    case edgeFreshHit
    /// Served from a stale copy within stale-while-revalidate (revalidation ran in the background).
    case edgeStaleHit
    /// The PoP missed and fetched upstream for this request.
    case miss
    /// The PoP missed and this request joined an upstream fetch already in flight.
    case collapsed
    /// Upstream failed (origin queue full) and no stale-if-error copy was available.
    case origin503
    /// Upstream failed but a copy within stale-if-error was served.
    case staleIfError
    /// The request's timeout fired first (includes stalled transfers).
    case timeout
    /// The connection failed (network failure probability).
    case networkFailure
    /// Redirected to the placeholder (Save-Data / slow effective connection type).
    case placeholder
    /// The requester cancelled it (``InfraWorld/cancel(_:kernel:)``) before its reply.
    case cancelled
}

/// Whether a device request reached the PoP and what its edge lookup found, independent of how
/// the request ended (a request that missed and then timed out or was cancelled still missed).
public enum EdgeLookup: UInt8, Sendable, Codable {
    /// The request ended before it reached the PoP (network failure, or a timeout or cancel
    /// during connection set-up).
    case notReached
    /// The PoP served it from its cache (fresh or within stale-while-revalidate), or redirected
    /// it to the always-cached placeholder.
    case hit
    /// The PoP missed and fetched upstream (or joined a fetch in flight).
    case miss
}

/// A device's fetch. The reply is an event `replyKind` to `replyTarget` whose payload is
/// `UInt64(replyTag) << 32 | requestID` (decode with ``InfraWorld/decodeReply(_:)``).
public struct FetchRequest: Sendable {
    public var objectID: UInt32
    public var regionID: UInt32
    public var networkClass: NetworkClass
    /// Random-stream entity of this request (e.g. device id << 16 | asset index): every variate
    /// of the request (RTT, throughput, failure, stall, edge processing) comes from streams keyed
    /// by (seed, entity, purpose), so variants of a scenario see the same draws.
    public var entity: UInt64
    /// Reuse a warm connection (no DNS/TCP/TLS set-up round trips).
    public var connectionWarm: Bool
    /// `Save-Data: on`.
    public var saveData: Bool
    /// Signed-URL token (part of the cache key when `cacheKeyIncludesSignedToken`).
    public var signedToken: UInt32
    /// The request ends with `.timeout` at this delay if not complete (0 < timeout ≤ 600 s).
    public var timeout: SimDuration
    public var replyKind: EventKind
    public var replyTarget: UInt32
    public var replyTag: UInt32
    /// `If-None-Match`: 1 + the object version (``FetchResult/version``) of the copy the device
    /// holds, or 0 for an unconditional request. The PoP answers 304 Not Modified, headers only
    /// (``TierConfig/notModifiedBytes``), when the copy it serves has that version.
    public var ifNoneMatch: UInt32

    public init(objectID: UInt32, regionID: UInt32, networkClass: NetworkClass, entity: UInt64,
                connectionWarm: Bool = false, saveData: Bool = false, signedToken: UInt32 = 0,
                timeout: SimDuration = .seconds(30), replyKind: EventKind, replyTarget: UInt32, replyTag: UInt32 = 0,
                ifNoneMatch: UInt32 = 0) {
        self.objectID = objectID
        self.regionID = regionID
        self.networkClass = networkClass
        self.entity = entity
        self.connectionWarm = connectionWarm
        self.saveData = saveData
        self.signedToken = signedToken
        self.timeout = timeout
        self.replyKind = replyKind
        self.replyTarget = replyTarget
        self.replyTag = replyTag
        self.ifNoneMatch = ifNoneMatch
    }
}

/// The outcome of a finished device request.
public struct FetchResult: Sendable, Equatable {
    public var outcome: FetchOutcome
    /// Tier that supplied the bytes (edge for hits; shield or origin for misses).
    public var servedBy: Tier
    /// Bytes that reached the device: the whole response when it completed, the part received
    /// so far when a timeout or a cancel cut the transfer, 0 before the first byte.
    public var bytes: Int64
    public var popIndex: UInt32
    public var startTime: SimTime
    /// When the first response byte reached the device (== endTime for failures and timeouts).
    public var firstByteTime: SimTime
    public var endTime: SimTime
    public var effectiveConnectionType: EffectiveConnectionType
    /// Whether the request reached the PoP and whether its lookup hit, whatever the outcome.
    public var edgeLookup: EdgeLookup
    /// The response carried a copy generated before the latest purge call of the object's
    /// surrogate key: the creative that purge superseded (served by a PoP or shield the purge
    /// had not yet reached). False for responses without a body.
    public var supersededCopy: Bool
    /// The version of the object the response carries (its `ETag`: the number of purge calls of
    /// its surrogate key before the copy was generated, ``NodeCaches/keyVersion``); 0 without a body.
    public var version: UInt32 = 0
    /// A conditional request (``FetchRequest/ifNoneMatch``) answered 304 Not Modified: `bytes`
    /// are the headers only.
    public var notModified = false

    public var durationSeconds: Double { (endTime - startTime).seconds }
}
