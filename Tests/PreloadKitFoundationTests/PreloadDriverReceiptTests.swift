import Foundation
import PreloadKit
@testable import PreloadKitFoundation
import XCTest

/// The real driver's receipt path: PreloadKit jitters the receipt with the context's uniform, the
/// driver hands it to `receiptHandler` no earlier than its `sendAt`, and drops it at shutdown.
extension PreloadDriverTests {
    func receiptConfiguration(windowMicroseconds: Int64, handler: @escaping @Sendable (Receipt) async -> Void) throws
        -> PreloadDriverConfiguration {
        var policy = try testPolicy()
        policy.receiptsEnabled = true
        policy.receiptJitterWindowMicroseconds = windowMicroseconds
        var configuration = PreloadDriverConfiguration(policy: policy, storeDirectory: storeDirectory)
        configuration.attachmentDirectory = directory.appendingPathComponent("attachments")
        configuration.receiptHandler = handler
        return configuration
    }

    func context(receiptJitterUniform u: Double) -> DeviceContext {
        DeviceContext(handlerKind: .iOSServiceExtension, network: .wifi, freeStorageBytes: 10_000_000_000, receiptJitterUniform: u)
    }

    /// Uniform 0.5 over a 400 ms window: due 200 ms after delivery, handed over once, not before.
    /// (Only the lower bound is timed: the driver sleeps until the instant, never less.)
    func testReceiptIsJitteredWithTheContextsUniformAndHandedOverNotBeforeSendAt() async throws {
        let receipts = Recorder<Receipt>()
        let handedOver = Recorder<ContinuousClock.Instant>()
        let arrived = expectation(description: "receipt handed to the closure")
        let configuration = try receiptConfiguration(windowMicroseconds: 400_000) { receipt in
            handedOver.append(ContinuousClock.now)
            receipts.append(receipt)
            arrived.fulfill()
        }
        let driver = try PreloadDriver(configuration: configuration)
        drivers.append(driver)
        let payload = try signedJSON(inlinePayload(manifestID: "receipt_wk42", assets: [(server.url("/asset/fresh/cover.png?bytes=2000"), "image", 2000)]))

        let result = try await driver.run(payload: payload, context: context(receiptJitterUniform: 0.5))
        await fulfillment(of: [arrived], timeout: 10)
        XCTAssertEqual(receipts.values.count, 1)
        let receipt = try XCTUnwrap(receipts.values.first)
        XCTAssertEqual(receipt.sendAt, result.delivery.at.advanced(byMicroseconds: 200_000))
        XCTAssertEqual(receipt.manifestTag, result.request.manifestTag)
        XCTAssertEqual(receipt.reason, result.delivery.reason)
        XCTAssertEqual(receipt.readyAssets, result.delivery.readyAssets)
        XCTAssertEqual(receipt.selectedAssets, result.delivery.selectedAssets)
        let at = try XCTUnwrap(handedOver.values.first)
        let due = await driver.clock.continuousInstant(for: receipt.sendAt)
        XCTAssertGreaterThanOrEqual(at, due, "handed over before its sendAt")
    }

    /// A receipt due an hour after delivery is still pending at shutdown: it is dropped, the
    /// handler never runs.
    func testPendingReceiptIsDroppedAtShutdown() async throws {
        let receipts = Recorder<Receipt>()
        let configuration = try receiptConfiguration(windowMicroseconds: 3_600_000_000) { receipts.append($0) }
        let driver = try PreloadDriver(configuration: configuration)
        drivers.append(driver)
        let payload = try signedJSON(inlinePayload(manifestID: "receipt_later", assets: [(server.url("/asset/fresh/a.png?bytes=2000"), "image", 2000)]))
        _ = try await driver.run(payload: payload, context: context(receiptJitterUniform: 0.9))
        let pending = await driver.receiptTasks.count
        XCTAssertEqual(pending, 1, "one receipt waiting for its sendAt")
        await driver.shutdown()
        let left = await driver.receiptTasks.count
        XCTAssertEqual(left, 0)
        XCTAssertEqual(receipts.values.count, 0)
    }
}
