import Foundation
import XCTest
@testable import Experiments
@testable import PrestageCLI
@testable import ScenarioFormat

/// Resume and merge trust no item they did not verify: an item whose values were edited, one
/// copied from another point or replication and relabelled, and a stray file are named and never
/// reach the results.
final class SweepIntegrityTests: XCTestCase {
    /// `text` with the first digit of the first metric value changed.
    static func editedValue(_ text: String) -> String {
        guard let range = text.range(of: "\"value\" : ") else { return text }
        var out = text
        let digit = out.index(range.upperBound, offsetBy: 0)
        let old = out[digit]
        out.replaceSubrange(digit...digit, with: old == "9" ? "8" : String((old.wholeNumberValue ?? 0) + 1))
        return out
    }

    /// A complete reference sweep and a partial copy of it (marker in place, results removed),
    /// ready to be resumed into `resumed`.
    func referenceAndPartial(_ t: TestEnvironment) throws -> (sweep: String, reference: URL, resumed: URL, partial: URL) {
        let sweep = try t.file("warm.json", SweepTests.smallSweep)
        let reference = t.root.appendingPathComponent("reference")
        XCTAssertEqual(t.run(["sweep", sweep, "--out", reference.path]), .ok, t.err.text)
        let resumed = t.root.appendingPathComponent("resumed")
        let partial = URL(fileURLWithPath: resumed.path + ".partial")
        try FileManager.default.copyItem(at: reference, to: partial)
        for f in ["sweep.csv", "points.csv", "summary.json"] { try FileManager.default.removeItem(at: partial.appendingPathComponent(f)) }
        try Data("This run has not completed. It was interrupted (SIGINT); these are partial results.\n".utf8)
            .write(to: partial.appendingPathComponent(ResultsDirectory.incompleteMarkerName))
        return (sweep, reference, resumed, partial)
    }

    func testResumeRerunsAnEditedOrRelabelledItemNamingIt() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let (sweep, reference, resumed, partial) = try referenceAndPartial(t)
        let edited = partial.appendingPathComponent("items/p0-r0.json")
        try Data(Self.editedValue(try String(contentsOf: edited, encoding: .utf8)).utf8).write(to: edited)
        // p1-r0's item copied over p2-r0 with its labels changed to point 2.
        let source = try String(contentsOf: partial.appendingPathComponent("items/p1-r0.json"), encoding: .utf8)
        try Data(source.replacingOccurrences(of: "\"point\" : 1", with: "\"point\" : 2").utf8).write(to: partial.appendingPathComponent("items/p2-r0.json"))

        let before = t.err.text.count
        XCTAssertEqual(t.run(["sweep", sweep, "--out", resumed.path]), .ok, t.err.text)
        let err = String(t.err.text.dropFirst(before))
        XCTAssertTrue(err.contains("items/p0-r0.json: "), err)
        XCTAssertTrue(err.contains("items/p2-r0.json: "), err)
        XCTAssertTrue(err.contains("2 item(s) to run (6 already complete)"), err)
        XCTAssertEqual(try SweepTests.tree(reference), try SweepTests.tree(resumed), "the resumed sweep differs from the reference")
    }

    func testResumeRefusesAStrayItemNamingIt() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let (sweep, _, resumed, partial) = try referenceAndPartial(t)
        try FileManager.default.copyItem(at: partial.appendingPathComponent("items/p0-r0.json"), to: partial.appendingPathComponent("items/p99-r0.json"))
        XCTAssertEqual(t.run(["sweep", sweep, "--out", resumed.path]), .badInput, t.err.text)
        XCTAssertTrue(t.err.text.contains("items/p99-r0.json"), t.err.text)
        XCTAssertFalse(FileManager.default.fileExists(atPath: resumed.path))
    }

    func testMergeRefusesAnEditedOrRelabelledItemNamingIt() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let sweep = try t.file("warm.json", SweepTests.smallSweep)
        let shards = (0..<2).map { t.root.appendingPathComponent("shard\($0)") }
        for (i, shard) in shards.enumerated() {
            XCTAssertEqual(t.run(["sweep", sweep, "--shard", "\(i)/2", "--out", shard.path]), .ok, t.err.text)
        }
        let item = shards[0].appendingPathComponent("items/p1-r0.json")  // k = 2: shard 0 of 2
        let original = try String(contentsOf: item, encoding: .utf8)
        try Data(Self.editedValue(original).utf8).write(to: item)
        XCTAssertEqual(t.run(["merge", shards[0].path, shards[1].path, "--out", t.root.appendingPathComponent("m1").path]), .badInput, t.err.text)
        XCTAssertTrue(t.err.text.contains("items/p1-r0.json: "), t.err.text)

        // p0-r0 (k = 0, also shard 0) copied over p1-r0 and relabelled as point 1.
        let other = try String(contentsOf: shards[0].appendingPathComponent("items/p0-r0.json"), encoding: .utf8)
        try Data(other.replacingOccurrences(of: "\"point\" : 0", with: "\"point\" : 1").utf8).write(to: item)
        let before = t.err.text.count
        XCTAssertEqual(t.run(["merge", shards[0].path, shards[1].path, "--out", t.root.appendingPathComponent("m2").path]), .badInput, t.err.text)
        XCTAssertTrue(String(t.err.text.dropFirst(before)).contains("items/p1-r0.json: "), t.err.text)

        try Data(original.utf8).write(to: item)
        XCTAssertEqual(t.run(["merge", shards[0].path, shards[1].path, "--out", t.root.appendingPathComponent("m3").path]), .ok, t.err.text)
    }
}
