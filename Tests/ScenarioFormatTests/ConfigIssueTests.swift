import Foundation
import XCTest
@testable import ScenarioFormat

/// `ConfigIssue` values thrown by a type's `init(from:)` are placed by their structured path.
final class ConfigIssueTests: XCTestCase {
    /// Reads `limits` and rejects, below itself, a value nested two steps down and a sibling.
    struct Section: Decodable {
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: ConfigKey.self)
            let limits = try c.decode([Int].self, forKey: ConfigKey("limits"))
            let name = try c.decode(String.self, forKey: ConfigKey("name"))
            throw ConfigIssues([
                ConfigIssue(at: [.key("limits"), .index(1)], expected: "an integer ≤ 10", found: "\(limits[1])"),
                ConfigIssue(key: "name", expected: "a short name"),
            ].filter { _ in !name.isEmpty })
        }
    }

    struct Root: Decodable {
        let section: Section?
    }

    func testIssuesLandAtTheirPathsWithWhatWasFound() {
        let json = #"{"section": {"limits": [1, 20], "name": "a very long name"}}"#
        switch StrictJSONDecoder().decode(Root.self, from: Data(json.utf8)) {
        case .success:
            XCTFail("accepted")
        case let .failure(errors):
            XCTAssertEqual(errors.diagnostics.map(\.description), [
                "section.limits[1]: expected an integer ≤ 10, found 20",
                #"section.name: expected a short name, found "a very long name""#,
            ])
            XCTAssertEqual(errors.diagnostics.first?.expected, "an integer ≤ 10")
            XCTAssertEqual(errors.diagnostics.first?.kind, .invalidValue)
        }
    }

    func testDescriptionNamesTheRelativePath() {
        XCTAssertEqual(ConfigIssue(key: "x", expected: "a number", found: "\"a\"").below(.index(2)).description,
                       #"[2].x: expected a number, found "a""#)
    }
}
