import XCTest
@testable import PreloadKitFoundation

/// Placeholder removed by the issue that fills this target.
final class PreloadKitFoundationTestsPlaceholder: XCTestCase {
    func testModuleLinks() throws {}
}
