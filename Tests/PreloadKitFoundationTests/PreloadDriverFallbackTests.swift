import Foundation
import PreloadKit
@testable import PreloadKitFoundation
import XCTest

/// The driver hands PreloadKit's `.enqueueFallback` to the app (`fallbackHandler`), against the
/// loopback server (see `PreloadDriverTests` for the time bounds).
final class PreloadDriverFallbackTests: XCTestCase {
    var server: TestServer!
    var directory: URL!
    var driver: PreloadDriver?

    override func setUp() async throws {
        server = try TestServer()
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("preload-driver-fallback-\(getpid())-\(UInt64(Date().timeIntervalSince1970 * 1e6))", isDirectory: true)
    }

    override func tearDown() async throws {
        await driver?.shutdown()
        server?.stop()
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    /// An Android FCM handler with a 1.5 s deadline: the 7 s asset is missing then, the fast one
    /// stored; the app is asked once for a fallback job with what is ready, and the notification
    /// is still delivered at the deadline.
    func testFCMDeadlineWithAnAssetMissingHandsTheFallbackToTheApp() async throws {
        var policy = try testPolicy(requestTimeoutMicroseconds: 20_000_000)
        policy.deadlines.androidFCMHandlerMicroseconds = 1_500_000
        policy.fallbackOnHandlerDeadline = true
        var configuration = PreloadDriverConfiguration(policy: policy, storeDirectory: directory.appendingPathComponent("store"))
        configuration.attachmentDirectory = directory.appendingPathComponent("attachments")
        let requests = Recorder<FallbackRequest>()
        configuration.fallbackHandler = { requests.append($0) }
        let driver = try PreloadDriver(configuration: configuration)
        self.driver = driver
        let slowURL = server.url("/slow/7000/late.png")
        let fastURL = server.url("/asset/fresh/early.png?bytes=2000")
        let payload = try signedJSON(inlinePayload(manifestID: "fallback", assets: [(slowURL, "image", 2000), (fastURL, "image", 2000)]))
        let context = DeviceContext(handlerKind: .androidFCMHandler, network: .wifi, freeStorageBytes: 10_000_000_000, receiptJitterUniform: 0)

        let result = try await driver.run(payload: payload, context: context)
        XCTAssertEqual(result.delivery.reason, .hardDeadline)
        XCTAssertLessThan(result.deliveryLatencyMicroseconds, 6_500_000, "must not wait for the 7 s server")
        XCTAssertEqual(requests.values.count, 1, "handed over before the delivery resolved")
        XCTAssertEqual(requests.values.first?.readyAssets, 1)
        XCTAssertEqual(requests.values.first?.selectedAssets, 2)
        XCTAssertEqual(requests.values.first?.manifestTag, result.request.manifestTag)
        _ = try await driver.finished()
        XCTAssertEqual(requests.values.count, 1)
    }
}
