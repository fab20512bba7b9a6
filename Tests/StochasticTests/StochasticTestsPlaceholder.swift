import XCTest
@testable import Stochastic

/// Placeholder removed by the issue that fills this target.
final class StochasticTestsPlaceholder: XCTestCase {
    func testModuleLinks() throws {}
}
