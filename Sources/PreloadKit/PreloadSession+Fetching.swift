/// The fetch queue and what the fetch reports do: starting queued fetches within the concurrency
/// limit, ending and refusing fetches, and applying headers, progress, failures and completions
/// (store commit, 304 refresh, referenced manifest). The transitions that call these live in
/// `PreloadSession.swift`.
extension PreloadSession {
    // MARK: - Queue

    /// Starts queued fetches (blocking ones first, each group in priority/payload order) while the
    /// concurrency limit allows.
    mutating func pump(now: Instant) {
        let concurrency = concurrencyLimit
        for pass in 0..<2 {
            var i = 0
            while i < slots.count && inFlightCount < concurrency {
                if slots[i].state == .queued && slots[i].blocking == (pass == 0) {
                    let remaining = hardDeadline.microseconds(since: now)
                    if remaining < policy.fetchWindowMinMicroseconds {
                        slots[i].state = .done
                        refund(slots[i].byteLimit, received: 0)
                        log(.assetSkipped(assetIndex: slots[i].assetIndex, .noTimeLeft(remainingMicroseconds: remaining)))
                    } else {
                        let id = startFetch(url: slots[i].url, purpose: .asset(slots[i].key), slot: i,
                                            byteLimit: slots[i].byteLimit, revalidation: !slots[i].blocking, now: now)
                        slots[i].state = .inFlight(id)
                    }
                }
                i += 1
            }
        }
    }

    @discardableResult
    mutating func startFetch(url: AssetURL, purpose: FetchPurpose, slot: Int, byteLimit: Int64, revalidation: Bool, now: Instant) -> FetchID {
        let id = FetchID(rawValue: UInt32(fetches.count + 1))
        let timeout = min(policy.requestTimeoutMicroseconds, hardDeadline.microseconds(since: now))
        let validator = revalidation ? storedValidator(purpose) : nil
        fetches.append(FetchRecord(id: id, slot: slot, byteLimit: byteLimit, timeoutAt: now.advanced(byMicroseconds: timeout), state: .inFlight,
                                   bytesReceived: 0, conditional: validator != nil))
        inFlightCount += 1
        if !revalidation { startedBlockingFetch = true }
        emit(.startFetch(FetchRequest(id: id, url: url, purpose: purpose, byteLimit: byteLimit,
                                      timeoutMicroseconds: timeout, bufferBytes: policy.fetchBufferBytes, isRevalidation: revalidation,
                                      ifNoneMatch: validator, returnsBody: readsHLS && slot >= 0 && slots[slot].hls.readsBody,
                                      range: readsHLS && slot >= 0 ? slots[slot].range : nil)))
        return id
    }

    mutating func refund(_ reserved: Int64, received: Int64) {
        guard let context, context.isMetered else { return }
        meteredRemainingBytes += max(0, reserved - max(0, received))
    }

    /// Ends fetch `index` (state `finished` or `cancelled`) and its slot; refunds unused metered
    /// bytes.
    mutating func endFetch(_ index: Int, as state: FetchState, received: Int64) {
        fetches[index].state = state
        inFlightCount -= 1
        refund(fetches[index].byteLimit, received: received)
        let slot = fetches[index].slot
        if slot >= 0 { slots[slot].state = .done }
    }

    mutating func reject(_ index: Int, _ rejection: FetchRejection, received: Int64, completed: Bool, now: Instant) {
        let id = fetches[index].id
        if case .httpStatus(let status) = rejection, status >= 500 && status <= 599 { useStoredOnError(index, now: now) }
        endFetch(index, as: completed ? .finished : .cancelled, received: received)
        log(.fetchRejected(id, rejection))
        emit(.cancelFetch(id, .rejected(rejection)))
        if fetches[index].slot < 0 { log(.manifestUnavailable); phase = .fetchingAssets }
        pump(now: now)
        settle(now: now)
    }

    // MARK: - Fetch events

    /// `MediaKind.allCases` built once (the synthesized property builds an array per call).
    static let mediaKinds = MediaKind.allCases

    /// True when `contentType` names a kind `type` accepts (manifests, `type` nil: JSON).
    /// - Complexity: O(kinds × n) for a header of n bytes; no allocation.
    @inline(__always)
    func acceptedKind(contentType: String, type: AssetType?) -> Bool {
        for kind in Self.mediaKinds where (type?.accepts(kind) ?? (kind == .json)) {
            if MediaSniffer.mimeType(contentType, matches: kind) { return true }
        }
        return false
    }

    /// Status, length and type checks shared by headers and completion; nil when acceptable.
    /// `checkType: false` leaves the MIME check to the caller (a completion checks MIME against
    /// the sniffed kind, which is cheaper and stricter).
    @inline(__always)
    func headerRejection(_ index: Int, _ h: FetchHeaders, checkType: Bool) -> FetchRejection? {
        let f = fetches[index]
        if h.status == 304 && f.conditional { return nil } // headers only: checked by completeNotModified
        if readsHLS && f.slot >= 0, let range = slots[f.slot].range {
            // A sub-range: 206 with exactly its bytes (RFC 9110 §15.3.7); a 200 is the whole file.
            if h.status == 200 { return .rangeIgnored }
            if h.status != 206 { return .httpStatus(h.status) }
            guard let received = h.contentRange, received.first == range.offset, received.last == range.lastByte else {
                return .contentRangeMismatch(expected: range, received: h.contentRange)
            }
        } else if h.status != 200 {
            return .httpStatus(h.status)
        }
        if let length = h.contentLength, length > f.byteLimit {
            return .contentLengthOverLimit(contentLength: length, limitBytes: f.byteLimit)
        }
        guard let contentType = h.contentType else { return .contentTypeMissing }
        if checkType && !acceptedKind(contentType: contentType, type: f.slot >= 0 ? slots[f.slot].type : nil) {
            return .contentTypeNotAllowed(PayloadRejection.clip(contentType))
        }
        return nil
    }

    mutating func onHeaders(_ index: Int, _ headers: FetchHeaders, now: Instant) {
        if let rejection = headerRejection(index, headers, checkType: true) {
            reject(index, rejection, received: fetches[index].bytesReceived, completed: false, now: now)
        }
    }

    mutating func onProgress(_ index: Int, _ received: Int64, now: Instant) {
        fetches[index].bytesReceived = received
        if received > fetches[index].byteLimit {
            reject(index, .bytesOverLimit(receivedBytes: received, limitBytes: fetches[index].byteLimit), received: received, completed: false, now: now)
        }
    }

    mutating func onFailed(_ index: Int, _ failure: FetchFailure, now: Instant) {
        let id = fetches[index].id
        useStoredOnError(index, now: now)
        endFetch(index, as: .finished, received: fetches[index].bytesReceived)
        log(.fetchFailed(id, failure))
        if fetches[index].slot < 0 { log(.manifestUnavailable); phase = .fetchingAssets }
        pump(now: now)
        settle(now: now)
    }

    /// Asset fetch `index` failed with an error (a transport failure or a 5xx answer): a stored
    /// copy within stale-if-error becomes usable again instead of the asset staying missing
    /// (RFC 5861 §4). Timeouts the session itself enforces do not count.
    mutating func useStoredOnError(_ index: Int, now: Instant) {
        let slot = fetches[index].slot
        guard slot >= 0, store.useOnError(slots[slot].key, at: now) else { return }
        log(.storeHit(assetIndex: slots[slot].assetIndex, .stale))
    }

    mutating func onCompleted(_ index: Int, _ c: FetchCompletion, now: Instant) {
        let received = c.bytesReceived
        fetches[index].bytesReceived = received
        let slotIndex = fetches[index].slot
        if let rejection = headerRejection(index, c.headers, checkType: slotIndex < 0) {
            return reject(index, rejection, received: received, completed: true, now: now)
        }
        if c.headers.status == 304 { return completeNotModified(index, c, now: now) } // conditional: headerRejection let it through
        let limit = fetches[index].byteLimit
        if received > limit {
            return reject(index, .bytesOverLimit(receivedBytes: received, limitBytes: limit), received: received, completed: true, now: now)
        }
        if let length = c.headers.contentLength, length != received {
            return reject(index, .lengthMismatch(receivedBytes: received, contentLength: length), received: received, completed: true, now: now)
        }
        // A sub-range is exactly its length, with or without a `Content-Length`.
        if readsHLS && slotIndex >= 0, let range = slots[slotIndex].range, received != range.length {
            return reject(index, .lengthMismatch(receivedBytes: received, contentLength: range.length), received: received, completed: true, now: now)
        }
        if slotIndex < 0 {
            return completeManifest(index, c, now: now)
        }
        let contentType = c.headers.contentType ?? ""
        // Fields read in place: a copy of the slot would retain and release its URL.
        let slotType = slots[slotIndex].type, slotKey = slots[slotIndex].key, slotBlocking = slots[slotIndex].blocking
        let sniffed = MediaSniffer.sniff(c.prefix)
        guard let kind = sniffed, slotType.accepts(kind), MediaSniffer.mimeType(contentType, matches: kind) else {
            // Name the first failing layer: MIME type, then magic bytes, then their disagreement.
            let rejection: FetchRejection
            if !acceptedKind(contentType: contentType, type: slotType) {
                rejection = .contentTypeNotAllowed(PayloadRejection.clip(contentType))
            } else if let kind = sniffed, slotType.accepts(kind) {
                rejection = .contentTypeDisagreesWithMagic(contentType: PayloadRejection.clip(contentType), sniffed: kind)
            } else {
                rejection = .magicBytesNotAllowed(sniffed)
            }
            return reject(index, rejection, received: received, completed: true, now: now)
        }
        // An HLS playlist the session reads: parse it (and choose the variant) before storing it.
        // Optional, so a fetch of any other asset holds no array (nothing to release).
        var hlsParts: [HLSPlannedPart]? = nil
        if readsHLS && slots[slotIndex].hls.readsBody, case .bytes(let body) = c.body {
            do throws(HLSRejection) {
                hlsParts = try planHLS(slotIndex, body)
            } catch {
                return reject(index, .playlist(error), received: received, completed: true, now: now)
            }
        }
        guard let request,
              let life = PreloadStore.lifetime(of: cacheControl(c.headers.cacheControl ?? ""),
                                               ttlSeconds: request.ttlSeconds, storedAt: now)
        else {
            return reject(index, .notStorable, received: received, completed: true, now: now)
        }
        let storeLimit = min(store.capacityBytes, diskLimitBytes)
        if received > storeLimit {
            return reject(index, .storeFull(bytes: received, limitBytes: storeLimit), received: received, completed: true, now: now)
        }
        while let victim = store.evictOneForSpace(bytes: received, limitBytes: diskLimitBytes, replacing: slotKey) {
            emit(.evict(victim.key, .space))
        }
        let entry = PreloadStore.Entry(key: slotKey, bytes: received, storedAt: now, expiresAt: life.expiresAt, staleUntil: life.staleUntil,
                                       lastUsed: now, manifestTag: request.manifestTag, kind: kind, etag: c.headers.etag,
                                       errorUntil: life.errorUntil)
        guard store.insert(entry) else {
            return reject(index, .storeFull(bytes: received, limitBytes: storeLimit), received: received, completed: true, now: now)
        }
        let id = fetches[index].id
        endFetch(index, as: .finished, received: received)
        fetches[index].commit = .emitted
        emit(.storeAsset(StoreCommit(fetchID: id, entry: entry, kind: kind)))
        log(.assetStored(id, bytes: received))
        if tapped && slotBlocking { emit(.paintReady(slotKey)) }
        if let hlsParts, !hlsParts.isEmpty { addHLSParts(hlsParts, of: slotIndex) }
        pump(now: now)
        settle(now: now)
    }

    /// A 304 Not Modified answered conditional fetch `index`: the stored entry is still the
    /// server's current version. Its lifetime restarts now from the 304's `Cache-Control` (and
    /// the manifest TTL), as if stored now, without body bytes; its validator is the 304's when
    /// it sends one. The driver persists the refreshed entry (`.storeAsset` with `notModified`:
    /// no file to move). If the entry is gone (evicted while the fetch ran) or the new headers
    /// leave it no lifetime, nothing is refreshed and the answer is refused.
    mutating func completeNotModified(_ index: Int, _ c: FetchCompletion, now: Instant) {
        let slotKey = slots[fetches[index].slot].key
        guard let request, let i = store.index(of: slotKey) else {
            return reject(index, .httpStatus(304), received: 0, completed: true, now: now)
        }
        guard let life = PreloadStore.lifetime(of: cacheControl(c.headers.cacheControl ?? ""), ttlSeconds: request.ttlSeconds, storedAt: now) else {
            return reject(index, .notStorable, received: 0, completed: true, now: now)
        }
        var entry = store.entries[i]
        entry.storedAt = now
        entry.expiresAt = life.expiresAt
        entry.staleUntil = life.staleUntil
        entry.errorUntil = life.errorUntil
        entry.lastUsed = now
        entry.manifestTag = request.manifestTag
        if let tag = c.headers.etag { entry.etag = tag }
        store.insert(entry) // same key and size: always fits
        let id = fetches[index].id
        endFetch(index, as: .finished, received: 0)
        fetches[index].commit = .emitted
        emit(.storeAsset(StoreCommit(fetchID: id, entry: entry, kind: entry.kind, notModified: true)))
        log(.assetStored(id, bytes: 0))
        pump(now: now)
        settle(now: now)
    }

    mutating func completeManifest(_ index: Int, _ c: FetchCompletion, now: Instant) {
        guard let reference = request else { return }
        let parsed: PreStageRequest
        do throws(PayloadRejection) {
            switch c.body {
            case .bytes(let bytes):
                var options = policy.manifestOptions
                options.limits.documentBytesMax = policy.manifestBytesMax
                parsed = try PayloadParser.parseReferencedManifest(json: bytes, for: reference, options: options, now: now)
            case .parsedManifest(let manifest):
                try PayloadParser.checkReferencedManifest(manifest, for: reference, options: policy.manifestOptions, now: now)
                parsed = manifest
            case .none:
                return
            }
        } catch {
            return reject(index, .manifest(error), received: c.bytesReceived, completed: true, now: now)
        }
        endFetch(index, as: .finished, received: c.bytesReceived)
        request = parsed
        startAssets(format: parsed.format, now: now)
        settle(now: now)
    }

    /// The driver could not write fetch `index`'s committed asset: drop the entry (it may already
    /// be gone, evicted to make room for a later one) and report it.
    mutating func onStoreFailed(_ index: Int) {
        fetches[index].commit = .failed
        let key = slots[fetches[index].slot].key
        store.remove(key)
        log(.storeFailed(fetches[index].id, key))
    }
}
