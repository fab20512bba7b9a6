import Foundation
import PreloadKit

/// Everything a `PreloadDriver` needs: PreloadKit's policy, how payloads are verified, where the
/// store lives and how big it may grow, and the callbacks for the actions that leave the driver.
public struct PreloadDriverConfiguration: Sendable {
    /// The session policy (deadlines, timeouts, gates, limits). Passed to every `PreloadSession`.
    public var policy: PreloadPolicy
    /// How `run(payload:...)` parses and verifies push payloads. Defaults to
    /// `policy.manifestOptions` (the options referenced manifests are checked with).
    public var payloadOptions: PayloadOptions
    /// The store directory (e.g. in the app-group container). Created if missing. Asset files,
    /// the index and temporary downloads all live directly inside it.
    public var storeDirectory: URL
    /// `PreloadStore.capacityBytes` of the store. Default 25 MB.
    public var storeCapacityBytes: Int64 = 25_000_000
    /// `PreloadStore.entriesMax`. Default 64.
    public var storeEntriesMax: Int = 64
    /// Largest index file read at start; a larger one is treated as unreadable. Default 1 MiB.
    public var indexBytesMax: Int = 1_048_576
    /// How far after now an index entry's `storedAt` or `lastUsed` may lie when the store is
    /// loaded (the app's and the extension's clocks are anchored to the wall clock separately)
    /// before it is dropped as written on another timeline (`PreloadStore.dropEntriesFromTheFuture`).
    /// Default 5 s; at most `futureEntryToleranceMicrosecondsMax`.
    public var futureEntryToleranceMicroseconds: Int64 = 5_000_000
    /// Upper bound of `futureEntryToleranceMicroseconds`: one hour.
    public static let futureEntryToleranceMicrosecondsMax: Int64 = 3_600_000_000
    /// Where attachment copies are written (the OS moves the file it is given). Default: the
    /// process's temporary directory.
    public var attachmentDirectory: URL
    /// Receives each `.scheduleReceipt` at its `sendAt` (nil: receipts are dropped). Runs outside
    /// the driver; cancelled by `shutdown()`.
    public var receiptHandler: (@Sendable (Receipt) async -> Void)?
    /// Told when, after a tap, a missing critical asset became ready (`.paintReady`): its key and
    /// stored file.
    public var paintReadyHandler: (@Sendable (StoreKey, URL) -> Void)?
    /// Android: told when the FCM handler's deadline came with critical assets missing
    /// (`.enqueueFallback`, `PreloadPolicy.fallbackOnHandlerDeadline`): enqueue expedited
    /// WorkManager work that runs this push again with handler kind `.androidWorkManagerJob`.
    /// Called on the driver, before the delivery resolves; nil: the request is dropped.
    public var fallbackHandler: (@Sendable (FallbackRequest) -> Void)?

    /// Checks the policy, the payload options and the driver's own limits.
    /// - Throws: `.invalidPolicy` or `.invalidConfiguration`, naming the field.
    public func validate() throws(PreloadDriverError) {
        do {
            try policy.validate()
            try payloadOptions.validate()
        } catch {
            throw .invalidPolicy(error)
        }
        let tolerance = futureEntryToleranceMicroseconds
        if tolerance < 0 || tolerance > Self.futureEntryToleranceMicrosecondsMax {
            throw .invalidConfiguration(field: "futureEntryToleranceMicroseconds", value: "\(tolerance)",
                                        expected: "0...\(Self.futureEntryToleranceMicrosecondsMax)")
        }
    }

    /// A configuration over `storeDirectory`, verifying payloads with `policy.manifestOptions`.
    public init(policy: PreloadPolicy, storeDirectory: URL) {
        self.policy = policy
        self.payloadOptions = policy.manifestOptions
        self.storeDirectory = storeDirectory
        self.attachmentDirectory = FileManager.default.temporaryDirectory
    }
}

/// Why the driver refused a call.
public enum PreloadDriverError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The payload failed to parse or verify (bad signature, URL off the allowlist, ...). Nothing
    /// was fetched; deliver the original notification unchanged.
    case payloadRejected(PayloadRejection)
    /// The policy is out of range.
    case invalidPolicy(PolicyError)
    /// A driver configuration field is out of range.
    case invalidConfiguration(field: String, value: String, expected: String)
    /// The session refused the push (e.g. the device context is out of range).
    case sessionRefused(SessionError)
    /// A previous push's session is still running (background revalidation); one session at a
    /// time per store. Await `finished()` first.
    case sessionInProgress
    /// `tap()` before any push was handled by this driver.
    case noSession
    /// The store directory or its index cannot be used.
    case storeDirectory(path: String, reason: String)
    /// `shutdown()` was called.
    case shutDown

    public var description: String {
        switch self {
        case .payloadRejected(let r): return "payload rejected: \(r)"
        case .invalidPolicy(let e): return "invalid policy: \(e)"
        case .invalidConfiguration(let field, let value, let expected): return "driver configuration \(field) is \(value), expected \(expected)"
        case .sessionRefused(let e): return "session refused the push: \(e)"
        case .sessionInProgress: return "a previous push's session is still running; await finished() first"
        case .noSession: return "no push has been handled yet"
        case .storeDirectory(let path, let reason): return "store at \(path): \(reason)"
        case .shutDown: return "the driver was shut down"
        }
    }
}

/// A driver-side I/O problem, reported here (a failed store write is also fed to the session as
/// `.storeFailed`).
public enum DriverNote: Sendable, Equatable {
    /// The temporary download file could not be created; the fetch was reported failed (`.other`).
    case temporaryFileFailed(FetchID, String)
    /// Writing the downloaded body failed; the fetch was reported failed (`.other`).
    case downloadWriteFailed(FetchID, String)
    /// The transfer failed with this URLSession error (reported to the session as its class).
    case transferFailed(FetchID, String)
    /// `.storeAsset` could not move the file into place; the session was told (`.storeFailed`), so
    /// the entry is in neither its store nor the persisted index.
    case storeWriteFailed(StoreKey, String)
    /// `.evict` could not delete the file (it is deleted as an orphan on the next open).
    case evictFailed(StoreKey, String)
    /// The index could not be written; the previous index stays (reconciled on the next open).
    case indexWriteFailed(String)
    /// The attachment copy could not be made; delivered without attachment.
    case attachmentCopyFailed(StoreKey, String)
    /// The session rejected an input: a driver bug, reported rather than trapped.
    case protocolViolation(SessionError)
}

/// What became of one fetch the session started.
public struct FetchOutcome: Sendable, Equatable {
    /// How a fetch ended (or that it has not yet).
    public enum State: Sendable, Equatable {
        /// Still transferring (a background revalidation after delivery).
        case running
        /// A manifest was fetched and accepted.
        case manifestAccepted(bytes: Int64)
        /// The asset is stored at `fileURL`.
        case stored(bytes: Int64, kind: MediaKind, fileURL: URL)
        /// The session refused the response (status, size, type, magic bytes, ...).
        case rejected(FetchRejection)
        /// The session cancelled it (timeout, hard deadline, OS expiry).
        case cancelled(CancelReason)
        /// The transfer failed as reported by the driver.
        case failed(FetchFailure)
        /// Stored by the session but the file could not be moved into place (see the notes).
        case storeWriteFailed
    }

    public let fetchID: FetchID
    /// The URL fetched (`description` redacts signed-URL tokens).
    public let url: AssetURL
    public let purpose: FetchPurpose
    public let isRevalidation: Bool
    public internal(set) var state: State
    /// Body bytes the driver received (counted up to the cut-off for an oversized stream).
    public internal(set) var bytesReceived: Int64
    /// When the driver started the transfer, on its clock.
    public let startedAt: Instant
    /// When the fetch reached its first state other than `.running`, on the driver's clock (nil
    /// while running).
    public internal(set) var endedAt: Instant? = nil

    /// Start to end of the fetch as the driver measured it (nil while running).
    public var durationMicroseconds: Int64? {
        endedAt.map { $0.microseconds - startedAt.microseconds }
    }
}

/// A snapshot of one push's session: at delivery (`run`) or at the end (`finished()`).
public struct DeliveryResult: Sendable {
    /// The delivery made (reason, attachment, ready/selected counts, instant).
    public let delivery: Delivery
    /// The request served (after a referenced manifest arrived: the fetched manifest).
    public let request: PreStageRequest
    /// The original payload bytes (nil when run with a parsed request): the notification's text
    /// is delivered as it came, whatever happened to the assets.
    public let payload: Data?
    /// The attachment copy (with an extension for its kind), or nil.
    public let attachmentFileURL: URL?
    /// Every fetch in start order with its outcome so far.
    public let fetches: [FetchOutcome]
    /// The session's log, in order.
    public let log: [LogEvent]
    /// Driver I/O problems, in order.
    public let notes: [DriverNote]
    /// True when the session had finished (no background fetch running) at the snapshot.
    public let sessionFinished: Bool
    /// Monotonic microseconds from the push to the delivery, as the driver measured them.
    public let deliveryLatencyMicroseconds: Int64
    /// Store entries this session evicted to make room (LRU), and entries past their usable
    /// lifetime it removed when it began (`EvictionReason`), up to the snapshot.
    public let evictedForSpace: Int
    public let expiredRemoved: Int
}
