import XCTest
@testable import PreloadKit

/// Seeded property tests: thousands of random requests, device contexts, policies, stores and
/// input orders, driven by a well-behaved random driver (it fires the timer exactly at
/// `nextDeadline()`, answers every fetch, respects byte limits except when it deliberately sends
/// an oversized body). Invariants checked after every input:
/// delivered exactly once; never after the hard deadline; store never above capacity; no fetch of a
/// non-critical or gated asset; metered bytes within the cap; nothing but late-report and
/// store-failure logs and tap answers after the end; an entry gone once its write failure is
/// reported; every tap answer equal to `PreloadStore.tapAnswer` over the session's store; no error
/// for any legal input (the random driver also fails some stores, during and after the session).
final class SessionPropertyTests: XCTestCase {
    static let kinds: [MediaKind] = [.jpeg, .png, .gif, .webp, .mp4, .mp3, .json, .m3u8]
    static let prefixes: [MediaKind: [UInt8]] = [
        .jpeg: Fixtures.jpegPrefix, .png: Fixtures.pngPrefix, .gif: Array("GIF89a\u{01}\u{00}\u{01}\u{00}\u{00}\u{00}".utf8),
        .webp: Fixtures.webpPrefix, .mp4: Fixtures.mp4Prefix, .mp3: Array("ID3\u{04}\u{00}\u{00}\u{00}\u{00}\u{00}\u{00}\u{00}\u{00}".utf8),
        .json: Array("{\"tracks\": [1, 2]}".utf8), .m3u8: Fixtures.m3u8Prefix,
    ]
    static let typeTokens = ["image", "video", "audio", "hls", "json", "jpg", "png", "gif", "webp", "mp4", "mp3", "m3u8"]
    static let priorities = ["critical", "critical", "high", "normal", "low"]
    static let cacheControls: [String?] = [nil, "public, max-age=14400, stale-while-revalidate=86400", "max-age=60", "no-store", "no-cache",
                                           "max-age=0, stale-while-revalidate=30", "max-age=86400, stale-while-revalidate=3600"]

    struct Scenario {
        var request: PreStageRequest
        var document: [UInt8]?
        var context: DeviceContext
        var policy: PreloadPolicy
        var store: PreloadStore
    }

    func randomAssetsJSON(_ rng: inout CoreRNG, count: Int, tag: Int) -> String {
        var assets: [String] = []
        for i in 0..<count {
            let bytes = rng.chance(0.2) ? "" : #","bytes":\#([1_000, 40_000, 200_000, 260_000, 480_000, 3_000_000][rng.below(6)])"#
            var variants = ""
            if rng.chance(0.3) {
                let nets = ["wifi", "5g", "4g", "3g", "2g", "slow-2g"]
                let net = nets[rng.below(nets.count)]
                variants = #","variants":{"\#(net)":{"url":"https://cdn.example.com/v\#(tag)/\#(i)_\#(net).bin","bytes":\#(1_000 + rng.below(300_000))}}"#
            }
            let type = Self.typeTokens[rng.below(Self.typeTokens.count)]
            let priority = Self.priorities[rng.below(Self.priorities.count)]
            let host = rng.chance(0.5) ? "cdn.example.com" : "img.cdn.example.net"
            assets.append(#"{"url":"https://\#(host)/a\#(tag)/\#(i).bin?token=\#(rng.below(1000))","type":"\#(type)","priority":"\#(priority)"\#(bytes)\#(variants)}"#)
        }
        return "[" + assets.joined(separator: ",") + "]"
    }

    func randomScenario(_ rng: inout CoreRNG) throws -> Scenario {
        let options = Fixtures.options(.none)
        let tag = rng.below(4)
        var document: [UInt8]? = nil
        let request: PreStageRequest
        switch rng.below(4) {
        case 0:
            request = try PayloadParser.parse(json: Fixtures.bytes(#"{"aps":{"alert":"x","mutable-content":1},"cdn_preload":{"manifest_id":"m\#(tag)","ttl":\#(60 + rng.below(20_000)),"assets":\#(randomAssetsJSON(&rng, count: rng.below(6), tag: tag))}}"#), options: options)
        case 1:
            request = try PayloadParser.parse(json: Fixtures.bytes(#"{"cdn_preload":{"manifest_id":"r\#(tag)","manifest_url":"https://cdn.example.com/m/\#(tag).json"}}"#), options: options)
            document = Fixtures.bytes(#"{"manifest_id":"r\#(tag)","assets":\#(randomAssetsJSON(&rng, count: rng.below(5), tag: tag + 10))}"#)
        case 2:
            let type = ["", #","pre_stage_type":"png""#, #","pre_stage_type":"json""#][rng.below(3)]
            request = try PayloadParser.parse(json: Fixtures.bytes(#"{"aps":{"content-available":1},"pre_stage_url":"https://cdn.example.com/s/\#(tag).bin","pre_stage_id":"s\#(tag)"\#(type)}"#), options: options)
        default:
            let at = ["jpg", "png", "gif", "mp4", "mp3"][rng.below(5)]
            request = try PayloadParser.parse(json: Fixtures.bytes(#"{"aps":{"alert":"x","mutable-content":1},"au":"https://cdn.example.com/r/\#(tag).\#(at)","at":"\#(at)"}"#), options: options)
        }
        let context = DeviceContext(
            handlerKind: HandlerKind.allCases[rng.below(4)], network: NetworkClass.allCases[rng.below(NetworkClass.allCases.count)],
            isConstrained: rng.chance(0.1), isExpensive: rng.chance(0.2), saveData: rng.chance(0.1),
            freeStorageBytes: rng.chance(0.1) ? Int64(rng.below(100_000_000)) : 5_000_000_000, receiptJitterUniform: rng.unit())
        var policy = Fixtures.policy(.none)
        policy.fetchMode = rng.chance(0.5) ? .sequential : .parallel
        policy.fetchConcurrencyMax = 1 + rng.below(3)
        policy.meteredSessionBytesMax = [500_000, 100_000, 0][rng.below(3)]
        policy.criticalAssetsMax = 1 + rng.below(3)
        policy.eligiblePriority = rng.chance(0.8) ? .critical : .high
        policy.oneAssetPerSilentPush = rng.chance(0.8)
        policy.prefetchInLowDataMode = rng.chance(0.3)
        policy.receiptsEnabled = rng.chance(0.5)
        policy.requestTimeoutMicroseconds = Int64(1 + rng.below(30)) * 1_000_000
        var store = PreloadStore(capacityBytes: Int64([300_000, 1_000_000, 25_000_000][rng.below(3)]), entriesMax: 2 + rng.below(6))
        // Pre-populate with a few entries, some of them the request's own assets.
        for j in 0..<rng.below(5) {
            let key: StoreKey
            if !request.assets.isEmpty && rng.chance(0.5) {
                key = request.assets[rng.below(request.assets.count)].resolved(for: context.network).key
            } else {
                key = StoreKey(cacheKey: "other-\(tag)-\(j)")
            }
            let stored = Int64(-rng.below(20_000)) * 1_000_000
            let fresh = stored + Int64(rng.below(30_000)) * 1_000_000
            let stale = fresh + Int64(rng.below(30_000)) * 1_000_000
            var limit = store.capacityBytes
            let bytes = Int64(1 + rng.below(200_000))
            while let _ = store.evictOneForSpace(bytes: bytes, limitBytes: limit, replacing: key) { limit = store.capacityBytes }
            store.insert(PreloadStore.Entry(key: key, bytes: bytes, storedAt: Instant(microseconds: stored), expiresAt: Instant(microseconds: fresh),
                                            staleUntil: Instant(microseconds: stale), lastUsed: Instant(microseconds: stored), manifestTag: UInt64(tag), kind: .jpeg))
        }
        return Scenario(request: request, document: document, context: context, policy: policy, store: store)
    }

    /// The asset (and its index) a fetch of `key` belongs to in `request` for `network`.
    func asset(for key: StoreKey, in request: PreStageRequest, network: NetworkClass) -> (Int, AssetSpec, Int64?)? {
        for (i, a) in request.assets.enumerated() {
            let r = a.resolved(for: network)
            if r.key == key { return (i, a, r.declaredBytes) }
        }
        return nil
    }

    func kind(for type: AssetType, _ rng: inout CoreRNG) -> MediaKind {
        let accepted = Self.kinds.filter { type.accepts($0) }
        return accepted.isEmpty ? .jpeg : accepted[rng.below(accepted.count)]
    }

    /// What the random runs reached, so the properties are not checked vacuously.
    struct Coverage {
        var deliveryReasons: Set<DeliveryReason> = []
        var stored = 0, revalidations = 0, attachments = 0, paintReady = 0, manifestFetches = 0
        var timeouts = 0, deadlineCancels = 0, expiryCancels = 0, rejections = 0, lateIgnored = 0
        /// Tap answers with known assets, at least one of them usable, compared with `PreloadStore.tapAnswer`.
        var tapsCompared = 0
        /// `.storeFailed` fed for a committed asset.
        var storeFailures = 0
    }

    func testRandomInputOrdersKeepTheInvariants() throws {
        let masterSeed: UInt64 = 0x9E5E_ED01
        var coverage = Coverage()
        for iteration in 0..<3_000 {
            let seed = masterSeed &+ UInt64(iteration)
            try runOne(seed: seed, coverage: &coverage)
        }
        XCTAssertEqual(coverage.deliveryReasons, Set(DeliveryReason.allCases), "seed \(masterSeed)")
        for (name, count) in [("stored", coverage.stored), ("revalidations", coverage.revalidations), ("attachments", coverage.attachments),
                              ("paintReady", coverage.paintReady), ("manifestFetches", coverage.manifestFetches), ("timeouts", coverage.timeouts),
                              ("deadlineCancels", coverage.deadlineCancels), ("expiryCancels", coverage.expiryCancels),
                              ("rejections", coverage.rejections), ("lateIgnored", coverage.lateIgnored),
                              ("tapsCompared", coverage.tapsCompared), ("storeFailures", coverage.storeFailures)] {
            XCTAssertGreaterThan(count, 0, "seed \(masterSeed): the generator never reached \(name)")
        }
    }

    func testSameSeedGivesIdenticalActionSequences() throws {
        let masterSeed: UInt64 = 0xD37E_0001
        var coverage = Coverage()
        for iteration in 0..<300 {
            let seed = masterSeed &+ UInt64(iteration)
            let first = try runOne(seed: seed, coverage: &coverage)
            let second = try runOne(seed: seed, coverage: &coverage)
            XCTAssertFalse(first.isEmpty, "seed \(seed)")
            XCTAssertEqual(first, second, "seed \(seed): same inputs, different actions")
        }
    }

    /// Runs one random session; returns every action in order.
    @discardableResult
    func runOne(seed: UInt64, coverage: inout Coverage) throws -> [Action] {
        var trace: [Action] = []
        var rng = CoreRNG(seed: seed)
        let s = try randomScenario(&rng)
        let ctx = s.context
        let msg = "seed \(seed)"
        var session = try PreloadSession(policy: s.policy, store: s.store)
        var now = Instant(microseconds: Int64(rng.below(1_000_000)))
        let wake = now
        let hardDeadline = wake.advanced(byMicroseconds: s.policy.deadlines[ctx.handlerKind])
        var outstanding: [FetchRequest] = []
        var ended: [FetchID: Int64] = [:]      // metered accounting: bytes counted for ended fetches
        var cancelled: [FetchID] = []
        var deliveries = 0
        var assetStarts = 0
        var progress: [FetchID: Int64] = [:]
        var blockingStarted = false
        var finishedSeen = false
        var commits: [StoreCommit] = []        // stored assets the driver may still fail to write

        func check(_ actions: [Action]) {
            for a in actions {
                if finishedSeen {
                    switch a {
                    case .log(.lateInputIgnored), .log(.storeFailed), .tapAnswer: break
                    default: XCTFail("\(msg): \(a) after the session finished")
                    }
                }
                switch a {
                case .storeAsset(let c):
                    coverage.stored += 1
                    commits.append(c)
                case .paintReady: coverage.paintReady += 1
                case .log(.lateInputIgnored): coverage.lateIgnored += 1
                case .cancelFetch(_, .timedOut): coverage.timeouts += 1
                case .cancelFetch(_, .hardDeadline): coverage.deadlineCancels += 1
                case .cancelFetch(_, .osExpiry): coverage.expiryCancels += 1
                case .cancelFetch(_, .rejected): coverage.rejections += 1
                case .startFetch(let f):
                    if f.isRevalidation { coverage.revalidations += 1 }
                    if case .manifest = f.purpose { coverage.manifestFetches += 1 }
                case .deliver(let d):
                    coverage.deliveryReasons.insert(d.reason)
                    if d.attachment != nil { coverage.attachments += 1 }
                case .log(.storeFailed(_, let key)):
                    coverage.storeFailures += 1
                    XCTAssertNil(session.store.index(of: key), "\(msg): entry kept after storeFailed")
                case .tapAnswer(let answer):
                    // The same selection without a session: the store after the tap (a tap only
                    // updates LRU order) and the request being served.
                    let pure = session.store.tapAnswer(for: session.request ?? s.request, context: ctx, policy: s.policy, now: now)
                    XCTAssertEqual(answer, pure, "\(msg): the session's tap answer differs from PreloadStore.tapAnswer")
                    if answer.assetsKnown && answer.assets.contains(where: { $0.freshness != .missing }) { coverage.tapsCompared += 1 }
                default: break
                }
                switch a {
                case .startFetch(let f):
                    XCTAssertLessThan(now, hardDeadline, "\(msg): fetch started at/after the deadline")
                    XCTAssertLessThanOrEqual(now.advanced(byMicroseconds: f.timeoutMicroseconds), hardDeadline, msg)
                    XCTAssertLessThanOrEqual(f.timeoutMicroseconds, s.policy.requestTimeoutMicroseconds, msg)
                    XCTAssertFalse(ctx.network.forbidsPrefetch, "\(msg): fetch on \(ctx.network)")
                    XCTAssertFalse(ctx.isConstrained && !s.policy.prefetchInLowDataMode, "\(msg): fetch in Low Data Mode")
                    XCTAssertFalse(ctx.saveData, "\(msg): fetch with Save-Data")
                    XCTAssertGreaterThan(f.byteLimit, 0, msg)
                    if deliveries > 0 { XCTAssertTrue(f.isRevalidation, "\(msg): blocking fetch after delivery") }
                    if case .asset(let key) = f.purpose {
                        assetStarts += 1
                        let request = session.request ?? s.request
                        guard let (_, spec, declared) = asset(for: key, in: request, network: ctx.network) else {
                            XCTFail("\(msg): fetch of a key not in the request"); break
                        }
                        XCTAssertLessThanOrEqual(spec.priority, s.policy.eligiblePriority, "\(msg): non-eligible (non-critical) asset fetched")
                        XCTAssertEqual(f.url, spec.resolved(for: ctx.network).url, msg)
                        if let d = declared { XCTAssertLessThanOrEqual(f.byteLimit, d, msg) }
                        if !ctx.network.allowsLargeAssets { XCTAssertLessThanOrEqual(f.byteLimit, s.policy.largeAssetThresholdBytes, msg) }
                        XCTAssertLessThanOrEqual(f.byteLimit, s.policy.assetBytesMax, msg)
                        let silent = (session.request ?? s.request).format == .silentPush || ctx.handlerKind.isSilent
                        XCTAssertLessThanOrEqual(assetStarts, silent && s.policy.oneAssetPerSilentPush ? 1 : s.policy.criticalAssetsMax, msg)
                    }
                    outstanding.append(f)
                    if !f.isRevalidation { blockingStarted = true }
                case .cancelFetch(let id, _):
                    if let i = outstanding.firstIndex(where: { $0.id == id }) {
                        ended[id] = outstanding[i].byteLimit  // conservative: the driver may have read up to the limit
                        outstanding.remove(at: i)
                        cancelled.append(id)
                    }
                case .deliver(let d):
                    deliveries += 1
                    // Fail open, but not early: settled means no blocking fetch is still running.
                    if d.reason == .assetsSettled || d.reason == .nothingToFetch {
                        XCTAssertFalse(outstanding.contains { !$0.isRevalidation }, "\(msg): delivered (\(d.reason)) while a blocking fetch runs")
                    }
                    if d.reason == .nothingToFetch { XCTAssertFalse(blockingStarted, "\(msg): nothingToFetch after a blocking fetch") }
                    XCTAssertLessThanOrEqual(d.at, hardDeadline, "\(msg): delivered after the hard deadline")
                    XCTAssertEqual(d.at, now, msg)
                    if let att = d.attachment {
                        XCTAssertFalse(ctx.handlerKind.isSilent, msg)
                        XCTAssertLessThanOrEqual(att.bytes, s.policy.attachmentLimits[att.category], msg)
                    }
                default: break
                }
            }
            let store = session.store
            XCTAssertLessThanOrEqual(store.usedBytes, store.capacityBytes, "\(msg): store above capacity")
            XCTAssertEqual(store.usedBytes, store.entries.reduce(0) { $0 + $1.bytes }, msg)
            XCTAssertLessThanOrEqual(store.entries.count, store.entriesMax, msg)
            if ctx.isMetered {
                let committed = ended.values.reduce(0, +) + outstanding.reduce(0) { $0 + $1.byteLimit }
                XCTAssertLessThanOrEqual(committed, s.policy.meteredSessionBytesMax, "\(msg): metered cap exceeded")
            }
            if session.isFinished { finishedSeen = true }
        }

        func feed(_ input: Input) throws {
            do {
                try session.handle(input, now: now)
            } catch {
                XCTFail("\(msg): legal input \(input.kind) at \(now) threw \(error)")
                throw error
            }
            var actions: [Action] = []
            while let a = session.pollAction() { actions.append(a) }
            check(actions)
            trace += actions
        }

        try feed(.pushReceived(s.request, ctx))
        var steps = 0
        while !session.isFinished {
            steps += 1
            guard steps < 500, let deadline = session.nextDeadline() else {
                XCTFail("\(msg): session neither finished nor waiting (steps \(steps))"); return trace
            }
            XCTAssertLessThanOrEqual(deadline, hardDeadline, msg)
            let step = Instant(microseconds: now.microseconds + Int64(rng.below(3_000_000)))
            // Sometimes the network stalls: nothing arrives before the next deadline.
            if outstanding.isEmpty || step >= deadline || rng.chance(0.15) {
                now = deadline
                try feed(.timerFired)
                continue
            }
            now = step
            let roll = rng.below(100)
            if roll < 3 { try feed(.expiryWarning); continue }
            if roll < 8 { try feed(.userTapped); continue }
            if roll < 11 && !commits.isEmpty {
                // The driver could not write a stored asset.
                try feed(.storeFailed(commits.removeFirst().fetchID))
                continue
            }
            let f = outstanding[rng.below(outstanding.count)]
            let limit = f.byteLimit
            var kind = MediaKind.json
            var contentType = "application/json"
            var body = FetchBody.none
            var size = Int64(1 + rng.below(Int(min(limit, 4_000_000))))
            if case .asset(let key) = f.purpose, let (_, spec, _) = asset(for: key, in: session.request ?? s.request, network: ctx.network) {
                kind = self.kind(for: spec.type, &rng)
                contentType = kind.mimeTypes[0]
            } else if case .manifest = f.purpose, let doc = s.document {
                body = .bytes(doc)
                size = Int64(doc.count)
            }
            var prefix = Self.prefixes[kind] ?? []
            if rng.chance(0.1) { contentType = "text/html" }
            if rng.chance(0.1) { prefix = Array("<!doctype html>".utf8) }
            if rng.chance(0.05) { size = limit + 1 }
            size = max(size, progress[f.id] ?? 0)
            let status = rng.chance(0.05) ? 503 : 200
            let cc = Self.cacheControls[rng.below(Self.cacheControls.count)]
            let headers = FetchHeaders(status: status, cacheControl: cc, contentType: contentType, contentLength: rng.chance(0.8) ? size : nil)
            switch rng.below(10) {
            case 0:
                try feed(.fetchHeaders(f.id, headers))
            case 1:
                let received = max(progress[f.id] ?? 0, min(size, limit + 1))
                progress[f.id] = received
                try feed(.fetchProgress(f.id, bytesReceived: received))
            case 2:
                outstanding.removeAll { $0.id == f.id }
                ended[f.id] = 0
                try feed(.fetchFailed(f.id, FetchFailure.allCases[rng.below(FetchFailure.allCases.count)]))
            default:
                outstanding.removeAll { $0.id == f.id }
                ended[f.id] = min(size, limit)
                try feed(.fetchCompleted(f.id, FetchCompletion(headers: headers, bytesReceived: size, prefix: prefix, body: body)))
            }
        }
        XCTAssertEqual(deliveries, 1, "\(msg): delivered \(deliveries) times")
        XCTAssertNil(session.nextDeadline(), msg)
        XCTAssertTrue(outstanding.isEmpty, "\(msg): session finished with fetches the driver still runs: \(outstanding.map(\.id))")
        // Late reports for cancelled fetches are ignored, never errors.
        for id in cancelled.prefix(2) {
            now = now.advanced(byMicroseconds: 1_000)
            try feed(.fetchFailed(id, .cancelledBySystem))
        }
        // A write failure reported after the end is still legal.
        if let c = commits.first, rng.chance(0.5) {
            now = now.advanced(byMicroseconds: 1_000)
            try feed(.storeFailed(c.fetchID))
        }
        try feed(.userTapped)
        return trace
    }
}
