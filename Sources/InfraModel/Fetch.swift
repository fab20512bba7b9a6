import SimKernel

/// How a device request ended.
@usableFromInline package enum FetchOutcome: UInt8, Sendable, Codable {
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
package enum EdgeLookup: UInt8, Sendable, Codable {
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
@usableFromInline package struct FetchRequest: Sendable {
    package var objectID: ObjectID
    package var regionID: RegionID
    package var networkClass: NetworkClass
    /// Random-stream entity of this request (e.g. device id << 16 | asset index): every variate
    /// of the request (RTT, throughput, failure, stall, edge processing) comes from streams keyed
    /// by (seed, entity, purpose), so variants of a scenario see the same draws.
    package var entity: UInt64
    /// Reuse a warm connection (no DNS/TCP/TLS set-up round trips).
    package var connectionWarm: Bool
    /// `Save-Data: on`.
    package var saveData: Bool
    /// Follow the PoP's 302 to the placeholder (``PlaceholderPolicy``): an extra round trip, then
    /// the placeholder's bytes (an app's image loader does). `false`: the 302 itself is the
    /// answer, headers only (a pre-stage driver follows no redirect, PreloadKit's rule).
    package var followsRedirects: Bool
    /// Signed-URL token (part of the cache key when `cacheKeyIncludesSignedToken`).
    package var signedToken: UInt32
    /// The request ends with `.timeout` at this delay if not complete (0 < timeout ≤ 600 s).
    package var timeout: SimDuration
    package var replyKind: EventKind
    package var replyTarget: UInt32
    package var replyTag: UInt32
    /// `If-None-Match`: 1 + the object version (``FetchResult/version``) of the copy the device
    /// holds, or 0 for an unconditional request. The PoP answers 304 Not Modified, headers only
    /// (``TierConfig/notModifiedBytes``), when the copy it serves has that version.
    package var ifNoneMatch: UInt32

    @usableFromInline package init(objectID: ObjectID, regionID: RegionID, networkClass: NetworkClass, entity: UInt64,
                connectionWarm: Bool = false, saveData: Bool = false, followsRedirects: Bool = true, signedToken: UInt32 = 0,
                timeout: SimDuration = .seconds(30), replyKind: EventKind, replyTarget: UInt32, replyTag: UInt32 = 0,
                ifNoneMatch: UInt32 = 0) {
        self.objectID = objectID
        self.regionID = regionID
        self.networkClass = networkClass
        self.entity = entity
        self.connectionWarm = connectionWarm
        self.saveData = saveData
        self.followsRedirects = followsRedirects
        self.signedToken = signedToken
        self.timeout = timeout
        self.replyKind = replyKind
        self.replyTarget = replyTarget
        self.replyTag = replyTag
        self.ifNoneMatch = ifNoneMatch
    }
}

/// The outcome of a finished device request.
package struct FetchResult: Sendable, Equatable {
    package var outcome: FetchOutcome
    /// Tier that supplied the bytes (edge for hits; shield or origin for misses).
    package var servedBy: Tier
    /// Bytes that reached the device: the whole response when it completed, the part received
    /// so far when a timeout or a cancel cut the transfer, 0 before the first byte.
    package var bytes: Int64
    package var popIndex: UInt32
    package var startTime: SimTime
    /// When the first response byte reached the device (== endTime for failures and timeouts).
    package var firstByteTime: SimTime
    package var endTime: SimTime
    package var effectiveConnectionType: EffectiveConnectionType
    /// Whether the request reached the PoP and whether its lookup hit, whatever the outcome.
    package var edgeLookup: EdgeLookup
    /// The response carried a copy generated before the latest purge call of the object's
    /// surrogate key: the creative that purge superseded (served by a PoP or shield the purge
    /// had not yet reached). False for responses without a body.
    package var supersededCopy: Bool
    /// The version of the object the response carries (its `ETag`: the number of purge calls of
    /// its surrogate key before the copy was generated, ``NodeCaches/keyVersion``); 0 without a body.
    package var version: UInt32 = 0
    /// A conditional request (``FetchRequest/ifNoneMatch``) answered 304 Not Modified: `bytes`
    /// are the headers only.
    package var notModified = false

    package var durationSeconds: Double { (endTime - startTime).seconds }
}
