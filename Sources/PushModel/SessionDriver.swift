import InfraModel
import PreloadKit
import SimKernel

/// What a session needs after its input's actions were performed (`SessionDriver.settle`).
enum SessionStep {
    /// Still running; its timer is armed for PreloadKit's next deadline.
    case running
    /// PreloadKit finished: the session ends.
    case finished
    /// An iOS extension's buffers exceed the OS memory limit: the OS kills it.
    case overMemory
}

/// The OS deadline an `osDeadline` event carries.
enum OSDeadline {
    case expiryWarning
    case kill
}

/// PreloadKit's sessions in virtual time: session slots (active devices only), each
/// `PreloadSession`'s lifecycle and timer, OS deadlines, the fetches it opens in InfraWorld, and
/// each device's store parked between sessions. Maps PreloadKit `Action`s to InfraWorld requests
/// and kernel events and InfraWorld replies / timers / OS deadlines back to `Input`s; every
/// pre-stage decision (gating, selection, timeouts, store) is PreloadKit's.
struct SessionDriver {
    let policy: PreloadPolicy
    let rules: RulesRuntime
    let rt: [CampaignRuntime]
    let plans: CampaignPlans
    /// The placeholder image InfraModel redirects slow / Save-Data requests to, per campaign.
    let placeholderResponses: [ObjectResponse]
    /// The PoP's 302 to the placeholder as a pre-stage fetch receives it: headers only.
    static let placeholderRedirect = FetchCompletion(headers: FetchHeaders(status: 302, contentLength: 0), bytesReceived: 0, prefix: [])
    /// What a new session slot starts as: no store, the validated policy.
    let idleSession: PreloadSession
    /// The store an ended session holds until its slot is reused (the device's store is parked).
    let noStore: PreloadStore
    /// The origin sends validators (`infra.origin.sendsValidators`): each response carries its
    /// object version as `ETag` (fingerprint 1 + version), so a stored entry is revalidated with
    /// `If-None-Match` and may be answered 304.
    let sendsValidators: Bool
    /// Each object's response as PreloadKit gets it (`plans.responses`), with the `ETag` of
    /// version 0 when the origin sends validators: the common answer, passed as it is (a reply
    /// with another version or a 304 is derived from it, `completion(_:_:validators:)`).
    let completions: [FetchCompletion]

    /// Per device: its session slot, or -1.
    var deviceSlot: [Int32]
    /// Each device's preload store between sessions.
    var parked: ParkedStores

    // Session slots (active devices only).
    var sessions: [PreloadSession] = []
    /// The session slots' driver state, one record per slot (an array of structs: a slot's fields
    /// are read together by each of its events, so they share two cache lines).
    var slot: [SessionSlotState] = []
    /// Object id of each fetch, `slot * 64 + fetch id`.
    var sFetchObject: [UInt32] = []
    /// InfraModel request id of slot s's fetch k at `s * 64 + k` (valid while the fetch is open).
    var sFetchRequest: [UInt32] = []
    /// Which session slots are free and each slot's generation: LIFO reuse (the most recently
    /// freed slot first, a new slot only when none is free), the generation bumped when a slot is
    /// freed, so events carrying an earlier session's generation are stale. (A slot freed at
    /// generation `UInt32.max` is retired rather than wrapped; no run reuses a slot that often.)
    var slotPool = GenerationalPool(slotsMax: GenerationalPool.slotsLimit)
    var activeSessions = 0
    var activeSessionsMax = 0
    /// Per device, bit c: a pre-stage of campaign c got the creative a purge had superseded (a
    /// creative swap's purge not yet arrived). Empty when no campaign swaps its creative.
    var staleStored: [CampaignBits] = []
    /// Each push's receipt-jitter uniform; nil (nothing drawn) when receipts are off.
    var receiptJitter: ReceiptJitterDraw?
    /// Per device, bit c: the device holds campaign c's referenced manifest (a session or a tap
    /// fetched it), so a tap knows the screen's asset URLs. Empty when no campaign's pushes carry
    /// a manifest reference (8 bytes a device otherwise).
    var manifestHeld: [CampaignBits] = []
    /// Each device's network over time (empty per-device state when network changes are off).
    var networks: NetworkChanges
    /// The decision kind's ledgers and counts; nil without `preloadPolicy.decision`.
    var decision: DecisionState?
    /// `decision != nil`, stored: the per-push hooks test this flag, not the optional.
    var decisionOn = false

    /// A slot's row of `sFetchObject` / `sFetchRequest` (appended as one contiguous copy).
    static let fetchRowZeros = [UInt32](repeating: 0, count: 64)

    init(config: PushWorldConfig, policy: PreloadPolicy, rules: RulesRuntime, rt: [CampaignRuntime], plans: CampaignPlans) throws {
        self.policy = policy
        self.rules = rules
        self.rt = rt
        self.plans = plans
        noStore = PreloadStore(capacityBytes: 0, entriesMax: 0)
        sendsValidators = config.infra.origin.sendsValidators
        completions = plans.responses.map { [sendsValidators] r in
            var c = r.completion
            if sendsValidators { c.headers.etag = EntityTag(fingerprint: 1) }
            return c
        }
        do {
            try policy.validate()
            idleSession = try PreloadSession(policy: policy, store: noStore)
        } catch {
            throw PushModelError(path: "preloadPolicy", reason: "\(error)")
        }
        placeholderResponses = config.campaigns.map {
            CampaignPlans.response(type: .image, bytes: config.infra.placeholder.placeholderBytes, cacheControl: $0.cacheControl.headerValue)
        }
        precondition(config.campaigns.count <= CampaignBits.bitWidth, "one bit per campaign in the per-device campaign sets")
        let n = config.population.devices
        deviceSlot = [Int32](repeating: -1, count: n)
        parked = ParkedStores(devices: n, capacityBytes: config.preloadPolicy.storeCapacityBytes, entriesMax: config.preloadPolicy.storeEntriesMax,
                              plans: plans, campaigns: config.campaigns, placeholderBytes: config.infra.placeholder.placeholderBytes)
        if config.campaigns.contains(where: { $0.creativeSwap != nil }) { staleStored = [CampaignBits](repeating: 0, count: n) }
        if plans.manifestObject.contains(where: { $0 != .max }) { manifestHeld = [CampaignBits](repeating: 0, count: n) }
        networks = try NetworkChanges(config: config)
        decision = DecisionState(policy: policy, devices: n, configured: config.preloadPolicy.decision != nil,
                                 regionUTCOffsets: config.infra.topology.effectiveRegions.map { Int32(clamping: $0.utcOffsetSeconds) })
        decisionOn = decision != nil
    }

    /// How long the OS lets a handler of `kind` run before it kills it.
    func budgetTicks(_ kind: HandlerKind) -> Int64 {
        switch kind {
        case .iOSServiceExtension: return rules.nseBudgetTicks
        case .iOSSilentBackground: return rules.silentBackgroundTicks
        case .androidFCMHandler: return rules.handlerTicks
        case .androidWorkManagerJob: return rules.jobTicks
        }
    }

    /// Whether device `d` pre-staged campaign `c`'s superseded creative.
    func hasStaleCreative(_ d: DeviceID, campaign c: CampaignID) -> Bool {
        !staleStored.isEmpty && staleStored[d.index] & c.bit != 0
    }

    /// Whether device `d` needs campaign `c`'s referenced manifest before it can fetch the
    /// screen's assets (its pushes carry one, and the device has not fetched it).
    func needsManifest(_ d: DeviceID, campaign c: CampaignID) -> Bool {
        !manifestHeld.isEmpty && plans.manifestObject[c.index] != .max && manifestHeld[d.index] & c.bit == 0
    }

    /// The generation of slot `s`'s session (the one its events carry).
    @inline(__always)
    func generation(_ s: Int) -> UInt32 { slotPool.generation(UInt32(truncatingIfNeeded: s)) }

    /// Whether slot `s` still serves its device (its session has not ended).
    @inline(__always)
    func isLive(_ s: Int) -> Bool { deviceSlot[Int(slot[s].device)] == Int32(s) }

    /// Device `d`'s running session's slot, if it has one.
    @inline(__always)
    func runningSlot(_ d: DeviceID) -> SessionSlot? {
        let s = deviceSlot[d.index]
        return s >= 0 ? SessionSlot(rawValue: UInt32(s)) : nil
    }

    /// A session slot for a new session: the most recently freed one, else a new slot.
    mutating func allocateSlot() -> Int {
        activeSessions += 1
        activeSessionsMax = max(activeSessionsMax, activeSessions)
        guard let handle = slotPool.allocate() else { preconditionFailure("session slots exhausted") }
        let s = Int(handle.index)
        if s < sessions.count { return s }
        sessions.append(idleSession)
        slot.append(SessionSlotState())
        sFetchObject.append(contentsOf: SessionDriver.fetchRowZeros)
        sFetchRequest.append(contentsOf: SessionDriver.fetchRowZeros)
        return sessions.count - 1
    }

    /// Starts a handler of `kind` for push `w` on device `device` at `now` (the device has no session):
    /// a slot, the device's store moved into the session, the OS deadlines of the handler kind.
    /// Returns the slot and the input that starts the session.
    mutating func start(device: DeviceID, push w: PushWord, kind: HandlerKind, attributes a: DeviceAttributes, user: Population.UserDraws,
                        now: Int64, kernel: inout Kernel) throws -> (slot: SessionSlot, input: Input) {
        let s = allocateSlot()
        let d = device.index
        deviceSlot[d] = Int32(s)
        slot[s].device = device.rawValue
        slot[s].push = w.flags & PushWord.flagDeferred != 0 ? w.raw : w.raw & ~(UInt64(PushWord.flagDeferred) << 40)
        slot[s].kind = kind
        slot[s].openFetches = 0
        slot[s].opens = user.opens
        slot[s].tapDelaySeconds = user.tapDelaySeconds
        slot[s].network = a.network
        slot[s].region = a.region
        slot[s].saveData = a.saveData
        slot[s].highPriority = w.flags & PushWord.flagHighPriority != 0
        slot[s].tap = -1
        slot[s].timerAt = Int64.max
        slot[s].fetchTimedOut = false
        slot[s].fallbackEnqueued = false

        // The device's store moves into the session.
        // Room for the assets this push may store (a capacity hint: one allocation per push).
        let store = takeStore(device, preexistingBytes: a.preexistingStoreBytes, reserving: policy.criticalAssetsMax)
        // The slot's session value is reused (policy validated once, in `init`; buffers keep
        // their capacity): no validation and no allocation per push.
        sessions[s].reset(store: store)
        var context = DeviceContext(handlerKind: kind, network: PushWorld.preloadNetwork(a.network), isConstrained: a.lowDataMode,
                                    isExpensive: false, saveData: a.saveData, freeStorageBytes: a.freeStorageBytes,
                                    receiptJitterUniform: receiptJitter?.uniform(device: d, push: w) ?? 0)
        decisionContext(&context, device: d, attributes: a)
        let request = plans.request(campaign: w.campaign, part: w.part, hintPercent: user.hintPercent)

        // OS deadlines of the handler kind.
        switch kind {
        case .iOSServiceExtension:
            let budget = rules.nseBudgetTicks
            let lead = rules.nseWarningLeadTicks
            slot[s].warn = try kernel.scheduleCancellable(PushEvent.osDeadline(SessionSlot(s), generation: generation(s), .expiryWarning),
                                                          at: SimTime(ticks: now + budget - lead))
            slot[s].kill = try kernel.scheduleCancellable(PushEvent.osDeadline(SessionSlot(s), generation: generation(s), .kill),
                                                          at: SimTime(ticks: now + budget))
        case .iOSSilentBackground, .androidFCMHandler, .androidWorkManagerJob:
            let ticks = budgetTicks(kind)
            slot[s].warn = nil
            slot[s].kill = try kernel.scheduleCancellable(PushEvent.osDeadline(SessionSlot(s), generation: generation(s), .kill),
                                                          at: SimTime(ticks: now + ticks))
        }
        return (SessionSlot(s), .pushReceived(request, context))
    }

    /// Feeds one input to slot `s`'s session at `now` (its actions are then polled).
    mutating func handle(_ slotID: SessionSlot, _ input: consuming Input, now: Int64) throws {
        let s = slotID.index
        do {
            try sessions[s].handle(consume input, now: Instant(microseconds: now))
        } catch {
            throw PushModelError(path: "", reason: "PreloadKit session protocol error (driver bug): \(error)")
        }
    }

    /// After an input's actions: whether the live session `s` finished or is over the OS memory
    /// limit, else (re-)arms its timer for PreloadKit's next deadline.
    mutating func settle(_ slotID: SessionSlot, now: Int64, kernel: inout Kernel) throws -> SessionStep {
        let s = slotID.index
        let (finished, next) = sessions[s].driverState()
        if finished { return .finished }
        // Memory: the extension is killed when its buffers exceed the OS limit.
        if slot[s].kind == .iOSServiceExtension {
            let used = policy.memoryReservedBytes + Int64(slot[s].openFetches.nonzeroBitCount) * policy.fetchBufferBytes
            if used > rules.nseMemoryLimitBytes { return .overMemory }
        }
        if next != slot[s].timerAt {
            if let h = slot[s].timer { kernel.cancel(h) }
            slot[s].timer = nil
            slot[s].timerAt = next
            if next != Int64.max {
                slot[s].timer = try kernel.scheduleCancellable(PushEvent.sessionTimer(SessionSlot(s), generation: generation(s)),
                                                               at: SimTime(ticks: max(now, next)))
            }
        }
        return .running
    }

    /// PreloadKit asks slot `s` to fetch `r`: an InfraWorld request, recorded for its reply.
    mutating func startFetch(_ slotID: SessionSlot, _ r: PKFetchRequest, infra: inout InfraWorld, metrics: inout PushMetrics,
                             kernel: inout Kernel) throws {
        let s = slotID.index
        precondition(r.id.rawValue < 64, "more than 63 fetches in one session")
        let device = DeviceID(rawValue: slot[s].device)
        let d = device.index
        let w = PushWord(slot[s].push)
        // An asset of the campaign's, or its referenced manifest (an object of the catalogue too,
        // answered with the manifest parsed once: `CampaignPlans.addReferencedManifest`).
        let object: UInt32
        switch r.purpose {
        case .asset(let key):
            guard let o = plans.object(for: key) else { preconditionFailure("the simulator only sends its own asset URLs") }
            object = o
        case .manifest:
            object = plans.manifestObject[w.campaign]
            precondition(object != .max, "a manifest fetch for a campaign without a manifest reference")
        }
        let timeout = SimDuration(ticks: min(600_000_000, max(1, r.timeoutMicroseconds)))
        let reply = PushEvent.fetchReplyAddress(SessionSlot(s))
        let entity = UInt64(d) << 24 | UInt64(w.campaign) << 16 | UInt64(w.part) << 8 | UInt64(r.id.rawValue)
        let request = InfraFetchRequest(objectID: ObjectID(rawValue: object), regionID: RegionID(rawValue: slot[s].region), networkClass: slot[s].network, entity: entity,
                                        connectionWarm: rules.backgroundWarm, saveData: slot[s].saveData, followsRedirects: false,
                                        signedToken: PushWorld.token(device, w.campaignID),
                                        timeout: timeout, replyKind: reply.kind, replyTarget: reply.target,
                                        replyTag: ReplyTag(generation: generation(s), index: r.id.rawValue).raw,
                                        ifNoneMatch: SessionDriver.condition(r.ifNoneMatch))
        if r.ifNoneMatch != nil { metrics.counters.conditionalRequests += 1 }
        let requestID = try _slowPath(metrics.requestHooks)
            ? metrics.hookedPrestageFetch(request, device: d, neverOpened: !slot[s].opens, campaign: w.campaign, infra: &infra, kernel: &kernel)
            : infra.fetch(request, kernel: &kernel).rawValue
        metrics.noteRequest(requestID, region: slot[s].region, cellular: slot[s].network != .wifi, neverOpened: !slot[s].opens,
                            campaign: w.campaign, network: slot[s].network)
        metrics.pushBytes.noteRequest(requestID, device: d, campaign: w.campaign)
        slot[s].openFetches |= 1 << UInt64(r.id.rawValue)
        sFetchObject[s &* 64 &+ Int(r.id.rawValue)] = object
        sFetchRequest[s &* 64 &+ Int(r.id.rawValue)] = requestID
        metrics.counters.fetchesStarted += 1
    }

    /// PreloadKit cancels slot `s`'s fetch `id`.
    mutating func cancelFetch(_ slotID: SessionSlot, _ id: FetchID, reason: CancelReason, infra: inout InfraWorld, metrics: inout PushMetrics,
                              kernel: inout Kernel) throws {
        let s = slotID.index
        try cancelTransfer(slotID, fetch: id.rawValue, infra: &infra, metrics: &metrics, kernel: &kernel)
        slot[s].openFetches &= ~(1 << UInt64(id.rawValue))
        metrics.counters.fetchesCancelled += 1
        switch reason {
        case .timedOut, .hardDeadline, .osExpiry:
            metrics.noteFetchTimedOut(campaign: PushWord(slot[s].push).campaign)
            slot[s].fetchTimedOut = true
        case .rejected: break
        }
    }

    /// Slot `s` gives its open fetch `id` up (PreloadKit cancelled it, or the handler ended):
    /// InfraModel stops the transfer now and the bytes received so far are counted. A fetch
    /// whose reply is already on the way is counted when the reply arrives.
    mutating func cancelTransfer(_ slotID: SessionSlot, fetch id: UInt32, infra: inout InfraWorld, metrics: inout PushMetrics,
                                 kernel: inout Kernel) throws {
        let s = slotID.index
        guard slot[s].openFetches & (1 << UInt64(id)) != 0 else { return }
        let requestID = sFetchRequest[s &* 64 &+ Int(id)]
        if let result = try infra.cancel(RequestID(rawValue: requestID), kernel: &kernel) {
            metrics.countPrestageTransfer(result, request: Int(requestID))
        }
    }

    /// Ends slot `s`'s session: open fetches are cancelled in InfraModel (their transfers stop
    /// now; they count as cancelled), its events cancelled, the store returned to its device, the
    /// slot freed. Returns the tap the session was answering, now detached.
    mutating func end(_ slotID: SessionSlot, infra: inout InfraWorld, metrics: inout PushMetrics, kernel: inout Kernel) throws -> TapID? {
        let s = slotID.index
        var open = slot[s].openFetches
        while open != 0 {
            let id = UInt32(open.trailingZeroBitCount)
            open &= open &- 1
            try cancelTransfer(slotID, fetch: id, infra: &infra, metrics: &metrics, kernel: &kernel)
            metrics.counters.fetchesCancelled += 1
        }
        slot[s].openFetches = 0
        if let h = slot[s].timer { kernel.cancel(h) }
        if let h = slot[s].warn { kernel.cancel(h) }
        if let h = slot[s].kill { kernel.cancel(h) }
        slot[s].timer = nil
        slot[s].warn = nil
        slot[s].kill = nil
        let device = DeviceID(rawValue: slot[s].device)
        noteDecision(s, device: device.index)  // before the session's store is taken, so the two accesses stay adjacent
        let store = sessions[s].currentStore()
        sessions[s].reset(store: noStore)  // keeps the buffers for the slot's next session
        parked.park(device, consume store, plans: plans)
        deviceSlot[device.index] = -1
        let tap = slot[s].answering
        slot[s].tap = -1
        slotPool.release(UInt32(s))
        activeSessions -= 1
        return tap
    }

    /// A session timer event of `slotID`'s session of `generation`: the slot whose timer fired, or
    /// nil when stale.
    mutating func timerFired(_ slotID: SessionSlot, generation: UInt32) -> SessionSlot? {
        let s = slotID.index
        guard self.generation(s) == generation, isLive(s) else { return nil }
        slot[s].timer = nil
        slot[s].timerAt = .max
        return slotID
    }

    /// OS deadline `deadline` of `slotID`'s session of `generation`: the slot, or nil when stale.
    mutating func osDeadline(_ slotID: SessionSlot, generation: UInt32, _ deadline: OSDeadline) -> SessionSlot? {
        let s = slotID.index
        guard self.generation(s) == generation, isLive(s) else { return nil }
        switch deadline {
        case .expiryWarning: slot[s].warn = nil
        case .kill: slot[s].kill = nil
        }
        return slotID
    }

    /// InfraWorld's reply to a session fetch: its traffic is counted; the slot of the live
    /// session whose fetch is still open, with its input in `input`, else nil. (The input is
    /// written through `inout`: an optional `(slot, input)` result was destroyed through the
    /// runtime's generic value witnesses, about 220 instructions a reply.)
    mutating func reply(_ slotID: SessionSlot, _ reply: UInt64, now: Int64, infra: inout InfraWorld, metrics: inout PushMetrics,
                        input: inout Input) throws -> SessionSlot? {
        let (rawTag, requestID) = InfraWorld.decodeReply(reply)
        let tag = ReplyTag(raw: rawTag)
        let result = infra.takeResult(requestID)
        let s = slotID.index
        let live = tag.isFrom(generation: generation(s)) && isLive(s)
        let w = PushWord(slot[s].push)

        metrics.countPrestageTransfer(result, request: requestID.index)
        let id = FetchID(rawValue: tag.index)
        guard live, slot[s].openFetches & (1 << UInt64(id.rawValue)) != 0 else { return nil }
        slot[s].openFetches &= ~(1 << UInt64(id.rawValue))

        switch result.outcome {
        case .edgeFreshHit, .edgeStaleHit, .miss, .collapsed, .staleIfError, .placeholder:
            let tokenExpired = now - w.sendTicks > rt[w.campaign].tokenLifetimeTicks
            if tokenExpired {
                metrics.counters.backgroundTokenExpired += 1
                input = .fetchCompleted(id, FetchCompletion(headers: FetchHeaders(status: 403, contentLength: 0), bytesReceived: 0, prefix: [],
                                                            body: errorBody(s, fetch: id, campaign: w.campaign)))
            } else if result.outcome == .placeholder {
                // The 302 to the placeholder, reported as received (a pre-stage driver follows no
                // redirect): PreloadKit refuses its status and stores nothing.
                metrics.counters.prestagePlaceholderRedirects += 1
                input = .fetchCompleted(id, SessionDriver.placeholderRedirect)
            } else {
                let o = Int(sFetchObject[s &* 64 &+ Int(id.rawValue)])
                if result.version == 0 && !result.notModified {
                    input = .fetchCompleted(id, completions[o])
                } else {
                    input = .fetchCompleted(id, SessionDriver.completion(completions[o], result, validators: sendsValidators))
                }
                metrics.extensionLatency.record((result.endTime - result.startTime).ticks)
                metrics.noteFetchOK(campaign: w.campaign)
                if !manifestHeld.isEmpty && sFetchObject[s &* 64 &+ Int(id.rawValue)] == plans.manifestObject[w.campaign] {
                    manifestHeld[Int(slot[s].device)] |= w.campaignID.bit
                }
                if result.supersededCopy {
                    metrics.counters.stalePrestages += 1
                    if !staleStored.isEmpty { staleStored[Int(slot[s].device)] |= w.campaignID.bit }
                }
            }
        case .origin503:
            input = .fetchCompleted(id, FetchCompletion(headers: FetchHeaders(status: 503, contentLength: 0), bytesReceived: 0, prefix: [],
                                                        body: errorBody(s, fetch: id, campaign: w.campaign)))
        case .timeout:
            metrics.noteFetchTimedOut(campaign: w.campaign)
            slot[s].fetchTimedOut = true
            input = .fetchFailed(id, .timedOut)
        case .networkFailure:
            input = .fetchFailed(id, .network)
        case .cancelled:
            throw PushModelError(path: "", reason: "InfraModel replied to cancelled request \(requestID) (driver bug)")
        }
        return slotID
    }

    /// The body of an error response (403, 503) to slot `s`'s fetch `id`: a manifest fetch's
    /// completion always carries its document, here an empty one; an asset fetch's none.
    func errorBody(_ s: Int, fetch id: FetchID, campaign c: Int) -> FetchBody {
        let manifest = plans.manifestObject[c]
        return manifest != .max && sFetchObject[s &* 64 &+ Int(id.rawValue)] == manifest ? .bytes([]) : .none
    }

    /// Sessions still running that have not delivered (cut by the horizon).
    mutating func undeliveredAtHorizon() -> UInt64 {
        var n: UInt64 = 0
        for s in slot.indices where deviceSlot[Int(slot[s].device)] == Int32(s) && !sessions[s].delivered() { n += 1 }
        return n
    }
}

extension PreloadSession {
    // Reads through a mutating (in-place) access: a non-mutating read of an array element copies
    // the whole session (retaining every buffer it holds).

    /// Whether finished, and the next timer instant (Int64.max: none).
    mutating func driverState() -> (finished: Bool, nextMicroseconds: Int64) {
        (isFinished, nextDeadline()?.microseconds ?? Int64.max)
    }

    mutating func delivered() -> Bool { isDelivered }

    /// The session's store (the device's store once the session ends).
    mutating func currentStore() -> PreloadStore { store }

    /// Appends `key`'s readiness in the store at `now` (a byte-range part of the paint set).
    mutating func appendReadiness(of key: StoreKey, now: Instant, into assets: inout [AssetReadiness]) {
        assets.append(AssetReadiness(key: key, freshness: store.freshness(of: key, at: now)))
    }

    /// The store's `paintSetAnswer(for:network:now:into:)`.
    mutating func paintSetAnswer(for request: PreStageRequest, network: PKNetworkClass, now: Instant,
                                 into assets: inout [AssetReadiness]) -> Bool {
        store.paintSetAnswer(for: request, network: network, now: now, into: &assets)
    }
}

/// One session slot's driver state (`SessionDriver.slot`); the session itself is `sessions[slot]`.
/// Fields are ordered by size, widest first (to keep padding out). The slot's generation is
/// `SessionDriver.slotPool`'s.
struct SessionSlotState {
    /// The push (`PushWord.raw`).
    var push: UInt64 = 0
    /// The instant the session timer is armed for (`Int64.max`: none).
    var timerAt: Int64 = .max
    /// Bit `id` set while fetch `id` is open.
    var openFetches: UInt64 = 0
    /// The user's tap delay for this push (drawn with `opens`, kept for the tap after delivery).
    var tapDelaySeconds: Double = 0
    /// The device being served.
    var device: UInt32 = 0
    var region: UInt32 = 0
    /// The tap being answered by this session, or -1 (`answering`).
    var tap: Int32 = -1
    /// The session timer, and the OS expiry warning and kill events.
    var timer: EventHandle?
    var warn: EventHandle?
    var kill: EventHandle?
    var kind: HandlerKind = .iOSServiceExtension
    var network: InfraNetworkClass = .wifi
    /// Whether the user opens this push.
    var opens = false
    var saveData = false
    var highPriority = false
    /// One of this push's fetches ended by a timeout (PreloadKit's or InfraModel's).
    var fetchTimedOut = false
    /// PreloadKit handed this push to a fallback WorkManager job (`.enqueueFallback`): the job's
    /// session counts the push's outcome.
    var fallbackEnqueued = false

    /// The tap being answered by this session, if any.
    @inline(__always)
    var answering: TapID? { tap >= 0 ? TapID(rawValue: UInt32(tap)) : nil }
}
