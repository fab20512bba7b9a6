import Foundation
import XCTest
import InfraModel
@testable import ScenarioFormat

/// The CDN API profiles in the scenario library.
final class CdnApiLibraryTests: XCTestCase {
    /// purge-on-cloudflare: a Cloudflare Enterprise profile, a creative swap seconds before the
    /// send, and notes giving the command and the CloudFront variant.
    func testPurgeOnCloudflare() throws {
        let library = ScenarioLibrary(directories: [TestEnvironment.repositoryScenarios])
        let scenario = try ScenarioLoader.load("purge-on-cloudflare", library: library).scenario
        XCTAssertEqual(scenario.world.infra.cdnApi, CdnApiConfig.standard(.cloudflareEnterprise))
        XCTAssertNotNil(scenario.world.campaigns[0].creativeSwap)
        XCTAssertTrue(scenario.notes.contains { $0.contains("prestage run purge-on-cloudflare") })
        XCTAssertTrue(scenario.notes.contains { $0.contains("cloudfront") })
    }
}
