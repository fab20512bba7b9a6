import Foundation
import XCTest
@testable import PrestageCLI

/// `validate` on a CDN API profile: the published limits a plan's purges and warms would exceed
/// or that bind are listed as warnings (the file stays valid: exit 0).
final class CdnApiValidateTests: XCTestCase {
    /// purge-on-cloudflare on Cloudflare Enterprise: a 2-URL Instant Purge and one prefetch
    /// request bind nothing. On CloudFront the invalidation (≥ 60 s) cannot finish in the 3 s
    /// between the swap and the send, and the warms are lookups: 280 PoPs × 2 objects = 560 per
    /// call at 100/s, the last 559 / 100 = 5.59 s after the call (the warm and the re-warm).
    func testValidateListsTheProfilesLimitsThatBind() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        XCTAssertEqual(t.run(["validate", "purge-on-cloudflare"]), .ok, t.err.text)
        XCTAssertFalse(t.out.text.contains("warning:"), t.out.text)
        let before = t.out.text.count
        XCTAssertEqual(t.run(["validate", "purge-on-cloudflare", "--set", #"infra.cdnApi={"profile":"cloudfront"}"#]), .ok, t.err.text)
        let out = String(t.out.text.dropFirst(before))
        XCTAssertTrue(out.contains("  warning: campaign swapped's creative-swap purge of 2 URLs on cloudfront reaches every cache ≥ 60.0 s after the call "
                                   + "(propagation 60.0–300.0 s), but the swap is 3.00 s before the send: the send starts ≥ 57.0 s before the old creative is gone"), out)
        XCTAssertTrue(out.contains("  warning: cloudfront has no pre-warm API: campaign swapped's warm is requests to each of 280 PoPs "
                                   + "(560 lookups per warm call: 280 caches × 2 objects, at 100/s), the last sent ≥ 5.59 s after the call (2 warm calls)."), out)
    }
}
