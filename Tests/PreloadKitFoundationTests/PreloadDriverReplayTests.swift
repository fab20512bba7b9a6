import Foundation
import PreloadKit
@testable import PreloadKitFoundation
import XCTest

/// Replay protection through the driver: it passes its clock's `now` to the parser, so a signed
/// expiry (`exp`) is enforced and a push captured and replayed after it expired fetches nothing.
extension PreloadDriverTests {
    /// Unix time now, whole seconds (the driver's `Instant` is microseconds since the Unix epoch).
    var unixSecondsNow: Int64 { Int64(Date().timeIntervalSince1970) }

    /// An inline push whose `cdn_preload` carries `exp` (signed like every other field).
    func payload(expiresAtUnixSeconds exp: Int64, path: String) throws -> Data {
        var payload = inlinePayload(manifestID: "replayed", assets: [(server.url(path), "image", 2000)])
        var preload = try XCTUnwrap(payload["cdn_preload"] as? [String: Any])
        preload["exp"] = exp
        payload["cdn_preload"] = preload
        return try signedJSON(payload)
    }

    func testPushReplayedAfterItsExpiryIsRefusedAndNothingIsFetched() async throws {
        let driver = try makeDriver(try testPolicy())
        let twoHoursAgo = unixSecondsNow - 7_200
        do {
            _ = try await driver.run(payload: try payload(expiresAtUnixSeconds: twoHoursAgo, path: "/asset/fresh/replayed.png?bytes=2000"),
                                     context: nseContext)
            XCTFail("a push replayed two hours after its expiry must be refused")
        } catch {
            guard case PreloadDriverError.payloadRejected(let rejection)? = error as? PreloadDriverError else { return XCTFail("\(error)") }
            XCTAssertEqual(rejection.path, "$.cdn_preload.exp")
            guard case .expired(let expiresAt, let now, let toleranceSeconds) = rejection.reason else { return XCTFail("\(rejection)") }
            XCTAssertEqual(expiresAt, Instant(microseconds: twoHoursAgo * 1_000_000))
            XCTAssertGreaterThan(now.microseconds(since: expiresAt), 7_000 * 1_000_000, "the driver passed its Unix-epoch now")
            XCTAssertEqual(toleranceSeconds, 60)
        }
        let requests = try await server.requests()
        XCTAssertEqual(requests, [])
        let phase = await driver.phase
        XCTAssertNil(phase, "no session was started")
    }

    /// `run(request:)` (a request parsed without `now`, e.g. from `userInfo`) is checked too.
    func testAlreadyParsedExpiredRequestIsRefused() async throws {
        let driver = try makeDriver(try testPolicy())
        let data = try payload(expiresAtUnixSeconds: unixSecondsNow - 7_200, path: "/asset/fresh/parsed.png?bytes=2000")
        let request = try PayloadParser.parse(json: [UInt8](data), options: try loopbackOptions())
        do {
            _ = try await driver.run(request: request, context: nseContext)
            XCTFail("an expired request must be refused")
        } catch {
            guard case .payloadRejected(let rejection) = error, case .expired = rejection.reason else { return XCTFail("\(error)") }
        }
        let requests = try await server.requests()
        XCTAssertEqual(requests, [])
    }

    func testPushWithinItsLifetimeIsFetched() async throws {
        let driver = try makeDriver(try testPolicy())
        let inOneHour = unixSecondsNow + 3_600
        let result = try await driver.run(payload: try payload(expiresAtUnixSeconds: inOneHour, path: "/asset/fresh/live.png?bytes=2000"),
                                          context: nseContext)
        XCTAssertEqual(result.delivery.readyAssets, 1)
    }
}
