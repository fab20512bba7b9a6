import XCTest
@testable import PreloadKit

/// Transition tests: explicit `now`, exact action sequences.
final class SessionTransitionTests: XCTestCase {
    let mib: Int64 = 1_048_576

    func article() throws -> PreStageRequest { try Sessions.request(Payloads.inline()) }

    func testArticlePushOnWifiFetchesBothCriticalAssetsAndDeliversWhenSettled() throws {
        let r = try article()
        var h = try Harness()
        let cover = r.assets[0], preview = r.assets[1]
        XCTAssertEqual(try h.feed(.pushReceived(r, Sessions.context()), at: ms(0)), [
            .log(.pushAccepted(format: .inlineManifest, selectedAssets: 2, deadline: ms(22_000))),
            .startFetch(FetchRequest(id: FetchID(rawValue: 1), url: cover.url, purpose: .asset(cover.key), byteLimit: 48_200,
                                     timeoutMicroseconds: 8_000_000, bufferBytes: mib, isRevalidation: false)),
            .startFetch(FetchRequest(id: FetchID(rawValue: 2), url: preview.url, purpose: .asset(preview.key), byteLimit: 320_000,
                                     timeoutMicroseconds: 8_000_000, bufferBytes: mib, isRevalidation: false)),
        ])
        XCTAssertEqual(h.session.nextDeadline(), ms(8_000), "earliest of the request timeouts and the hard deadline")
        XCTAssertEqual(h.session.phase, .fetchingAssets)

        let coverEntry = PreloadStore.Entry(key: cover.key, bytes: 48_200, storedAt: ms(300), expiresAt: ms(300 + 14_400_000),
                                            staleUntil: ms(300 + 14_400_000), lastUsed: ms(300), manifestTag: r.manifestTag, kind: .webp)
        XCTAssertEqual(try h.feed(.fetchCompleted(FetchID(rawValue: 1), Sessions.completion(48_200, "image/webp", Fixtures.webpPrefix)), at: ms(300)), [
            .storeAsset(StoreCommit(fetchID: FetchID(rawValue: 1), entry: coverEntry, kind: .webp)),
            .log(.assetStored(FetchID(rawValue: 1), bytes: 48_200)),
        ])
        let playlistEntry = PreloadStore.Entry(key: preview.key, bytes: 320_000, storedAt: ms(500), expiresAt: ms(500 + 14_400_000),
                                               staleUntil: ms(500 + 14_400_000), lastUsed: ms(500), manifestTag: r.manifestTag, kind: .m3u8)
        XCTAssertEqual(try h.feed(.fetchCompleted(FetchID(rawValue: 2), Sessions.completion(320_000, "application/vnd.apple.mpegurl", Fixtures.m3u8Prefix)), at: ms(500)), [
            .storeAsset(StoreCommit(fetchID: FetchID(rawValue: 2), entry: playlistEntry, kind: .m3u8)),
            .log(.assetStored(FetchID(rawValue: 2), bytes: 320_000)),
            .deliver(Delivery(reason: .assetsSettled, attachment: nil, readyAssets: 2, selectedAssets: 2, at: ms(500))),
        ])
        XCTAssertTrue(h.session.isFinished)
        XCTAssertNil(h.session.nextDeadline())
        XCTAssertEqual(h.session.store.usedBytes, 368_200)
        XCTAssertEqual(try h.feed(.userTapped, at: ms(60_000)), [
            .tapAnswer(TapAnswer(assets: [AssetReadiness(key: cover.key, freshness: .fresh), AssetReadiness(key: preview.key, freshness: .fresh)], assetsKnown: true)),
        ])
    }

    func testHardDeadlineDeliversOnceWithWhateverIsReadyAndIgnoresLateReports() throws {
        let r = try article()
        var policy = Fixtures.policy()
        policy.requestTimeoutMicroseconds = 60_000_000
        var h = try Harness(policy: policy)
        let starts = Sessions.starts(try h.feed(.pushReceived(r, Sessions.context()), at: ms(0)))
        XCTAssertEqual(starts.map(\.timeoutMicroseconds), [22_000_000, 22_000_000], "timeout = min(own limit, time left)")
        _ = try h.feed(.fetchCompleted(starts[0].id, Sessions.completion(48_200, "image/webp", Fixtures.webpPrefix)), at: ms(1_000))
        XCTAssertEqual(h.session.nextDeadline(), ms(22_000))
        XCTAssertEqual(try h.feed(.timerFired, at: ms(21_999)), [], "early timer: nothing")
        XCTAssertEqual(try h.feed(.timerFired, at: ms(22_000)), [
            .cancelFetch(starts[1].id, .hardDeadline),
            .deliver(Delivery(reason: .hardDeadline, attachment: nil, readyAssets: 1, selectedAssets: 2, at: ms(22_000))),
        ])
        XCTAssertTrue(h.session.isFinished)
        XCTAssertEqual(try h.feed(.fetchCompleted(starts[1].id, Sessions.completion(320_000, "application/vnd.apple.mpegurl", Fixtures.m3u8Prefix)), at: ms(22_100)),
                       [.log(.lateInputIgnored(starts[1].id, .fetchCompleted))])
        XCTAssertThrowsError(try h.feed(.timerFired, at: ms(23_000))) { XCTAssertEqual($0 as? SessionError, .sessionFinished(.timerFired)) }
        XCTAssertThrowsError(try h.feed(.fetchFailed(starts[0].id, .network), at: ms(23_000))) {
            XCTAssertEqual($0 as? SessionError, .fetchAlreadyFinished(starts[0].id, .fetchFailed))
        }
    }

    func testLateCompletionAfterTheDeadlineDoesNotCount() throws {
        // The driver's timer was late: a completion at 22.5 s is processed after the deadline.
        let r = try article()
        var h = try Harness()
        let starts = Sessions.starts(try h.feed(.pushReceived(r, Sessions.context(.androidFCMHandler)), at: ms(0)))
        XCTAssertEqual(starts.map(\.timeoutMicroseconds), [8_000_000, 8_000_000])
        let actions = try h.feed(.fetchCompleted(starts[0].id, Sessions.completion(48_200, "image/webp", Fixtures.webpPrefix)), at: ms(9_000))
        XCTAssertEqual(actions, [
            .cancelFetch(starts[0].id, .hardDeadline),
            .cancelFetch(starts[1].id, .hardDeadline),
            .deliver(Delivery(reason: .hardDeadline, attachment: nil, readyAssets: 0, selectedAssets: 2, at: ms(9_000))),
            .log(.lateInputIgnored(starts[0].id, .fetchCompleted)),
        ])
    }

    func testRequestTimeoutCancelsOneFetchAndTheOtherStillCounts() throws {
        let r = try article()
        var h = try Harness()
        let starts = Sessions.starts(try h.feed(.pushReceived(r, Sessions.context()), at: ms(0)))
        _ = try h.feed(.fetchHeaders(starts[0].id, FetchHeaders(status: 200, cacheControl: nil, contentType: "image/webp", contentLength: 48_200)), at: ms(100))
        _ = try h.feed(.fetchCompleted(starts[0].id, Sessions.completion(48_200, "image/webp", Fixtures.webpPrefix, cacheControl: nil)), at: ms(200))
        XCTAssertEqual(try h.feed(.timerFired, at: ms(8_000)), [
            .cancelFetch(starts[1].id, .timedOut),
            .deliver(Delivery(reason: .assetsSettled, attachment: nil, readyAssets: 1, selectedAssets: 2, at: ms(8_000))),
        ])
        XCTAssertTrue(h.session.isFinished)
    }

    func testExpiryAndCompletionRaceDeliversExactlyOnce() throws {
        let r = try article()
        for order in 0..<2 {
            var h = try Harness()
            let starts = Sessions.starts(try h.feed(.pushReceived(r, Sessions.context()), at: ms(0)))
            var all: [Action] = []
            _ = try h.feed(.fetchCompleted(starts[0].id, Sessions.completion(48_200, "image/webp", Fixtures.webpPrefix)), at: ms(1_000))
            if order == 0 {
                all += try h.feed(.fetchCompleted(starts[1].id, Sessions.completion(320_000, "application/vnd.apple.mpegurl", Fixtures.m3u8Prefix)), at: ms(5_000))
                XCTAssertThrowsError(try h.feed(.expiryWarning, at: ms(5_000))) { XCTAssertEqual($0 as? SessionError, .sessionFinished(.expiryWarning)) }
            } else {
                all += try h.feed(.expiryWarning, at: ms(5_000))
                all += try h.feed(.fetchCompleted(starts[1].id, Sessions.completion(320_000, "application/vnd.apple.mpegurl", Fixtures.m3u8Prefix)), at: ms(5_000))
                XCTAssertEqual(all, [
                    .cancelFetch(starts[1].id, .osExpiry),
                    .deliver(Delivery(reason: .osExpiry, attachment: nil, readyAssets: 1, selectedAssets: 2, at: ms(5_000))),
                    .log(.lateInputIgnored(starts[1].id, .fetchCompleted)),
                ])
            }
            XCTAssertEqual(Sessions.deliveries(all).count, 1, "order \(order)")
        }
    }

    func testRichPushAttachesAFullyDownloadedJPEGWithinTheLimit() throws {
        let r = try Sessions.request(Payloads.rich)
        var h = try Harness()
        let starts = Sessions.starts(try h.feed(.pushReceived(r, Sessions.context()), at: ms(0)))
        XCTAssertEqual(starts.map(\.byteLimit), [10_000_000], "unknown size: the asset cap is the limit")
        let actions = try h.feed(.fetchCompleted(starts[0].id, Sessions.completion(180_000, "image/jpeg", Fixtures.jpegPrefix)), at: ms(400))
        XCTAssertEqual(Sessions.deliveries(actions), [
            Delivery(reason: .assetsSettled, attachment: Attachment(key: r.assets[0].key, kind: .jpeg, category: .image, bytes: 180_000),
                     readyAssets: 1, selectedAssets: 1, at: ms(400)),
        ])
    }

    func testRichPushOverTheImageAttachmentLimitIsDeliveredWithoutAttachment() throws {
        let r = try Sessions.request(Payloads.rich)
        var policy = Fixtures.policy()
        policy.assetBytesMax = 20_000_000
        var h = try Harness(policy: policy)
        let starts = Sessions.starts(try h.feed(.pushReceived(r, Sessions.context()), at: ms(0)))
        let actions = try h.feed(.fetchCompleted(starts[0].id, Sessions.completion(12_000_000, "image/jpeg", Fixtures.jpegPrefix)), at: ms(4_000))
        XCTAssertEqual(Sessions.deliveries(actions), [Delivery(reason: .assetsSettled, attachment: nil, readyAssets: 1, selectedAssets: 1, at: ms(4_000))])
    }

    func testTwoGAndOfflineFetchNothingAndDeliverAtOnce() throws {
        let r = try article()
        // Module-qualified on purpose: drivers importing InfraModel too must be able to write this.
        let networks: [PreloadKit.NetworkClass] = [.cellular2G, .slow2G, .offline]
        for network in networks {
            var h = try Harness()
            let reason: SkipReason = network == .offline ? .offline : .slowNetwork(network)
            XCTAssertEqual(try h.feed(.pushReceived(r, Sessions.context(.iOSServiceExtension, network)), at: ms(0)), [
                .log(.assetSkipped(assetIndex: 0, reason)),
                .log(.assetSkipped(assetIndex: 1, reason)),
                .log(.pushAccepted(format: .inlineManifest, selectedAssets: 2, deadline: ms(22_000))),
                .deliver(Delivery(reason: .nothingToFetch, attachment: nil, readyAssets: 0, selectedAssets: 2, at: ms(0))),
            ], "\(network)")
            XCTAssertTrue(h.session.isFinished)
        }
    }

    func testLargeAssetsOnlyOnFastNetworksAndTheMeteredCap() throws {
        let r = try article()
        // 3G: 48.2 KB cover fetched; 320 KB playlist is above the 250 KB threshold.
        var h = try Harness()
        var actions = try h.feed(.pushReceived(r, Sessions.context(.iOSServiceExtension, .cellular3G)), at: ms(0))
        XCTAssertEqual(actions.first, .log(.assetSkipped(assetIndex: 1, .tooLargeForNetwork(bytes: 320_000, network: .cellular3G))))
        XCTAssertEqual(Sessions.starts(actions).map(\.url), [r.assets[0].url])
        // 4G with a 100 KB metered cap: the cover reserves 48.2 KB, the playlist does not fit.
        var policy = Fixtures.policy()
        policy.meteredSessionBytesMax = 100_000
        h = try Harness(policy: policy)
        actions = try h.feed(.pushReceived(r, Sessions.context(.iOSServiceExtension, .cellular4G)), at: ms(0))
        XCTAssertEqual(actions.first, .log(.assetSkipped(assetIndex: 1, .meteredCapExceeded(bytes: 320_000, remainingBytes: 51_800))))
        XCTAssertEqual(Sessions.starts(actions).count, 1)
        // Wi-Fi marked expensive (hotspot) is metered too; plain Wi-Fi is not.
        h = try Harness(policy: policy)
        actions = try h.feed(.pushReceived(r, Sessions.context(.iOSServiceExtension, .wifi, expensive: true)), at: ms(0))
        XCTAssertEqual(Sessions.starts(actions).count, 1)
        h = try Harness(policy: policy)
        XCTAssertEqual(Sessions.starts(try h.feed(.pushReceived(r, Sessions.context()), at: ms(0))).count, 2)
    }

    func testLowDataModeSaveDataAndLowStorageAreHonoured() throws {
        let r = try article()
        let cases: [(DeviceContext, SkipReason)] = [
            (Sessions.context(constrained: true), .lowDataMode),
            (Sessions.context(saveData: true), .saveData),
            (Sessions.context(free: 50_000_000), .lowStorage(freeBytes: 50_000_000, floorBytes: 64_000_000)),
        ]
        for (context, reason) in cases {
            var h = try Harness()
            let actions = try h.feed(.pushReceived(r, context), at: ms(0))
            XCTAssertEqual(actions.first, .log(.assetSkipped(assetIndex: 0, reason)))
            XCTAssertEqual(Sessions.starts(actions), [])
            XCTAssertEqual(Sessions.deliveries(actions).map(\.reason), [.nothingToFetch])
        }
        var policy = Fixtures.policy()
        policy.prefetchInLowDataMode = true
        var h = try Harness(policy: policy)
        XCTAssertEqual(Sessions.starts(try h.feed(.pushReceived(r, Sessions.context(constrained: true)), at: ms(0))).count, 2)
    }

    func testOnlyCriticalAssetsAtMostTwoAndOnePerSilentPush() throws {
        var assets: [String] = []
        let priorities = ["high", "critical", "critical", "low", "critical"]
        for (i, p) in priorities.enumerated() {
            assets.append(#"{"url":"https://cdn.example.com/a\#(i).jpg","type":"image","priority":"\#(p)","bytes":1000}"#)
        }
        let r = try Sessions.request(#"{"cdn_preload":{"manifest_id":"m1","assets":[\#(assets.joined(separator: ","))]}}"#, .none)
        var h = try Harness()
        let actions = try h.feed(.pushReceived(r, Sessions.context()), at: ms(0))
        XCTAssertEqual(Array(actions.prefix(3)), [
            .log(.assetSkipped(assetIndex: 0, .notCritical)),
            .log(.assetSkipped(assetIndex: 3, .notCritical)),
            .log(.assetSkipped(assetIndex: 4, .overCriticalLimit(max: 2))),
        ])
        XCTAssertEqual(Sessions.starts(actions).map(\.url), [r.assets[1].url, r.assets[2].url])
        // A silent-push handler takes one.
        h = try Harness()
        let silent = try h.feed(.pushReceived(r, Sessions.context(.iOSSilentBackground)), at: ms(0))
        XCTAssertEqual(Sessions.starts(silent).map(\.url), [r.assets[1].url])
        XCTAssertTrue(silent.contains(.log(.assetSkipped(assetIndex: 2, .oneAssetPerSilentPush))))
    }

    func testSequentialModeAndMemoryBudgetBoundConcurrency() throws {
        let r = try article()
        var policy = Fixtures.policy()
        policy.memoryBudgetBytes = 17 * mib  // 16 MiB reserved + one 1 MiB buffer
        XCTAssertEqual(policy.effectiveConcurrency, 1)
        var h = try Harness(policy: policy)
        let first = Sessions.starts(try h.feed(.pushReceived(r, Sessions.context()), at: ms(0)))
        XCTAssertEqual(first.count, 1)
        let next = try h.feed(.fetchFailed(first[0].id, .network), at: ms(300))
        XCTAssertEqual(next, [
            .log(.fetchFailed(first[0].id, .network)),
            .startFetch(FetchRequest(id: FetchID(rawValue: 2), url: r.assets[1].url, purpose: .asset(r.assets[1].key), byteLimit: 320_000,
                                     timeoutMicroseconds: 8_000_000, bufferBytes: mib, isRevalidation: false)),
        ])
        policy = Fixtures.policy()
        policy.fetchMode = .sequential
        XCTAssertEqual(policy.effectiveConcurrency, 1)
        policy.memoryBudgetBytes = 16 * mib
        XCTAssertThrowsError(try PreloadSession(policy: policy, store: PreloadStore())) { e in
            XCTAssertEqual((e as? PolicyError)?.field, "fetchBufferBytes")
            XCTAssertEqual((e as? PolicyError)?.knob, .fetchBufferBytes)
        }
        policy = Fixtures.policy()
        policy.deadlines[.androidFCMHandler] = 0
        XCTAssertThrowsError(try policy.validate()) { e in XCTAssertEqual((e as? PolicyError)?.knob, .deadline(.androidFCMHandler)) }
    }

    func testSequentialTimeoutShrinksWithTheTimeLeft() throws {
        let r = try article()
        var policy = Fixtures.policy()
        policy.fetchMode = .sequential
        policy.requestTimeoutMicroseconds = 20_000_000
        var h = try Harness(policy: policy)
        let first = Sessions.starts(try h.feed(.pushReceived(r, Sessions.context()), at: ms(0)))
        XCTAssertEqual(first.map(\.timeoutMicroseconds), [20_000_000])
        let second = Sessions.starts(try h.feed(.fetchCompleted(first[0].id, Sessions.completion(48_200, "image/webp", Fixtures.webpPrefix)), at: ms(18_000)))
        XCTAssertEqual(second.map(\.timeoutMicroseconds), [4_000_000])
        // With less than the minimum window left, the next fetch is not started at all.
        policy.requestTimeoutMicroseconds = 30_000_000
        h = try Harness(policy: policy)
        let f = Sessions.starts(try h.feed(.pushReceived(r, Sessions.context()), at: ms(0)))
        let late = try h.feed(.fetchFailed(f[0].id, .tls), at: ms(21_600))
        XCTAssertEqual(late, [
            .log(.fetchFailed(f[0].id, .tls)),
            .log(.assetSkipped(assetIndex: 1, .noTimeLeft(remainingMicroseconds: 400_000))),
            .deliver(Delivery(reason: .assetsSettled, attachment: nil, readyAssets: 0, selectedAssets: 2, at: ms(21_600))),
        ])
    }

    func testDownloadsBeyondTheDeclaredSizeAreCutAndTheOtherAssetSurvives() throws {
        let r = try article()
        var h = try Harness()
        let starts = Sessions.starts(try h.feed(.pushReceived(r, Sessions.context()), at: ms(0)))
        XCTAssertEqual(try h.feed(.fetchProgress(starts[0].id, bytesReceived: 40_000), at: ms(100)), [])
        XCTAssertEqual(try h.feed(.fetchProgress(starts[0].id, bytesReceived: 48_201), at: ms(200)), [
            .log(.fetchRejected(starts[0].id, .bytesOverLimit(receivedBytes: 48_201, limitBytes: 48_200))),
            .cancelFetch(starts[0].id, .rejected(.bytesOverLimit(receivedBytes: 48_201, limitBytes: 48_200))),
        ])
        // Header layer: Content-Length above the limit.
        XCTAssertEqual(try h.feed(.fetchHeaders(starts[1].id, FetchHeaders(status: 200, contentType: "application/vnd.apple.mpegurl", contentLength: 999_999)), at: ms(300)), [
            .log(.fetchRejected(starts[1].id, .contentLengthOverLimit(contentLength: 999_999, limitBytes: 320_000))),
            .cancelFetch(starts[1].id, .rejected(.contentLengthOverLimit(contentLength: 999_999, limitBytes: 320_000))),
            .deliver(Delivery(reason: .assetsSettled, attachment: nil, readyAssets: 0, selectedAssets: 2, at: ms(300))),
        ])
    }

    func testMediaMustMatchByMimeAndMagic() throws {
        let r = try article()
        let cases: [(FetchCompletion, FetchRejection)] = [
            (Sessions.completion(48_200, "text/html", Fixtures.webpPrefix), .contentTypeNotAllowed("text/html")),
            (Sessions.completion(48_200, nil, Fixtures.webpPrefix), .contentTypeMissing),
            (Sessions.completion(48_200, "image/webp", Array("<html><body>".utf8)), .magicBytesNotAllowed(nil)),
            (Sessions.completion(48_200, "image/webp", Fixtures.mp4Prefix), .magicBytesNotAllowed(.mp4)),
            (Sessions.completion(48_200, "image/webp", Fixtures.jpegPrefix), .contentTypeDisagreesWithMagic(contentType: "image/webp", sniffed: .jpeg)),
            (Sessions.completion(48_200, "image/webp", Fixtures.webpPrefix, status: 404), .httpStatus(404)),
            (Sessions.completion(48_000, "image/webp", Fixtures.webpPrefix, contentLength: 48_200), .lengthMismatch(receivedBytes: 48_000, contentLength: 48_200)),
            (Sessions.completion(48_200, "image/webp", Fixtures.webpPrefix, cacheControl: "no-store"), .notStorable),
        ]
        for (completion, rejection) in cases {
            var h = try Harness()
            let starts = Sessions.starts(try h.feed(.pushReceived(r, Sessions.context()), at: ms(0)))
            XCTAssertEqual(try h.feed(.fetchCompleted(starts[0].id, completion), at: ms(100)), [
                .log(.fetchRejected(starts[0].id, rejection)),
                .cancelFetch(starts[0].id, .rejected(rejection)),
            ], "\(rejection)")
            XCTAssertEqual(h.session.store.usedBytes, 0)
        }
    }

    func testStoreHitsFreshSkipsFetchStaleRevalidatesInBackground() throws {
        let r = try article()
        var store = PreloadStore()
        let cover = r.assets[0], preview = r.assets[1]
        // Cover fresh until 1000 s; preview stale from 10 s until 5000 s.
        store.insert(PreloadStore.Entry(key: cover.key, bytes: 48_200, storedAt: ms(0), expiresAt: ms(1_000_000), staleUntil: ms(1_000_000), lastUsed: ms(0), manifestTag: r.manifestTag, kind: .webp))
        store.insert(PreloadStore.Entry(key: preview.key, bytes: 300_000, storedAt: ms(0), expiresAt: ms(10_000), staleUntil: ms(5_000_000), lastUsed: ms(0), manifestTag: r.manifestTag, kind: .m3u8))
        var h = try Harness(store: store)
        XCTAssertEqual(try h.feed(.pushReceived(r, Sessions.context()), at: ms(20_000)), [
            .log(.storeHit(assetIndex: 0, .fresh)),
            .log(.storeHit(assetIndex: 1, .stale)),
            .log(.pushAccepted(format: .inlineManifest, selectedAssets: 2, deadline: ms(42_000))),
            .startFetch(FetchRequest(id: FetchID(rawValue: 1), url: preview.url, purpose: .asset(preview.key), byteLimit: 320_000,
                                     timeoutMicroseconds: 8_000_000, bufferBytes: mib, isRevalidation: true)),
            .deliver(Delivery(reason: .nothingToFetch, attachment: nil, readyAssets: 2, selectedAssets: 2, at: ms(20_000))),
        ])
        XCTAssertEqual(h.session.phase, .backgroundOnly)
        XCTAssertEqual(h.session.store.entries.map(\.lastUsed), [ms(20_000), ms(20_000)], "hits are touched for LRU")
        let actions = try h.feed(.fetchCompleted(FetchID(rawValue: 1), Sessions.completion(320_000, "application/vnd.apple.mpegurl", Fixtures.m3u8Prefix, cacheControl: "max-age=60")), at: ms(20_500))
        XCTAssertEqual(actions.count, 2)
        XCTAssertEqual(h.session.store.entries.count, 2, "replaced, not duplicated")
        XCTAssertEqual(h.session.store.usedBytes, 368_200)
        XCTAssertEqual(h.session.store.freshness(of: preview.key, at: ms(80_499)), .fresh)
        XCTAssertEqual(h.session.store.freshness(of: preview.key, at: ms(80_500)), .missing, "stored at 20.5 s, max-age 60 s, no swr")
        XCTAssertTrue(h.session.isFinished)
    }

    func testExpiredEntriesArePurgedOnWakeAndLRUEvictsForSpace() throws {
        let r = try article()
        var store = PreloadStore(capacityBytes: 400_000)
        let old1 = StoreKey(cacheKey: "old-1"), old2 = StoreKey(cacheKey: "old-2")
        store.insert(PreloadStore.Entry(key: old1, bytes: 100_000, storedAt: ms(0), expiresAt: ms(500), staleUntil: ms(1_000), lastUsed: ms(0), manifestTag: 9, kind: .jpeg))
        store.insert(PreloadStore.Entry(key: old2, bytes: 200_000, storedAt: ms(0), expiresAt: ms(900_000), staleUntil: ms(900_000), lastUsed: ms(0), manifestTag: 9, kind: .jpeg))
        var h = try Harness(store: store)
        let push = try h.feed(.pushReceived(r, Sessions.context()), at: ms(2_000))
        XCTAssertEqual(push.first, .evict(old1, .expired), "past its usable lifetime at wake-up")
        let starts = Sessions.starts(push)
        _ = try h.feed(.fetchCompleted(starts[0].id, Sessions.completion(48_200, "image/webp", Fixtures.webpPrefix)), at: ms(2_100))
        let second = try h.feed(.fetchCompleted(starts[1].id, Sessions.completion(320_000, "application/vnd.apple.mpegurl", Fixtures.m3u8Prefix)), at: ms(2_200))
        XCTAssertEqual(second.first, .evict(old2, .space), "LRU goes first to make room")
        XCTAssertLessThanOrEqual(h.session.store.usedBytes, 400_000)
    }

    func testTapBeforeReadyThenPaintReady() throws {
        let r = try article()
        var h = try Harness()
        let starts = Sessions.starts(try h.feed(.pushReceived(r, Sessions.context()), at: ms(0)))
        XCTAssertEqual(try h.feed(.userTapped, at: ms(100)), [
            .tapAnswer(TapAnswer(assets: [AssetReadiness(key: r.assets[0].key, freshness: .missing), AssetReadiness(key: r.assets[1].key, freshness: .missing)], assetsKnown: true)),
        ])
        let actions = try h.feed(.fetchCompleted(starts[0].id, Sessions.completion(48_200, "image/webp", Fixtures.webpPrefix)), at: ms(200))
        XCTAssertEqual(actions.last, .paintReady(r.assets[0].key))
    }

    func testManifestByReferenceFetchesTheManifestThenVariantAssets() throws {
        let r = try Sessions.request(Payloads.reference)
        var h = try Harness()
        let push = try h.feed(.pushReceived(r, Sessions.context(.iOSServiceExtension, .cellular3G)), at: ms(0))
        XCTAssertEqual(push, [
            .log(.pushAccepted(format: .manifestReference, selectedAssets: 0, deadline: ms(22_000))),
            .startFetch(FetchRequest(id: FetchID(rawValue: 1), url: try XCTUnwrap(r.manifestURL), purpose: .manifest, byteLimit: 16_384,
                                     timeoutMicroseconds: 8_000_000, bufferBytes: mib, isRevalidation: false)),
        ])
        XCTAssertEqual(try h.feed(.userTapped, at: ms(50)), [.tapAnswer(TapAnswer(assets: [], assetsKnown: false))])
        let doc = Fixtures.bytes(Payloads.referencedDocument)
        let after = try h.feed(.fetchCompleted(FetchID(rawValue: 1), Sessions.completion(Int64(doc.count), "application/json", Array(doc.prefix(16)), body: .bytes(doc))), at: ms(150))
        let manifest = try XCTUnwrap(h.session.request)
        XCTAssertEqual(manifest.assets.count, 3)
        XCTAssertEqual(after.first, .log(.assetSkipped(assetIndex: 2, .notCritical)))
        XCTAssertEqual(Sessions.starts(after).map(\.url.absoluteString), ["https://cdn.example.com/mix/wk43/cover_400.jpg", "https://cdn.example.com/mix/wk43/tracks.json"])
        XCTAssertEqual(Sessions.starts(after).map(\.byteLimit), [18_000, 4_000])
        XCTAssertEqual(Sessions.starts(after).map(\.timeoutMicroseconds), [8_000_000, 8_000_000])
    }

    func testReferencedManifestFailuresDeliverTheTextAnyway() throws {
        let r = try Sessions.request(Payloads.reference)
        let badDoc = Fixtures.bytes(Payloads.referencedDocument.replacingOccurrences(of: "52000", with: "52001"))
        var h = try Harness()
        _ = try h.feed(.pushReceived(r, Sessions.context()), at: ms(0))
        let rejection = FetchRejection.manifest(PayloadRejection(path: "$.signature", reason: .signatureMismatch))
        XCTAssertEqual(try h.feed(.fetchCompleted(FetchID(rawValue: 1), Sessions.completion(Int64(badDoc.count), "application/json", [], body: .bytes(badDoc))), at: ms(100)), [
            .log(.fetchRejected(FetchID(rawValue: 1), rejection)),
            .cancelFetch(FetchID(rawValue: 1), .rejected(rejection)),
            .log(.manifestUnavailable),
            .deliver(Delivery(reason: .assetsSettled, attachment: nil, readyAssets: 0, selectedAssets: 0, at: ms(100))),
        ])
        // A pre-parsed manifest (the simulator's path) is accepted when it is for this campaign.
        let parsed = try PayloadParser.parseReferencedManifest(json: Fixtures.bytes(Payloads.referencedDocument), for: r, options: Fixtures.options())
        h = try Harness()
        _ = try h.feed(.pushReceived(r, Sessions.context()), at: ms(0))
        let after = try h.feed(.fetchCompleted(FetchID(rawValue: 1), Sessions.completion(1_000, "application/json", [], body: .parsedManifest(parsed))), at: ms(100))
        XCTAssertEqual(Sessions.starts(after).map(\.url.absoluteString), ["https://cdn.example.com/mix/wk43/cover_1600.jpg", "https://cdn.example.com/mix/wk43/tracks.json"])
    }

    func testReceiptIsJitteredWithTheDriversUniform() throws {
        let r = try Sessions.request(Payloads.silent)
        var policy = Fixtures.policy()
        policy.receiptsEnabled = true
        var h = try Harness(policy: policy)
        let actions = try h.feed(.pushReceived(r, Sessions.context(.iOSSilentBackground, .offline, uniform: 0.5)), at: ms(1_000))
        XCTAssertEqual(actions.last, .scheduleReceipt(Receipt(manifestTag: r.manifestTag, sendAt: ms(151_000), reason: .nothingToFetch, readyAssets: 0, selectedAssets: 1)))
    }

    func testProtocolViolationsAreErrorsAndLeaveTheSessionUnchanged() throws {
        let r = try article()
        var h = try Harness()
        XCTAssertThrowsError(try h.feed(.userTapped, at: ms(0))) { XCTAssertEqual($0 as? SessionError, .noPushYet(.userTapped)) }
        XCTAssertThrowsError(try h.feed(.fetchFailed(FetchID(rawValue: 1), .network), at: ms(0))) {
            XCTAssertEqual($0 as? SessionError, .unknownFetch(FetchID(rawValue: 1), .fetchFailed))
        }
        XCTAssertThrowsError(try h.feed(.pushReceived(r, Sessions.context(uniform: 1.0)), at: ms(0))) {
            XCTAssertEqual($0 as? SessionError, .invalidContext(field: "receiptJitterUniform", value: "1.0", expected: "a number in [0, 1)"))
        }
        XCTAssertThrowsError(try h.feed(.pushReceived(r, Sessions.context(free: -1)), at: ms(0))) {
            XCTAssertEqual($0 as? SessionError, .invalidContext(field: "freeStorageBytes", value: "-1", expected: ">= 0"))
        }
        XCTAssertEqual(h.session.phase, .idle)
        try h.session.handle(.pushReceived(r, Sessions.context()), now: ms(1_000))
        XCTAssertThrowsError(try h.session.handle(.timerFired, now: ms(1_000))) { XCTAssertEqual($0 as? SessionError, .actionsNotDrained(pending: 3)) }
        while h.session.pollAction() != nil {}
        XCTAssertThrowsError(try h.feed(.timerFired, at: ms(999))) { XCTAssertEqual($0 as? SessionError, .timeWentBackwards(previous: ms(1_000), now: ms(999))) }
        XCTAssertThrowsError(try h.feed(.pushReceived(r, Sessions.context()), at: ms(1_000))) { XCTAssertEqual($0 as? SessionError, .pushAlreadyReceived) }
        XCTAssertThrowsError(try h.feed(.fetchCompleted(FetchID(rawValue: 7), Sessions.completion(1, "image/webp", [])), at: ms(1_000))) {
            XCTAssertEqual($0 as? SessionError, .unknownFetch(FetchID(rawValue: 7), .fetchCompleted))
        }
        XCTAssertThrowsError(try h.feed(.fetchCompleted(FetchID(rawValue: 1), Sessions.completion(1, "image/webp", [], body: .bytes([1]))), at: ms(1_000))) {
            XCTAssertEqual($0 as? SessionError, .bodyMismatch(FetchID(rawValue: 1)))
        }
        _ = try h.feed(.fetchProgress(FetchID(rawValue: 1), bytesReceived: 100), at: ms(1_100))
        XCTAssertThrowsError(try h.feed(.fetchProgress(FetchID(rawValue: 1), bytesReceived: 99), at: ms(1_200))) {
            XCTAssertEqual($0 as? SessionError, .invalidFetchReport(FetchID(rawValue: 1), field: "bytesReceived", value: "99", expected: ">= 100 (previous progress)"))
        }
        _ = try h.feed(.fetchFailed(FetchID(rawValue: 1), .network), at: ms(1_300))
        XCTAssertThrowsError(try h.feed(.fetchCompleted(FetchID(rawValue: 1), Sessions.completion(1, "image/webp", [])), at: ms(1_300))) {
            XCTAssertEqual($0 as? SessionError, .fetchAlreadyFinished(FetchID(rawValue: 1), .fetchCompleted))
        }
        XCTAssertFalse(h.session.isDelivered, "the other fetch is still running")
    }
}

/// Behaviour across pushes on one device.
final class SessionAcrossPushesTests: XCTestCase {
    func rich(token: String) throws -> PreStageRequest {
        try Sessions.request(#"{"aps":{"alert":"Sale","mutable-content":1},"au":"https://cdn.example.com/rich/banner.jpg?token=\#(token)","at":"jpg"}"#, .none)
    }

    func testRotatedTokensHitTheSameStoredAssetAndResetReusesTheSession() throws {
        var h = try Harness()
        let first = try rich(token: "aaa")
        let starts = Sessions.starts(try h.feed(.pushReceived(first, Sessions.context()), at: ms(0)))
        XCTAssertEqual(starts.map(\.url.absoluteString), ["https://cdn.example.com/rich/banner.jpg?token=aaa"], "the URL is fetched exactly as signed")
        _ = try h.feed(.fetchCompleted(starts[0].id, Sessions.completion(90_000, "image/jpeg", Fixtures.jpegPrefix)), at: ms(500))
        XCTAssertTrue(h.session.isFinished)

        let store = h.session.store
        h.session.reset(store: store)
        XCTAssertEqual(h.session.phase, .idle)
        let second = try rich(token: "bbb")
        XCTAssertEqual(try h.feed(.pushReceived(second, Sessions.context()), at: ms(600_000)), [
            .log(.storeHit(assetIndex: 0, .fresh)),
            .log(.pushAccepted(format: .richPush, selectedAssets: 1, deadline: ms(622_000))),
            .deliver(Delivery(reason: .nothingToFetch, attachment: Attachment(key: first.assets[0].key, kind: .jpeg, category: .image, bytes: 90_000),
                              readyAssets: 1, selectedAssets: 1, at: ms(600_000))),
        ])
        XCTAssertEqual(h.session.store.entries.count, 1)
    }

    /// The session remembers the last Cache-Control header it parsed; a different header on the
    /// next push through the same (reset) session must be parsed afresh: max-age=60 stores an
    /// entry fresh for 60 s, then no-store refuses to store at all.
    func testResetSessionParsesAChangedCacheControlHeader() throws {
        var h = try Harness()
        let first = try rich(token: "aaa")
        let starts = Sessions.starts(try h.feed(.pushReceived(first, Sessions.context()), at: ms(0)))
        _ = try h.feed(.fetchCompleted(starts[0].id, Sessions.completion(90_000, "image/jpeg", Fixtures.jpegPrefix, cacheControl: "max-age=60")),
                       at: ms(500))
        XCTAssertEqual(h.session.store.entries.map(\.expiresAt), [ms(60_500)])

        h.session.reset(store: PreloadStore(capacityBytes: h.session.store.capacityBytes, entriesMax: h.session.store.entriesMax))
        let again = Sessions.starts(try h.feed(.pushReceived(try rich(token: "bbb"), Sessions.context()), at: ms(1_000)))
        _ = try h.feed(.fetchCompleted(again[0].id, Sessions.completion(90_000, "image/jpeg", Fixtures.jpegPrefix, cacheControl: "no-store")),
                       at: ms(1_500))
        XCTAssertEqual(h.session.store.entries.count, 0, "no-store is not stored")
        XCTAssertTrue(h.session.isFinished)
    }

    /// Without log events a session emits exactly the other actions, in the same order: the
    /// same push, fetch completions and tap through two sessions, one with each setting.
    func testTurningLogEventsOffRemovesOnlyTheLogActions() throws {
        var quiet = Fixtures.policy()
        quiet.emitsLogEvents = false
        var loud = try Harness(), silent = try Harness(policy: quiet)
        let r = try Sessions.request(Payloads.inline())
        var expected: [Action] = [], got: [Action] = []
        func both(_ input: Input, _ at: Instant) throws {
            expected += try loud.feed(input, at: at).filter { if case .log = $0 { return false } else { return true } }
            got += try silent.feed(input, at: at)
        }
        try both(.pushReceived(r, Sessions.context()), ms(0))
        let starts = Sessions.starts(expected)
        XCTAssertEqual(starts.count, 2)
        try both(.fetchCompleted(starts[0].id, Sessions.completion(48_200, "image/webp", Fixtures.webpPrefix)), ms(100))
        try both(.fetchCompleted(starts[1].id, Sessions.completion(320_000, "application/vnd.apple.mpegurl", Fixtures.m3u8Prefix)), ms(200))
        XCTAssertEqual(got, expected)
        XCTAssertFalse(got.contains { if case .log = $0 { return true } else { return false } })
        XCTAssertEqual(silent.session.store, loud.session.store)
    }

    func testPurgeByCampaignUsesThePublicTag() throws {
        let r = try Sessions.request(Payloads.inline())
        var h = try Harness()
        let starts = Sessions.starts(try h.feed(.pushReceived(r, Sessions.context()), at: ms(0)))
        _ = try h.feed(.fetchCompleted(starts[0].id, Sessions.completion(48_200, "image/webp", Fixtures.webpPrefix)), at: ms(100))
        _ = try h.feed(.fetchCompleted(starts[1].id, Sessions.completion(320_000, "application/vnd.apple.mpegurl", Fixtures.m3u8Prefix)), at: ms(200))
        var store = h.session.store
        XCTAssertEqual(PayloadParser.manifestTag(format: .inlineManifest, manifestID: "mix_wk42_7f3a9"), r.manifestTag)
        XCTAssertEqual(store.purge(manifestTag: PayloadParser.manifestTag(format: .inlineManifest, manifestID: "other")), [])
        XCTAssertEqual(store.purge(manifestTag: r.manifestTag), [r.assets[0].key, r.assets[1].key].sorted())
        XCTAssertEqual(store.usedBytes, 0)
    }
}

final class SessionSelectionTests: XCTestCase {
    func manifest(_ entries: [(String, String)]) throws -> PreStageRequest {
        let assets = entries.map { #"{"url":"https://cdn.example.com/\#($0.0)","type":"image","priority":"\#($0.1)","bytes":1000}"# }
        return try Sessions.request(#"{"cdn_preload":{"manifest_id":"sel","assets":[\#(assets.joined(separator: ","))]}}"#, .none)
    }

    func testEligiblePriorityQueuesMostUrgentFirst() throws {
        let r = try manifest([("h1.jpg", "high"), ("n1.jpg", "normal"), ("c1.jpg", "critical"), ("h2.jpg", "high")])
        var policy = Fixtures.policy()
        policy.eligiblePriority = .high
        policy.criticalAssetsMax = 3
        policy.fetchMode = .sequential
        var h = try Harness(policy: policy)
        let actions = try h.feed(.pushReceived(r, Sessions.context()), at: ms(0))
        XCTAssertEqual(actions.first, .log(.assetSkipped(assetIndex: 1, .notCritical)))
        var order = Sessions.starts(actions)
        while let f = order.last, order.count < 3 {
            let next = try h.feed(.fetchFailed(f.id, .network), at: ms(Int64(order.count) * 100))
            order += Sessions.starts(next)
        }
        XCTAssertEqual(order.map(\.url.path), ["/c1.jpg", "/h1.jpg", "/h2.jpg"], "critical first, then high in payload order")
    }

    func testDuplicateURLsAreFetchedOnce() throws {
        let r = try manifest([("same.jpg?token=a", "critical"), ("same.jpg?token=b", "critical")])
        var h = try Harness()
        let actions = try h.feed(.pushReceived(r, Sessions.context()), at: ms(0))
        XCTAssertEqual(actions.first, .log(.assetSkipped(assetIndex: 1, .duplicateOf(assetIndex: 0))))
        XCTAssertEqual(Sessions.starts(actions).count, 1)
    }

    func testADuplicateNamesTheAssetSelectedFirstInPriorityOrder() throws {
        // x.jpg appears as high (index 0) and critical (index 2): the critical one is selected, so
        // the high one is its duplicate, although it comes first in the payload.
        let r = try manifest([("x.jpg", "high"), ("y.jpg", "critical"), ("x.jpg", "critical")])
        var policy = Fixtures.policy()
        policy.eligiblePriority = .high
        policy.criticalAssetsMax = 3
        var h = try Harness(policy: policy)
        let actions = try h.feed(.pushReceived(r, Sessions.context()), at: ms(0))
        XCTAssertEqual(actions.first, .log(.assetSkipped(assetIndex: 0, .duplicateOf(assetIndex: 2))))
        XCTAssertEqual(Sessions.starts(actions).map(\.url.path), ["/y.jpg", "/x.jpg"])
    }

    func testAStoreThatCannotHoldAnythingSkipsFetching() throws {
        let r = try manifest([("a.jpg", "critical")])
        var h = try Harness(store: PreloadStore(capacityBytes: 0))
        let actions = try h.feed(.pushReceived(r, Sessions.context()), at: ms(0))
        XCTAssertEqual(actions.first, .log(.assetSkipped(assetIndex: 0, .storeTooSmall(limitBytes: 0))))
        XCTAssertEqual(Sessions.deliveries(actions).map(\.reason), [.nothingToFetch])
    }
}
