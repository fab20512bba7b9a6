import XCTest
@testable import PreloadKit

/// `PreloadPolicy.fallbackOnHandlerDeadline`: an Android FCM handler whose hard deadline comes
/// with critical assets missing hands the push to a WorkManager job.
final class FallbackTests: XCTestCase {
    func article() throws -> PreStageRequest { try Sessions.request(Payloads.inline()) }

    func policy(fallback: Bool) -> PreloadPolicy {
        var p = Fixtures.policy()
        p.requestTimeoutMicroseconds = 60_000_000
        p.fallbackOnHandlerDeadline = fallback
        return p
    }

    /// One of two assets stored by the 8 s deadline: the fallback comes after the cancels and
    /// before the delivery, with what is ready.
    func testFCMDeadlineWithAnAssetMissingEnqueuesTheFallbackBeforeDelivering() throws {
        let r = try article()
        var h = try Harness(policy: policy(fallback: true))
        let starts = Sessions.starts(try h.feed(.pushReceived(r, Sessions.context(.androidFCMHandler)), at: ms(0)))
        _ = try h.feed(.fetchCompleted(starts[0].id, Sessions.completion(48_200, "image/webp", Fixtures.webpPrefix)), at: ms(1_000))
        XCTAssertEqual(try h.feed(.timerFired, at: ms(8_000)), [
            .cancelFetch(starts[1].id, .hardDeadline),
            .enqueueFallback(FallbackRequest(manifestTag: r.manifestTag, readyAssets: 1, selectedAssets: 2)),
            .deliver(Delivery(reason: .hardDeadline, attachment: nil, readyAssets: 1, selectedAssets: 2, at: ms(8_000))),
        ])
        XCTAssertTrue(h.session.isFinished)
    }

    /// No fallback when the option is off, for other handler kinds, when everything settled in
    /// time, or on the OS expiry warning (the handler is being killed).
    func testNoFallbackOffOrOtherKindsOrSettledOrOnExpiry() throws {
        let r = try article()
        for (fallback, kind) in [(false, HandlerKind.androidFCMHandler), (true, .androidWorkManagerJob), (true, .iOSServiceExtension)] {
            var h = try Harness(policy: policy(fallback: fallback))
            _ = try h.feed(.pushReceived(r, Sessions.context(kind)), at: ms(0))
            let deadline = h.session.hardDeadline
            let actions = try h.feed(.timerFired, at: deadline)
            XCTAssertFalse(actions.contains { if case .enqueueFallback = $0 { return true } else { return false } }, "\(fallback) \(kind)")
            XCTAssertEqual(Sessions.deliveries(actions).map(\.reason), [.hardDeadline], "\(fallback) \(kind)")
        }
        var h = try Harness(policy: policy(fallback: true))
        let starts = Sessions.starts(try h.feed(.pushReceived(r, Sessions.context(.androidFCMHandler)), at: ms(0)))
        let expiry = try h.feed(.expiryWarning, at: ms(5_000))
        XCTAssertFalse(expiry.contains { if case .enqueueFallback = $0 { return true } else { return false } })
        XCTAssertEqual(starts.count, 2)
    }
}
