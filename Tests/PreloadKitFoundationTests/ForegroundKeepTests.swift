import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PreloadKit
@testable import PreloadKitFoundation
import XCTest

/// `PreloadDriver.keepForeground`: an asset the app fetched after a tap (here with URLSession from
/// the loopback server) is written to the store as PreloadKit admits it, so the next tap on a push
/// naming that URL paints from disk; a response PreloadKit refuses leaves the directory untouched.
final class ForegroundKeepTests: XCTestCase {
    var server: TestServer!
    var directory: URL!

    override func setUp() async throws {
        server = try TestServer()
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("preload-foreground-tests-\(getpid())-\(UInt64(Date().timeIntervalSince1970 * 1e6))", isDirectory: true)
    }

    override func tearDown() async throws {
        server?.stop()
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    func fetch(_ url: String) async throws -> (Data, URLResponse) {
        try await TestServer.client.data(from: try XCTUnwrap(URL(string: url)))
    }

    func testAForegroundFetchIsKeptAndTheNextTapPaintsFromTheStore() async throws {
        let configuration = PreloadDriverConfiguration(policy: try testPolicy(), storeDirectory: directory.appendingPathComponent("store"))
        let heroURL = server.url("/asset/fresh/hero.png?bytes=3000")
        let payload = try signedJSON(inlinePayload(manifestID: "story", assets: [(heroURL, "image", 3000)]))
        let request = try PreloadDriver.parsed(payload, configuration)
        XCTAssertEqual(try PreloadDriver.paintSet(request: request, network: .wifi, configuration: configuration).assets.map(\.freshness), [.missing])

        // The tap found the hero missing: the app fetches it and hands it to the driver.
        let (body, response) = try await fetch(heroURL)
        let admission = try PreloadDriver.keepForeground(body: body, response: response, asset: request.assets[0], network: .wifi,
                                                         request: request, freeStorageBytes: 10_000_000_000, configuration: configuration)
        guard case .stored(let entry) = admission else { return XCTFail("\(admission)") }
        XCTAssertEqual(entry.key, try storeKey(heroURL))
        XCTAssertEqual(entry.bytes, 3_000)
        XCTAssertEqual(entry.kind, .png)
        XCTAssertEqual(entry.expiresAt, entry.storedAt.advanced(bySeconds: 300), "max-age=300 within the manifest's ttl 3600")
        let file = directory.appendingPathComponent("store").appendingPathComponent(entry.key.fileName)
        XCTAssertEqual(try Data(contentsOf: file), body)

        // A follow-up push naming the same URL paints from the store, and a session would reuse it.
        let followUp = try signedJSON(inlinePayload(manifestID: "follow-up", assets: [(heroURL, "image", 3000)]))
        XCTAssertTrue(try PreloadDriver.paintSet(payload: followUp, network: .wifi, configuration: configuration).paintsInstantly)
        let driver = try PreloadDriver(configuration: configuration)
        XCTAssertEqual(driver.reconciliation.keptEntries, 1, "the index names the file with its size")
        await driver.shutdown()
    }

    func testARefusedResponseLeavesTheDirectoryUntouched() async throws {
        let configuration = PreloadDriverConfiguration(policy: try testPolicy(), storeDirectory: directory.appendingPathComponent("store"))
        let url = server.url("/wrongmagic/hero.png")
        let payload = try signedJSON(inlinePayload(manifestID: "story", assets: [(url, "image", 3000)]))
        let request = try PreloadDriver.parsed(payload, configuration)
        let (body, response) = try await fetch(url)
        let admission = try PreloadDriver.keepForeground(body: body, response: response, asset: request.assets[0], network: .wifi,
                                                         request: request, freeStorageBytes: 10_000_000_000, configuration: configuration)
        XCTAssertEqual(admission, .rejected(.magicBytesNotAllowed(nil)))
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("store").path))
    }

    /// URLSession follows the server's 302 for the app (as an image loader does): the response's
    /// URL is the redirect's target, so the driver tells PreloadKit, which keeps nothing under the
    /// asset's key (the placeholder would paint as if pre-staged).
    func testARedirectedResponseIsNotKept() async throws {
        let configuration = PreloadDriverConfiguration(policy: try testPolicy(), storeDirectory: directory.appendingPathComponent("store"))
        let url = server.url("/redirect/hero.png")
        let payload = try signedJSON(inlinePayload(manifestID: "story", assets: [(url, "image", 2000)]))
        let request = try PreloadDriver.parsed(payload, configuration)
        let (body, response) = try await fetch(url)
        XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 200, "URLSession followed the 302")
        XCTAssertNotEqual(response.url?.path, "/redirect/hero.png")
        let admission = try PreloadDriver.keepForeground(body: body, response: response, asset: request.assets[0], network: .wifi,
                                                         request: request, freeStorageBytes: 10_000_000_000, configuration: configuration)
        XCTAssertEqual(admission, .rejected(.redirected))
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("store").path))
    }
}
