import Foundation
import XCTest
@testable import PrestageCLI
@testable import ScenarioFormat

/// HLS playlists of variants in the scenario library.
final class HLSLibraryTests: XCTestCase {
    /// hls-trailer: an hls asset with a ladder of variants, more than one segment pre-staged,
    /// and notes with the command.
    func testHLSTrailerUsesPlaylistsOfVariants() throws {
        let library = ScenarioLibrary(directories: [TestEnvironment.repositoryScenarios])
        let loaded = try ScenarioLoader.load("hls-trailer", library: library).scenario
        let assets = loaded.world.campaigns.flatMap(\.assets).filter { $0.type == .hls }
        XCTAssertEqual(assets.count, 1)
        XCTAssertGreaterThanOrEqual(assets.first?.variantsKbps.count ?? 0, 3)
        XCTAssertGreaterThan(loaded.world.preloadPolicy.hlsSegmentsToPreStage, 1)
        XCTAssertTrue(loaded.notes.contains { $0.contains("prestage run hls-trailer") })
    }
}
