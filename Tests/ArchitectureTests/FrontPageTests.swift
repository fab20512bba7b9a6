import Foundation
import XCTest

/// The README is the front page: at most 12 KiB, so reference material goes to docs/.
final class FrontPageTests: XCTestCase {
    static let bytesMax = 12 * 1024

    func testReadmeStaysWithinTwelveKilobytes() throws {
        let readme = LayerRulesTests.packageRoot.appendingPathComponent("README.md")
        let size = try Data(contentsOf: readme).count
        XCTAssertLessThanOrEqual(size, Self.bytesMax, "README.md is \(size) bytes; move reference material to docs/")
    }
}
