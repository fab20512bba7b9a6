/// The push's start and the choice of what to fetch: the store's expired entries go, the critical
/// assets are selected (`SelectionRule.select`, through `CriticalAssetSelection`), and each one
/// passes the gates (network class, Low Data Mode, Save-Data, storage, metered budget) or is
/// skipped with the reason. The transitions that call these live in `PreloadSession.swift`.
extension PreloadSession {
    // MARK: - Push

    /// Starts serving `request` on `context` at `now`: deadline, metered budget and disk limit,
    /// expired entries evicted, then either the referenced manifest's fetch or the selection and
    /// the first fetches; delivers at once when nothing blocks.
    mutating func begin(_ request: PreStageRequest, _ context: DeviceContext, now: Instant) {
        self.request = request
        self.context = context
        openHint = request.openProbabilityHint
        if decides { decisionLedger = context.ledger }
        wokeAt = now
        hardDeadline = now.advanced(byMicroseconds: policy.deadlines[context.handlerKind])
        meteredRemainingBytes = context.isMetered ? policy.meteredSessionBytesMax : .max
        let (headroom, o1) = context.freeStorageBytes.subtractingReportingOverflow(policy.freeStorageFloorBytes)
        let (limit, o2) = store.usedBytes.addingReportingOverflow(o1 ? .min : headroom)
        diskLimitBytes = o1 || o2 ? 0 : max(0, limit)
        while let expired = store.removeFirstExpired(at: now) { emit(.evict(expired.key, .expired)) }

        if request.format == .manifestReference, let manifestURL = request.manifestURL {
            phase = .fetchingManifest
            log(.pushAccepted(format: request.format, selectedAssets: 0, deadline: hardDeadline))
            switch gateManifest() {
            case .skip(let reason):
                log(.assetSkipped(assetIndex: -1, reason))
                log(.manifestUnavailable)
                phase = .fetchingAssets
            case .fetch(let byteLimit):
                if context.isMetered { meteredRemainingBytes -= byteLimit }
                startFetch(url: manifestURL, purpose: .manifest, slot: -1, byteLimit: byteLimit, revalidation: false, now: now)
            }
        } else {
            startAssets(format: request.format, now: now)
        }
        settle(now: now)
    }

    /// The assets are known (from the payload, or from the manifest just fetched): select them,
    /// log the push as accepted in `format` with that selection, and start their fetches.
    mutating func startAssets(format: PayloadFormat, now: Instant) {
        assetsKnown = true
        phase = .fetchingAssets
        selectAssets()
        log(.pushAccepted(format: format, selectedAssets: slots.count, deadline: hardDeadline))
        pump(now: now)
    }

    /// Selects the critical assets with `SelectionRule.select` (the one selection
    /// rule, shared with `PreloadStore.tapAnswer`); each selected asset becomes a slot (see
    /// `selected`). Slot order is the fetch queue's priority order. `lastNow` is the current input's
    /// `now` (both callers set it first).
    mutating func selectAssets() {
        guard let request, let context else { return }
        let rule = policy.selectionRule
        rule.select(of: request, context: context, into: &self)
    }

    /// Makes asset `i` (resolved to `url`/`key`/`declaredBytes` for the device's network) a slot:
    /// consults the store and queues a fetch if the gates pass (`CriticalAssetSelection`).
    mutating func selected(_ i: Int, type: AssetType, url: AssetURL, key: StoreKey, declaredBytes: Int64?) {
        if readsHLS && type == .playlist {
            // Read as HLS: the declared `bytes` is the whole pre-stage's size (the article's 320 000
            // for a playlist and its first segment), not the playlist's; its fetch is bounded by the
            // playlist limit instead.
            return addSlot(i, type: type, url: url, key: key, declaredBytes: nil, limitMax: Int64(policy.hls.playlistBytesMax),
                           hls: .playlist, bandwidth: 0)
        }
        addSlot(i, type: type, url: url, key: key, declaredBytes: declaredBytes, limitMax: .max, hls: .none, bandwidth: 0)
    }

    /// `selected`, for a slot that may be part of an HLS asset (`hls`, with the chosen variant's
    /// `bandwidth` for its media playlist), its byte limit at most `limitMax`.
    @inline(__always)
    mutating func addSlot(_ i: Int, type: AssetType, url: AssetURL, key: StoreKey, declaredBytes: Int64?, limitMax: Int64,
                          hls: HLSPart, bandwidth: Int64, range: ByteRange? = nil) {
        guard let context else { return }
        let now = lastNow
        var blocking = false
        var byteLimit: Int64 = 0
        var state = SlotState.idle
        switch store.freshness(of: key, at: now) {
        case .fresh:
            store.touch(key, at: now)
            log(.storeHit(assetIndex: i, .fresh))
        case .stale:
            store.touch(key, at: now)
            log(.storeHit(assetIndex: i, .stale))
            if case .fetch(let limitBytes) = gateAsset(declaredBytes: declaredBytes) {
                byteLimit = min(limitBytes, limitMax)
                state = .queued
            }
        case .missing:
            switch gateAsset(declaredBytes: declaredBytes) {
            case .skip(let reason):
                log(.assetSkipped(assetIndex: i, reason))
            case .fetch(let limitBytes):
                byteLimit = min(limitBytes, limitMax)
                blocking = true
                state = .queued
            }
        }
        if state == .queued && context.isMetered { meteredRemainingBytes -= byteLimit }
        slots.append(Slot(assetIndex: i, url: url, key: key, type: type, byteLimit: byteLimit, blocking: blocking, state: state,
                          hls: hls, hlsBandwidth: bandwidth, range: range))
    }

    /// Asset `i` is not selected (not critical, a duplicate, over the limit).
    mutating func skipped(_ i: Int, _ reason: SkipReason) { log(.assetSkipped(assetIndex: i, reason)) }

    var selectedCount: Int {
        @inline(__always) get { slots.count }
    }

    @inline(__always)
    func hasSelected(_ key: StoreKey) -> Bool {
        for i in slots.indices where slots[i].key == key { return true }
        return false
    }

    /// A gate decision: fetch with this byte limit, or skip for this reason.
    enum Gate {
        case fetch(Int64)
        case skip(SkipReason)
    }

    /// Gates shared by manifests and assets: network class, Low Data Mode, Save-Data, storage.
    // The gates are `mutating` only so that a call from a mutating method passes the session in
    // place: a non-mutating call copied the whole session (667 bytes) first. They change nothing.

    @inline(__always)
    mutating func gateCommon() -> SkipReason? {
        guard let context else { return .offline }
        if context.network == .offline { return .offline }
        if context.network.forbidsPrefetch { return .slowNetwork(context.network) }
        if context.isConstrained && !policy.prefetchInLowDataMode { return .lowDataMode }
        if context.saveData && !policy.prefetchWithSaveData { return .saveData }
        if context.freeStorageBytes <= policy.freeStorageFloorBytes {
            return .lowStorage(freeBytes: context.freeStorageBytes, floorBytes: policy.freeStorageFloorBytes)
        }
        return nil
    }

    @inline(__always)
    mutating func gateManifest() -> Gate {
        if let reason = gateCommon() { return .skip(reason) }
        if decides, case .skip(let why) = decideManifest() { return .skip(.decision(why)) }
        let limit = min(Int64(policy.manifestBytesMax), meteredRemainingBytes)
        if limit <= 0 { return .skip(.meteredCapExceeded(bytes: Int64(policy.manifestBytesMax), remainingBytes: meteredRemainingBytes)) }
        return .fetch(limit)
    }

    /// The byte limit for an asset of `declaredBytes` (nil: unknown), or why it must not be fetched.
    /// Unknown sizes are fetched with the tightest applicable cap as the limit.
    @inline(__always)
    mutating func gateAsset(declaredBytes: Int64?) -> Gate {
        if let reason = gateCommon() { return .skip(reason) }
        guard let context else { return .skip(.offline) }
        let storageLimit = min(store.capacityBytes, diskLimitBytes)
        if storageLimit <= 0 { return .skip(.storeTooSmall(limitBytes: storageLimit)) }
        var limit = min(policy.assetBytesMax, storageLimit)
        if let d = declaredBytes, d > limit { return .skip(.declaredTooLarge(bytes: d, maxBytes: limit)) }
        if !context.network.allowsLargeAssets {
            if let d = declaredBytes, d > policy.largeAssetThresholdBytes {
                return .skip(.tooLargeForNetwork(bytes: d, network: context.network))
            }
            limit = min(limit, policy.largeAssetThresholdBytes)
        }
        if context.isMetered {
            if let d = declaredBytes, d > meteredRemainingBytes {
                return .skip(.meteredCapExceeded(bytes: d, remainingBytes: meteredRemainingBytes))
            }
            limit = min(limit, meteredRemainingBytes)
        }
        if let d = declaredBytes { limit = min(limit, d) }
        // Only the metered budget can bring the limit to zero here (the others are positive).
        if limit <= 0 { return .skip(.meteredCapExceeded(bytes: declaredBytes ?? 0, remainingBytes: max(0, meteredRemainingBytes))) }
        if decides, case .skip(let why) = decide(bytes: limit) { return .skip(.decision(why)) }
        return .fetch(limit)
    }
}
