import XCTest
@testable import SimKernel

/// Placeholder removed by the issue that fills this target.
final class SimKernelTestsPlaceholder: XCTestCase {
    func testModuleLinks() throws {}
}
