// The vocabulary between a driver and `PreloadSession`: inputs, actions and their payloads.

/// Identifies one fetch within a session (1, 2, 3, ... in start order).
public struct FetchID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static func < (lhs: FetchID, rhs: FetchID) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "fetch#\(rawValue)" }
}

/// What a fetch is for, which decides where the driver puts the body.
public enum FetchPurpose: Sendable, Equatable {
    /// A referenced manifest: keep the body in memory (at most `byteLimit` bytes) and return it in
    /// `FetchCompletion.body`.
    case manifest
    /// An asset: stream the body to a temporary file for this fetch id through a buffer of
    /// `FetchRequest.bufferBytes`; it becomes the store entry `key` on `.storeAsset`, and is deleted
    /// on `.cancelFetch` or when the fetch fails.
    case asset(StoreKey)
}

/// A fetch the driver must start (`Action.startFetch`).
public struct FetchRequest: Sendable, Equatable {
    public let id: FetchID
    /// The exact URL from the payload (signed tokens included); no cache-busting is ever added.
    public let url: AssetURL
    public let purpose: FetchPurpose
    /// Stop reading beyond this many body bytes (the session also cancels when progress or a
    /// `Content-Length` exceeds it).
    public let byteLimit: Int64
    /// The request's time budget, `min(policy timeout, time left to the hard deadline)`.
    ///
    /// Advisory: the session itself enforces it (the instant is part of `nextDeadline()`, and the
    /// `.timerFired` reaching it emits `.cancelFetch(id, .timedOut)`). A driver arms no timer of
    /// its own for it; it may give its transport a backstop timeout well past it (e.g. this value
    /// plus 30 s), whose expiry it reports as `.fetchFailed(id, .timedOut)`.
    public let timeoutMicroseconds: Int64
    /// Streaming buffer size the memory budget allows per fetch.
    public let bufferBytes: Int64
    /// A background revalidation of a stale entry (delivery does not wait for it).
    public let isRevalidation: Bool
    /// Revalidating a stored entry that has a validator: send `If-None-Match` with that entry's
    /// `ETag` text. The server may then answer 304 Not Modified without a body; report it as a
    /// completion with status 304 and no body bytes.
    public var ifNoneMatch: EntityTag? = nil
    /// An HLS playlist the session reads (`PreloadPolicy.hls`): besides streaming the body to the
    /// temporary file as for any asset, return it in `FetchCompletion.body` as `.bytes` (at most
    /// `byteLimit` bytes). A completion of such a fetch without a body is a protocol error.
    public var returnsBody: Bool = false
    /// A sub-range of the resource (an HLS segment or initialization section addressed by
    /// `#EXT-X-BYTERANGE`): send `Range: bytes=<offset>-<lastByte>` (`ByteRange.headerValue`) and
    /// report the `206` answer's `Content-Range` (`FetchHeaders.contentRange`). The session
    /// accepts only a 206 naming exactly this range with `length` body bytes; a `200` (the server
    /// ignored the header and sends the whole file) is refused at its headers (`.rangeIgnored`),
    /// so the driver stops it before the body. The body is the entry `FetchPurpose.asset`'s key
    /// names (`StoreKey(cacheKey:range:)`), this range's bytes only.
    public var range: ByteRange? = nil
}

/// Response metadata, as received.
public struct FetchHeaders: Sendable, Equatable {
    /// HTTP status code.
    public var status: Int
    /// `Cache-Control` value (several header lines joined with ", "), if any.
    public var cacheControl: String?
    /// `Content-Type` value, if any.
    public var contentType: String?
    /// `Content-Length`, if the server sent one.
    public var contentLength: Int64?
    /// `ETag`, if the server sent one (kept with the stored entry for revalidation).
    public var etag: EntityTag?
    /// `Content-Range` of a `206` answer, parsed with `ContentRange.parse` (nil: absent or malformed).
    public var contentRange: ContentRange?

    public init(status: Int, cacheControl: String? = nil, contentType: String? = nil, contentLength: Int64? = nil,
                etag: EntityTag? = nil, contentRange: ContentRange? = nil) {
        self.status = status
        self.cacheControl = cacheControl
        self.contentType = contentType
        self.contentLength = contentLength
        self.etag = etag
        self.contentRange = contentRange
    }
}

/// The body returned with a completed fetch.
public enum FetchBody: Sendable, Equatable {
    /// Asset fetches: the body is in the driver's temporary file.
    case none
    /// Manifest fetches, and asset fetches with `FetchRequest.returnsBody`: the whole document.
    case bytes([UInt8])
    /// Manifest fetches from a driver that parsed the document itself (the simulator parses a
    /// campaign's manifest once with `PayloadParser.parseReferencedManifest`). Only a value
    /// produced by the parser can be passed, so it is validated; its `manifestID` is still checked.
    case parsedManifest(PreStageRequest)
}

/// A finished transfer (`Input.fetchCompleted`).
public struct FetchCompletion: Sendable, Equatable {
    public var headers: FetchHeaders
    /// Body bytes received in total.
    public var bytesReceived: Int64
    /// The first body bytes for magic-byte sniffing: at least `MediaSniffer.prefixByteCountNeeded`
    /// when the body is that long (64 is plenty; JSON after long leading whitespace may need more).
    public var prefix: [UInt8]
    public var body: FetchBody

    public init(headers: FetchHeaders, bytesReceived: Int64, prefix: [UInt8], body: FetchBody = .none) {
        self.headers = headers
        self.bytesReceived = bytesReceived
        self.prefix = prefix
        self.body = body
    }
}

/// Why a transfer failed (`Input.fetchFailed`), as the driver saw it.
public enum FetchFailure: UInt8, Sendable, Equatable, CaseIterable {
    /// A transport-level timeout fired (a backstop, e.g. an idle timeout; the request's own time
    /// budget is enforced by the session, see `FetchRequest.timeoutMicroseconds`).
    case timedOut
    /// Connection refused/reset/lost, DNS failure.
    case network
    /// TLS handshake or certificate failure.
    case tls
    /// The OS cancelled the transfer.
    case cancelledBySystem
    /// Anything else (file write failure, ...).
    case other
}

/// Everything a driver reports to a session.
public enum Input: Sendable {
    /// The push woke a handler: the (shared, already verified) request and the device context.
    case pushReceived(PreStageRequest, DeviceContext)
    /// Response headers arrived (optional; lets the session refuse early by status, length, type).
    case fetchHeaders(FetchID, FetchHeaders)
    /// Body bytes received so far (optional; lets the session cut an oversized stream).
    case fetchProgress(FetchID, bytesReceived: Int64)
    /// The transfer finished (required for every started fetch unless it failed or was cancelled).
    /// A body that ended early (the connection closed before `Content-Length` bytes) is reported
    /// here too, with the bytes actually received, so the session refuses it as `lengthMismatch`.
    case fetchCompleted(FetchID, FetchCompletion)
    /// The transfer failed.
    case fetchFailed(FetchID, FetchFailure)
    /// Performing the `.storeAsset` of this fetch failed (the file could not be moved into place):
    /// the session removes the entry from its store and logs `.storeFailed`. Legal in every phase
    /// after the push, exactly once per fetch for which a `.storeAsset` was emitted; otherwise the
    /// session throws `.unknownFetch`, `.noStoreCommit` or `.storeFailureAlreadyReported`.
    /// Outputs emitted before this input (a `.deliver` counting the asset, its attachment, a
    /// `.paintReady`) are not revised; later ones (tap answers, delivery at the deadline) see the
    /// entry gone.
    case storeFailed(FetchID)
    /// The instant from `nextDeadline()` was reached (early or spurious calls are harmless).
    case timerFired
    /// The OS is about to kill the handler (iOS `serviceExtensionTimeWillExpire`).
    case expiryWarning
    /// The user tapped the notification.
    case userTapped

    /// The input's kind, for errors.
    public var kind: InputKind {
        switch self {
        case .pushReceived: return .pushReceived
        case .fetchHeaders: return .fetchHeaders
        case .fetchProgress: return .fetchProgress
        case .fetchCompleted: return .fetchCompleted
        case .fetchFailed: return .fetchFailed
        case .storeFailed: return .storeFailed
        case .timerFired: return .timerFired
        case .expiryWarning: return .expiryWarning
        case .userTapped: return .userTapped
        }
    }
}

/// The kinds of `Input`.
public enum InputKind: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    case pushReceived, fetchHeaders, fetchProgress, fetchCompleted, fetchFailed, timerFired, expiryWarning, userTapped, storeFailed

    public var description: String {
        switch self {
        case .pushReceived: return "pushReceived"
        case .fetchHeaders: return "fetchHeaders"
        case .fetchProgress: return "fetchProgress"
        case .fetchCompleted: return "fetchCompleted"
        case .fetchFailed: return "fetchFailed"
        case .timerFired: return "timerFired"
        case .expiryWarning: return "expiryWarning"
        case .userTapped: return "userTapped"
        case .storeFailed: return "storeFailed"
        }
    }
}

/// Why a downloaded (or downloading) response was refused.
public enum FetchRejection: Sendable, Equatable {
    /// Status other than 200 (206 for a fetch of a sub-range, `FetchRequest.range`).
    case httpStatus(Int)
    /// A fetch of a sub-range was answered 200: the server ignored `Range` and sends the whole
    /// resource. Refused at the headers rather than sliced: the whole file may be many times the
    /// range (and the byte limit), and its other ranges are separate entries fetched on their own.
    case rangeIgnored
    /// A 206 answer whose `Content-Range` is missing, malformed or names other bytes than the
    /// range asked for (`received` nil: missing or malformed).
    case contentRangeMismatch(expected: ByteRange, received: ContentRange?)
    /// `Content-Length` above the fetch's byte limit.
    case contentLengthOverLimit(contentLength: Int64, limitBytes: Int64)
    /// More body bytes than the byte limit (with or without a length header).
    case bytesOverLimit(receivedBytes: Int64, limitBytes: Int64)
    /// The body length differs from `Content-Length` (truncated transfer).
    case lengthMismatch(receivedBytes: Int64, contentLength: Int64)
    /// No `Content-Type`.
    case contentTypeMissing
    /// The `Content-Type` names no kind the declared asset type accepts.
    case contentTypeNotAllowed(String)
    /// The magic bytes are not a kind the declared asset type accepts (nil: unrecognised).
    case magicBytesNotAllowed(MediaKind?)
    /// MIME type and magic bytes name different kinds.
    case contentTypeDisagreesWithMagic(contentType: String, sniffed: MediaKind)
    /// `no-store`, or a `Cache-Control`/TTL combination leaving no usable lifetime.
    case notStorable
    /// Larger than the store may hold (capacity, or free storage above the floor).
    case storeFull(bytes: Int64, limitBytes: Int64)
    /// A referenced manifest failed to parse or verify.
    case manifest(PayloadRejection)
    /// The response came from following a redirect: another URL's (e.g. a CDN's 302 to a small
    /// placeholder for Save-Data or slow links), never stored under the asset's key. A pre-stage
    /// driver follows no redirect (its 3xx is refused as `httpStatus`); an app's foreground loader
    /// does, and says so (`PreloadStore.admitForeground(…redirected:…)`).
    case redirected
    /// An HLS playlist the session reads (`PreloadPolicy.hls`) is malformed, over a limit, or
    /// names a URI that is not an acceptable asset URL.
    case playlist(HLSRejection)
}

/// Why the session cancelled a fetch. The driver stops the transfer if it is still running and
/// deletes anything downloaded for it.
public enum CancelReason: Sendable, Equatable {
    /// The per-request timeout (`FetchRequest.timeoutMicroseconds`) elapsed.
    case timedOut
    /// The hard deadline was reached.
    case hardDeadline
    /// The OS expiry warning arrived.
    case osExpiry
    /// The response was refused (during or after the transfer).
    case rejected(FetchRejection)
}

/// A downloaded asset to keep (`Action.storeAsset`): move the fetch's temporary file to
/// `entry.key.fileName` (atomically replacing an older version). The session's store already
/// holds `entry`; if the move fails, feed `.storeFailed(fetchID)` after the drain so it forgets it.
public struct StoreCommit: Sendable, Equatable {
    public let fetchID: FetchID
    public let entry: PreloadStore.Entry
    /// The kind established by MIME type and magic bytes.
    public let kind: MediaKind
    /// A 304 Not Modified answered the entry's revalidation: there is no file to move; the
    /// stored file stays and only the entry's lifetime (and validator) changed.
    public var notModified: Bool = false
}

/// Media to attach to the notification: copy the stored file `key.fileName` to a temporary file
/// with an extension for `kind` (UNNotificationAttachment moves the file it is given).
public struct Attachment: Sendable, Equatable {
    public let key: StoreKey
    public let kind: MediaKind
    public let category: AttachmentCategory
    public let bytes: Int64
}

/// Why the notification was delivered when it was.
public enum DeliveryReason: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    /// Every blocking fetch finished (stored, refused or failed).
    case assetsSettled
    /// Nothing needed fetching (all fresh/stale in the store, all skipped, or gated).
    case nothingToFetch
    /// The hard deadline for the handler kind was reached (fail open).
    case hardDeadline
    /// The OS expiry warning arrived (fail open).
    case osExpiry

    public var description: String {
        switch self {
        case .assetsSettled: return "assets settled"
        case .nothingToFetch: return "nothing to fetch"
        case .hardDeadline: return "hard deadline"
        case .osExpiry: return "OS expiry"
        }
    }
}

/// Hand the notification to the OS (NSE `contentHandler`, or complete the background task for a
/// silent push). Emitted exactly once per session. The original text is always delivered.
public struct Delivery: Sendable, Equatable {
    public let reason: DeliveryReason
    /// Media to attach, or nil (no attachable asset fully downloaded within the limits).
    public let attachment: Attachment?
    /// Selected critical assets usable (fresh or stale) at delivery.
    public let readyAssets: Int
    /// Critical assets selected for this push (after gating choices and limits).
    public let selectedAssets: Int
    public let at: Instant
}

/// Readiness of one critical asset when the user taps.
public struct AssetReadiness: Sendable, Equatable {
    public let key: StoreKey
    public let freshness: Freshness

    /// A readiness an app computes itself, e.g. for a byte range its player asks the store for
    /// (`store.freshness(of: url.storeKey(range: r), at: now)`).
    public init(key: StoreKey, freshness: Freshness) {
        self.key = key
        self.freshness = freshness
    }
}

/// The answer to a tap: for each selected critical asset, fresh, stale or missing. Emitted by a
/// session (`.tapAnswer`), or computed without one by `PreloadStore.tapAnswer(for:context:policy:now:)`
/// (same selection).
public struct TapAnswer: Sendable, Equatable {
    /// The selected critical assets, in selection order (most urgent first, payload order within
    /// a priority).
    public let assets: [AssetReadiness]
    /// False while a referenced manifest is not (or could not be) fetched: the assets are unknown.
    public let assetsKnown: Bool
    /// True when the assets are known and every one is fresh or stale (the tap can paint at once).
    public var paintsInstantly: Bool {
        guard assetsKnown else { return false }
        for a in assets where a.freshness == .missing { return false }
        return true
    }
}

/// A delivery receipt to send at `sendAt` (jittered over the policy's window with the driver's
/// uniform, so millions of devices spread their reports).
public struct Receipt: Sendable, Equatable {
    public let manifestTag: UInt64
    public let sendAt: Instant
    public let reason: DeliveryReason
    public let readyAssets: Int
    public let selectedAssets: Int
}

/// Why an asset of the request is not fetched.
public enum SkipReason: Sendable, Equatable {
    /// Priority below `PreloadPolicy.eligiblePriority` (`critical` by default).
    case notCritical
    /// Resolves to the same store key as an asset already selected.
    case duplicateOf(assetIndex: Int)
    /// The store (capacity, or free disk above the floor) cannot hold anything.
    case storeTooSmall(limitBytes: Int64)
    case overCriticalLimit(max: Int)
    case oneAssetPerSilentPush
    case offline
    case slowNetwork(NetworkClass)
    case lowDataMode
    case saveData
    case lowStorage(freeBytes: Int64, floorBytes: Int64)
    case declaredTooLarge(bytes: Int64, maxBytes: Int64)
    case tooLargeForNetwork(bytes: Int64, network: NetworkClass)
    case meteredCapExceeded(bytes: Int64, remainingBytes: Int64)
    case noTimeLeft(remainingMicroseconds: Int64)
    // decision kinds
    /// The policy's decision kind (`PreloadPolicy.decision`) chose not to pre-stage it.
    case decision(DecisionSkip)
}

/// Diagnostics and metrics; no behaviour depends on the driver handling them.
public enum LogEvent: Sendable, Equatable {
    /// The push was accepted; `selectedAssets` critical assets will be made ready.
    case pushAccepted(format: PayloadFormat, selectedAssets: Int, deadline: Instant)
    /// Asset `assetIndex` of the request will not be fetched.
    case assetSkipped(assetIndex: Int, SkipReason)
    /// Asset `assetIndex` was found in the store.
    case storeHit(assetIndex: Int, Freshness)
    /// A referenced manifest could not be used; the notification goes out without assets.
    case manifestUnavailable
    /// A fetch failed as reported by the driver.
    case fetchFailed(FetchID, FetchFailure)
    /// A fetch was refused (also carried by the `.cancelFetch`).
    case fetchRejected(FetchID, FetchRejection)
    /// An input for a fetch the session had already cancelled (a benign race); ignored.
    case lateInputIgnored(FetchID, InputKind)
    /// An asset was stored (`bytes` 0: a 304 Not Modified refreshed the stored entry).
    case assetStored(FetchID, bytes: Int64)
    /// The driver could not write the asset of this fetch (`Input.storeFailed`); the entry `key`
    /// was removed from the store.
    case storeFailed(FetchID, StoreKey)
}

/// Why a store entry was removed (`Action.evict`).
public enum EvictionReason: UInt8, Sendable, Equatable {
    /// Least recently used, evicted to make room for a new asset.
    case space
    /// Past its usable lifetime, even on error (`errorUntil`), removed when a session begins.
    case expired
}

/// What the driver must do, polled with `PreloadSession.pollAction()` in order.
public enum Action: Sendable, Equatable {
    /// Start a transfer: GET `url` exactly, without following redirects; report headers,
    /// progress, and completion (a truncated body too, with the bytes received) or failure. The
    /// session times it out itself at `timeoutMicroseconds` (see `FetchRequest`): arm no timer.
    case startFetch(FetchRequest)
    case cancelFetch(FetchID, CancelReason)
    case storeAsset(StoreCommit)
    /// Delete the stored file `key.fileName`; `reason` says why (an LRU eviction to make room, or
    /// the removal at wake-up of an entry past its usable lifetime).
    case evict(StoreKey, EvictionReason)
    case deliver(Delivery)
    case tapAnswer(TapAnswer)
    /// After a tap, a critical asset that was missing became ready: the app can paint it now.
    case paintReady(StoreKey)
    case scheduleReceipt(Receipt)
    case log(LogEvent)
    /// Android (`PreloadPolicy.fallbackOnHandlerDeadline`): the FCM handler's hard deadline came
    /// with critical assets still missing. Enqueue expedited WorkManager work for this push
    /// (`OutOfQuotaPolicy.RUN_AS_NON_EXPEDITED_WORK_REQUEST`: a regular job once the standby
    /// bucket's quota is spent, with a network constraint) that runs a new session with handler
    /// kind `.androidWorkManagerJob`. Emitted at most once, before the `.deliver`.
    case enqueueFallback(FallbackRequest)
}

/// A pre-stage to finish in a WorkManager job (`Action.enqueueFallback`).
public struct FallbackRequest: Sendable, Equatable {
    /// The push's manifest tag (identifies the request to pre-stage again).
    public let manifestTag: UInt64
    /// Selected critical assets usable now, and selected in all (0 when a referenced manifest
    /// had not arrived: the assets are unknown).
    public let readyAssets: Int
    public let selectedAssets: Int
}

/// A driver broke the protocol; the session state is unchanged by the offending input.
public enum SessionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `now` is earlier than the previous input's.
    case timeWentBackwards(previous: Instant, now: Instant)
    /// `handle` was called before every action of the previous call was polled.
    case actionsNotDrained(pending: Int)
    /// Only `pushReceived` is legal before the push.
    case noPushYet(InputKind)
    /// A second `pushReceived`.
    case pushAlreadyReceived
    /// `timerFired` / `expiryWarning` after the session finished.
    case sessionFinished(InputKind)
    /// A fetch id this session never issued.
    case unknownFetch(FetchID, InputKind)
    /// An input for a fetch that already completed or failed.
    case fetchAlreadyFinished(FetchID, InputKind)
    /// `storeFailed` for a fetch for which the session emitted no `.storeAsset` (a manifest fetch,
    /// or an asset fetch that is running, failed, was refused or cancelled).
    case noStoreCommit(FetchID)
    /// A second `storeFailed` for the same fetch.
    case storeFailureAlreadyReported(FetchID)
    /// The device context is out of range (its `inputs` and `ledger` are checked only under a
    /// decision kind other than `criticalOnly`, which reads neither).
    case invalidContext(field: String, value: String, expected: String)
    /// A fetch report is out of range (negative byte count, progress going backwards, ...).
    case invalidFetchReport(FetchID, field: String, value: String, expected: String)
    /// A `.parsedManifest` / `.bytes` body on a fetch that is not a manifest fetch, or vice versa.
    case bodyMismatch(FetchID)

    public var description: String {
        switch self {
        case .timeWentBackwards(let previous, let now):
            return "input at \(now) is earlier than the previous input at \(previous)"
        case .actionsNotDrained(let pending):
            return "handle called with \(pending) actions not yet polled; drain pollAction() first"
        case .noPushYet(let kind):
            return "\(kind) before pushReceived"
        case .pushAlreadyReceived:
            return "a session handles exactly one pushReceived"
        case .sessionFinished(let kind):
            return "\(kind) after the session finished"
        case .unknownFetch(let id, let kind):
            return "\(kind) for \(id), which this session never started"
        case .fetchAlreadyFinished(let id, let kind):
            return "\(kind) for \(id), which already completed or failed"
        case .noStoreCommit(let id):
            return "storeFailed for \(id), for which the session emitted no storeAsset"
        case .storeFailureAlreadyReported(let id):
            return "storeFailed for \(id), whose store failure was already reported"
        case .invalidContext(let field, let value, let expected):
            return "device context \(field) is \(value), expected \(expected)"
        case .invalidFetchReport(let id, let field, let value, let expected):
            return "\(id) reports \(field) = \(value), expected \(expected)"
        case .bodyMismatch(let id):
            return "\(id) completed with a body that does not match its purpose (manifest fetches carry one, asset fetches none)"
        }
    }
}
