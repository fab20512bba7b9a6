import Foundation
import XCTest
@testable import Experiments
@testable import PrestageCLI

/// `prestage compare` as a user meets it: what differs between the runs, refusals of incomparable runs,
/// filters, formats, relative change, human units and the regression exit code.
final class CompareCommandTests: XCTestCase {
    private func run(_ t: TestEnvironment, _ name: String, _ extra: [String]) {
        XCTAssertEqual(t.run(["run", "default", "--devices", "150", "--replications", "3", "--out", t.root.appendingPathComponent(name).path] + extra),
                       .ok, t.err.text)
    }

    /// The output of `compare ARGS` and its exit code.
    private func compare(_ t: TestEnvironment, _ arguments: [String]) -> (ExitCode, String) {
        let before = t.out.text.count
        let code = t.run(["compare"] + arguments)
        return (code, String(t.out.text.dropFirst(before)))
    }

    func testCompareSaysWhatDiffersFiltersFormatsAndFailsOnRegression() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        run(t, "warm", [])
        run(t, "cold", ["--set", "campaigns[0].warm.aheadSeconds=0"])
        let (a, b) = (t.root.appendingPathComponent("warm").path, t.root.appendingPathComponent("cold").path)

        let (code, text) = compare(t, [a, b])
        XCTAssertEqual(code, .ok)
        XCTAssertTrue(text.contains("What differs between the resolved scenarios (A → B):\n  campaigns[0].warm.aheadSeconds: 300 → 0\n"), text)
        XCTAssertTrue(text.contains("Pre-stage edge hit ratio"), "titles from the metric table")
        XCTAssertFalse(text.contains("e+"), "no exponent notation")
        XCTAssertTrue(text.contains(" pp ± "), "differences of shares in percentage points")
        // Regressions come first: the first table row after the rule is a regression.
        let lines = text.split(separator: "\n").map(String.init)
        let rule = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("------") })
        XCTAssertTrue(lines[rule + 1].hasSuffix("regression"), lines[rule + 1])

        let (significantCode, significant) = compare(t, [a, b, "--significant-only"])
        XCTAssertEqual(significantCode, .ok)
        XCTAssertFalse(significant.contains("no significant difference"), significant)

        let (_, chosen) = compare(t, [a, b, "--metrics", "edge.prestageHitRatio", "--format", "md"])
        XCTAssertTrue(chosen.contains("| Pre-stage edge hit ratio | `edge.prestageHitRatio` |"), chosen)
        XCTAssertEqual(chosen.components(separatedBy: "`edge.").count - 1, 1, "only the chosen metric")

        let (_, csv) = compare(t, [a, b, "--format", "csv", "--metrics", "edge.prestageHitRatio"])
        let csvLines = csv.split(separator: "\n")
        XCTAssertEqual(csvLines.first, "metric,title,unit,a,aHalfWidth,b,bHalfWidth,difference,differenceLower,differenceUpper,relativeChange,method,verdict,threshold")
        XCTAssertEqual(csvLines.count, 2)
        XCTAssertTrue(csvLines[1].hasPrefix("edge.prestageHitRatio,Pre-stage edge hit ratio,ratio,1,0,"), String(csvLines[1]))

        let (_, json) = compare(t, [a, b, "--format", "json"])
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let differences = try XCTUnwrap(document["settingDifferences"] as? [[String: String]])
        XCTAssertEqual(differences, [["path": "campaigns[0].warm.aheadSeconds", "a": "300", "b": "0"]])
        XCTAssertFalse((document["metrics"] as? [Any] ?? []).isEmpty)

        XCTAssertEqual(compare(t, [a, b, "--fail-on-regression"]).0, .gateNotPassed, "the hit ratio fell: exit 3")
        XCTAssertEqual(compare(t, [a, a, "--fail-on-regression"]).0, .ok, "a run against itself has no regression")
        // A threshold larger than any change: significant changes no longer fail the gate.
        let (lenient, lenientText) = compare(t, [a, b, "--fail-on-regression", "--threshold", "1000%"])
        XCTAssertEqual(lenient, .ok, lenientText)
        XCTAssertTrue(lenientText.contains("regression within threshold"), lenientText)
        XCTAssertEqual(compare(t, [a, b, "--fail-on-regression", "--threshold", "1000%", "--threshold", "edge.prestageHitRatio=0"]).0, .gateNotPassed,
                       "a metric's own threshold wins over the one for every metric")
        for (bad, message) in [("5", "an absolute threshold needs its metric"), ("edge.prestageHitRatoi=1%", "did you mean \"edge.prestageHitRatio\"?"),
                               ("-1%", "expected X% (every metric"), ("edge.prestageHitRatio=x", "found \"edge.prestageHitRatio=x\"")] {
            XCTAssertEqual(compare(t, [a, b, "--threshold", bad]).0, .badInput, bad)
            XCTAssertTrue(t.err.text.contains(message), "\(bad): \(t.err.text)")
        }
        XCTAssertEqual(compare(t, [a, b, "--format", "xml"]).0, .badInput)
        XCTAssertTrue(t.err.text.contains("--format: expected one of text, md, csv, json, found \"xml\""), t.err.text)
    }

    func testIncomparableRunsAreRefusedUnlessAllowed() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        run(t, "small", [])
        XCTAssertEqual(t.run(["run", "default", "--devices", "300", "--replications", "3", "--out", t.root.appendingPathComponent("large").path]), .ok)
        XCTAssertEqual(t.run(["run", "default", "--devices", "150", "--replications", "2", "--out", t.root.appendingPathComponent("two").path]), .ok)
        let (small, large, two) = (t.root.appendingPathComponent("small").path, t.root.appendingPathComponent("large").path,
                                   t.root.appendingPathComponent("two").path)
        XCTAssertEqual(compare(t, [small, large]).0, .badInput)
        XCTAssertTrue(t.err.text.contains("population.devices differs (A 150, B 300): counts and bytes scale with it"), t.err.text)
        XCTAssertEqual(compare(t, [small, two]).0, .badInput)
        XCTAssertTrue(t.err.text.contains("same seed 1 with 3 and 2 replications"), t.err.text)
        let (code, text) = compare(t, [small, large, "--allow-different"])
        XCTAssertEqual(code, .ok)
        XCTAssertTrue(text.contains("Compared anyway (--allow-different): population.devices differs"), text)
    }
}
