import InfraModel
import PreloadKit
import SimKernel

/// Users' taps: scheduling a tap when a notification is shown, taps in progress (struct of
/// arrays, indexed by tap slot, recycled), which of the app screen's assets are still missing,
/// foreground fetches of those (kept in the device's store through PreloadKit), first paint, and
/// whether the tapper stayed for it and read.
struct TapTracker {
    let plans: CampaignPlans
    let rules: RulesRuntime
    let horizonTicks: Int64
    /// Foreground-fetched assets are written to the device's store (`UsersConfig.foregroundFetchesKept`).
    let keepsForegroundFetches: Bool
    let patience: TapperPatience
    /// The declared type of each critical asset, laid out as `CampaignPlans.criticalKeys`.
    let criticalTypes: [[AssetType]]

    // Taps in progress.
    var tDevice: [UInt32] = []
    var tCampaign: [Int] = []
    var tStart: [Int64] = []
    /// Bit i set while critical asset i of the campaign (the screen's paint set) is missing.
    var tPending: [UInt32] = []
    var tNetwork: [InfraNetworkClass] = []
    var tIOS: [Bool] = []
    var tRegion: [UInt32] = []
    var tSaveData: [Bool] = []
    var tFailed: [Bool] = []
    /// The tap's paint uses a superseded creative: one pre-staged from a copy a purge had
    /// superseded, or a foreground fetch answered with one.
    var tStale: [Bool] = []
    /// The tap's paint shows the CDN's placeholder for at least one asset (its foreground fetch
    /// followed the 302).
    var tPlaceholder: [Bool] = []
    /// The session slot answering the tap, or -1.
    var tSlot: [Int32] = []
    var tSend: [Int64] = []
    /// The device's free storage and preexisting store bytes (PreloadKit's store limit, and the
    /// filler entry of a device that never had a store).
    var tFreeStorage: [Int64] = []
    var tPreexisting: [Int64] = []
    /// Which tap slots are free and each slot's generation: LIFO reuse (the most recently freed
    /// slot first, a new slot only when none is free), the generation bumped when a slot is freed,
    /// so events carrying an earlier tap's generation are stale. (A slot freed at generation
    /// `UInt32.max` is retired rather than wrapped; no run reuses a slot that often.)
    var tapPool = GenerationalPool(slotsMax: GenerationalPool.slotsLimit)
    /// PreloadKit's paint-set answer of the tap being looked at (a reused buffer).
    var readiness: [AssetReadiness] = []
    /// Keys PreloadKit evicted to keep a foreground fetch (a reused buffer).
    var evicted: [StoreKey] = []

    init(plans: CampaignPlans, rules: RulesRuntime, users: UsersConfig, horizonTicks: Int64) {
        self.plans = plans
        self.rules = rules
        self.horizonTicks = horizonTicks
        keepsForegroundFetches = users.foregroundFetchesKept
        patience = TapperPatience(users: users)
        criticalTypes = plans.paintRequests.indices.map { c in
            plans.criticalKeys[c].indices.map { j in
                if plans.criticalRanges[c][j] != nil { return .hlsSegment }  // a byte range of an HLS rendition's file
                let key = plans.criticalKeys[c][j]
                let spec = plans.paintRequests[c].assets.first { (a: AssetSpec) in
                    a.priority == .critical && PKNetworkClass.allCases.contains { a.resolved(for: $0).key == key }
                }
                return spec?.type ?? .image
            }
        }
        readiness.reserveCapacity(plans.criticalCount.max() ?? 0)
        evicted.reserveCapacity(rules.storeEntriesMax)
    }

    /// The notification of push `w` is shown at `shownAt`: if the user opens it, the tap comes
    /// after the user's tap delay (held in a far-future bucket).
    mutating func schedule(_ d: DeviceID, _ w: PushWord, opens: Bool, tapDelaySeconds: Double, shownAt: Int64,
                           far: inout BucketQueue, counters: inout DriverCounters, kernel: inout Kernel) throws {
        guard opens else { return }
        let at = shownAt + SimDuration.seconds(tapDelaySeconds).ticks
        if at >= horizonTicks {
            counters.tapsBeyondHorizon += 1
            return
        }
        counters.tapsScheduled += 1
        try far.schedule(at: at, .tap(d, campaign: w.campaignID, sendTicks: w.sendTicks), kernel: &kernel)
    }

    /// The generation of tap slot `t`'s tap (the one its events and reply tags carry).
    @inline(__always)
    func generation(_ t: Int) -> UInt32 { tapPool.generation(UInt32(truncatingIfNeeded: t)) }

    /// A tap slot for a new tap: the most recently freed one, else a new slot.
    mutating func allocate() -> Int {
        guard let handle = tapPool.allocate() else { preconditionFailure("tap slots exhausted") }
        let t = Int(handle.index)
        if t < tDevice.count { return t }
        tDevice.append(0); tCampaign.append(0); tStart.append(0); tPending.append(0)
        tNetwork.append(.wifi); tIOS.append(false); tRegion.append(0); tSaveData.append(false); tFailed.append(false); tStale.append(false); tPlaceholder.append(false)
        tSlot.append(-1); tSend.append(0); tFreeStorage.append(0); tPreexisting.append(0)
        return tDevice.count - 1
    }

    /// A tap on device `d` (attributes `a`) of campaign `c`'s notification (sent at `sendTicks`)
    /// at `now`: a tap slot with every asset of the paint set missing.
    mutating func begin(device d: DeviceID, campaign campaignID: CampaignID, attributes a: DeviceAttributes, now: Int64, sendTicks: Int64,
                        staleStored: Bool) -> TapID {
        let t = allocate()
        let c = campaignID.index
        tDevice[t] = d.rawValue
        tCampaign[t] = c
        tStart[t] = now
        tNetwork[t] = a.network
        tIOS[t] = a.isIOS
        tRegion[t] = a.region
        tSaveData[t] = a.saveData
        tFailed[t] = false
        tStale[t] = staleStored
        tPlaceholder[t] = false
        tSend[t] = sendTicks
        tFreeStorage[t] = a.freeStorageBytes
        tPreexisting[t] = a.preexistingStoreBytes
        let n = plans.criticalCount[c]
        tPending[t] = n >= 32 ? UInt32.max : (UInt32(1) << UInt32(n)) - 1
        return TapID(t)
    }

    /// Frees tap slot `t` (detaching it from the session answering it).
    mutating func free(_ tap: TapID, driver: inout SessionDriver) {
        let t = tap.index
        detach(tap, driver: &driver)
        tapPool.release(UInt32(t))
    }

    /// Detaches tap `t` from the session answering it, if any.
    mutating func detach(_ tap: TapID, driver: inout SessionDriver) {
        let t = tap.index
        if tSlot[t] >= 0 {
            driver.slot[Int(tSlot[t])].tap = -1
            tSlot[t] = -1
        }
    }

    /// The paint set of tap `t`: campaign `c`'s critical keys for the tap's network start at `base`.
    func paintSet(_ tap: TapID) -> (campaign: Int, count: Int, base: Int) {
        let t = tap.index
        let c = tCampaign[t]
        let n = plans.criticalCount[c]
        return (c, n, Int(PushWorld.preloadNetwork(tNetwork[t]).rawValue) * n)
    }

    /// Marks the assets of tap `t`'s paint set that `session`'s store holds (fresh or stale) at
    /// `now` as ready, as PreloadKit answers (`paintSetAnswer`); the store is not touched.
    mutating func markStored(_ tap: TapID, in session: inout PreloadSession, now: Instant) {
        let t = tap.index
        let c = tCampaign[t]
        _ = session.paintSetAnswer(for: plans.paintRequests[c], network: PushWorld.preloadNetwork(tNetwork[t]), now: now, into: &readiness)
        if plans.paintRangeCount[c] > 0 {
            let (_, n, base) = paintSet(tap)
            for j in n - plans.paintRangeCount[c]..<n { session.appendReadiness(of: plans.criticalKeys[c][base + j], now: now, into: &readiness) }
        }
        markReady(tap)
    }

    /// Marks the assets of tap `t`'s paint set that the device's parked `store` holds at `now` as
    /// ready, as PreloadKit answers (`paintSetAnswer`), touching them (the app reads them).
    mutating func markStored(_ tap: TapID, touching store: inout PreloadStore, now: Instant) {
        let t = tap.index
        let c = tCampaign[t]
        _ = store.paintSetAnswer(for: plans.paintRequests[c], network: PushWorld.preloadNetwork(tNetwork[t]), now: now, into: &readiness)
        if plans.paintRangeCount[c] > 0 {
            // The byte-range parts the app's player asks the store for by (URL, range).
            let (_, n, base) = paintSet(tap)
            for j in n - plans.paintRangeCount[c]..<n {
                let key = plans.criticalKeys[c][base + j]
                readiness.append(AssetReadiness(key: key, freshness: store.freshness(of: key, at: now)))
            }
        }
        for r in readiness where r.freshness != .missing { store.touch(r.key, at: now) }
        markReady(tap)
    }

    /// Clears the pending bit of every asset `readiness` reports fresh or stale (PreloadKit's
    /// answer lists the paint set in `CampaignPlans.criticalKeys` order).
    mutating func markReady(_ tap: TapID) {
        let t = tap.index
        #if PRESTAGE_INVARIANTS
        let (c, n, base) = paintSet(tap)
        precondition(readiness.count == n, "paint set answer has \(readiness.count) assets, the plan \(n)")
        for i in 0..<n { precondition(readiness[i].key == plans.criticalKeys[c][base + i], "paint set order") }
        #endif
        for i in readiness.indices where readiness[i].freshness != .missing { tPending[t] &= ~(1 << UInt32(i)) }
    }

    /// PreloadKit answered the tap (running session): assets it reports fresh or stale are ready.
    mutating func apply(_ tap: TapID, _ answer: TapAnswer) {
        let t = tap.index
        let (c, n, base) = paintSet(tap)
        for r in answer.assets where r.freshness != .missing {
            for i in 0..<n where plans.criticalKeys[c][base + i] == r.key { tPending[t] &= ~(1 << UInt32(i)) }
        }
    }

    /// After the tap, the running session stored asset `key` (`.paintReady`): true when that
    /// completed the paint set.
    mutating func assetReady(_ tap: TapID, key: StoreKey) -> Bool {
        let t = tap.index
        let (c, n, base) = paintSet(tap)
        var changed = false
        for i in 0..<n where plans.criticalKeys[c][base + i] == key && tPending[t] & (1 << UInt32(i)) != 0 {
            tPending[t] &= ~(1 << UInt32(i))
            changed = true
        }
        return changed && tPending[t] == 0
    }

    /// Issues one foreground fetch per missing critical asset (in parallel).
    mutating func fetchMissing(_ tap: TapID, infra: inout InfraWorld, metrics: inout PushMetrics, kernel: inout Kernel) throws {
        let t = tap.index
        let (c, n, base) = paintSet(tap)
        for i in 0..<n where tPending[t] & (1 << UInt32(i)) != 0 {
            try foregroundFetch(tap, object: plans.criticalObjects[c][base + i], index: i, infra: &infra, metrics: &metrics, kernel: &kernel)
        }
    }

    /// The foreground fetch index of a campaign's referenced manifest (255: the signed-URL refresh).
    static let manifestIndex = 254

    /// A foreground fetch of `object` for tap `t` (`index` 255: the signed-URL refresh).
    mutating func foregroundFetch(_ tap: TapID, object: UInt32, index: Int, infra: inout InfraWorld, metrics: inout PushMetrics,
                                  kernel: inout Kernel) throws {
        let t = tap.index
        let device = DeviceID(rawValue: tDevice[t])
        let d = device.index
        let c = tCampaign[t]
        let entity = UInt64(d) << 24 | UInt64(c) << 16 | UInt64(0x80 | (index & 0x7F)) << 8 | UInt64(index & 0xFF)
        let reply = PushEvent.foregroundReplyAddress(tap)
        let request = InfraFetchRequest(objectID: ObjectID(rawValue: object), regionID: RegionID(rawValue: tRegion[t]), networkClass: tNetwork[t], entity: entity,
                                        connectionWarm: rules.foregroundWarm, saveData: tSaveData[t],
                                        signedToken: PushWorld.token(device, CampaignID(c)),
                                        timeout: rules.foregroundTimeout, replyKind: reply.kind,
                                        replyTarget: reply.target, replyTag: ReplyTag(generation: generation(t), index: UInt32(index & 0xFF)).raw)
        let requestID = try _slowPath(metrics.energy.enabled)
            ? metrics.energyFetch(request, device: d, foreground: true, neverOpened: false, infra: &infra, kernel: &kernel)
            : infra.fetch(request, kernel: &kernel).rawValue
        metrics.noteRequest(requestID, region: tRegion[t], cellular: tNetwork[t] != .wifi, neverOpened: false,
                            campaign: Int(tCampaign[t]), network: tNetwork[t])
        metrics.pushBytes.noteRequest(requestID, device: d, campaign: Int(tCampaign[t]))
    }

    /// What a foreground reply means for its tap.
    enum ForegroundStep {
        /// Nothing (stale reply, or more assets still missing).
        case wait
        /// The signed URLs were refreshed: fetch the missing assets.
        case fetchMissing
        /// The campaign's referenced manifest arrived: go on to the assets it lists.
        case manifestFetched
        /// Every asset arrived: paint.
        case paint
        /// An asset or the refresh failed: no paint.
        case fail
    }

    /// InfraWorld's `reply` to a foreground fetch of tap slot `tap` (its traffic is counted; an
    /// asset that arrived is kept in the device's store when the app keeps foreground fetches).
    mutating func reply(_ tap: TapID, _ reply: UInt64, now: Int64, driver: inout SessionDriver, infra: inout InfraWorld,
                        metrics: inout PushMetrics) -> (tap: TapID, step: ForegroundStep) {
        let (rawTag, requestID) = InfraWorld.decodeReply(reply)
        let tag = ReplyTag(raw: rawTag)
        let result = infra.result(requestID)
        infra.release(requestID)
        let t = tap.index
        metrics.countForegroundTransfer(result, request: requestID.index)
        guard tag.isFrom(generation: generation(t)) else { return (tap, .wait) }
        let ok: Bool
        switch result.outcome {
        case .edgeFreshHit, .edgeStaleHit, .miss, .collapsed, .staleIfError, .placeholder: ok = true
        case .origin503, .timeout, .networkFailure, .cancelled: ok = false // (foreground fetches are never cancelled)
        }
        let index = Int(tag.index)
        if index == 255 { return (tap, ok ? .fetchMissing : .fail) }
        if index == TapTracker.manifestIndex { return (tap, ok ? .manifestFetched : .fail) }
        guard tPending[t] & (1 << UInt32(index)) != 0 else { return (tap, .wait) }
        tPending[t] &= ~(1 << UInt32(index))
        if !ok { tFailed[t] = true }
        if ok && result.supersededCopy { tStale[t] = true }
        if ok && result.outcome == .placeholder { tPlaceholder[t] = true }
        if ok && keepsForegroundFetches {
            keep(tap, index: index, placeholder: result.outcome == .placeholder, now: now, driver: &driver, metrics: &metrics)
        }
        if tPending[t] != 0 { return (tap, .wait) }
        return (tap, tFailed[t] ? .fail : .paint)
    }

    /// Writes critical asset `index` of tap `t`'s paint set, just fetched in the foreground, to the
    /// device's store as PreloadKit admits it (`PreloadStore.admitForeground`). The parked store
    /// only: while a session runs on the device (for this campaign or another) the handler holds
    /// the store, and the app's write would be lost when the handler's copy is saved (last writer
    /// wins; the session stores this campaign's assets itself); counted as not kept.
    mutating func keep(_ tap: TapID, index i: Int, placeholder: Bool, now: Int64, driver: inout SessionDriver, metrics: inout PushMetrics) {
        let t = tap.index
        let d = DeviceID(rawValue: tDevice[t])
        if driver.deviceSlot[d.index] >= 0 {
            metrics.counters.foregroundNotKeptSessionRunning += 1
            return
        }
        let (c, _, base) = paintSet(tap)
        var store = driver.takeStore(d, preexistingBytes: tPreexisting[t], reserving: 1)
        let response = placeholder ? driver.placeholderResponses[c] : plans.responses[Int(plans.criticalObjects[c][base + i])]
        let admission = store.admitForeground(response.completion, key: plans.criticalKeys[c][base + i], type: criticalTypes[c][base + i],
                                              request: plans.paintRequests[c], policy: driver.policy, freeStorageBytes: tFreeStorage[t],
                                              now: Instant(microseconds: now), redirected: placeholder,
                                              range: plans.criticalRanges[c][base + i], evicted: &evicted)
        if case .stored = admission { metrics.counters.foregroundKept += 1 } else { metrics.counters.foregroundNotKept += 1 }
        metrics.bytes.evictedForSpace += UInt64(evicted.count)
        driver.parked.park(d, consume store, plans: plans)
    }

    /// Taps still waiting for their paint when the run ends at `now` whose tapper has already
    /// left: counted as abandoned (the wait so far is a lower bound, so this can only undercount
    /// abandonment, never hide it).
    func censoredAbandoned(now: Int64, population: Population) -> UInt64 {
        var n: UInt64 = 0
        for t in tDevice.indices where !tapPool.isFree(UInt32(t)) {
            if patience.leftWhileWaiting(device: DeviceID(rawValue: tDevice[t]), campaign: CampaignID(tCampaign[t]), waitTicks: now - tStart[t], population: population) {
                n += 1
            }
        }
        return n
    }

    /// Schedules tap `t`'s first paint after the device's launch + render time.
    mutating func schedulePaint(_ tap: TapID, driver: inout SessionDriver, population: Population, kernel: inout Kernel) throws {
        let t = tap.index
        detach(tap, driver: &driver)
        let render = population.renderSeconds(DeviceID(rawValue: tDevice[t]), campaign: CampaignID(tCampaign[t]))
        try kernel.schedule(PushEvent.paint(tap, generation: generation(t)), after: .seconds(render))
    }
}
