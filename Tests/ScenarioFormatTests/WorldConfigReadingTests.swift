import Foundation
import XCTest
import PushModel

@testable import ScenarioFormat

/// The scenario format of the simulated world (PushModel's configuration).
final class WorldConfigReadingTests: XCTestCase {
    private func diagnostics(_ json: String) -> [Diagnostic] {
        switch StrictJSONDecoder().decode(PushWorldConfig.self, from: Data(json.utf8)) {
        case .success: return []
        case let .failure(errors): return errors.diagnostics
        }
    }

    /// `{}` is a valid world whose fields are the documented defaults.
    func testEmptyObjectDecodesToDefaults() throws {
        let decoded = try StrictJSONDecoder().decode(PushWorldConfig.self, from: Data("{}".utf8)).get()
        XCTAssertEqual(decoded, PushWorldConfig())
        XCTAssertEqual(decoded.campaigns.count, 1)
        XCTAssertEqual(decoded.population.devices, 2_000)
    }

    /// Encoding then decoding gives the same value.
    func testRoundTrip() throws {
        var c = PushWorldConfig()
        c.population.devices = 1234
        c.campaigns[0].warm = WarmConfig(mode: .topPops, aheadSeconds: 300, topPops: 5)
        c.campaigns[0].carouselIntervalSeconds = 90
        c.campaigns[0].creativeSwap = CreativeSwapConfig()
        let data = try JSONEncoder().encode(c)
        XCTAssertEqual(try JSONDecoder().decode(PushWorldConfig.self, from: data), c)
        XCTAssertEqual(try StrictJSONDecoder().decode(PushWorldConfig.self, from: data).get(), c)
    }

    /// A creative swap given as `{}` takes the model's defaults.
    func testCreativeSwapDefaultsAreTheModels() throws {
        let json = #"{"campaigns": [{"creativeSwap": {}}]}"#
        let decoded = try StrictJSONDecoder().decode(PushWorldConfig.self, from: Data(json.utf8)).get()
        XCTAssertEqual(decoded.campaigns[0].creativeSwap, CreativeSwapConfig())
    }

    /// A validation error names the field, what was expected and what was found.
    func testValidationErrorNamesExpectedAndFound() {
        let d = diagnostics(#"{"population": {"iosShare": 1.5}}"#)
        XCTAssertEqual(d.map(\.path.description), ["population.iosShare"])
        XCTAssertEqual(d.first?.message, "expected a probability in [0, 1], found 1.5")
        XCTAssertEqual(d.first?.expected, "a probability in [0, 1]")
    }

    /// Warm-ahead before t = 0 is refused at the campaign.
    func testWarmBeforeStartRefused() {
        let d = diagnostics(#"{"campaigns": [{"sendStartSeconds": 60, "warm": {"mode": "allPops", "aheadSeconds": 600}}]}"#)
        XCTAssertEqual(d.map(\.path.description), ["campaigns[0].warm"])
        XCTAssertTrue(d.first?.message.hasSuffix("found 600.0") ?? false, "\(d)")
    }

    /// `hlsByteRanges` is a boolean, and only on a playlist of variants.
    func testHLSByteRangesNeedAPlaylistOfVariants() {
        let lone = diagnostics(#"{"campaigns": [{"assets": [{"name": "v", "type": "hls", "hlsByteRanges": true}]}]}"#)
        XCTAssertEqual(lone.map(\.path.description), ["campaigns[0].assets[0].hlsByteRanges"], "\(lone)")
        XCTAssertTrue(lone.first?.message.contains("only with \"variantsKbps\"") ?? false, "\(lone)")
        let text = diagnostics(#"{"campaigns": [{"assets": [{"name": "v", "type": "hls", "variantsKbps": [400], "hlsByteRanges": "yes"}]}]}"#)
        XCTAssertEqual(text.map(\.path.description), ["campaigns[0].assets[0].hlsByteRanges"], "\(text)")
        XCTAssertEqual(diagnostics(#"{"campaigns": [{"assets": [{"name": "v", "type": "hls", "variantsKbps": [400], "hlsByteRanges": true}]}]}"#), [])
    }

    /// Scenario files are decoded by the strict decoder: several errors per pass, each at
    /// its JSON path with what was expected and found.
    func testSeveralErrorsWithPaths() {
        let json = #"""
        {"population": {"devices": 0, "iosShare": 2},
         "campaigns": [{"name": "ok", "audienceShare": -1, "assets": [{"name": "a b"}]}],
         "preloadPolicy": {"criticalAssetsMax": 99},
         "horizonSecond": 5}
        """#
        let text = diagnostics(json).map(\.description)
        XCTAssertFalse(text.isEmpty, "invalid world accepted")
        func has(_ path: String, _ fragment: String) -> Bool {
            text.contains { $0.hasPrefix(path) && $0.contains(fragment) }
        }
        XCTAssertTrue(has("population.devices", "found 0"), "\(text)")
        XCTAssertTrue(has("population.iosShare", "found 2"), "\(text)")
        XCTAssertTrue(has("campaigns[0].audienceShare", "found -1"), "\(text)")
        XCTAssertTrue(has("preloadPolicy.criticalAssetsMax", "found 99"), "\(text)")
        XCTAssertTrue(has("campaigns[0].assets[0].name", "[A-Za-z0-9._-]"), "\(text)")
        XCTAssertTrue(text.contains { $0.contains("horizonSecond") && $0.contains("horizonSeconds") }, "unknown key with suggestion: \(text)")
    }

    /// Ranges relating two fields are checked only when the range exists, and never trap.
    func testRelatedRangesDoNotTrap() {
        XCTAssertEqual(diagnostics(#"{"platforms": {"ios": {"serviceExtensionBudgetSeconds": -1}}}"#).map(\.path.description),
                       ["platforms.ios.serviceExtensionBudgetSeconds"])
        XCTAssertEqual(diagnostics(#"{"platforms": {"android": {"deepIdleFirstSeconds": 1e300}}}"#).map(\.path.description),
                       ["platforms.android.deepIdleFirstSeconds"])
    }

    /// PreloadKit's own validation rejects a policy the format's bounds allow, at the knob's key.
    func testPreloadKitRangesReportAtTheKnob() {
        let tooBig = diagnostics(#"{"preloadPolicy": {"memoryBudgetBytes": 1000, "memoryReservedBytes": 600, "fetchBufferBytes": 500}}"#)
        XCTAssertEqual(tooBig.map(\.path.description), ["preloadPolicy.fetchBufferBytes"])
        XCTAssertTrue(tooBig.first?.message.hasSuffix("found 500") ?? false, "\(tooBig)")
        let critical = diagnostics(#"{"preloadPolicy": {"criticalAssetsMax": 0}}"#)
        XCTAssertEqual(critical.map(\.path.description), ["preloadPolicy.criticalAssetsMax"])
        XCTAssertEqual(critical.first?.message, "expected 1...16, found 0")
    }

    /// Rejections raised by readers as `ConfigIssue` values land at their own paths below the
    /// value being read, every one of an object reported in the same pass.
    func testEveryIssueOfAnObjectIsReported() {
        let d = diagnostics(#"{"campaigns": [{"audienceShare": 2, "ttlSeconds": 5, "warm": {"topPops": 0}}]}"#)
        XCTAssertEqual(d.map(\.path.description), ["campaigns[0].audienceShare", "campaigns[0].ttlSeconds", "campaigns[0].warm.topPops"])
        XCTAssertEqual(d.map(\.message), ["expected a probability in [0, 1], found 2.0", "expected an integer in 60...86400, found 5",
                                          "expected an integer in 1...10000, found 0"])
    }
}
