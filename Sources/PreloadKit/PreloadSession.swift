/// The sans-I/O pre-stage state machine for one push. Every transition lives in this file, in the
/// single `switch (phase, input)` of `handle(_:now:)`, with input validation, the clock (deadline
/// and timeouts), termination and the outputs. The effects the transitions call sit beside it:
/// the push's start, selection and gates in `PreloadSession+Selection.swift`, the fetch queue and
/// the fetch reports in `PreloadSession+Fetching.swift`, conditional revalidation in
/// `PreloadSession+Revalidation.swift`.
///
/// Call order (see the module overview in `PreloadKit.swift`):
/// 1. `var session = try PreloadSession(policy: policy, store: deviceStore)`
/// 2. `try session.handle(.pushReceived(request, context), now: t)`
/// 3. after EVERY `handle`, drain: `while let action = session.pollAction() { perform(action) }`
///    (a `handle` with undrained actions throws `.actionsNotDrained`),
/// 4. then (re)arm one timer for `session.nextDeadline()` (nil: none) and feed `.timerFired` when
///    it is reached: the only timer (the session owns the request timeouts too; a driver arms no
///    per-fetch timer); feed fetch events, `.storeFailed`, `.expiryWarning` and `.userTapped` as
///    they happen, with a non-decreasing `now`,
/// 5. stop feeding timers once `isFinished`; keep `session.store` as the device's store.
///
/// Guarantees: the notification is delivered exactly once (`.deliver`), at the latest at the
/// hard deadline of the handler kind (if the driver fires the timer on time) or on the OS expiry
/// warning, whatever the network does; a failed or refused asset never prevents the others or the
/// delivery; the store never exceeds its capacity; only critical, ungated assets are fetched.
/// A thrown `SessionError` leaves the session unchanged.
public struct PreloadSession: Sendable, CriticalAssetSelection {
    /// Where the session is.
    public enum Phase: UInt8, Sendable, CustomStringConvertible {
        /// Waiting for `pushReceived`.
        case idle
        /// Fetching a referenced manifest (delivery waits for it).
        case fetchingManifest
        /// Fetching assets; delivered once the blocking ones settle.
        case fetchingAssets
        /// Delivered; only background revalidations still run.
        case backgroundOnly
        /// Done: delivered, nothing running. Only taps and late fetch reports are accepted.
        case finished

        public var description: String {
            switch self {
            case .idle: return "idle"
            case .fetchingManifest: return "fetchingManifest"
            case .fetchingAssets: return "fetchingAssets"
            case .backgroundOnly: return "backgroundOnly"
            case .finished: return "finished"
            }
        }
    }

    enum SlotState: Equatable {
        /// No fetch (fresh in the store, stale and gated, or skipped).
        case idle
        case queued
        case inFlight(FetchID)
        case done
    }

    /// One selected critical asset.
    struct Slot {
        let assetIndex: Int
        let url: AssetURL
        let key: StoreKey
        let type: AssetType
        let byteLimit: Int64
        /// Delivery waits for this slot's fetch (false for a background revalidation).
        let blocking: Bool
        var state: SlotState
        /// What the slot is to an HLS asset read under `PreloadPolicy.hls` (`.none` otherwise).
        var hls: HLSPart = .none
        /// The chosen variant's `BANDWIDTH` (bits/s) for a variant's media playlist; 0 otherwise.
        var hlsBandwidth: Int64 = 0
        /// The sub-range fetched and stored (an HLS part addressed by `#EXT-X-BYTERANGE`); nil: the whole resource.
        var range: ByteRange? = nil
    }

    @usableFromInline
    enum FetchState: Equatable, Sendable {
        case inFlight
        /// Completed, refused at completion, or failed: further reports are errors.
        case finished
        /// Cancelled by the session: further reports are a benign race and ignored.
        case cancelled
    }

    /// Whether a fetch's asset was handed to the driver to store.
    enum CommitState: Equatable, Sendable {
        /// No `.storeAsset` emitted for this fetch.
        case none
        /// `.storeAsset` emitted; the driver may still report `.storeFailed`.
        case emitted
        /// The driver reported `.storeFailed`; the entry was removed.
        case failed
    }

    @usableFromInline
    struct FetchRecord: Sendable {
        let id: FetchID
        /// Index into `slots`, or -1 for the manifest fetch.
        let slot: Int
        let byteLimit: Int64
        @usableFromInline let timeoutAt: Instant
        @usableFromInline var state: FetchState
        var bytesReceived: Int64
        var commit: CommitState = .none
        /// Sent with `If-None-Match`: a 304 answer refreshes the stored entry.
        var conditional = false
    }

    public let policy: PreloadPolicy
    /// `policy.effectiveConcurrency`, computed once (`pump` reads it per input; calling the getter
    /// from a mutating method copied the whole policy first).
    let concurrencyLimit: Int
    /// Whether `policy.decision` is a kind that decides (anything but `criticalOnly`), computed
    /// once: under `criticalOnly` the gates, `begin` and `reset` test this flag only.
    let decides: Bool
    /// `policy.hls.isEnabled`, computed once: with it off, the only cost is this flag's test per
    /// selected asset.
    let readsHLS: Bool
    /// The device's preload store; take it back when the session is finished. (The setters of the
    /// session's public state are internal only so that the extension files can apply effects.)
    public internal(set) var store: PreloadStore
    public internal(set) var phase: Phase = .idle
    /// The request being served (after a referenced manifest arrives: the fetched manifest).
    public internal(set) var request: PreStageRequest?
    public internal(set) var context: DeviceContext?
    /// When the push was received.
    public internal(set) var wokeAt: Instant = .zero
    /// Wake-up plus the handler kind's deadline.
    public internal(set) var hardDeadline: Instant = .distantFuture
    /// The delivery, once made.
    public private(set) var delivery: Delivery?

    var lastNow: Instant = Instant(microseconds: .min)
    var slots: [Slot] = []
    @usableFromInline var fetches: [FetchRecord] = []
    /// Emitted actions: `actions[actionHead..<actionCount]` are pending. `pollAction` swaps each
    /// one out for a payload-free `.log(.manifestUnavailable)`, so an action is never copied (no
    /// retain/release of its strings and arrays on the way to the driver), and `emit` overwrites
    /// the polled slots: the buffer is never emptied element by element (an `[Action?]` emptied
    /// with `removeAll` destroyed each slot through the runtime's generic value witnesses).
    @usableFromInline var actions: [Action] = []
    @usableFromInline var actionHead = 0
    @usableFromInline var actionCount = 0
    var inFlightCount = 0
    var meteredRemainingBytes: Int64 = .max
    var diskLimitBytes: Int64 = 0
    var startedBlockingFetch = false
    var assetsKnown = false
    var tapped = false
    /// The last `Cache-Control` header parsed and its value: a driver serving many pushes through
    /// one session (see `reset(store:)`) sees the same few header strings again and again. Not
    /// session state (a pure function's cache), so `reset` keeps it.
    var lastCacheControl: (header: String, parsed: CacheControl)?
    /// The push's open-probability hint (`PreStageRequest.openProbabilityHint` of the push as
    /// received, kept when a referenced manifest replaces the request).
    public internal(set) var openHint: Double?
    /// The `budgeted` controller's state after this push's decisions (the context's, adapted and
    /// charged): persist it for the next push. Under `criticalOnly` the context's, unchanged.
    public var ledger: PrestageLedger { decides ? decisionLedger : (context?.ledger ?? .empty) }
    /// `ledger` of a kind that decides (the context's at `begin`, then adapted and charged).
    var decisionLedger: PrestageLedger = .empty
    /// Assets (and a manifest) the decision kind did not pre-stage in this push.
    public internal(set) var decisionSkippedCount = 0
    /// Fetches the decision kind let through in this push (the first pays the radio overhead).
    var decisionPassedCount = 0

    /// A session over `store` (the device's store; one session at a time per store).
    /// - Throws: `PolicyError` if a knob is out of range.
    public init(policy: PreloadPolicy, store: PreloadStore) throws(PolicyError) {
        try policy.validate()
        self.policy = policy
        self.concurrencyLimit = policy.effectiveConcurrency
        if case .criticalOnly = policy.decision { decides = false } else { decides = true }
        readsHLS = policy.hls.isEnabled
        self.store = store
    }

    /// Starts over for another push with the same (already validated) policy, keeping the
    /// buffers' capacity: a simulator can drive millions of pushes through one session value
    /// without allocating per push. Pending actions are discarded.
    ///
    /// To avoid a copy-on-write of the store's entries, hand over the device's store rather than
    /// sharing it: `let s = stores[i]; stores[i] = PreloadStore(); session.reset(store: s)`, and
    /// put `session.store` back when the session is finished.
    public mutating func reset(store: PreloadStore) {
        self.store = store
        phase = .idle
        request = nil
        context = nil
        wokeAt = .zero
        hardDeadline = .distantFuture
        delivery = nil
        lastNow = Instant(microseconds: .min)
        // Skipped when already empty (a slot's session is reset at its end and again at its next
        // start): the generic removeAll costs a hundred instructions even then.
        if !slots.isEmpty { slots.removeAll(keepingCapacity: true) }
        if !fetches.isEmpty { fetches.removeAll(keepingCapacity: true) }
        for i in actionHead..<actionCount { actions[i] = .log(.manifestUnavailable) }
        actionHead = 0
        actionCount = 0
        inFlightCount = 0
        meteredRemainingBytes = .max
        diskLimitBytes = 0
        startedBlockingFetch = false
        assetsKnown = false
        tapped = false
        openHint = nil
        // Only a kind that decides changes these (under `criticalOnly` they stay as reset once).
        if decides {
            decisionLedger = .empty
            decisionSkippedCount = 0
            decisionPassedCount = 0
        }
    }

    /// True once delivered and nothing is running.
    @inlinable
    public var isFinished: Bool { phase == .finished }

    /// True once `.deliver` has been emitted.
    public var isDelivered: Bool { delivery != nil }

    /// The next action to perform, in order; nil when drained.
    @inlinable
    public mutating func pollAction() -> Action? {
        guard actionHead < actionCount else { return nil }
        var action = Action.log(.manifestUnavailable)
        swap(&action, &actions[actionHead])
        actionHead += 1
        if actionHead == actionCount {
            actionHead = 0
            actionCount = 0
        }
        return action
    }

    /// The instant at which the driver must feed `.timerFired`: the earliest of the hard deadline
    /// and the running fetches' timeouts; nil when finished (or before the push). This one timer
    /// is the only one a driver arms: the session owns every timeout (see `FetchRequest.timeoutMicroseconds`).
    /// - Complexity: O(fetches started), at most a few.
    @inlinable
    public func nextDeadline() -> Instant? {
        switch phase {
        case .idle, .finished:
            return nil
        case .fetchingManifest, .fetchingAssets, .backgroundOnly:
            var earliest = hardDeadline
            for f in fetches where f.timeoutAt < earliest {
                if case .inFlight = f.state { earliest = f.timeoutAt }
            }
            return earliest
        }
    }

    /// Feeds one input at `now` (non-decreasing across calls). Drain `pollAction()` before the
    /// next call.
    /// - Throws: `SessionError` for protocol violations; the session is then unchanged.
    public mutating func handle(_ input: consuming Input, now: Instant) throws(SessionError) {
        if now < lastNow { throw .timeWentBackwards(previous: lastNow, now: now) }
        let pending = actionCount - actionHead
        if pending > 0 { throw .actionsNotDrained(pending: pending) }
        try transition(consume input, now: now)
        checkInvariants()
    }

    /// The single exhaustive `switch (phase, input)`.
    mutating func transition(_ input: consuming Input, now: Instant) throws(SessionError) {
        let kind = input.kind
        switch (phase, consume input) {
        // Before the push: only the push itself.
        case (.idle, .pushReceived(let request, let context)):
            try validate(context)
            lastNow = now
            begin(request, context, now: now)
        case (.idle, .fetchHeaders(let id, _)), (.idle, .fetchProgress(let id, _)),
             (.idle, .fetchCompleted(let id, _)), (.idle, .fetchFailed(let id, _)), (.idle, .storeFailed(let id)):
            throw .unknownFetch(id, kind)
        case (.idle, .timerFired), (.idle, .expiryWarning), (.idle, .userTapped):
            throw .noPushYet(kind)

        // One push per session.
        case (.fetchingManifest, .pushReceived), (.fetchingAssets, .pushReceived),
             (.backgroundOnly, .pushReceived), (.finished, .pushReceived):
            throw .pushAlreadyReceived

        // Fetch reports while active: validate first (errors leave state unchanged), then let time
        // advance (deadline, timeouts), then apply unless the fetch was cancelled meanwhile.
        case (.fetchingManifest, .fetchHeaders(let id, let headers)), (.fetchingAssets, .fetchHeaders(let id, let headers)),
             (.backgroundOnly, .fetchHeaders(let id, let headers)):
            guard let index = try liveFetch(id, kind) else { return ignoreLate(id, kind, now: now) }
            guard advance(reportingOn: index, id, kind, now: now) else { return }
            onHeaders(index, headers, now: now)
        case (.fetchingManifest, .fetchProgress(let id, let received)), (.fetchingAssets, .fetchProgress(let id, let received)),
             (.backgroundOnly, .fetchProgress(let id, let received)):
            guard let index = try liveFetch(id, kind) else { return ignoreLate(id, kind, now: now) }
            try validateProgress(index, received)
            guard advance(reportingOn: index, id, kind, now: now) else { return }
            onProgress(index, received, now: now)
        case (.fetchingManifest, .fetchCompleted(let id, let completion)), (.fetchingAssets, .fetchCompleted(let id, let completion)),
             (.backgroundOnly, .fetchCompleted(let id, let completion)):
            guard let index = try liveFetch(id, kind) else { return ignoreLate(id, kind, now: now) }
            try validateCompletion(index, completion)
            guard advance(reportingOn: index, id, kind, now: now) else { return }
            onCompleted(index, completion, now: now)
        case (.fetchingManifest, .fetchFailed(let id, let failure)), (.fetchingAssets, .fetchFailed(let id, let failure)),
             (.backgroundOnly, .fetchFailed(let id, let failure)):
            guard let index = try liveFetch(id, kind) else { return ignoreLate(id, kind, now: now) }
            guard advance(reportingOn: index, id, kind, now: now) else { return }
            onFailed(index, failure, now: now)

        // The driver could not write a committed asset: forget the entry, in every phase after the
        // push (the commit is often the session's last action). The failure happened before
        // `now`, so the entry goes before time advances (a delivery at the deadline then does not
        // count it).
        case (.fetchingManifest, .storeFailed(let id)), (.fetchingAssets, .storeFailed(let id)),
             (.backgroundOnly, .storeFailed(let id)), (.finished, .storeFailed(let id)):
            let index = try committedFetch(id)
            lastNow = now
            onStoreFailed(index)
            advanceClock(now)

        // Time passes: deadline and per-request timeouts.
        case (.fetchingManifest, .timerFired), (.fetchingAssets, .timerFired), (.backgroundOnly, .timerFired):
            lastNow = now
            advanceClock(now)

        // The OS is about to kill the handler: deliver now, cancel everything.
        case (.fetchingManifest, .expiryWarning), (.fetchingAssets, .expiryWarning), (.backgroundOnly, .expiryWarning):
            lastNow = now
            advanceClock(now)
            if phase != .finished { terminate(cancel: .osExpiry, deliver: .osExpiry, now: now) }

        // Taps are answered from the store in every phase after the push.
        case (.fetchingManifest, .userTapped), (.fetchingAssets, .userTapped), (.backgroundOnly, .userTapped):
            lastNow = now
            advanceClock(now)
            answerTap(now: now)
        case (.finished, .userTapped):
            lastNow = now
            answerTap(now: now)

        // After the end: reports for cancelled fetches are a benign race; anything else is a bug.
        case (.finished, .fetchHeaders(let id, _)), (.finished, .fetchProgress(let id, _)),
             (.finished, .fetchCompleted(let id, _)), (.finished, .fetchFailed(let id, _)):
            guard try liveFetch(id, kind) == nil else {
                // Unreachable: finishing ends every fetch. Refuse rather than trust it.
                throw .fetchAlreadyFinished(id, kind)
            }
            ignoreLate(id, kind, now: now)
        case (.finished, .timerFired), (.finished, .expiryWarning):
            throw .sessionFinished(kind)
        }
    }

    /// A report for a fetch the session cancelled: time still advances; the report is logged.
    /// Lets time advance to `now` for a report of `kind` on live fetch `index` (id `id`), after
    /// the report was validated: whether the fetch is still in flight, so the report applies. A
    /// deadline or time-out reached at `now` may have ended it; the report is then late, and logged.
    @inline(__always)
    mutating func advance(reportingOn index: Int, _ id: FetchID, _ kind: InputKind, now: Instant) -> Bool {
        lastNow = now
        advanceClock(now)
        guard fetches[index].state == .inFlight else { log(.lateInputIgnored(id, kind)); return false }
        return true
    }

    mutating func ignoreLate(_ id: FetchID, _ kind: InputKind, now: Instant) {
        lastNow = now
        advanceClock(now)
        log(.lateInputIgnored(id, kind))
    }

    // MARK: - Validation (no mutation)

    @inline(__always)
    func validate(_ c: DeviceContext) throws(SessionError) {
        if readsHLS, let bps = c.estimatedThroughputBitsPerSecond, bps < 0 {
            throw .invalidContext(field: "estimatedThroughputBitsPerSecond", value: "\(bps)", expected: ">= 0 or nil")
        }
        if c.freeStorageBytes < 0 {
            throw .invalidContext(field: "freeStorageBytes", value: "\(c.freeStorageBytes)", expected: ">= 0")
        }
        if !(c.receiptJitterUniform >= 0 && c.receiptJitterUniform < 1) {
            throw .invalidContext(field: "receiptJitterUniform", value: "\(c.receiptJitterUniform)", expected: "a number in [0, 1)")
        }
        // The device inputs and the ledger only where a kind reads them (under `criticalOnly` they
        // pass through unread, and reading them cost every push a copy of both).
        guard decides else { return }
        if let level = c.inputs.batteryLevel, !(level >= 0 && level <= 1) {
            throw .invalidContext(field: "inputs.batteryLevel", value: "\(level)", expected: "a level in [0, 1] or nil")
        }
        if let used = c.inputs.cellularBytesUsedToday, used < 0 {
            throw .invalidContext(field: "inputs.cellularBytesUsedToday", value: "\(used)", expected: ">= 0 or nil")
        }
        if abs(Int(c.inputs.utcOffsetSeconds)) > Int(DeviceInputs.utcOffsetSecondsMax) {
            throw .invalidContext(field: "inputs.utcOffsetSeconds", value: "\(c.inputs.utcOffsetSeconds)",
                                  expected: "-\(DeviceInputs.utcOffsetSecondsMax)...\(DeviceInputs.utcOffsetSecondsMax)")
        }
        if !(c.ledger.spentEnergyJoules >= 0 && c.ledger.spentEnergyJoules.isFinite) || c.ledger.spentDataBytes < 0
            || !(c.ledger.dataWeightSecondsPerMegabyte >= 0 && c.ledger.dataWeightSecondsPerMegabyte.isFinite)
            || !(c.ledger.energyWeightSecondsPerJoule >= 0 && c.ledger.energyWeightSecondsPerJoule.isFinite) {
            throw .invalidContext(field: "ledger", value: "\(c.ledger)", expected: "spending and weights finite and >= 0")
        }
    }

    /// The record index of a fetch that is in flight; nil when the session cancelled it (the
    /// caller logs and ignores the input). Throws for ids never issued or already finished.
    @inline(__always)
    func liveFetch(_ id: FetchID, _ kind: InputKind) throws(SessionError) -> Int? {
        let index = Int(id.rawValue) - 1
        guard index >= 0, index < fetches.count else { throw .unknownFetch(id, kind) }
        switch fetches[index].state {
        case .inFlight: return index
        case .cancelled: return nil
        case .finished: throw .fetchAlreadyFinished(id, kind)
        }
    }

    /// The record index of a fetch whose `.storeAsset` was emitted and not yet reported failed.
    @inline(__always)
    func committedFetch(_ id: FetchID) throws(SessionError) -> Int {
        let index = Int(id.rawValue) - 1
        guard index >= 0, index < fetches.count else { throw .unknownFetch(id, .storeFailed) }
        switch fetches[index].commit {
        case .emitted: return index
        case .none: throw .noStoreCommit(id)
        case .failed: throw .storeFailureAlreadyReported(id)
        }
    }

    @inline(__always)
    func validateProgress(_ index: Int, _ received: Int64) throws(SessionError) {
        let f = fetches[index]
        if received < f.bytesReceived {
            throw .invalidFetchReport(f.id, field: "bytesReceived", value: "\(received)", expected: ">= \(f.bytesReceived) (previous progress)")
        }
    }

    @inline(__always)
    func validateCompletion(_ index: Int, _ c: FetchCompletion) throws(SessionError) {
        let f = fetches[index]
        if c.bytesReceived < f.bytesReceived {
            throw .invalidFetchReport(f.id, field: "bytesReceived", value: "\(c.bytesReceived)", expected: ">= \(f.bytesReceived) (previous progress)")
        }
        if let length = c.headers.contentLength, length < 0 {
            throw .invalidFetchReport(f.id, field: "contentLength", value: "\(length)", expected: ">= 0")
        }
        switch (f.slot < 0, c.body) {
        case (true, .bytes), (true, .parsedManifest): break
        case (false, .none):
            // A playlist the session reads comes with its body when it is a 200 answer.
            if readsHLS && slots[f.slot].hls.readsBody && c.headers.status == 200 { throw .bodyMismatch(f.id) }
        case (false, .bytes):
            if !(readsHLS && slots[f.slot].hls.readsBody) { throw .bodyMismatch(f.id) }
        case (true, .none), (false, .parsedManifest): throw .bodyMismatch(f.id)
        }
    }

    // MARK: - Time

    /// Applies the hard deadline and per-request timeouts due at `now`. Every input calls this
    /// before applying a fetch report, so a report arriving at or after its fetch's timeout (or
    /// the hard deadline) finds the fetch already cancelled and is ignored as late: the outcome of
    /// a timeout never depends on whether the timer or the report is fed first.
    mutating func advanceClock(_ now: Instant) {
        if phase == .finished || phase == .idle { return }
        if now >= hardDeadline {
            terminate(cancel: .hardDeadline, deliver: .hardDeadline, now: now)
            return
        }
        var timedOut = false
        for i in fetches.indices where fetches[i].state == .inFlight && fetches[i].timeoutAt <= now {
            let id = fetches[i].id
            endFetch(i, as: .cancelled, received: fetches[i].bytesReceived)
            emit(.cancelFetch(id, .timedOut))
            if fetches[i].slot < 0 { log(.manifestUnavailable); phase = .fetchingAssets }
            timedOut = true
        }
        if timedOut {
            pump(now: now)
            settle(now: now)
        }
    }

    /// Cancels everything running or queued, delivers if not yet done, and finishes.
    mutating func terminate(cancel reason: CancelReason, deliver deliveryReason: DeliveryReason, now: Instant) {
        for i in fetches.indices where fetches[i].state == .inFlight {
            let id = fetches[i].id
            endFetch(i, as: .cancelled, received: fetches[i].bytesReceived)
            emit(.cancelFetch(id, reason))
        }
        for i in slots.indices where slots[i].state == .queued { slots[i].state = .done }
        if delivery == nil && deliveryReason == .hardDeadline { enqueueFallbackIfMissing(now: now) }
        if delivery == nil { deliver(deliveryReason, now: now) }
        phase = .finished
    }

    /// Android FCM handler at its hard deadline (`PreloadPolicy.fallbackOnHandlerDeadline`): hand
    /// the push to a WorkManager job when a selected critical asset is missing or the assets are
    /// still unknown.
    mutating func enqueueFallbackIfMissing(now: Instant) {
        guard policy.fallbackOnHandlerDeadline, let request, context?.handlerKind == .androidFCMHandler else { return }
        var ready = 0
        for i in slots.indices where store.freshness(of: slots[i].key, at: now) != .missing { ready += 1 }
        guard !assetsKnown || ready < slots.count else { return }
        emit(.enqueueFallback(FallbackRequest(manifestTag: request.manifestTag, readyAssets: ready, selectedAssets: slots.count)))
    }

    /// Delivers once nothing blocking is pending, and finishes once nothing runs at all.
    mutating func settle(now: Instant) {
        if phase == .fetchingManifest { return }
        if delivery == nil {
            for i in slots.indices where slots[i].blocking && (slots[i].state == .queued || isInFlight(slots[i].state)) { return }
            deliver(startedBlockingFetch ? .assetsSettled : .nothingToFetch, now: now)
            phase = .backgroundOnly
        }
        for i in slots.indices where slots[i].state == .queued || isInFlight(slots[i].state) { return }
        phase = .finished
    }

    @inline(__always)
    func isInFlight(_ state: SlotState) -> Bool {
        if case .inFlight = state { return true }
        return false
    }

    // MARK: - Outputs

    mutating func deliver(_ reason: DeliveryReason, now: Instant) {
        var ready = 0
        for i in slots.indices where store.freshness(of: slots[i].key, at: now) != .missing { ready += 1 }
        let d = Delivery(reason: reason, attachment: attachment(now: now), readyAssets: ready, selectedAssets: slots.count, at: now)
        delivery = d
        emit(.deliver(d))
        if policy.receiptsEnabled, let request, let context {
            let jitter = Int64(context.receiptJitterUniform * Double(policy.receiptJitterWindowMicroseconds))
            emit(.scheduleReceipt(Receipt(manifestTag: request.manifestTag, sendAt: now.advanced(byMicroseconds: jitter),
                                          reason: reason, readyAssets: ready, selectedAssets: slots.count)))
        }
    }

    /// The first selected asset that is usable, of an attachable kind and within the iOS limit
    /// for it; only for visible notifications.
    @inline(__always)
    func attachment(now: Instant) -> Attachment? {
        guard policy.attachMedia, let context, !context.handlerKind.isSilent else { return nil }
        for k in slots.indices {
            guard let i = store.index(of: slots[k].key) else { continue }
            let e = store.entries[i]
            guard e.freshness(at: now) != .missing, let category = AttachmentCategory(kind: e.kind),
                  e.bytes <= policy.attachmentLimits[category] else { continue }
            return Attachment(key: e.key, kind: e.kind, category: category, bytes: e.bytes)
        }
        return nil
    }

    mutating func answerTap(now: Instant) {
        var answers: [AssetReadiness] = []
        answers.reserveCapacity(slots.count)
        for i in slots.indices {
            let key = slots[i].key
            let f = store.freshness(of: key, at: now)
            if f != .missing { store.touch(key, at: now) }
            answers.append(AssetReadiness(key: key, freshness: f))
        }
        tapped = true
        emit(.tapAnswer(TapAnswer(assets: answers, assetsKnown: assetsKnown)))
    }

    mutating func emit(_ action: consuming Action) {
        if actionCount < actions.count { actions[actionCount] = action } else { actions.append(action) }
        actionCount += 1
    }

    /// Internal consistency (debug builds): the in-flight counter, slot/fetch agreement, delivery
    /// before finishing, and nothing running once finished.
    func checkInvariants() {
        #if PRESTAGE_INVARIANTS
        var running = 0
        for f in fetches where f.state == .inFlight {
            running += 1
            if f.slot >= 0 { precondition(slots[f.slot].state == .inFlight(f.id), "slot and fetch disagree") }
        }
        precondition(running == inFlightCount, "inFlightCount out of sync")
        precondition(running <= policy.effectiveConcurrency, "concurrency limit exceeded")
        if phase == .finished || phase == .backgroundOnly { precondition(delivery != nil, "finished without delivery") }
        if phase == .finished { precondition(running == 0, "finished with fetches running") }
        #endif
    }

    mutating func log(_ event: LogEvent) {
        if policy.emitsLogEvents { emit(.log(event)) }
    }

    /// `CacheControl.parse(header)`, reusing the last result when the header is the same text.
    /// - Complexity: O(1) for a repeated header string sharing storage with the last one, else O(n).
    mutating func cacheControl(_ header: String) -> CacheControl {
        if let last = lastCacheControl, last.header == header { return last.parsed }
        let parsed = CacheControl.parse(header)
        lastCacheControl = (header, parsed)
        return parsed
    }
}
