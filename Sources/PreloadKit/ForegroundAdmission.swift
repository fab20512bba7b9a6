/// What became of a response the app fetched in the foreground after a tap
/// (`PreloadStore.admitForeground`).
public enum ForegroundAdmission: Sendable, Equatable {
    /// Kept: the store holds `entry` (write the body to `entry.key.fileName`); the entries named
    /// in the call's `evicted` buffer were removed to make room (delete their files).
    case stored(PreloadStore.Entry)
    /// Not kept (the store is unchanged): the reason, as a pre-stage fetch would be rejected.
    /// The app may still show the response; it is only not written to the store.
    case rejected(FetchRejection)
}

extension PreloadStore {
    /// Keeps a response the app fetched in the foreground (a tap found a critical asset missing)
    /// as a pre-staged one would be kept, so a later tap on a push naming the same asset URL
    /// paints from the store. The checks are a pre-stage fetch's, in the same order:
    /// status 200; `Content-Length` (when sent) equal to the bytes received and within
    /// `min(policy.assetBytesMax, store limit)`; a `Content-Type`; MIME type AND magic bytes
    /// agreeing on a kind `type` accepts; a storable lifetime from `Cache-Control` bounded by the
    /// manifest's `ttlSeconds` (`PreloadStore.lifetime`); room under the store limit, made by
    /// LRU eviction. The store limit is `min(capacityBytes, usedBytes + freeStorageBytes −
    /// policy.freeStorageFloorBytes)`, as a session computes it. The session-only gates
    /// (metered budget, large-asset threshold on slow networks, Low Data Mode, Save-Data) do not
    /// apply: the user asked for the screen, the app fetched it anyway.
    ///
    /// Sans-I/O: the store changes, nothing else. `evicted` is cleared (keeping its capacity)
    /// and receives the keys of the entries removed for space, in removal order; it is filled
    /// even when the insert then fails (those files must still go).
    /// - Parameters:
    ///   - completion: the finished response (headers, bytes received, the body's first bytes).
    ///   - key: the store key of the URL fetched (`AssetSpec.resolved(for:)`'s key).
    ///   - type: the asset's declared type in the payload.
    ///   - request: the push's request (its `ttlSeconds` and `manifestTag` go to the entry).
    ///   - redirected: the app's loader reached `completion` by following a redirect (its final
    ///     URL is not the asset's): refused as `.redirected`, so a CDN's placeholder never stands
    ///     in for the asset in the store (a later tap would paint it as if pre-staged).
    ///   - range: the sub-range the app's player asked for (an HLS byte-range part; `key` is then
    ///     `AssetURL.storeKey(range:)`): kept only as the 206 naming exactly it, with its length
    ///     in bytes, as a pre-stage fetch of it (`FetchRequest.range`).
    /// - Complexity: O(e) per eviction for e entries; no allocation once `evicted` has room.
    public mutating func admitForeground(_ completion: FetchCompletion, key: StoreKey, type: AssetType, request: PreStageRequest,
                                         policy: PreloadPolicy, freeStorageBytes: Int64, now: Instant, redirected: Bool = false,
                                         range: ByteRange? = nil, evicted: inout [StoreKey]) -> ForegroundAdmission {
        evicted.removeAll(keepingCapacity: true)
        if redirected { return .rejected(.redirected) }
        let (headroom, o1) = freeStorageBytes.subtractingReportingOverflow(policy.freeStorageFloorBytes)
        let (disk, o2) = usedBytes.addingReportingOverflow(o1 ? .min : headroom)
        let diskLimit = o1 || o2 ? 0 : max(0, disk)
        let storeLimit = min(capacityBytes, diskLimit)
        let kind: MediaKind, expiresAt: Instant, staleUntil: Instant
        switch ForegroundAdmission.check(completion, type: type, byteLimit: min(policy.assetBytesMax, storeLimit),
                                         ttlSeconds: request.ttlSeconds, now: now, range: range) {
        case .rejected(let rejection): return .rejected(rejection)
        case .kept(let k, let e, let u): (kind, expiresAt, staleUntil) = (k, e, u)
        }
        let received = completion.bytesReceived
        while let victim = evictOneForSpace(bytes: received, limitBytes: diskLimit, replacing: key) { evicted.append(victim.key) }
        let entry = Entry(key: key, bytes: received, storedAt: now, expiresAt: expiresAt, staleUntil: staleUntil,
                          lastUsed: now, manifestTag: request.manifestTag, kind: kind)
        guard insert(entry) else { return .rejected(.storeFull(bytes: received, limitBytes: storeLimit)) }
        return .stored(entry)
    }
}

/// The outcome of the response checks of `PreloadStore.admitForeground`.
enum ForegroundCheck {
    /// The media kind established and the entry's freshness window.
    case kept(MediaKind, expiresAt: Instant, staleUntil: Instant)
    case rejected(FetchRejection)
}

extension ForegroundAdmission {
    /// The response checks of `PreloadStore.admitForeground` (everything but room in the store),
    /// in a pre-stage fetch's order; the first failing one is the rejection.
    static func check(_ c: FetchCompletion, type: AssetType, byteLimit: Int64, ttlSeconds: Int64, now: Instant,
                      range: ByteRange? = nil) -> ForegroundCheck {
        let h = c.headers
        let received = c.bytesReceived
        if let range {
            if h.status == 200 { return .rejected(.rangeIgnored) }
            if h.status != 206 { return .rejected(.httpStatus(h.status)) }
            guard let cr = h.contentRange, cr.first == range.offset, cr.last == range.lastByte else {
                return .rejected(.contentRangeMismatch(expected: range, received: h.contentRange))
            }
            if received != range.length { return .rejected(.lengthMismatch(receivedBytes: received, contentLength: range.length)) }
        } else if h.status != 200 {
            return .rejected(.httpStatus(h.status))
        }
        if let length = h.contentLength, length > byteLimit {
            return .rejected(.contentLengthOverLimit(contentLength: length, limitBytes: byteLimit))
        }
        guard let contentType = h.contentType else { return .rejected(.contentTypeMissing) }
        if received > byteLimit { return .rejected(.bytesOverLimit(receivedBytes: received, limitBytes: byteLimit)) }
        if let length = h.contentLength, length != received {
            return .rejected(.lengthMismatch(receivedBytes: received, contentLength: length))
        }
        let sniffed = MediaSniffer.sniff(c.prefix)
        guard let kind = sniffed, type.accepts(kind), MediaSniffer.mimeType(contentType, matches: kind) else {
            // The first failing layer: MIME type, then magic bytes, then their disagreement.
            if !PreloadSession.mediaKinds.contains(where: { type.accepts($0) && MediaSniffer.mimeType(contentType, matches: $0) }) {
                return .rejected(.contentTypeNotAllowed(PayloadRejection.clip(contentType)))
            }
            if let kind = sniffed, type.accepts(kind) {
                return .rejected(.contentTypeDisagreesWithMagic(contentType: PayloadRejection.clip(contentType), sniffed: kind))
            }
            return .rejected(.magicBytesNotAllowed(sniffed))
        }
        guard let life = PreloadStore.lifetime(of: CacheControl.parse(h.cacheControl ?? ""), ttlSeconds: ttlSeconds, storedAt: now) else {
            return .rejected(.notStorable)
        }
        return .kept(kind, expiresAt: life.expiresAt, staleUntil: life.staleUntil)
    }
}
