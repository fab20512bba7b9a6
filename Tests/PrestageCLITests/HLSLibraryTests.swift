import Foundation
import XCTest
@testable import PrestageCLI
@testable import ScenarioFormat

/// HLS playlists of variants in the scenario library.
final class HLSLibraryTests: XCTestCase {
    /// A scenario without the HLS fields encodes (and so hashes) as before they existed, for
    /// every library scenario but the one that uses them.
    func testScenariosWithoutHLSFieldsEncodeAsBefore() throws {
        let library = ScenarioLibrary(directories: [TestEnvironment.repositoryScenarios])
        for entry in library.entries() where entry.name != "hls-trailer" {
            let scenario = try ScenarioLoader.load(entry.url.path, library: library).scenario
            let text = String(decoding: try CanonicalJSON.encode(scenario), as: UTF8.self)
            for key in ["\"variantsKbps\"", "\"segmentSeconds\"", "\"segmentCount\"", "\"hlsSegmentsToPreStage\""] {
                XCTAssertFalse(text.contains(key), "\(entry.name): \(key)")
            }
        }
    }

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
