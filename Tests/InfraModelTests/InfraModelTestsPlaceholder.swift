import XCTest
@testable import InfraModel

/// Placeholder removed by the issue that fills this target.
final class InfraModelTestsPlaceholder: XCTestCase {
    func testModuleLinks() throws {}
}
