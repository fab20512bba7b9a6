import Foundation
import PreloadKit
@testable import PreloadKitFoundation
import XCTest

/// End-to-end tests of `PreloadDriver` against the real loopback server (`Fixtures/preload_server.py`),
/// the real file system (a fresh temporary store directory per test) and the real clock.
///
/// Time bounds: every `run` is bounded by the policy's hard deadline (8 s unless a test sets a
/// shorter one) and every `finished()` too, so no test can hang; timing assertions only use lower
/// bounds that the clock guarantees (delivery not before the deadline) and upper bounds with
/// several seconds of slack below the server's delay (a loaded 2-core machine).
final class PreloadDriverTests: DriverFixtureTestCase {

    func makeDriver(_ policy: PreloadPolicy, receipts: Recorder<Receipt>? = nil, receiptArrived: XCTestExpectation? = nil,
                    paintReady: Recorder<URL>? = nil, storeCapacityBytes: Int64 = 25_000_000) throws -> PreloadDriver {
        var configuration = PreloadDriverConfiguration(policy: policy, storeDirectory: directory.appendingPathComponent("store"))
        configuration.storeCapacityBytes = storeCapacityBytes
        configuration.attachmentDirectory = directory.appendingPathComponent("attachments")
        if let receipts {
            configuration.receiptHandler = { receipt in
                receipts.append(receipt)
                receiptArrived?.fulfill()
            }
        }
        if let paintReady { configuration.paintReadyHandler = { _, url in paintReady.append(url) } }
        let driver = try PreloadDriver(configuration: configuration)
        drivers.append(driver)
        return driver
    }

    var storeDirectory: URL { directory.appendingPathComponent("store") }

    // MARK: - Storing

    func testInlineManifestStoresAssetsUnderHashedNamesPersistsIndexAndDeliversOnce() async throws {
        var policy = try testPolicy()
        policy.receiptsEnabled = true
        let receipts = Recorder<Receipt>()
        let receiptArrived = expectation(description: "receipt handed to the closure")
        let driver = try makeDriver(policy, receipts: receipts, receiptArrived: receiptArrived)
        let pngURL = server.url("/asset/fresh/cover.png?bytes=5000")
        let gifURL = server.url("/asset/fresh/thumb.gif?bytes=3000")
        let payload = try signedJSON(inlinePayload(manifestID: "mix_wk42", assets: [(pngURL, "image", 5000), (gifURL, "gif", 3000)]))
        let handled = Recorder<DeliveryReason>()

        let result = try await driver.run(payload: payload, context: nseContext) { handled.append($0.delivery.reason) }
        XCTAssertEqual(result.delivery.reason, .assetsSettled)
        XCTAssertEqual(result.delivery.readyAssets, 2)
        XCTAssertEqual(result.delivery.selectedAssets, 2)
        XCTAssertEqual(result.fetches.count, 2)
        XCTAssertTrue(result.fetches.allSatisfy { $0.state.isStored }, "\(result.fetches)")
        XCTAssertEqual(result.notes, [])

        // Files: exactly the two hashed names and the index, nothing named after payload text.
        let pngKey = try storeKey(pngURL)
        let gifKey = try storeKey(gifURL)
        XCTAssertEqual(try fileNames(storeDirectory), [pngKey.fileName, gifKey.fileName, FileStore.indexFileName].sorted())
        for name in try fileNames(storeDirectory) { XCTAssertFalse(name.contains("cover") || name.contains("thumb"), name) }

        // Bytes on disk are the bytes the server sent.
        let log = try await server.requests()
        XCTAssertEqual(log.count, 2)
        for (url, key) in [(pngURL, pngKey), (gifURL, gifKey)] {
            let sent = try XCTUnwrap(log.first { url.hasSuffix($0.path) })
            let stored = try Data(contentsOf: storeDirectory.appendingPathComponent(key.fileName))
            XCTAssertEqual(stored.count, sent.bodyBytes)
            XCTAssertEqual(sha256Hex(stored), sent.sha256)
        }

        // The attachment is a copy of the first attachable asset, with its kind's extension.
        let attachment = try XCTUnwrap(result.attachmentFileURL)
        XCTAssertEqual(result.delivery.attachment?.key, pngKey)
        XCTAssertEqual(attachment.pathExtension, "png")
        XCTAssertEqual(try Data(contentsOf: attachment), try Data(contentsOf: storeDirectory.appendingPathComponent(pngKey.fileName)))

        // The index on disk names both entries (read as plain JSON, independent of the driver).
        let indexData = try Data(contentsOf: storeDirectory.appendingPathComponent(FileStore.indexFileName))
        let index = try XCTUnwrap(JSONSerialization.jsonObject(with: indexData) as? [String: Any])
        let entries = try XCTUnwrap(index["entries"] as? [[String: Any]])
        XCTAssertEqual(Set(entries.compactMap { $0["key"] as? String }), [pngKey.hex, gifKey.hex])
        XCTAssertEqual(Set(entries.compactMap { ($0["bytes"] as? NSNumber)?.intValue }), [5000, 3000])

        // A later process opening the store sees the same entries.
        let final = try await driver.finished()
        XCTAssertTrue(final.sessionFinished)
        await driver.shutdown()
        let reopened = try makeDriver(policy)
        XCTAssertEqual(reopened.reconciliation.keptEntries, 2)
        XCTAssertEqual(reopened.reconciliation.droppedEntries, [])
        let reopenedStore = await reopened.store
        let originalStore = await driver.store
        XCTAssertEqual(reopenedStore, originalStore)

        // Delivery exactly once; the receipt (jitter 0: due at delivery) handed over once.
        XCTAssertEqual(handled.values, [.assetsSettled])
        await fulfillment(of: [receiptArrived], timeout: 10)
        XCTAssertEqual(receipts.values.map(\.manifestTag), [result.request.manifestTag])
        XCTAssertEqual(receipts.values.first?.readyAssets, 2)
    }

    func testBodyLargerThanTheBufferIsStreamedToDiskIntact() async throws {
        // A 4 KiB buffer and a 300 kB body: about 73 writes through the buffer, then fsync + rename.
        var policy = try testPolicy()
        policy.fetchBufferBytes = 4096
        let driver = try makeDriver(policy)
        let url = server.url("/asset/fresh/poster.jpg?bytes=300000")
        let result = try await driver.run(payload: try signedJSON(inlinePayload(manifestID: "poster", assets: [(url, "image", 300_000)])),
                                          context: nseContext)
        XCTAssertEqual(result.fetches[0].state, .stored(bytes: 300_000, kind: .jpeg,
                                                        fileURL: storeDirectory.appendingPathComponent(try storeKey(url).fileName)))
        let sent = try await server.requests(for: "/asset/fresh/poster.jpg")
        let stored = try Data(contentsOf: storeDirectory.appendingPathComponent(try storeKey(url).fileName))
        XCTAssertEqual(sent.map(\.sha256), [sha256Hex(stored)])
    }

    func testSecondPushWithinMaxAgeUsesTheStoredAssetWithoutARequest() async throws {
        let policy = try testPolicy()
        let url = server.url("/asset/fresh/hero.png?bytes=4000")
        let payload = try signedJSON(inlinePayload(manifestID: "hero_1", assets: [(url, "png", 4000)]))
        let first = try makeDriver(policy)
        let stored = try await first.run(payload: payload, context: nseContext)
        XCTAssertEqual(stored.delivery.reason, .assetsSettled)
        _ = try await first.finished()
        await first.shutdown()

        // A new driver (as the next push's extension process would be) over the same directory.
        let second = try makeDriver(policy)
        let reused = try await second.run(payload: payload, context: nseContext)
        XCTAssertEqual(reused.delivery.reason, .nothingToFetch)
        XCTAssertEqual(reused.delivery.readyAssets, 1)
        XCTAssertEqual(reused.fetches.count, 0)
        XCTAssertTrue(reused.log.contains(.storeHit(assetIndex: 0, .fresh)), "\(reused.log)")
        XCTAssertNotNil(reused.attachmentFileURL)
        let requests = try await server.requests(for: "/asset/fresh/hero.png")
        XCTAssertEqual(requests.count, 1, "the second push must not reach the server")

        let answer = try await second.tap()
        XCTAssertTrue(answer.paintsInstantly)
        XCTAssertEqual(answer.assets.map(\.freshness), [.fresh])
    }

    func testEvictionToMakeRoomDeletesTheOlderFile() async throws {
        // Room for one 4000-byte asset only: the second push's asset evicts the first.
        let driver = try makeDriver(try testPolicy(), storeCapacityBytes: 6000)
        let firstURL = server.url("/asset/fresh/first.png?bytes=4000")
        let secondURL = server.url("/asset/fresh/second.png?bytes=4000")
        _ = try await driver.run(payload: try signedJSON(inlinePayload(manifestID: "one", assets: [(firstURL, "png", 4000)])), context: nseContext)
        _ = try await driver.finished()
        XCTAssertEqual(try fileNames(storeDirectory), [try storeKey(firstURL).fileName, FileStore.indexFileName].sorted())

        let second = try await driver.run(payload: try signedJSON(inlinePayload(manifestID: "two", assets: [(secondURL, "png", 4000)])), context: nseContext)
        XCTAssertTrue(second.fetches[0].state.isStored)
        XCTAssertEqual(second.evictedForSpace, 1, "the driver reports why the first asset went")
        XCTAssertEqual(second.expiredRemoved, 0)
        XCTAssertEqual(try fileNames(storeDirectory), [try storeKey(secondURL).fileName, FileStore.indexFileName].sorted())
        let keys = await driver.store.entries.map(\.key)
        XCTAssertEqual(keys, [try storeKey(secondURL)])
        let reopened = try makeDriver(try testPolicy(), storeCapacityBytes: 6000)
        XCTAssertEqual(reopened.reconciliation.keptEntries, 1)
        XCTAssertEqual(reopened.reconciliation.deletedOrphanFiles, [])
    }

    func testStaleWhileRevalidateServesStaleAndRevalidatesInTheBackground() async throws {
        let driver = try makeDriver(try testPolicy())
        // max-age=0, stale-while-revalidate=600: stale from the moment it is stored.
        let url = server.url("/asset/swr/banner.jpg?bytes=6000")
        let payload = try signedJSON(inlinePayload(manifestID: "sale_7", assets: [(url, "image", 6000)]))
        _ = try await driver.run(payload: payload, context: nseContext)
        let firstStore = try await driver.finished()
        XCTAssertTrue(firstStore.fetches.allSatisfy { $0.state.isStored })
        let key = try storeKey(url)
        let firstEntries = await driver.store.entries
        let storedAtFirst = try XCTUnwrap(firstEntries.first { $0.key == key }).storedAt

        let second = try await driver.run(payload: payload, context: nseContext)
        XCTAssertEqual(second.delivery.reason, .nothingToFetch, "delivery must not wait for the revalidation")
        XCTAssertEqual(second.delivery.readyAssets, 1)
        XCTAssertNotNil(second.attachmentFileURL, "the stale copy is usable")
        XCTAssertTrue(second.log.contains(.storeHit(assetIndex: 0, .stale)), "\(second.log)")
        XCTAssertEqual(second.fetches.map(\.isRevalidation), [true])

        let done = try await driver.finished()
        XCTAssertTrue(done.fetches[0].state.isStored, "\(done.fetches)")
        let secondEntries = await driver.store.entries
        let storedAtSecond = try XCTUnwrap(secondEntries.first { $0.key == key }).storedAt
        XCTAssertGreaterThan(storedAtSecond, storedAtFirst)
        let requests = try await server.requests(for: "/asset/swr/banner.jpg")
        XCTAssertEqual(requests.count, 2)
        XCTAssertEqual(try fileNames(storeDirectory), [key.fileName, FileStore.indexFileName].sorted())
    }

    /// The server sends an ETag: the stale entry's background revalidation carries it as
    /// `If-None-Match`, the server answers 304 without a body, and the entry is refreshed (a later
    /// `storedAt`) from the stored file, whose bytes stay; the index keeps the tag's text.
    func testRevalidationWithETagIsAnswered304AndRefreshesTheEntry() async throws {
        let driver = try makeDriver(try testPolicy())
        let url = server.url("/asset/etag/banner.jpg?bytes=6000")
        let payload = try signedJSON(inlinePayload(manifestID: "sale_8", assets: [(url, "image", 6000)]))
        _ = try await driver.run(payload: payload, context: nseContext)
        _ = try await driver.finished()
        let key = try storeKey(url)
        let firstEntries = await driver.store.entries
        let first = try XCTUnwrap(firstEntries.first { $0.key == key })
        XCTAssertNotNil(first.etag, "the response's ETag is kept with the entry")
        let fileBefore = try Data(contentsOf: storeDirectory.appendingPathComponent(key.fileName))

        let second = try await driver.run(payload: payload, context: nseContext)
        XCTAssertEqual(second.fetches.map(\.isRevalidation), [true])
        let done = try await driver.finished()
        XCTAssertTrue(done.fetches[0].state.isStored, "\(done.fetches)")
        XCTAssertTrue(done.log.contains(.assetStored(FetchID(rawValue: 1), bytes: 0)), "\(done.log)")
        let refreshedEntries = await driver.store.entries
        let refreshed = try XCTUnwrap(refreshedEntries.first { $0.key == key })
        XCTAssertGreaterThan(refreshed.storedAt, first.storedAt)
        XCTAssertEqual(refreshed.etag, first.etag)
        XCTAssertEqual(try Data(contentsOf: storeDirectory.appendingPathComponent(key.fileName)), fileBefore)
        let requests = try await server.requests(for: "/asset/etag/banner.jpg")
        XCTAssertEqual(requests.map(\.bodyBytes), [6000, 0], "the revalidation is answered without a body")
        XCTAssertEqual(try fileNames(storeDirectory), [key.fileName, FileStore.indexFileName].sorted(), "no temporary left")
        let index = try String(contentsOf: storeDirectory.appendingPathComponent(FileStore.indexFileName), encoding: .utf8)
        XCTAssertTrue(index.contains("\"etag\""), index)

        // Reopened, the driver still revalidates with the tag from the index.
        let reopened = try makeDriver(try testPolicy())
        let reopenedEntries = await reopened.store.entries
        XCTAssertEqual(try XCTUnwrap(reopenedEntries.first { $0.key == key }).etag, first.etag)
        _ = try await reopened.run(payload: payload, context: nseContext)
        _ = try await reopened.finished()
        let all = try await server.requests(for: "/asset/etag/banner.jpg")
        XCTAssertEqual(all.map(\.bodyBytes), [6000, 0, 0])
    }

    func testManifestByReferenceFetchesTheManifestThenItsAssets() async throws {
        let driver = try makeDriver(try testPolicy())
        let assetURL = server.url("/asset/fresh/ref.png?bytes=2500")
        // The referenced document, wrapped in cdn_preload and signed like an inline manifest.
        let document = try signedJSON(["cdn_preload": (inlinePayload(manifestID: "mix_wk43", assets: [(assetURL, "image", 2500)])["cdn_preload"] as Any)])
        try await server.putDocument("mix_wk43.json", document)
        let manifestURL = server.url("/doc/mix_wk43.json")
        let payload = try signedJSON([
            "aps": ["alert": "New mix", "mutable-content": 1],
            "cdn_preload": ["manifest_id": "mix_wk43", "manifest_url": manifestURL],
        ])

        let result = try await driver.run(payload: payload, context: nseContext)
        XCTAssertEqual(result.delivery.reason, .assetsSettled)
        XCTAssertEqual(result.delivery.readyAssets, 1)
        XCTAssertEqual(result.fetches.count, 2)
        XCTAssertEqual(result.fetches[0].purpose, .manifest)
        XCTAssertEqual(result.fetches[0].state, .manifestAccepted(bytes: Int64(document.count)))
        XCTAssertTrue(result.fetches[1].state.isStored, "\(result.fetches)")
        XCTAssertEqual(result.request.assets.map(\.url.absoluteString), [assetURL])
        let paths = try await server.requests().map(\.path)
        XCTAssertEqual(paths, ["/doc/mix_wk43.json", "/asset/fresh/ref.png?bytes=2500"])
    }

    func testTapWhileFetchingAnswersMissingThenAnnouncesPaintReady() async throws {
        let paintReady = Recorder<URL>()
        let driver = try makeDriver(try testPolicy(), paintReady: paintReady)
        let url = server.url("/slow/1500/tapped.png")
        let payload = try signedJSON(inlinePayload(manifestID: "tap", assets: [(url, "image", 2000)]))
        async let pending = driver.run(payload: payload, context: nseContext)
        try await waitForPhase(.fetchingAssets, driver)

        let answer = try await driver.tap()
        XCTAssertTrue(answer.assetsKnown)
        XCTAssertEqual(answer.assets.map(\.freshness), [.missing])
        XCTAssertFalse(answer.paintsInstantly)
        // One session per store at a time: a second push while this one runs is refused.
        do {
            _ = try await driver.run(payload: payload, context: nseContext)
            XCTFail("a second session must not start while the first runs")
        } catch {
            XCTAssertEqual(error, .sessionInProgress)
        }

        let result = try await pending
        XCTAssertEqual(result.delivery.reason, .assetsSettled)
        let file = storeDirectory.appendingPathComponent(try storeKey(url).fileName)
        XCTAssertEqual(paintReady.values, [file])
        XCTAssertTrue(FileManager.default.fileExists(atPath: file.path))
        let storedFile = await driver.storedFile(for: try storeKey(url))
        XCTAssertEqual(storedFile, file)
        XCTAssertGreaterThan(try XCTUnwrap(driver.volumeFreeBytes()), 0)
    }

    /// Polls (every 10 ms, at most 5 s) until the driver's session is in `phase`.
    func waitForPhase(_ phase: PreloadSession.Phase, _ driver: PreloadDriver) async throws {
        for _ in 0..<500 {
            if await driver.phase == phase { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        let current = await driver.phase
        XCTFail("phase is \(String(describing: current)) after 5 s, expected \(phase)")
    }

    // MARK: - Refusals and failures

    func testBadSignatureIsRefusedWithAReasonAndNothingIsFetched() async throws {
        let driver = try makeDriver(try testPolicy())
        let url = server.url("/asset/fresh/forged.png?bytes=2000")
        let payload = try signedJSON(inlinePayload(manifestID: "forged", assets: [(url, "image", 2000)]), tamper: true)
        do {
            _ = try await driver.run(payload: payload, context: nseContext)
            XCTFail("a wrongly signed payload must be refused")
        } catch {
            XCTAssertEqual(error, .payloadRejected(PayloadRejection(path: "$.cdn_preload.signature", reason: .signatureMismatch)),
                           "\(error)")
        }
        let requests = try await server.requests()
        XCTAssertEqual(requests, [])
        XCTAssertFalse(try fileNames(storeDirectory).contains { $0.hasSuffix(".asset") || $0.hasSuffix(".part") })
        let phase = await driver.phase
        XCTAssertNil(phase)
    }

    func testServerErrorOnOneAssetDoesNotDropTheOther() async throws {
        let driver = try makeDriver(try testPolicy())
        let errorURL = server.url("/error/broken.png")
        let goodURL = server.url("/asset/fresh/good.gif?bytes=3000")
        let payload = try signedJSON(inlinePayload(manifestID: "two", assets: [(errorURL, "image", 2000), (goodURL, "image", 3000)]))
        let result = try await driver.run(payload: payload, context: nseContext)
        XCTAssertEqual(result.delivery.reason, .assetsSettled)
        XCTAssertEqual(result.delivery.readyAssets, 1)
        XCTAssertEqual(result.delivery.selectedAssets, 2)
        XCTAssertEqual(result.fetches[0].state, .rejected(.httpStatus(500)))
        XCTAssertTrue(result.fetches[1].state.isStored)
        XCTAssertEqual(result.delivery.attachment?.key, try storeKey(goodURL))
        XCTAssertEqual(try fileNames(storeDirectory), [try storeKey(goodURL).fileName, FileStore.indexFileName].sorted())
    }

    func testTruncatedBodyIsNotStored() async throws {
        let driver = try makeDriver(try testPolicy())
        let url = server.url("/truncated/cut.png")
        let payload = try signedJSON(inlinePayload(manifestID: "cut", assets: [(url, "image", 20_000)]))
        let result = try await driver.run(payload: payload, context: nseContext)
        XCTAssertEqual(result.delivery.readyAssets, 0)
        XCTAssertNil(result.attachmentFileURL)
        // Content-Length 20000 but 3000 bytes, then the server closes: the driver reports the short
        // body and the session refuses it.
        XCTAssertEqual(result.fetches[0].state, .rejected(.lengthMismatch(receivedBytes: 3000, contentLength: 20_000)), "\(result.notes)")
        XCTAssertFalse(try fileNames(storeDirectory).contains { $0.hasSuffix(".asset") || $0.hasSuffix(".part") })
        let store = await driver.store
        XCTAssertEqual(store.entries.count, 0)
    }

    func testOversizedBodyWithContentLengthIsRefusedAtTheHeaders() async throws {
        let driver = try makeDriver(try testPolicy())
        // Declared 1000 bytes in the manifest; the server sends 100000 with an honest length.
        let url = server.url("/oversized/big.png?bytes=100000&cl=1")
        let payload = try signedJSON(inlinePayload(manifestID: "big", assets: [(url, "image", 1000)]))
        let result = try await driver.run(payload: payload, context: nseContext)
        XCTAssertEqual(result.fetches[0].state, .rejected(.contentLengthOverLimit(contentLength: 100_000, limitBytes: 1000)))
        XCTAssertEqual(result.delivery.readyAssets, 0)
        XCTAssertFalse(try fileNames(storeDirectory).contains { $0.hasSuffix(".asset") || $0.hasSuffix(".part") })
    }

    func testOversizedBodyWithoutContentLengthIsCutOffAndNotStored() async throws {
        let driver = try makeDriver(try testPolicy())
        let totalBytes = 4_000_000
        let url = server.url("/oversized/stream.png?bytes=\(totalBytes)&cl=0")
        let payload = try signedJSON(inlinePayload(manifestID: "stream", assets: [(url, "image", 1000)]))
        let result = try await driver.run(payload: payload, context: nseContext)
        guard case .rejected(.bytesOverLimit(let received, let limit)) = result.fetches[0].state else {
            return XCTFail("expected bytesOverLimit, got \(result.fetches[0].state)")
        }
        XCTAssertEqual(limit, 1000)
        XCTAssertGreaterThan(received, 1000)
        // Cut off: the driver stopped reading long before the 4 MB the server offered.
        XCTAssertLessThan(received, Int64(totalBytes))
        XCTAssertEqual(result.fetches[0].bytesReceived, received)
        XCTAssertFalse(try fileNames(storeDirectory).contains { $0.hasSuffix(".asset") || $0.hasSuffix(".part") })
        let store = await driver.store
        XCTAssertEqual(store.entries.count, 0)
    }

    func testWrongContentTypeAndWrongMagicBytesAreRejected() async throws {
        let driver = try makeDriver(try testPolicy())
        let typeURL = server.url("/wrongtype/page.png")
        let magicURL = server.url("/wrongmagic/fake.png")
        let payload = try signedJSON(inlinePayload(manifestID: "wrong", assets: [(typeURL, "image", 2000), (magicURL, "image", 2000)]))
        let result = try await driver.run(payload: payload, context: nseContext)
        XCTAssertEqual(result.fetches.map(\.state), [.rejected(.contentTypeNotAllowed("text/html")), .rejected(.magicBytesNotAllowed(nil))])
        XCTAssertEqual(result.delivery.readyAssets, 0)
        XCTAssertNil(result.attachmentFileURL)
        XCTAssertFalse(try fileNames(storeDirectory).contains { $0.hasSuffix(".asset") || $0.hasSuffix(".part") })
    }

    func testRedirectIsNotFollowed() async throws {
        let driver = try makeDriver(try testPolicy())
        let url = server.url("/redirect/elsewhere.png")
        let payload = try signedJSON(inlinePayload(manifestID: "redirect", assets: [(url, "image", 2000)]))
        let result = try await driver.run(payload: payload, context: nseContext)
        XCTAssertEqual(result.fetches[0].state, .rejected(.httpStatus(302)))
        let paths = try await server.requests().map(\.path)
        XCTAssertEqual(paths, ["/redirect/elsewhere.png"], "the redirect target must not be requested")
    }

    // MARK: - Time

    func testHardDeadlineDeliversFailOpenWithTheTextIntact() async throws {
        let deadlineMicroseconds: Int64 = 1_500_000
        let driver = try makeDriver(try testPolicy(hardDeadlineMicroseconds: deadlineMicroseconds, requestTimeoutMicroseconds: 20_000_000))
        let slowURL = server.url("/slow/7000/late.png")
        let fastURL = server.url("/asset/fresh/early.png?bytes=2000")
        let payload = try signedJSON(inlinePayload(manifestID: "deadline", assets: [(slowURL, "image", 2000), (fastURL, "image", 2000)]))
        let handled = Recorder<DeliveryReason>()

        let result = try await driver.run(payload: payload, context: nseContext) { handled.append($0.delivery.reason) }
        XCTAssertEqual(result.delivery.reason, .hardDeadline)
        XCTAssertGreaterThanOrEqual(result.deliveryLatencyMicroseconds, deadlineMicroseconds)
        XCTAssertLessThan(result.deliveryLatencyMicroseconds, 6_500_000, "must not wait for the 7 s server")
        XCTAssertEqual(result.payload, payload, "the notification text is delivered as received")
        XCTAssertTrue(result.request.hasAlert)
        XCTAssertEqual(result.fetches[0].state, .cancelled(.hardDeadline))
        XCTAssertTrue(result.fetches[1].state.isStored, "the fast asset is kept: \(result.fetches)")
        XCTAssertEqual(result.delivery.attachment?.key, try storeKey(fastURL))
        XCTAssertEqual(try fileNames(storeDirectory), [try storeKey(fastURL).fileName, FileStore.indexFileName].sorted())
        let final = try await driver.finished()
        XCTAssertTrue(final.sessionFinished)
        XCTAssertEqual(handled.values, [.hardDeadline])
    }

    func testRequestTimeoutCancelsTheSlowAssetAndDeliversWhenSettled() async throws {
        let timeoutMicroseconds: Int64 = 1_000_000
        let driver = try makeDriver(try testPolicy(hardDeadlineMicroseconds: 8_000_000, requestTimeoutMicroseconds: timeoutMicroseconds))
        let url = server.url("/slow/7000/stuck.png")
        let payload = try signedJSON(inlinePayload(manifestID: "timeout", assets: [(url, "image", 2000)]))
        let result = try await driver.run(payload: payload, context: nseContext)
        XCTAssertEqual(result.delivery.reason, .assetsSettled)
        XCTAssertGreaterThanOrEqual(result.deliveryLatencyMicroseconds, timeoutMicroseconds)
        XCTAssertLessThan(result.deliveryLatencyMicroseconds, 6_000_000)
        // The session owns the timeout (the driver arms no timer of its own): exactly one outcome,
        // the session's cancel, and no second timeout report.
        XCTAssertEqual(result.fetches[0].state, .cancelled(.timedOut))
        XCTAssertFalse(result.log.contains(.fetchFailed(FetchID(rawValue: 1), .timedOut)), "\(result.log)")
        XCTAssertFalse(result.log.contains { if case .lateInputIgnored = $0 { return true } else { return false } }, "\(result.log)")
        XCTAssertEqual(result.notes, [])
        XCTAssertFalse(try fileNames(storeDirectory).contains { $0.hasSuffix(".asset") || $0.hasSuffix(".part") })
    }

    func testExpiryWarningDeliversAtOnceAndCancelsTheFetch() async throws {
        let driver = try makeDriver(try testPolicy(hardDeadlineMicroseconds: 8_000_000, requestTimeoutMicroseconds: 8_000_000))
        let url = server.url("/slow/7000/expiring.png")
        let payload = try signedJSON(inlinePayload(manifestID: "expiry", assets: [(url, "image", 2000)]))
        let handled = Recorder<DeliveryReason>()
        async let pending = driver.run(payload: payload, context: nseContext) { handled.append($0.delivery.reason) }
        // Once the session is fetching, play serviceExtensionTimeWillExpire.
        try await waitForPhase(.fetchingAssets, driver)
        await driver.expiryWarning()
        let result = try await pending
        XCTAssertEqual(result.delivery.reason, .osExpiry)
        XCTAssertLessThan(result.deliveryLatencyMicroseconds, 6_000_000)
        XCTAssertEqual(result.fetches[0].state, .cancelled(.osExpiry))
        XCTAssertEqual(handled.values, [.osExpiry])
        await driver.expiryWarning()  // a second warning after the end changes nothing
        XCTAssertEqual(handled.values, [.osExpiry])
        XCTAssertFalse(try fileNames(storeDirectory).contains { $0.hasSuffix(".part") })
    }

    // MARK: - Store reconciliation

    func testOpeningReconcilesTheIndexWithTheFiles() throws {
        try FileManager.default.createDirectory(at: storeDirectory, withIntermediateDirectories: true)
        let kept = StoreKey(hi: 0x0123_4567_89AB_CDEF, lo: 0x1111_2222_3333_4444)
        let missing = StoreKey(hi: 0xAAAA_0000_0000_0001, lo: 2)
        let orphan = StoreKey(hi: 0xBBBB_0000_0000_0003, lo: 4)
        let resized = StoreKey(hi: 0xCCCC_0000_0000_0005, lo: 6)
        let linked = StoreKey(hi: 0xDDDD_0000_0000_0007, lo: 8)
        let nowMicroseconds = Int64(Date().timeIntervalSince1970 * 1e6)
        func record(_ key: StoreKey, bytes: Int) -> String {
            """
            {"key":"\(key.hex)","bytes":\(bytes),"storedAt":\(nowMicroseconds - 10_000_000),"expiresAt":\(nowMicroseconds + 300_000_000),\
            "staleUntil":\(nowMicroseconds + 600_000_000),"lastUsed":\(nowMicroseconds - 10_000_000),"manifestTag":"00000000000000ff","kind":"png"}
            """
        }
        let index = "{\"version\":1,\"entries\":[\(record(kept, bytes: 10)),\(record(missing, bytes: 10)),\(record(resized, bytes: 99)),\(record(linked, bytes: 10))]}"
        try Data(index.utf8).write(to: storeDirectory.appendingPathComponent(FileStore.indexFileName))
        try Data(repeating: 7, count: 10).write(to: storeDirectory.appendingPathComponent(kept.fileName))
        try Data(repeating: 7, count: 10).write(to: storeDirectory.appendingPathComponent(orphan.fileName))
        try Data(repeating: 7, count: 10).write(to: storeDirectory.appendingPathComponent(resized.fileName))
        try Data(repeating: 7, count: 10).write(to: storeDirectory.appendingPathComponent("fetch-1-2-3.part"))
        try Data("keep me".utf8).write(to: storeDirectory.appendingPathComponent("notes.txt"))
        // An index entry whose "file" is a symbolic link to a file outside the store.
        let outside = directory.appendingPathComponent("outside.bin")
        try Data(repeating: 7, count: 10).write(to: outside)
        try FileManager.default.createSymbolicLink(at: storeDirectory.appendingPathComponent(linked.fileName), withDestinationURL: outside)

        let driver = try makeDriver(try testPolicy())
        let report = driver.reconciliation
        XCTAssertEqual(report.keptEntries, 1)
        XCTAssertEqual(report.droppedEntries.map(\.key), [missing.hex, resized.hex, linked.hex].sorted())
        XCTAssertEqual(report.deletedOrphanFiles, [orphan.fileName, resized.fileName, linked.fileName].sorted())
        XCTAssertTrue(FileManager.default.fileExists(atPath: outside.path), "the link's target outside the store is untouched")
        XCTAssertEqual(report.deletedTemporaryFiles, ["fetch-1-2-3.part"])
        XCTAssertNil(report.unreadableIndex)
        XCTAssertEqual(try fileNames(storeDirectory), [kept.fileName, FileStore.indexFileName, "notes.txt"].sorted())

        // The rewritten index holds only the kept entry.
        let reopened = try makeDriver(try testPolicy())
        XCTAssertEqual(reopened.reconciliation.keptEntries, 1)
        XCTAssertEqual(reopened.reconciliation.droppedEntries, [])
    }

    func testUnreadableIndexStartsEmptyAndDeletesTheOrphans() throws {
        try FileManager.default.createDirectory(at: storeDirectory, withIntermediateDirectories: true)
        let orphan = StoreKey(hi: 1, lo: 2)
        try Data("{not json".utf8).write(to: storeDirectory.appendingPathComponent(FileStore.indexFileName))
        try Data(repeating: 1, count: 5).write(to: storeDirectory.appendingPathComponent(orphan.fileName))
        let driver = try makeDriver(try testPolicy())
        XCTAssertNotNil(driver.reconciliation.unreadableIndex)
        XCTAssertEqual(driver.reconciliation.deletedOrphanFiles, [orphan.fileName])
        XCTAssertEqual(try fileNames(storeDirectory), [FileStore.indexFileName])
    }

    // MARK: - Store write failures

    func testAStoreWriteFailureIsFedBackSoNoStoreCountsTheMissingFile() async throws {
        let driver = try makeDriver(try testPolicy())
        let blockedURL = server.url("/asset/fresh/blocked.png?bytes=3000")
        let laterURL = server.url("/slow/1500/later.png")
        let blockedKey = try storeKey(blockedURL)
        let laterKey = try storeKey(laterURL)
        // A directory where the asset file must go: rename(2) cannot replace it with a file.
        try FileManager.default.createDirectory(at: storeDirectory.appendingPathComponent(blockedKey.fileName), withIntermediateDirectories: false)
        let payload = try signedJSON(inlinePayload(manifestID: "blocked", assets: [(blockedURL, "image", 3000), (laterURL, "image", 2000)]))

        let result = try await driver.run(payload: payload, context: nseContext)
        XCTAssertEqual(result.fetches[0].state, .storeWriteFailed)
        XCTAssertTrue(result.fetches[1].state.isStored, "\(result.fetches)")
        XCTAssertTrue(result.log.contains(.storeFailed(FetchID(rawValue: 1), blockedKey)), "\(result.log)")
        XCTAssertEqual(result.notes.count, 1, "\(result.notes)")
        if case .storeWriteFailed(let key, _)? = result.notes.first { XCTAssertEqual(key, blockedKey) } else { XCTFail("\(result.notes)") }
        // The slow asset settles 1.5 s after the failure was fed back: the delivery counts one.
        XCTAssertEqual(result.delivery.readyAssets, 1)
        XCTAssertEqual(result.delivery.attachment?.key, laterKey)

        let store = await driver.store
        XCTAssertEqual(store.entries.map(\.key), [laterKey])
        let indexData = try Data(contentsOf: storeDirectory.appendingPathComponent(FileStore.indexFileName))
        let index = try XCTUnwrap(JSONSerialization.jsonObject(with: indexData) as? [String: Any])
        let entries = try XCTUnwrap(index["entries"] as? [[String: Any]])
        XCTAssertEqual(entries.compactMap { $0["key"] as? String }, [laterKey.hex])
        let answer = try await driver.tap()
        XCTAssertEqual(answer.assets.map(\.key), [blockedKey, laterKey])
        XCTAssertEqual(answer.assets.map(\.freshness), [.missing, .fresh])
    }

    // MARK: - Taps without a session

    func testATapWithoutASessionAnswersFromThePersistedStoreAndWritesNothing() async throws {
        let policy = try testPolicy()
        let driver = try makeDriver(policy)
        let shownURL = server.url("/asset/fresh/shown.png?bytes=3000")
        let brokenURL = server.url("/error/broken.png")
        let payload = try signedJSON(inlinePayload(manifestID: "shown", assets: [(shownURL, "image", 3000), (brokenURL, "image", 2000)]))
        _ = try await driver.run(payload: payload, context: nseContext)
        _ = try await driver.finished()
        // Another process's download in progress: a read-only tap must not delete it.
        try Data(repeating: 1, count: 10).write(to: storeDirectory.appendingPathComponent("fetch-other-1-1.part"))
        let namesBefore = try fileNames(storeDirectory)
        let indexURL = storeDirectory.appendingPathComponent(FileStore.indexFileName)
        let indexBefore = try Data(contentsOf: indexURL)

        var configuration = PreloadDriverConfiguration(policy: policy, storeDirectory: storeDirectory)
        let answer = try PreloadDriver.tap(payload: payload, context: nseContext, configuration: configuration)
        XCTAssertEqual(answer.assets.map(\.key), [try storeKey(shownURL), try storeKey(brokenURL)])
        XCTAssertEqual(answer.assets.map(\.freshness), [.fresh, .missing])
        XCTAssertTrue(answer.assetsKnown)
        XCTAssertEqual(try fileNames(storeDirectory), namesBefore)
        XCTAssertEqual(try Data(contentsOf: indexURL), indexBefore)
        // The same answer as the session's own (same selection, same store).
        let live = try await driver.tap()
        XCTAssertEqual(live, answer)
        // The screen's paint set from the same store: every critical asset (here the selection too).
        XCTAssertEqual(try PreloadDriver.paintSet(payload: payload, network: nseContext.network, configuration: configuration), answer)
        var oneAsset = configuration
        oneAsset.policy.criticalAssetsMax = 1
        XCTAssertEqual(try PreloadDriver.tap(payload: payload, context: nseContext, configuration: oneAsset).assets.count, 1)
        XCTAssertEqual(try PreloadDriver.paintSet(payload: payload, network: nseContext.network, configuration: oneAsset), answer,
                       "the selection's limit does not shrink the paint set")

        // An asset file deleted behind the index's back counts as missing.
        unlink(storeDirectory.appendingPathComponent(try storeKey(shownURL).fileName).path)
        XCTAssertEqual(try PreloadDriver.tap(payload: payload, context: nseContext, configuration: configuration).assets.map(\.freshness),
                       [.missing, .missing])
        // A manifest reference as pushed: its assets are unknown without the manifest.
        let reference = try signedJSON(["aps": ["alert": "New mix", "mutable-content": 1],
                                        "cdn_preload": ["manifest_id": "ref_tap", "manifest_url": server.url("/doc/ref_tap.json")]])
        let unknown = try PreloadDriver.tap(payload: reference, context: nseContext, configuration: configuration)
        XCTAssertEqual(unknown.assets, [])
        XCTAssertFalse(unknown.assetsKnown)
        // Refusals are precise.
        XCTAssertThrowsError(try PreloadDriver.tap(payload: try signedJSON(inlinePayload(manifestID: "x", assets: [(shownURL, "image", 3000)]), tamper: true),
                                                   context: nseContext, configuration: configuration)) {
            guard case .payloadRejected = $0 as? PreloadDriverError else { return XCTFail("\($0)") }
        }
        configuration.futureEntryToleranceMicroseconds = -1
        XCTAssertThrowsError(try PreloadDriver.tap(payload: payload, context: nseContext, configuration: configuration)) {
            XCTAssertEqual($0 as? PreloadDriverError, .invalidConfiguration(field: "futureEntryToleranceMicroseconds", value: "-1", expected: "0...3600000000"))
        }
    }

    // MARK: - Clock validation

    func testOpeningDropsEntriesDatedInTheFutureBeyondTheTolerance() throws {
        try FileManager.default.createDirectory(at: storeDirectory, withIntermediateDirectories: true)
        let skewed = StoreKey(hi: 0x1111_0000_0000_0001, lo: 1)
        let future = StoreKey(hi: 0x2222_0000_0000_0002, lo: 2)
        let nowMicroseconds = Int64(Date().timeIntervalSince1970 * 1e6)
        func record(_ key: StoreKey, storedAt: Int64) -> String {
            """
            {"key":"\(key.hex)","bytes":10,"storedAt":\(storedAt),"expiresAt":\(storedAt + 300_000_000),\
            "staleUntil":\(storedAt + 600_000_000),"lastUsed":\(storedAt),"manifestTag":"00000000000000ff","kind":"png"}
            """
        }
        // 1 s ahead (another process's clock anchor; within the default 5 s) and 10 min ahead (the
        // wall clock was set back since it was written).
        let index = "{\"version\":1,\"entries\":[\(record(skewed, storedAt: nowMicroseconds + 1_000_000)),\(record(future, storedAt: nowMicroseconds + 600_000_000))]}"
        try Data(index.utf8).write(to: storeDirectory.appendingPathComponent(FileStore.indexFileName))
        for key in [skewed, future] { try Data(repeating: 7, count: 10).write(to: storeDirectory.appendingPathComponent(key.fileName)) }

        let driver = try makeDriver(try testPolicy())
        let report = driver.reconciliation
        XCTAssertEqual(report.keptEntries, 1)
        XCTAssertEqual(report.droppedEntries.map(\.key), [future.hex])
        XCTAssertTrue(report.droppedEntries.first?.reason.contains("another timeline") ?? false, "\(report.droppedEntries)")
        XCTAssertEqual(report.deletedOrphanFiles, [future.fileName])
        XCTAssertEqual(try fileNames(storeDirectory), [skewed.fileName, FileStore.indexFileName].sorted())

        var configuration = PreloadDriverConfiguration(policy: try testPolicy(), storeDirectory: storeDirectory)
        configuration.futureEntryToleranceMicroseconds = PreloadDriverConfiguration.futureEntryToleranceMicrosecondsMax + 1
        XCTAssertThrowsError(try PreloadDriver(configuration: configuration)) {
            XCTAssertEqual($0 as? PreloadDriverError, .invalidConfiguration(field: "futureEntryToleranceMicroseconds", value: "3600000001",
                                                                              expected: "0...3600000000"))
        }
    }
}
