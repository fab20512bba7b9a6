// Fuzz target `session`: a PreloadSession driven by a hostile server. The input is a script: a
// header picks the push (one of the four forms), the device, the policy knobs and a pre-populated
// store; then each step is an event the driver feeds: time passing (the driver arms one timer at
// `nextDeadline()` and fires `.timerFired` there; `now` never goes back), headers, progress and
// completions of any running fetch with arbitrary status, Cache-Control, Content-Type,
// Content-Length, ETag, byte counts, magic bytes and manifest bodies (valid, hostile or
// truncated), failures, late reports for cancelled fetches, store-write failures, taps and the
// OS's expiry warning. After the script the driver keeps firing the timer until the session ends.
//
// The driver obeys the documented protocol (PreloadKit.swift: drain before the next input, every
// .startFetch answered once unless cancelled, progress never decreasing, a manifest fetch's
// completion carries a body and an asset's none, Content-Length ≥ 0), so any thrown SessionError
// is a failure. The session runs with PRESTAGE_INVARIANTS on (its own and the store's checks).
// Invariants checked after every input (SessionPropertyTests' properties, as traps):
// - delivered exactly once, at the input's `now`, never after the hard deadline;
// - the store never above its byte capacity or entry limit, its byte count the sum of its entries;
// - a stored asset is what a completion reported: status 200 (or 304 on a revalidation), the bytes
//   received, within the fetch's byte limit, equal to Content-Length when given;
// - every fetch id is new, every cancel names a running fetch, every fetch started is answered or
//   cancelled exactly once, none is left running at the end;
// - no fetch started at or after the hard deadline, none whose timeout passes it, none on a
//   gated network (offline/2G, Low Data Mode, Save-Data), no blocking fetch after the delivery;
// - metered bytes (every started fetch counted at its limit until it ends) within the policy's cap;
// - `nextDeadline()` never before `now` nor after the hard deadline; nil once finished;
// - after the end only late-report and store-failure logs and tap answers.
import PreloadKit

enum SessionFixtures {
    static let inline = [
        #"{"aps":{"alert":{"title":"Your weekly mix is ready","body":"Tap to play 12 new tracks"},"mutable-content":1},"cdn_preload":{"manifest_id":"mix_wk42_7f3a9","assets":[{"url":"https://cdn.example.com/mix/wk42/cover_800x800.webp","type":"image","priority":"critical","bytes":48200},{"url":"https://cdn.example.com/mix/wk42/preview.m3u8","type":"hls","priority":"critical","bytes":320000}],"ttl":14400}}"#,
        #"{"aps":{"alert":"Sale","mutable-content":1},"cdn_preload":{"manifest_id":"sale_9","ttl":600,"assets":[{"url":"https://img.cdn.example.net/s/hero.jpg?token=abc","type":"image","priority":"critical","bytes":200000,"variants":{"3g":{"url":"https://img.cdn.example.net/s/hero_400.jpg","bytes":30000},"wifi":{"url":"https://img.cdn.example.net/s/hero_1600.jpg","bytes":900000}}},{"url":"https://cdn.example.com/s/items.json","type":"json","priority":"critical","bytes":4000},{"url":"https://cdn.example.com/s/clip.mp4","type":"video","priority":"critical"},{"url":"https://cdn.example.com/s/jingle.mp3","type":"audio","priority":"high","bytes":90000}]}}"#,
        #"{"aps":{"alert":"x","mutable-content":1},"cdn_preload":{"manifest_id":"dup","ttl":60,"assets":[{"url":"https://cdn.example.com/a.png","type":"png","priority":"critical","bytes":1000},{"url":"https://cdn.example.com/a.png?token=2","type":"image","priority":"critical","bytes":1000},{"url":"https://cdn.example.com/b.gif","type":"gif","priority":"critical","bytes":3000000}]}}"#,
    ]
    static let reference = #"{"aps":{"alert":{"title":"New mix","body":"Tap to play"},"mutable-content":1},"cdn_preload":{"manifest_id":"mix_wk43_ab12","manifest_url":"https://cdn.example.com/preload/manifests/mix_wk43.json"}}"#
    /// Documents the server may answer the manifest fetch with (the first one signed for the
    /// fixture key, as in PayloadFixtures.swift).
    static let documents = [
        #"{"manifest_id":"mix_wk43_ab12","ttl":18000,"assets":[{"url":"https://cdn.example.com/mix/wk43/cover.jpg","type":"image","priority":"critical","bytes":52000,"variants":{"3g":{"url":"https://cdn.example.com/mix/wk43/cover_400.jpg","bytes":18000},"wifi":{"url":"https://cdn.example.com/mix/wk43/cover_1600.jpg","bytes":210000}}},{"url":"https://cdn.example.com/mix/wk43/tracks.json","type":"json","priority":"critical","bytes":4000},{"url":"https://cdn.example.com/mix/wk43/bg.mp4","type":"video","priority":"normal","bytes":2400000}],"signature":"v1=f452add09f492b36bc6d7ec05963d07dc3d1db372afaaa7f84fec52020496b3c"}"#,
        #"{"cdn_preload":{"manifest_id":"mix_wk43_ab12","assets":[{"url":"https://cdn.example.com/mix/wk43/a.webp","type":"webp","priority":"critical","bytes":10000}]}}"#,
        #"{"manifest_id":"other","assets":[]}"#,
    ].map { Array($0.utf8) }
    static let silent = #"{"aps":{"content-available":1},"pre_stage_url":"https://cdn.example.com/push/hero_a2_800w.webp?v=8f3a","pre_stage_id":"hero_a2","version":"8f3a"}"#
    static let rich = #"{"aps":{"alert":{"title":"Flash sale","body":"50% off for 2 hours"},"mutable-content":1},"au":"https://cdn.example.com/rich/sale_banner.jpg","at":"jpg"}"#

    static let requests: [PreStageRequest] = (inline + [reference, silent, rich]).map {
        try! PayloadParser.parse(json: Array($0.utf8), options: Fuzz.options(.none))
    }
    static let parsedDocuments: [PreStageRequest] = documents.prefix(2).map {
        try! PayloadParser.parseReferencedManifest(json: $0, for: requests[3], options: Fuzz.options(.none))
    }

    static let cacheControls: [String?] = [
        nil, "public, max-age=14400, stale-while-revalidate=86400", "max-age=60", "no-store", "no-cache", "max-age=0, stale-while-revalidate=30",
        "max-age=86400, stale-if-error=600", "private, max-age=2147483648, stale-while-revalidate=2147483649", "max-age=\"5\", no-cache=\"Set-Cookie\"",
    ]
    static let contentTypes: [String?] = [
        nil, "image/jpeg", "image/png", "image/gif", "image/webp", "video/mp4", "audio/mpeg", "application/json", "application/vnd.apple.mpegurl",
        "application/x-mpegURL", "text/html", "Image/WebP; charset=binary", "", "application/octet-stream",
    ]
    static let prefixes: [[UInt8]] = [
        [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01],
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D],
        Array("GIF89a\u{01}\u{00}\u{01}\u{00}\u{00}\u{00}".utf8),
        Array("RIFF".utf8) + [0x24, 0x00, 0x00, 0x00] + Array("WEBP".utf8),
        [0x00, 0x00, 0x00, 0x18] + Array("ftypmp42".utf8),
        Array("ID3\u{04}\u{00}\u{00}\u{00}\u{00}\u{00}\u{00}\u{00}\u{00}".utf8),
        Array("{\"tracks\": [1, 2]}".utf8),
        Array("#EXTM3U\n#EXT-X-VERSION:3\n".utf8),
        Array("<!doctype html>".utf8),
        [],
    ]
    static let statuses = [200, 200, 200, 200, 304, 206, 204, 301, 404, 429, 500, 503, 504, 0, 199, 299]
}

/// The driver's view of one fetch it is running.
struct Running {
    let request: FetchRequest
    var progress: Int64 = 0
}

struct SessionRun {
    var script: FuzzBytes
    var session: PreloadSession
    let policy: PreloadPolicy
    let context: DeviceContext
    let request: PreStageRequest
    var now: Instant
    let hardDeadline: Instant
    var running: [Running] = []
    var cancelled: [FetchID] = []
    var issued = Set<FetchID>()
    var commits: [FetchID] = []          // stored assets whose write the driver may still fail
    var meteredEnded: Int64 = 0          // metered accounting: bytes counted for ended fetches
    var deliveries = 0
    var finishedSeen = false
    /// The fetch the current input reports on, and the completion it carries.
    var reported: (id: FetchID, completion: FetchCompletion?)? = nil

    init?(_ script: inout FuzzBytes) {
        let form = script.below(SessionFixtures.requests.count)
        request = SessionFixtures.requests[form]
        let kind = HandlerKind.allCases[script.below(HandlerKind.allCases.count)]
        let network = NetworkClass.allCases[script.below(NetworkClass.allCases.count)]
        let flags = script.byte()
        let free: Int64 = flags & 8 != 0 ? Int64(script.uint32()) * 16 : 5_000_000_000
        context = DeviceContext(handlerKind: kind, network: network, isConstrained: flags & 1 != 0, isExpensive: flags & 2 != 0,
                                saveData: flags & 4 != 0, freeStorageBytes: free, receiptJitterUniform: Double(script.byte()) / 256)
        var p = PreloadPolicy(manifestOptions: Fuzz.options(flags & 16 != 0 ? .required : .none))
        let knobs = script.byte()
        p.fetchMode = knobs & 1 != 0 ? .sequential : .parallel
        p.fetchConcurrencyMax = 1 + Int(knobs >> 1 & 3)
        p.criticalAssetsMax = 1 + Int(knobs >> 3 & 3)
        p.eligiblePriority = knobs & 32 != 0 ? .high : .critical
        p.oneAssetPerSilentPush = knobs & 64 == 0
        p.prefetchInLowDataMode = knobs & 128 != 0
        p.receiptsEnabled = flags & 32 != 0
        p.fallbackOnHandlerDeadline = flags & 64 != 0
        p.attachMedia = flags & 128 == 0
        p.meteredSessionBytesMax = [500_000, 100_000, 0, 5_000_000][script.below(4)]
        p.requestTimeoutMicroseconds = Int64(1 + script.below(30)) * 1_000_000
        p.manifestBytesMax = [16_384, 64, 1_048_576][script.below(3)]
        policy = p
        var store = PreloadStore(capacityBytes: [300_000, 1_000_000, 25_000_000, 1][script.below(4)], entriesMax: 1 + script.below(8))
        now = Instant(microseconds: 1_700_000_000 * 1_000_000 + Int64(script.uint16()))
        // A few stored entries, most of them the request's own assets (fresh, stale, expired, with
        // or without a validator and stale-if-error window).
        for j in 0..<script.below(5) {
            let key: StoreKey
            if !request.assets.isEmpty && script.bool() {
                key = request.assets[script.below(request.assets.count)].resolved(for: network).key
            } else {
                key = StoreKey(cacheKey: "other-\(j)")
            }
            let stored = now.advanced(bySeconds: -Int64(script.uint16()))
            let fresh = stored.advanced(bySeconds: Int64(script.uint16()))
            let stale = fresh.advanced(bySeconds: Int64(script.uint16()))
            let error: Instant? = script.bool() ? stale.advanced(bySeconds: Int64(script.uint16())) : nil
            let etag: EntityTag? = script.bool() ? EntityTag(fingerprint: UInt64(script.byte())) : nil
            let bytes = Int64(1 + script.below(200_000))
            var limit = store.capacityBytes
            while store.evictOneForSpace(bytes: bytes, limitBytes: limit, replacing: key) != nil { limit = store.capacityBytes }
            guard bytes <= store.capacityBytes, store.index(of: key) != nil || store.entries.count < store.entriesMax else { continue }
            _ = store.insert(PreloadStore.Entry(key: key, bytes: bytes, storedAt: stored, expiresAt: fresh, staleUntil: stale, lastUsed: stored,
                                                manifestTag: request.manifestTag, kind: .jpeg, etag: etag, errorUntil: error))
        }
        guard let s = try? PreloadSession(policy: policy, store: store) else { return nil }
        session = s
        hardDeadline = now.advanced(byMicroseconds: policy.deadlines[kind])
        self.script = script
    }

    // MARK: Feeding

    mutating func feed(_ input: Input) {
        let kind = input.kind
        do {
            try session.handle(input, now: now)
        } catch {
            fatalError("fuzz invariant broken: a legal \(kind) at \(now) was refused: \(error)")
        }
        var actions: [Action] = []
        while let a = session.pollAction() { actions.append(a) }
        check(actions, after: kind)
        reported = nil
    }

    /// The driver's clock moves forward by `delta`, but never past the timer it armed.
    mutating func advance(by delta: Int64) {
        guard let deadline = session.nextDeadline() else { now = now.advanced(byMicroseconds: delta); return }
        now = min(now.advanced(byMicroseconds: delta), deadline)
    }

    /// The armed timer fires if `now` reached it.
    mutating func fireTimerIfDue() {
        if let deadline = session.nextDeadline(), now >= deadline { feed(.timerFired) }
    }

    mutating func headers(byteLimit: Int64) -> FetchHeaders {
        let status = script.bool() ? SessionFixtures.statuses[script.below(SessionFixtures.statuses.count)] : Int(script.uint16())
        let cc: String? = script.byte() < 200 ? SessionFixtures.cacheControls[script.below(SessionFixtures.cacheControls.count)]
                                              : String(decoding: script.chunk(max: 48), as: UTF8.self)
        let ct: String? = script.byte() < 220 ? SessionFixtures.contentTypes[script.below(SessionFixtures.contentTypes.count)]
                                              : String(decoding: script.chunk(max: 32), as: UTF8.self)
        let length: Int64?
        switch script.below(6) {
        case 0: length = nil
        case 1: length = byteLimit
        case 2: length = byteLimit + 1
        case 3: length = Int64(script.uint32())
        case 4: length = Int64(script.uint64() >> 1)   // any non-negative Int64
        default: length = Int64(script.uint16())
        }
        let etag: EntityTag? = script.bool() ? EntityTag(fingerprint: UInt64(script.byte())) : nil
        return FetchHeaders(status: status, cacheControl: cc, contentType: ct, contentLength: length, etag: etag)
    }

    mutating func step() {
        let op = script.below(16)
        // Most events arrive a little later than the previous one (0 to 2.55 s).
        if op != 0 && op != 1 { advance(by: Int64(script.byte()) * 10_000) }
        switch op {
        case 0:
            advance(by: Int64(script.uint16()) * 1_000)      // up to 65 s, stopping at the timer
            fireTimerIfDue()
            return
        case 1:
            if let deadline = session.nextDeadline() { now = deadline; feed(.timerFired) }
            return
        case 2, 3, 4, 5, 6, 7, 8:
            guard !running.isEmpty else { break }
            let i = script.below(running.count)
            let f = running[i].request
            switch op {
            case 2:
                reported = (f.id, nil)
                feed(.fetchHeaders(f.id, headers(byteLimit: f.byteLimit)))
            case 3:
                let received = max(running[i].progress, [f.byteLimit, f.byteLimit + 1, Int64(script.uint32()), running[i].progress + 1][script.below(4)])
                running[i].progress = received
                reported = (f.id, nil)
                feed(.fetchProgress(f.id, bytesReceived: received))
            case 8:
                running.remove(at: i)
                reported = (f.id, nil)
                feed(.fetchFailed(f.id, FetchFailure.allCases[script.below(FetchFailure.allCases.count)]))
            default:
                let h = headers(byteLimit: f.byteLimit)
                var received: Int64
                switch script.below(5) {
                case 0: received = h.contentLength ?? f.byteLimit
                case 1: received = f.byteLimit
                case 2: received = f.byteLimit + 1
                case 3: received = Int64(script.uint32())
                default: received = Int64(script.uint16())
                }
                var body = FetchBody.none
                if case .manifest = f.purpose {
                    switch script.below(4) {
                    case 0: body = .bytes(SessionFixtures.documents[script.below(SessionFixtures.documents.count)])
                    case 1: body = .parsedManifest(SessionFixtures.parsedDocuments[script.below(SessionFixtures.parsedDocuments.count)])
                    case 2: body = .bytes(script.chunk(max: 255))
                    default:
                        let doc = SessionFixtures.documents[script.below(SessionFixtures.documents.count)]
                        body = .bytes(Array(doc.prefix(script.below(doc.count + 1))))
                    }
                    if case .bytes(let b) = body, script.bool() { received = Int64(b.count) }
                }
                received = max(received, running[i].progress)
                let prefix = script.byte() < 220 ? SessionFixtures.prefixes[script.below(SessionFixtures.prefixes.count)] : script.chunk(max: 16)
                let completion = FetchCompletion(headers: h, bytesReceived: received, prefix: prefix, body: body)
                running.remove(at: i)
                meteredEnded += min(received, f.byteLimit)
                reported = (f.id, completion)
                feed(.fetchCompleted(f.id, completion))
            }
        case 9:
            guard !commits.isEmpty else { break }
            feed(.storeFailed(commits.remove(at: script.below(commits.count))))
        case 10:
            // A late report for a fetch the session already cancelled: ignored, never an error.
            guard !cancelled.isEmpty else { break }
            let id = cancelled[script.below(cancelled.count)]
            feed(script.bool() ? .fetchFailed(id, .cancelledBySystem)
                               : .fetchCompleted(id, FetchCompletion(headers: FetchHeaders(status: 200), bytesReceived: 0, prefix: [])))
        case 11:
            guard !session.isFinished else { break }
            feed(.expiryWarning)
        default:
            feed(.userTapped)
        }
        fireTimerIfDue()
    }

    // MARK: Invariants

    func isBlocking(_ f: FetchRequest) -> Bool { !f.isRevalidation }

    mutating func check(_ actions: [Action], after kind: InputKind) {
        let where_ = "after \(kind) at \(now)"
        for a in actions {
            if finishedSeen {
                switch a {
                case .log(.lateInputIgnored), .log(.storeFailed), .tapAnswer: break
                default: require(false, "\(a) \(where_), after the session finished")
                }
            }
            switch a {
            case .startFetch(let f):
                require(issued.insert(f.id).inserted, "\(f.id) started twice")
                require(now < hardDeadline, "fetch started at/after the hard deadline \(where_)")
                require(now.advanced(byMicroseconds: f.timeoutMicroseconds) <= hardDeadline, "fetch timeout past the hard deadline \(where_)")
                require(f.timeoutMicroseconds > 0 && f.timeoutMicroseconds <= policy.requestTimeoutMicroseconds, "fetch timeout \(f.timeoutMicroseconds)")
                require(f.byteLimit > 0, "byte limit \(f.byteLimit)")
                require(!context.network.forbidsPrefetch, "fetch on \(context.network)")
                require(!(context.isConstrained && !policy.prefetchInLowDataMode), "fetch in Low Data Mode")
                require(!(context.saveData && !policy.prefetchWithSaveData), "fetch with Save-Data")
                if deliveries > 0 { require(f.isRevalidation, "blocking fetch after the delivery \(where_)") }
                if case .asset = f.purpose {
                    require(f.byteLimit <= policy.assetBytesMax, "asset byte limit \(f.byteLimit) > assetBytesMax")
                    if !context.network.allowsLargeAssets { require(f.byteLimit <= policy.largeAssetThresholdBytes, "large asset on \(context.network)") }
                } else {
                    require(f.byteLimit <= Int64(policy.manifestBytesMax), "manifest byte limit \(f.byteLimit)")
                }
                running.append(Running(request: f))
            case .cancelFetch(let id, _):
                if let i = running.firstIndex(where: { $0.request.id == id }) {
                    meteredEnded += running[i].request.byteLimit   // the driver may have read up to the limit
                    running.remove(at: i)
                    cancelled.append(id)
                } else {
                    // Only the fetch this very input reported on may be cancelled once it ended
                    // (its report came at or after its timeout); the driver reports it no more.
                    require(reported?.id == id, "cancel of \(id), which is not running \(where_)")
                }
            case .storeAsset(let c):
                guard let r = reported, r.id == c.fetchID, let completion = r.completion else {
                    require(false, "storeAsset for \(c.fetchID) \(where_), not in answer to its completion"); break
                }
                if c.notModified {
                    require(completion.headers.status == 304, "notModified commit for status \(completion.headers.status)")
                } else {
                    require(completion.headers.status == 200, "stored an asset answered with status \(completion.headers.status)")
                    require(c.entry.bytes == completion.bytesReceived, "stored \(c.entry.bytes) bytes, received \(completion.bytesReceived)")
                    if let length = completion.headers.contentLength { require(length == completion.bytesReceived, "stored a body of \(completion.bytesReceived) bytes, Content-Length \(length)") }
                    require(c.entry.bytes <= policy.assetBytesMax, "stored \(c.entry.bytes) > assetBytesMax")
                }
                require(c.entry.storedAt <= c.entry.expiresAt && c.entry.expiresAt <= c.entry.staleUntil, "stored entry lifetime out of order: \(c.entry)")
                commits.append(c.fetchID)
            case .deliver(let d):
                deliveries += 1
                require(deliveries == 1, "delivered twice \(where_)")
                require(d.at == now, "delivery stamped \(d.at), now \(now)")
                require(d.at <= hardDeadline, "delivered after the hard deadline")
                if d.reason == .assetsSettled || d.reason == .nothingToFetch {
                    require(!running.contains { isBlocking($0.request) }, "delivered (\(d.reason)) while a blocking fetch runs")
                }
                if let att = d.attachment {
                    require(!context.handlerKind.isSilent, "attachment for a silent handler")
                    require(att.bytes <= policy.attachmentLimits[att.category], "attachment over its limit")
                }
            case .log(.storeFailed(_, let key)):
                require(session.store.index(of: key) == nil, "entry kept after storeFailed")
            default: break
            }
        }
        if let r = reported, r.completion != nil || kind == .fetchFailed {
            // The report ended its fetch (whether applied or found already timed out).
            running.removeAll { $0.request.id == r.id }
        }
        let store = session.store
        require(store.usedBytes <= store.capacityBytes, "store above capacity: \(store.usedBytes) > \(store.capacityBytes)")
        require(store.usedBytes == store.entries.reduce(0) { $0 + $1.bytes }, "usedBytes out of sync")
        require(store.entries.count <= store.entriesMax, "store above entriesMax")
        if context.isMetered {
            let committed = meteredEnded + running.reduce(0) { $0 + $1.request.byteLimit }
            require(committed <= policy.meteredSessionBytesMax, "metered cap exceeded: \(committed) > \(policy.meteredSessionBytesMax)")
        }
        if let deadline = session.nextDeadline() {
            require(deadline >= now, "nextDeadline \(deadline) before now \(now) \(where_)")
            require(deadline <= hardDeadline, "nextDeadline after the hard deadline")
        }
        if session.isFinished {
            finishedSeen = true
            require(session.nextDeadline() == nil, "finished with a deadline")
        }
    }

    mutating func run() {
        feed(.pushReceived(request, context))
        var steps = 0
        while !script.isExhausted && steps < 400 { step(); steps += 1 }
        // The server goes quiet: the driver only fires its timer until the session ends.
        var fires = 0
        while !session.isFinished {
            guard let deadline = session.nextDeadline() else { require(false, "session neither finished nor waiting"); return }
            fires += 1
            require(fires < 200, "the session did not finish after 200 timer fires")
            now = deadline
            feed(.timerFired)
        }
        require(deliveries == 1, "delivered \(deliveries) times")
        require(running.isEmpty, "finished with fetches the driver still runs: \(running.map(\.request.id))")
        feed(.userTapped)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzSession(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var script = FuzzBytes(data, size)
    guard var run = SessionRun(&script) else { return 0 }
    run.run()
    return 0
}
