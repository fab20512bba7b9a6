import Foundation
@testable import PreloadKitFoundation
import XCTest

/// The fixture of the end-to-end driver tests: the real loopback server, a fresh temporary store
/// directory per test, and every driver a test makes shut down after it.
class DriverFixtureTestCase: XCTestCase {
    var server: TestServer!
    var directory: URL!
    var drivers: [PreloadDriver] = []

    /// The start of the per-test directory's name.
    var directoryPrefix: String { "preload-driver-tests" }

    override func setUp() async throws {
        server = try TestServer()
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(directoryPrefix)-\(getpid())-\(UInt64(Date().timeIntervalSince1970 * 1e6))", isDirectory: true)
    }

    override func tearDown() async throws {
        for driver in drivers { await driver.shutdown() }
        drivers = []
        server?.stop()
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }
}
