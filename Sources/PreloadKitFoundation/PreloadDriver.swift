import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PreloadKit

/// The real driver: runs PreloadKit's `PreloadSession` against URLSession, the file system and
/// the monotonic clock.
///
/// It makes no decision of its own. For each push it creates a session over the persisted store,
/// feeds it `.pushReceived` and then every event as it happens (response headers, progress,
/// completion or failure of each transfer, the timer, the OS expiry warning, taps), and after every
/// `handle` drains the actions in order and performs them:
/// `.startFetch` (URLSession, streamed to a temporary file in the store directory, cut at
/// `byteLimit`, redirects refused, truncated bodies reported as completions), `.cancelFetch`
/// (stop, delete the partial file), `.storeAsset` (atomic rename to `StoreKey.fileName`; if that
/// fails, `.storeFailed` is fed right after the drain so the session forgets the entry),
/// `.evict` (delete), `.deliver` (the content handler, exactly once), `.tapAnswer`, `.paintReady`,
/// `.scheduleReceipt` (to `receiptHandler` at `sendAt`), `.enqueueFallback` (to `fallbackHandler`), `.log`. Then it persists the
/// store value if it changed (atomic JSON index) and re-arms its one session timer at
/// `session.nextDeadline()`.
///
/// Timeouts follow PreloadKit's rule: that one timer is the only timer; the session cancels a
/// fetch whose request timeout passed. The driver arms no per-fetch timer; URLSession's idle
/// timeout is only a backstop 30 s past `timeoutMicroseconds` (reported as `.timedOut`).
///
/// All session access is serialised on this actor. URLSession delegate callbacks and timers post
/// events to one `AsyncStream` that a single task consumes on the actor, so a transfer's reports
/// arrive in the order they happened; events of a transfer the driver already ended (cancelled,
/// completed or failed) are dropped, so the session sees exactly one final report per fetch.
///
/// ```swift
/// let driver = try PreloadDriver(configuration: PreloadDriverConfiguration(policy: policy, storeDirectory: dir))
/// let result = try await driver.run(payload: payloadJSON, context: context)   // returns at delivery
/// // serviceExtensionTimeWillExpire: await driver.expiryWarning()
/// let answer = try await driver.tap()
/// // in the app, for a push whose extension has ended (no session):
/// let later = try PreloadDriver.tap(payload: payloadJSON, context: context, configuration: configuration)
/// ```
public actor PreloadDriver {
    /// The configuration the driver was created with.
    public nonisolated let configuration: PreloadDriverConfiguration
    /// The store value as persisted (what the next push's session starts from).
    public private(set) var store: PreloadStore
    /// What opening the store directory found and repaired.
    public nonisolated let reconciliation: StoreReconciliation

    enum Event: Sendable {
        case transfer(TransferID, TransferEvent)
        case timer(generation: UInt64)
    }

    /// The driver's bookkeeping for one fetch.
    struct FetchIO {
        /// True until the driver sent the final report or performed the session's cancel.
        var isOpen = true
        /// The asset's temporary file, until moved into place or deleted.
        var temporary: URL?
    }

    /// One push's session and the driver's bookkeeping for it (actor-isolated).
    final class SessionRun {
        let serial: UInt64
        var session: PreloadSession
        let payload: Data?
        let startedAt: ContinuousClock.Instant
        let contentHandler: (@Sendable (DeliveryResult) -> Void)?
        /// The driver's side of each fetch; index `id.rawValue - 1` (fetch ids count from 1).
        var io: [FetchIO] = []
        /// Outcomes; index `id.rawValue - 1`.
        var fetches: [FetchOutcome] = []
        var log: [LogEvent] = []
        var notes: [DriverNote] = []
        var attachmentFileURL: URL?
        var deliveryLatencyMicroseconds: Int64 = 0
        var evictedForSpace = 0
        var expiredRemoved = 0
        var deliveryResult: DeliveryResult?
        var deliveryWaiter: CheckedContinuation<DeliveryResult, Never>?
        var finalResult: DeliveryResult?
        var finishWaiters: [CheckedContinuation<DeliveryResult, Never>] = []

        /// True while fetch `id` of this session is open (events for it are still wanted).
        func isOpen(_ id: FetchID) -> Bool {
            let i = Int(id.rawValue) - 1
            return i >= 0 && i < io.count && io[i].isOpen
        }

        /// Marks fetch `id` ended and returns its temporary file (now the caller's).
        func close(_ id: FetchID) -> URL? {
            let i = Int(id.rawValue) - 1
            guard i >= 0, i < io.count else { return nil }
            io[i].isOpen = false
            let temporary = io[i].temporary
            io[i].temporary = nil
            return temporary
        }

        init(serial: UInt64, session: PreloadSession, payload: Data?, contentHandler: (@Sendable (DeliveryResult) -> Void)?) {
            self.serial = serial
            self.session = session
            self.payload = payload
            self.startedAt = ContinuousClock.now
            self.contentHandler = contentHandler
        }
    }

    let clock: DriverClock
    let fileStore: FileStore
    let transport: FetchTransport
    let events: AsyncStream<Event>
    let eventSink: AsyncStream<Event>.Continuation
    var consumer: Task<Void, Never>?
    var persistedStore: PreloadStore
    var serial: UInt64 = 0
    var active: SessionRun?
    var timer: Task<Void, Never>?
    var timerGeneration: UInt64 = 0
    var armedDeadline: Instant?
    var receiptTasks: [UInt64: Task<Void, Never>] = [:]
    var receiptCounter: UInt64 = 0
    var isShutDown = false
    /// The `budgeted` decision kind's state after the latest push (`PreloadDriver+Decision.swift`).
    var budgetLedger = PrestageLedger.empty

    /// Opens (creating if needed) the store directory and reconciles its index with the files
    /// present (see `StoreReconciliation`).
    /// - Throws: `.invalidPolicy` for an out-of-range policy or payload options,
    ///   `.invalidConfiguration` for an out-of-range driver limit,
    ///   `.storeDirectory` when the directory cannot be created, listed or its index rewritten.
    public init(configuration: PreloadDriverConfiguration) throws(PreloadDriverError) {
        try configuration.validate()
        self.configuration = configuration
        clock = DriverClock()
        fileStore = Self.fileStore(configuration, token: "\(getpid())-\(clock.anchorMicroseconds)")
        let (opened, report) = try fileStore.open(now: clock.now())
        store = opened
        persistedStore = opened
        reconciliation = report
        let (stream, sink) = AsyncStream.makeStream(of: Event.self)
        events = stream
        eventSink = sink
        transport = FetchTransport(validators: fileStore.validators, sink: { id, event in sink.yield(.transfer(id, event)) })
    }

    deinit {
        transport.shutdown()
        eventSink.finish()
    }

    // MARK: - Public API

    /// Parses and verifies `payload` (a push's JSON) at the driver clock's now (so a signed `exp`
    /// is enforced: an expired or replayed push fetches nothing), runs a session for it and
    /// returns at delivery. Background revalidations may continue afterwards; `finished()` awaits them.
    /// - Parameters:
    ///   - context: the device's state now (network class, Low Data Mode, free storage, ...).
    ///   - contentHandler: called exactly once, at delivery, with the same value returned. It
    ///     runs on the driver's actor: hand the work off rather than block in it.
    /// - Throws: `.payloadRejected` (nothing fetched; deliver the original notification as is),
    ///   `.sessionRefused`, `.sessionInProgress`, `.shutDown`.
    public func run(payload: Data, context: DeviceContext,
                    contentHandler: (@Sendable (DeliveryResult) -> Void)? = nil) async throws(PreloadDriverError) -> DeliveryResult {
        let request: PreStageRequest
        do {
            request = try PayloadParser.parse(json: [UInt8](payload), options: configuration.payloadOptions, now: clock.now())
        } catch {
            throw .payloadRejected(error)
        }
        return try await start(request, context: context, payload: payload, contentHandler: contentHandler)
    }

    /// Runs a session for an already parsed request (e.g. from `PayloadParser.parse(_:options:)`
    /// over `userInfo`) and returns at delivery. Its expiry is checked at the driver clock's now
    /// first (`PayloadParser.checkExpiry`). See `run(payload:context:contentHandler:)`.
    public func run(request: PreStageRequest, context: DeviceContext,
                    contentHandler: (@Sendable (DeliveryResult) -> Void)? = nil) async throws(PreloadDriverError) -> DeliveryResult {
        do {
            try PayloadParser.checkExpiry(of: request, now: clock.now(), options: configuration.payloadOptions)
        } catch {
            throw .payloadRejected(error)
        }
        return try await start(request, context: context, payload: nil, contentHandler: contentHandler)
    }

    /// The OS is about to end the handler (iOS `serviceExtensionTimeWillExpire`): the session
    /// delivers now if it has not and cancels every fetch. No effect when nothing is running.
    public func expiryWarning() {
        guard let run = active, !run.session.isFinished else { return }
        feed(.expiryWarning, run)
    }

    /// The user tapped the latest push's notification: for each selected critical asset, whether
    /// it is fresh, stale or missing. A missing one that arrives later is announced through
    /// `paintReadyHandler`.
    /// - Throws: `.noSession` before any push.
    public func tap() throws(PreloadDriverError) -> TapAnswer {
        guard let run = active else { throw .noSession }
        let now = clock.now()
        do {
            try run.session.handle(.userTapped, now: now)
        } catch {
            throw .sessionRefused(error)
        }
        let answer = drain(run)
        guard let answer else { throw .sessionRefused(.noPushYet(.userTapped)) }
        return answer
    }

    /// The answer to a tap on a push no session is running for (the extension that handled it has
    /// ended; typically called in the app process): PreloadKit's
    /// `PreloadStore.tapAnswer(for:context:policy:now:)` over the store as persisted on disk now,
    /// so the selection is the session's. Read-only: it neither repairs nor writes the directory
    /// (safe while an extension's driver uses it) and needs no `PreloadDriver`. Entries whose file
    /// is missing, that are dated in the future or are unusable count as missing; an unreadable
    /// index makes every asset missing.
    /// - Parameters:
    ///   - context: the context the push was handled with, when known (its `handlerKind` and
    ///     `network` decide the selection).
    /// - Throws: `.invalidPolicy` / `.invalidConfiguration` for an out-of-range configuration.
    /// - Complexity: reads the index file (at most `indexBytesMax`) and stats each entry's file.
    public static func tap(request: PreStageRequest, context: DeviceContext,
                           configuration: PreloadDriverConfiguration) throws(PreloadDriverError) -> TapAnswer {
        try configuration.validate()
        let now = DriverClock().now()
        let (store, _) = fileStore(configuration, token: "tap").load(now: now)
        return store.tapAnswer(for: request, context: context, policy: configuration.policy, now: now)
    }

    /// `tap(request:context:configuration:)` for a push's JSON, parsed and verified with
    /// `configuration.payloadOptions`. Its `exp` is not checked: a tap reads what an accepted
    /// push stored, fetches nothing, and may come long after the push's lifetime.
    /// - Throws: `.payloadRejected`, `.invalidPolicy`, `.invalidConfiguration`.
    public static func tap(payload: Data, context: DeviceContext,
                           configuration: PreloadDriverConfiguration) throws(PreloadDriverError) -> TapAnswer {
        try tap(request: parsed(payload, configuration), context: context, configuration: configuration)
    }

    /// A push's JSON parsed and verified with `configuration.payloadOptions` (the configuration
    /// is validated first).
    /// - Throws: `.invalidPolicy`, `.invalidConfiguration`, `.payloadRejected`.
    static func parsed(_ payload: Data, _ configuration: PreloadDriverConfiguration) throws(PreloadDriverError) -> PreStageRequest {
        try configuration.validate()
        do {
            return try PayloadParser.parse(json: [UInt8](payload), options: configuration.payloadOptions)
        } catch {
            throw .payloadRejected(error)
        }
    }

    static func fileStore(_ configuration: PreloadDriverConfiguration, token: String) -> FileStore {
        FileStore(directory: configuration.storeDirectory, capacityBytes: configuration.storeCapacityBytes,
                  entriesMax: configuration.storeEntriesMax, indexBytesMax: configuration.indexBytesMax,
                  futureToleranceMicroseconds: configuration.futureEntryToleranceMicroseconds, token: token)
    }

    /// Waits until the latest push's session has finished (delivered and no background fetch
    /// running) and returns the final snapshot. Bounded by the session's hard deadline.
    /// - Throws: `.noSession` before any push.
    public func finished() async throws(PreloadDriverError) -> DeliveryResult {
        guard let run = active else { throw .noSession }
        if let result = run.finalResult { return result }
        return await withCheckedContinuation { run.finishWaiters.append($0) }
    }

    /// The latest session's phase (nil before any push).
    public var phase: PreloadSession.Phase? { active?.session.phase }

    /// The file of the stored asset `key`, if the store holds it (whatever its freshness).
    /// - Complexity: O(store entries).
    public func storedFile(for key: StoreKey) -> URL? {
        store.index(of: key) == nil ? nil : fileStore.fileURL(for: key)
    }

    /// Free bytes on the volume holding the store (for `DeviceContext.freeStorageBytes`), or nil
    /// when the file system cannot tell.
    public nonisolated func volumeFreeBytes() -> Int64? {
        var info = statvfs()
        guard statvfs(configuration.storeDirectory.path, &info) == 0 else { return nil }
        let (bytes, overflow) = Int64(info.f_bavail).multipliedReportingOverflow(by: Int64(info.f_frsize))
        return overflow ? .max : bytes
    }

    /// Ends the driver: a running session gets the expiry warning (it delivers if it has not),
    /// transfers and timers stop, pending receipts are dropped. Later calls throw `.shutDown`.
    public func shutdown() {
        guard !isShutDown else { return }
        expiryWarning()
        isShutDown = true
        timer?.cancel()
        timer = nil
        for task in receiptTasks.values { task.cancel() }
        receiptTasks.removeAll()
        transport.shutdown()
        eventSink.finish()
        consumer?.cancel()
    }

    // MARK: - Session lifecycle

    func start(_ request: PreStageRequest, context: DeviceContext, payload: Data?,
               contentHandler: (@Sendable (DeliveryResult) -> Void)?) async throws(PreloadDriverError) -> DeliveryResult {
        if isShutDown { throw .shutDown }
        if let run = active, !run.session.isFinished { throw .sessionInProgress }
        let session: PreloadSession
        do {
            session = try PreloadSession(policy: configuration.policy, store: store)
        } catch {
            throw .invalidPolicy(error)
        }
        startConsumerIfNeeded()
        let run = SessionRun(serial: serial + 1, session: session, payload: payload, contentHandler: contentHandler)
        do {
            try run.session.handle(.pushReceived(request, contextWithLedger(context)), now: clock.now())
        } catch {
            throw .sessionRefused(error)
        }
        serial += 1
        active = run
        timer?.cancel()
        timer = nil
        armedDeadline = nil
        timerGeneration += 1
        _ = drain(run)
        if let result = run.deliveryResult { return result }
        return await withCheckedContinuation { run.deliveryWaiter = $0 }
    }

    func startConsumerIfNeeded() {
        guard consumer == nil else { return }
        let stream = events
        consumer = Task { [weak self] in
            for await event in stream {
                guard let self else { return }
                await self.handle(event)
            }
        }
    }

    /// One event from a transfer or a timer.
    func handle(_ event: Event) {
        guard let run = active else { return }
        switch event {
        case .timer(let generation):
            guard generation == timerGeneration, !run.session.isFinished else { return }
            armedDeadline = nil
            feed(.timerFired, run)
        case .transfer(let id, let transferEvent):
            guard id.session == run.serial, run.isOpen(id.fetch) else { return }
            switch transferEvent {
            case .headers(let headers):
                feed(.fetchHeaders(id.fetch, headers), run)
            case .progress(let bytes):
                setBytes(bytes, of: id.fetch, run)
                feed(.fetchProgress(id.fetch, bytesReceived: bytes), run)
            case .completed(let completion):
                // Ended for the driver; the asset's file stays until `.storeAsset` or `.cancelFetch`.
                run.io[Int(id.fetch.rawValue) - 1].isOpen = false
                setBytes(completion.bytesReceived, of: id.fetch, run)
                if case .manifest = run.fetches[Int(id.fetch.rawValue) - 1].purpose {
                    setState(.manifestAccepted(bytes: completion.bytesReceived), of: id.fetch, run)
                }
                feed(.fetchCompleted(id.fetch, completion), run)
            case .failed(let failure, let note):
                endTransfer(id.fetch, run)
                if let note { run.notes.append(note) }
                setState(.failed(failure), of: id.fetch, run)
                feed(.fetchFailed(id.fetch, failure), run)
            }
        }
    }

    /// Feeds one input now, then drains and follows up. A protocol violation (a driver bug) is
    /// recorded in the notes instead of trapping.
    func feed(_ input: Input, _ run: SessionRun) {
        do {
            try run.session.handle(input, now: clock.now())
        } catch {
            run.notes.append(.protocolViolation(error))
            return
        }
        _ = drain(run)
    }

    /// Performs every pending action in order (feeding `.storeFailed` after the drain for each
    /// `.storeAsset` that could not be written, and performing what follows), then persists the
    /// store, re-arms the timer and resolves waiters. Returns the tap answer if one was emitted.
    func drain(_ run: SessionRun) -> TapAnswer? {
        budgetLedger = run.session.ledger
        var tapAnswer: TapAnswer?
        var delivered: Delivery?
        var storeFailures: [FetchID] = []
        var next = 0
        while true {
            guard let action = run.session.pollAction() else {
                guard next < storeFailures.count else { break }
                let id = storeFailures[next]
                next += 1
                do {
                    try run.session.handle(.storeFailed(id), now: clock.now())
                } catch {
                    run.notes.append(.protocolViolation(error))
                }
                continue
            }
            switch action {
            case .startFetch(let request): startFetch(request, run)
            case .cancelFetch(let id, let reason):
                endTransfer(id, run)
                if case .rejected(let rejection) = reason {
                    setState(.rejected(rejection), of: id, run)
                } else {
                    setState(.cancelled(reason), of: id, run)
                }
            case .storeAsset(let commit):
                if !storeAsset(commit, run) { storeFailures.append(commit.fetchID) }
            case .evict(let key, let reason):
                switch reason {
                case .space: run.evictedForSpace += 1
                case .expired: run.expiredRemoved += 1
                }
                if let problem = fileStore.delete(key: key) { run.notes.append(.evictFailed(key, problem)) }
            case .deliver(let delivery):
                // PreloadKit emits this exactly once per session; the driver relies on it and
                // additionally never resolves a second time (see below).
                delivered = delivery
                run.deliveryLatencyMicroseconds = DriverClock.microseconds(ContinuousClock.now - run.startedAt)
                if let attachment = delivery.attachment { run.attachmentFileURL = copyAttachment(attachment, run) }
            case .tapAnswer(let answer): tapAnswer = answer
            case .paintReady(let key): configuration.paintReadyHandler?(key, fileStore.fileURL(for: key))
            case .scheduleReceipt, .enqueueFallback: handToApp(action)
            case .log(let event): run.log.append(event)
            }
        }
        persist(run)
        armTimer(run)
        if delivered != nil, run.deliveryResult == nil, let result = snapshot(run) {
            run.deliveryResult = result
            run.contentHandler?(result)
            run.deliveryWaiter?.resume(returning: result)
            run.deliveryWaiter = nil
        }
        if run.session.isFinished && run.finalResult == nil { finish(run) }
        return tapAnswer
    }

    func finish(_ run: SessionRun) {
        for i in run.io.indices {
            if let url = run.close(FetchID(rawValue: UInt32(i + 1))) { unlink(url.path) }
        }
        guard let result = snapshot(run) else { return }
        run.finalResult = result
        for waiter in run.finishWaiters { waiter.resume(returning: result) }
        run.finishWaiters.removeAll()
    }

    func snapshot(_ run: SessionRun) -> DeliveryResult? {
        guard let delivery = run.session.delivery, let request = run.session.request else { return nil }
        return DeliveryResult(delivery: delivery, request: request, payload: run.payload, attachmentFileURL: run.attachmentFileURL,
                              fetches: run.fetches, log: run.log, notes: run.notes, sessionFinished: run.session.isFinished,
                              deliveryLatencyMicroseconds: run.deliveryLatencyMicroseconds,
                              evictedForSpace: run.evictedForSpace, expiredRemoved: run.expiredRemoved)
    }

    // MARK: - Actions

    func startFetch(_ request: FetchRequest, _ run: SessionRun) {
        let id = TransferID(session: run.serial, fetch: request.id)
        var temporary: URL?
        if case .asset = request.purpose { temporary = fileStore.temporaryURL(session: run.serial, fetch: request.id) }
        // PreloadKit numbers fetches 1, 2, 3, ... in start order, so the arrays stay indexed by id.
        precondition(Int(request.id.rawValue) == run.io.count + 1, "PreloadKit fetch ids are sequential")
        run.fetches.append(FetchOutcome(fetchID: request.id, url: request.url, purpose: request.purpose,
                                        isRevalidation: request.isRevalidation, state: .running, bytesReceived: 0,
                                        startedAt: clock.now()))
        run.io.append(FetchIO(temporary: temporary))
        // No per-fetch timer: the session times the request out through `nextDeadline()`.
        if let problem = transport.start(id, request, temporary: temporary) {
            run.io[run.io.count - 1].temporary = nil
            // Reported after this drain: the session accepts inputs only once its actions are drained.
            eventSink.yield(.transfer(id, .failed(.other, .temporaryFileFailed(request.id, problem))))
        }
    }

    /// Stops a transfer and deletes its partial file; nothing more is reported for it.
    func endTransfer(_ fetch: FetchID, _ run: SessionRun) {
        let temporary = run.close(fetch)
        transport.cancel(TransferID(session: run.serial, fetch: fetch))
        if let temporary { unlink(temporary.path) }
    }

    /// Moves the fetch's file into place. Returns false (noted) when it could not: the caller
    /// feeds `.storeFailed` so the session drops the entry.
    func storeAsset(_ commit: StoreCommit, _ run: SessionRun) -> Bool {
        let key = commit.entry.key
        let problem: String?
        if let temporary = run.close(commit.fetchID) {
            problem = commit.notModified ? fileStore.discard(temporary) : fileStore.commit(temporary: temporary, key: key)
        } else {
            problem = "no downloaded file for \(commit.fetchID)"
        }
        if let problem {
            run.notes.append(.storeWriteFailed(key, problem))
            setState(.storeWriteFailed, of: commit.fetchID, run)
            return false
        }
        setState(.stored(bytes: commit.entry.bytes, kind: commit.kind, fileURL: fileStore.fileURL(for: key)), of: commit.fetchID, run)
        return true
    }

    /// Copies the stored file to a new file named for the key and session, with an extension for
    /// its kind (UNNotificationAttachment moves the file it is given and checks the extension).
    func copyAttachment(_ attachment: Attachment, _ run: SessionRun) -> URL? {
        let source = fileStore.fileURL(for: attachment.key)
        let name = "preload-\(attachment.key.hex)-\(fileStore.token)-\(run.serial).\(Self.fileExtension(attachment.kind))"
        let destination = configuration.attachmentDirectory.appendingPathComponent(name, isDirectory: false)
        do {
            try FileManager.default.createDirectory(at: configuration.attachmentDirectory, withIntermediateDirectories: true)
            if FileManager.default.fileExists(atPath: destination.path) { try FileManager.default.removeItem(at: destination) }
            try FileManager.default.copyItem(at: source, to: destination)
            return destination
        } catch {
            run.notes.append(.attachmentCopyFailed(attachment.key, "\(error.localizedDescription)"))
            return nil
        }
    }

    static func fileExtension(_ kind: MediaKind) -> String {
        switch kind {
        case .jpeg: return "jpg"
        case .png: return "png"
        case .gif: return "gif"
        case .webp: return "webp"
        case .heic: return "heic"
        case .mp4: return "mp4"
        case .mp3: return "mp3"
        case .m4a: return "m4a"
        case .json: return "json"
        case .m3u8: return "m3u8"
        case .ts: return "ts"
        }
    }

    func scheduleReceipt(_ receipt: Receipt) {
        guard let handler = configuration.receiptHandler, !isShutDown else { return }
        receiptCounter += 1
        let number = receiptCounter
        let target = clock.continuousInstant(for: receipt.sendAt)
        receiptTasks[number] = Task { [weak self] in
            do { try await Task.sleep(until: target, clock: .continuous) } catch { return }
            await handler(receipt)
            await self?.receiptSent(number)
        }
    }

    func receiptSent(_ number: UInt64) { receiptTasks.removeValue(forKey: number) }

    // MARK: - Store and timer

    /// Writes the index when the session's store value changed (an entry whose file could not be
    /// written is already gone from it: `.storeFailed`).
    /// - Complexity: O(store entries) to compare; a write (encode, fsync, rename) only on change.
    func persist(_ run: SessionRun) {
        let value = run.session.store
        store = value
        guard value != persistedStore else { return }
        if let problem = fileStore.writeIndex(value) {
            run.notes.append(.indexWriteFailed(problem))
        } else {
            persistedStore = value
        }
    }

    /// Keeps exactly one timer armed at `session.nextDeadline()`.
    func armTimer(_ run: SessionRun) {
        let next = run.session.nextDeadline()
        guard next != armedDeadline else { return }
        timer?.cancel()
        timer = nil
        timerGeneration += 1
        armedDeadline = next
        guard let next else { return }
        let generation = timerGeneration
        let target = clock.continuousInstant(for: next)
        let sink = eventSink
        timer = Task {
            do { try await Task.sleep(until: target, clock: .continuous) } catch { return }
            sink.yield(.timer(generation: generation))
        }
    }

    func setState(_ state: FetchOutcome.State, of id: FetchID, _ run: SessionRun) {
        let i = Int(id.rawValue) - 1
        guard i >= 0, i < run.fetches.count else { return }
        run.fetches[i].state = state
        if state != .running && run.fetches[i].endedAt == nil { run.fetches[i].endedAt = clock.now() }
    }

    func setBytes(_ bytes: Int64, of id: FetchID, _ run: SessionRun) {
        let i = Int(id.rawValue) - 1
        guard i >= 0, i < run.fetches.count else { return }
        run.fetches[i].bytesReceived = bytes
    }
}
