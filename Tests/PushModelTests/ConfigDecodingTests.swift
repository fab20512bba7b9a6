import Foundation
import XCTest
@testable import PushModel
import PreloadKit
import ScenarioFormat

final class ConfigDecodingTests: XCTestCase {
    /// `{}` is a valid world whose fields are the documented defaults.
    func testEmptyObjectDecodesToDefaults() throws {
        let decoded = try JSONDecoder().decode(PushWorldConfig.self, from: Data("{}".utf8))
        XCTAssertEqual(decoded, PushWorldConfig())
        XCTAssertEqual(decoded.campaigns.count, 1)
        XCTAssertEqual(decoded.population.devices, 2_000)
    }

    /// A scenario that omits every policy knob runs PreloadKit's own defaults: the config maps
    /// back to `PreloadPolicy`'s and `PreloadStore`'s defaults (log events aside, which the
    /// simulator turns off).
    func testDefaultPolicyKnobsArePreloadKits() {
        let options = PayloadOptions(urlPolicy: URLPolicy(allowlist: ["cdn.example.com"]), signingKey: [1])
        var expected = PreloadPolicy(manifestOptions: options)
        expected.emitsLogEvents = false
        XCTAssertEqual(PreloadPolicyConfig().preloadPolicy(manifestOptions: options), expected)
        XCTAssertEqual(PreloadPolicyConfig().storeCapacityBytes, PreloadStore().capacityBytes)
        XCTAssertEqual(PreloadPolicyConfig().storeEntriesMax, PreloadStore().entriesMax)
    }

    /// Encoding then decoding gives the same value.
    func testRoundTrip() throws {
        var c = PushWorldConfig()
        c.population.devices = 1234
        c.campaigns[0].warm = WarmConfig(mode: .topPops, aheadSeconds: 300, topPops: 5)
        c.campaigns[0].carouselIntervalSeconds = 90
        let data = try JSONEncoder().encode(c)
        XCTAssertEqual(try JSONDecoder().decode(PushWorldConfig.self, from: data), c)
    }

    /// A validation error names the field, what was expected and what was found.
    func testValidationErrorNamesExpectedAndFound() {
        let json = #"{"population": {"iosShare": 1.5}}"#
        XCTAssertThrowsError(try JSONDecoder().decode(PushWorldConfig.self, from: Data(json.utf8))) { error in
            guard case let DecodingError.dataCorrupted(ctx) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(ctx.codingPath.map(\.stringValue), ["population", "iosShare"])
            XCTAssertEqual(ctx.debugDescription, "expected a probability in [0, 1], found 1.5")
        }
    }

    /// Warm-ahead before t = 0 is refused at the campaign.
    func testWarmBeforeStartRefused() {
        let json = #"{"campaigns": [{"sendStartSeconds": 60, "warm": {"mode": "allPops", "aheadSeconds": 600}}]}"#
        XCTAssertThrowsError(try JSONDecoder().decode(PushWorldConfig.self, from: Data(json.utf8))) { error in
            guard case let DecodingError.dataCorrupted(ctx) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(ctx.codingPath.last?.stringValue, "warm")
            XCTAssertTrue(ctx.debugDescription.hasSuffix("found 600.0"), ctx.debugDescription)
        }
    }
}


/// Scenario files are decoded by ScenarioFormat's strict decoder: several errors per pass, each at
/// its JSON path with what was expected and found.
final class StrictDecodingTests: XCTestCase {
    func testSeveralErrorsWithPaths() {
        let json = #"""
        {"population": {"devices": 0, "iosShare": 2},
         "campaigns": [{"name": "ok", "audienceShare": -1, "assets": [{"name": "a b"}]}],
         "preloadPolicy": {"criticalAssetsMax": 99},
         "horizonSecond": 5}
        """#
        switch StrictJSONDecoder().decode(PushWorldConfig.self, from: Data(json.utf8)) {
        case .success:
            XCTFail("invalid world accepted")
        case .failure(let errors):
            let text = errors.diagnostics.map(\.description)
            func has(_ path: String, _ fragment: String) -> Bool {
                text.contains { $0.hasPrefix(path) && $0.contains(fragment) }
            }
            XCTAssertTrue(has("population.devices", "found 0"), "\(text)")
            XCTAssertTrue(has("preloadPolicy.criticalAssetsMax", "found 99"), "\(text)")
            XCTAssertTrue(has("campaigns[0].assets[0].name", "[A-Za-z0-9._-]"), "\(text)")
            XCTAssertTrue(text.contains { $0.contains("horizonSecond") && $0.contains("horizonSeconds") }, "unknown key with suggestion: \(text)")
        }
    }

    func testEmptyWorldIsValid() throws {
        let result = StrictJSONDecoder().decode(PushWorldConfig.self, from: Data("{}".utf8))
        XCTAssertEqual(try result.get(), PushWorldConfig())
    }
}
