import Foundation
import XCTest
@testable import Experiments
@testable import PrestageCLI
@testable import ScenarioFormat

/// Every scenario of the library runs end to end (scaled down), so a scenario that validates but
/// trips the model at run time (an impossible campaign, a limit hit) is caught here, not by a user.
final class LibrarySmokeTests: XCTestCase {
    func testEveryLibraryScenarioRunsScaledDown() throws {
        let library = ScenarioLibrary(directories: [TestEnvironment.repositoryScenarios])
        for entry in library.entries() {
            let env = try TestEnvironment()
            defer { env.cleanUp() }
            let out = env.root.appendingPathComponent(entry.name).path
            let code = env.run(["run", entry.url.path, "--devices", "400", "--replications", "2", "--jobs", "1", "--out", out])
            XCTAssertEqual(code, .ok, "\(entry.name) (seed from the file) failed:\n\(env.err.text)")
            let summaryURL = URL(fileURLWithPath: out).appendingPathComponent("summary.json")
            let data = try Data(contentsOf: summaryURL)
            let json = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            XCTAssertNotNil(json?["metrics"], "\(entry.name): summary.json has no metrics")
        }
    }
}
