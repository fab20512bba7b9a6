import Foundation
import XCTest
@testable import PrestageCLI

/// `validate` and `run` refuse a campaign whose push is over the APNs/FCM 4 KB limit (exit 2),
/// naming the campaign, the byte count, the limit and the fix; the same campaign by reference
/// validates.
final class PayloadLimitValidateTests: XCTestCase {
    func testAPushOverFourKilobytesIsBadInputAndFitsByReference() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        // 16 assets, 61-character names, a 4G rendition each: about 5.7 KB inline.
        let assets = (0..<16).map { i in
            #"{ "name": "\#(String(repeating: "x", count: 60))\#(i)", "priority": "\#(i < 2 ? "critical" : "normal")", "# +
                #""variants": [ { "network": "4g", "bytes": 20000 } ] }"#
        }
        let big = try t.file("big.json", #"{ "name": "big", "question": "Does it fit a push?", "campaigns": [ { "name": "catalogue", "assets": [ "# +
                             assets.joined(separator: ", ") + " ] } ] }")
        for command in ["validate", "run"] {
            XCTAssertEqual(t.run([command, big]), .badInput, command)
            XCTAssertTrue(t.err.text.contains(big + ": campaigns[0]: the push payload is "), t.err.text)
            XCTAssertTrue(t.err.text.contains("over the APNs/FCM limit of 4096 bytes"), t.err.text)
            XCTAssertTrue(t.err.text.contains(#"send the manifest by reference (payloadForm "manifestReference")"#), t.err.text)
        }
        XCTAssertEqual(t.run(["validate", big, "--set", #"campaigns[0].payloadForm="manifestReference""#]), .ok, t.err.text)
        // The push sizes are reported per campaign (a reference is a few hundred bytes).
        let line = t.out.text.split(separator: "\n").first { $0.hasPrefix("  campaigns[0] catalogue: manifestReference push of ") }
        XCTAssertNotNil(line, t.out.text)
        XCTAssertTrue(line?.hasSuffix(" bytes (APNs/FCM limit 4096)") ?? false, t.out.text)
    }
}
