import XCTest
@testable import PreloadKit

/// Placeholder removed by the issue that fills this target.
final class PreloadKitTestsPlaceholder: XCTestCase {
    func testModuleLinks() throws {}
}
