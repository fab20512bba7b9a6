import Foundation
import XCTest
import InfraModel
import PushModel

@testable import ScenarioFormat

/// The scenario format of `infra.cdnApi`: a profile, per-field overrides over it, the checks.
final class CdnApiReadingTests: XCTestCase {
    private func diagnostics(_ json: String) -> [Diagnostic] {
        switch StrictJSONDecoder().decode(PushWorldConfig.self, from: Data(json.utf8)) {
        case .success: return []
        case let .failure(errors): return errors.diagnostics
        }
    }

    private func read(_ cdnApi: String) throws -> CdnApiConfig? {
        try StrictJSONDecoder().decode(PushWorldConfig.self, from: Data(#"{"infra": {"cdnApi": \#(cdnApi)}}"#.utf8)).get().infra.cdnApi
    }

    /// A profile gives its values; a field set overrides only itself; the round trip keeps both.
    func testProfileThenOverrides() throws {
        XCTAssertEqual(try read(#"{"profile": "cloudflareEnterprise"}"#), CdnApiConfig.standard(.cloudflareEnterprise))
        XCTAssertEqual(try read("{}"), CdnApiConfig.standard(.generic))
        let c = try XCTUnwrap(try read(#"{"profile": "akamai", "purgeItemsPerSecond": 100, "failureProbability": 0}"#))
        var expected = CdnApiConfig.standard(.akamai)
        expected.purgeItemsPerSecond = 100
        expected.failureProbability = 0
        XCTAssertEqual(c, expected)
        var w = PushWorldConfig()
        w.infra.cdnApi = c
        let data = try JSONEncoder().encode(w)
        XCTAssertEqual(try StrictJSONDecoder().decode(PushWorldConfig.self, from: data).get(), w)
    }

    /// Absent, nothing is written: a scenario without it encodes (and hashes) as before.
    func testAbsentIsNotWritten() throws {
        let text = String(decoding: try JSONEncoder().encode(PushWorldConfig()), as: UTF8.self)
        XCTAssertFalse(text.contains("cdnApi"))
        XCTAssertNil(try StrictJSONDecoder().decode(PushWorldConfig.self, from: Data("{}".utf8)).get().infra.cdnApi)
    }

    /// Bad values are named by path with what was expected and what was found.
    func testBadValuesNamedByPath() {
        let d = diagnostics(#"{"infra": {"cdnApi": {"profile": "fastly", "purgeItemsPerRequest": 0, "purgeRequestsPerSecond": -1, "failureProbability": 1, "attemptsMax": 21}}}"#)
        XCTAssertEqual(Set(d.map(\.path.description)), ["infra.cdnApi.purgeItemsPerRequest", "infra.cdnApi.purgeRequestsPerSecond",
                                                          "infra.cdnApi.failureProbability", "infra.cdnApi.attemptsMax"])
        let byPath = Dictionary(d.map { ($0.path.description, $0.message) }, uniquingKeysWith: { a, _ in a })
        XCTAssertTrue(byPath["infra.cdnApi.purgeItemsPerRequest"]!.contains("1...100000"), byPath["infra.cdnApi.purgeItemsPerRequest"]!)
        XCTAssertTrue(byPath["infra.cdnApi.failureProbability"]!.contains("[0, 1)"), byPath["infra.cdnApi.failureProbability"]!)
        XCTAssertTrue(byPath["infra.cdnApi.purgeRequestsPerSecond"]!.contains("-1"), byPath["infra.cdnApi.purgeRequestsPerSecond"]!)
    }

    /// A batch must fit the item bucket and the in-progress limit.
    func testBatchMustFitTheBucket() {
        let d = diagnostics(#"{"infra": {"cdnApi": {"profile": "cloudflareEnterprise", "purgeItemsBurst": 100, "purgeItemsInProgressMax": 10}}}"#)
        XCTAssertEqual(Set(d.map(\.path.description)), ["infra.cdnApi.purgeItemsBurst", "infra.cdnApi.purgeItemsInProgressMax"])
        XCTAssertTrue(d.allSatisfy { $0.message.contains("500") }, "\(d.map(\.message))")
    }

    /// An unknown profile is named with the ones there are.
    func testUnknownProfile() {
        let d = diagnostics(#"{"infra": {"cdnApi": {"profile": "bunny"}}}"#)
        XCTAssertEqual(d.map(\.path.description), ["infra.cdnApi.profile"])
        XCTAssertTrue(d.first?.message.contains("bunny") ?? false, "\(d.map(\.message))")
    }
}
