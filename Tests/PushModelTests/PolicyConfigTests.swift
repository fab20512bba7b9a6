import Foundation
import XCTest
@testable import PushModel
import PreloadKit

final class PolicyConfigTests: XCTestCase {
    /// A scenario that omits every policy knob runs PreloadKit's own defaults: the config maps
    /// back to `PreloadPolicy`'s and `PreloadStore`'s defaults (log events aside, which the
    /// simulator turns off).
    func testDefaultPolicyKnobsArePreloadKits() {
        let options = PayloadOptions(urlPolicy: URLPolicy(allowlist: ["cdn.example.com"]), signingKey: [1])
        var expected = PreloadPolicy(manifestOptions: options)
        expected.emitsLogEvents = false
        XCTAssertEqual(PreloadPolicyConfig().preloadPolicy(manifestOptions: options), expected)
        XCTAssertEqual(PreloadPolicyConfig().storeCapacityBytes, PreloadStore().capacityBytes)
        XCTAssertEqual(PreloadPolicyConfig().storeEntriesMax, PreloadStore().entriesMax)
    }
}
