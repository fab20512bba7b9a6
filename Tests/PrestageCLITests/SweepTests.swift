import Foundation
import PushModel
import SimStats
import XCTest
@testable import Experiments
@testable import PrestageCLI
@testable import ScenarioFormat

/// `prestage sweep` and `prestage merge` on real (small) simulation runs.
final class SweepTests: XCTestCase {
    /// 2 × 2 points × 2 replications of `default` at 300 devices: 8 work items, about a second in debug.
    static let smallSweep = """
    { "scenario": "default", "replications": 2, "seed": 7, "devices": 300,
      "grid": { "campaigns[0].warm.aheadSeconds": [0, 300], "campaigns[0].sendRatePerMinute": [60000, 600000] } }
    """
    static let seed: UInt64 = 7

    /// Every file under `directory` (relative path → bytes).
    static func tree(_ directory: URL) throws -> [String: Data] {
        var out: [String: Data] = [:]
        let base = directory.standardizedFileURL.path
        guard let walker = FileManager.default.enumerator(atPath: base) else { return out }
        for case let relative as String in walker {
            var isDirectory: ObjCBool = false
            let full = base + "/" + relative
            if FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue {
                out[relative] = try Data(contentsOf: URL(fileURLWithPath: full))
            }
        }
        return out
    }

    func assertSameTree(_ a: URL, _ b: URL, file: StaticString = #filePath, line: UInt = #line) throws {
        let ta = try Self.tree(a), tb = try Self.tree(b)
        XCTAssertEqual(ta.keys.sorted(), tb.keys.sorted(), "different files in \(a.path) and \(b.path) (seed \(Self.seed))", file: file, line: line)
        for name in ta.keys.sorted() where ta[name] != tb[name] {
            XCTFail("\(name) differs between \(a.path) and \(b.path) (seed \(Self.seed))", file: file, line: line)
        }
    }

    func testSweepWritesTidyCSVAndPerPointConfidenceIntervals() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let sweep = try t.file("warm.json", Self.smallSweep)
        let out = t.root.appendingPathComponent("warm")
        XCTAssertEqual(t.run(["sweep", sweep, "--out", out.path]), .ok, t.err.text)
        // A progress line per point, and no partial directory left.
        XCTAssertEqual(t.err.text.components(separatedBy: "\n").filter { $0.hasPrefix("point ") }.count, 4, t.err.text)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path + ".partial"))

        // sweep.csv: one row per point × replication × metric, the grid fields as columns.
        let tidy = try String(contentsOf: out.appendingPathComponent("sweep.csv"), encoding: .utf8).split(separator: "\n").map(String.init)
        XCTAssertEqual(tidy.first, "point,campaigns[0].sendRatePerMinute,campaigns[0].warm.aheadSeconds,replication,seed,metric,value,unit")
        let rows = tidy.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        XCTAssertTrue(rows.allSatisfy { $0.count == 8 })
        XCTAssertEqual(Set(rows.map { "\($0[0])/\($0[3])" }).count, 8, "4 points × 2 replications")
        XCTAssertTrue(rows.allSatisfy { $0[4] == "7" })
        // Point coordinates: fields sorted by path, the last varying fastest.
        let coordinates = Set(rows.map { "\($0[0]):\($0[1]):\($0[2])" })
        XCTAssertEqual(coordinates, ["0:60000:0", "1:60000:300", "2:600000:0", "3:600000:300"])
        // Every item lists the same fixed metrics; a per-network quantile is there only when that
        // network class painted a tap in the replication (300 devices: 2G may have none).
        let fixedRows = rows.filter { MetricID(rawValue: $0[5]) != nil }
        let metricsPerItem = Dictionary(grouping: fixedRows, by: { "\($0[0])/\($0[3])" }).mapValues(\.count)
        XCTAssertEqual(Set(metricsPerItem.values).count, 1, "every item lists the same metrics")

        // points.csv: the t interval of each point's replication values, recomputed here from the
        // definition (mean ± t_{0.975,1} s/√2, t_{0.975,1} = 12.706205 from tables).
        let table = try String(contentsOf: out.appendingPathComponent("points.csv"), encoding: .utf8).split(separator: "\n").map(String.init)
        let header = table[0].split(separator: ",").map(String.init)
        XCTAssertEqual(header, ["point", "campaigns[0].sendRatePerMinute", "campaigns[0].warm.aheadSeconds", "metric", "unit", "better", "n",
                                "mean", "halfWidth", "lower", "upper", "level", "replicationsNeeded"])
        var checked = 0
        for line in table.dropFirst() {
            let c = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard c[3] == "tapToPaint.p95Seconds" || c[3] == "extension.download.p95Seconds", let half = Double(c[8]) else { continue }
            let values = rows.filter { $0[0] == c[0] && $0[5] == c[3] }.compactMap { Double($0[6]) }
            XCTAssertEqual(values.count, 2)
            let mean = (values[0] + values[1]) / 2
            let s = abs(values[0] - values[1]) / 2.0.squareRoot()
            XCTAssertEqual(Double(c[7]) ?? .nan, mean, accuracy: 1e-12 * max(1, abs(mean)), "\(c[3]) point \(c[0]), seed 7")
            XCTAssertEqual(half, 12.706205 * s / 2.0.squareRoot(), accuracy: 1e-5 * max(1e-9, half), "\(c[3]) point \(c[0]), seed 7")
            checked += 1
        }
        XCTAssertEqual(checked, 8, "two metrics × four points have CIs")
        let summary = try JSONDecoder().decode(SweepSummary.self, from: Data(contentsOf: out.appendingPathComponent("summary.json")))
        XCTAssertEqual(summary.points.count, 4)
        XCTAssertEqual(summary.fields, ["campaigns[0].sendRatePerMinute", "campaigns[0].warm.aheadSeconds"])
        XCTAssertEqual(summary.points[3].values["campaigns[0].warm.aheadSeconds"], SweepValue(.integer(300)))
        XCTAssertTrue(summary.points.allSatisfy { $0.metrics.contains { $0.confidenceInterval != nil && $0.precision != nil } })
    }

    /// Three shards merged give byte-identical results to one unsharded sweep (and the thread
    /// count does not matter either).
    func testThreeShardsMergedAreByteIdenticalToAnUnshardedSweep() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let sweep = try t.file("warm.json", Self.smallSweep)
        let whole = t.root.appendingPathComponent("whole")
        XCTAssertEqual(t.run(["sweep", sweep, "--out", whole.path, "--jobs", "2"]), .ok, t.err.text)
        var shards: [String] = []
        for i in 0..<3 {
            let dir = t.root.appendingPathComponent("shard\(i)").path
            XCTAssertEqual(t.run(["sweep", sweep, "--shard", "\(i)/3", "--out", dir, "--jobs", "1"]), .ok, t.err.text)
            shards.append(dir)
            // Item k is in shard k mod 3: items 0, 3, 6 in shard 0 (p0-r0, p1-r1, p3-r0).
            if i == 0 {
                let names = try FileManager.default.contentsOfDirectory(atPath: dir + "/items").sorted()
                XCTAssertEqual(names, ["p0-r0.json", "p1-r1.json", "p3-r0.json"])
            }
        }
        let merged = t.root.appendingPathComponent("merged")
        XCTAssertEqual(t.run(["merge"] + shards.reversed() + ["--out", merged.path]), .ok, t.err.text)
        try assertSameTree(whole, merged)
        XCTAssertEqual(try Self.tree(whole).count, 8 + 7, "8 items, sweep.json, scenario.json, the three result files and the two reports")
    }

    /// A rerun with the same --out runs only the items that are missing or damaged and ends with
    /// the same bytes as an uninterrupted sweep.
    func testRerunResumesRunningOnlyMissingItems() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let sweep = try t.file("warm.json", Self.smallSweep)
        let reference = t.root.appendingPathComponent("reference")
        XCTAssertEqual(t.run(["sweep", sweep, "--out", reference.path]), .ok, t.err.text)

        // An interrupted sweep: the partial directory with its marker, two items missing, one damaged.
        let out = t.root.appendingPathComponent("resumed")
        let partial = URL(fileURLWithPath: out.path + ".partial")
        try FileManager.default.copyItem(at: reference, to: partial)
        for f in ["sweep.csv", "points.csv", "summary.json", "items/p0-r1.json", "items/p2-r0.json"] {
            try FileManager.default.removeItem(at: partial.appendingPathComponent(f))
        }
        try Data("{ not json".utf8).write(to: partial.appendingPathComponent("items/p3-r1.json"))
        try Data("{ \"format\"".utf8).write(to: partial.appendingPathComponent("items/.p0-r1.json.tmp-99-0"))  // a write cut short
        try Data((ResultsDirectory.markerHeading + "\nreason: interrupted\n").utf8).write(to: partial.appendingPathComponent(ResultsDirectory.incompleteMarkerName))
        func inode(_ name: String) throws -> Int? {
            try FileManager.default.attributesOfItem(atPath: name)[.systemFileNumber] as? Int
        }
        let kept = partial.appendingPathComponent("items/p1-r0.json").path
        let keptInode = try inode(kept)

        let err = CapturedOutput()
        var env = t.environment
        env.standardError = err
        XCTAssertEqual(PrestageCLI.main(["sweep", sweep, "--out", out.path], environment: env), .ok, err.text)
        XCTAssertTrue(err.text.contains("3 item(s) to run (5 already complete)"), err.text)
        XCTAssertTrue(err.text.contains("p3-r1.json: expected a prestage sweep item"), err.text)
        XCTAssertEqual(try inode(out.appendingPathComponent("items/p1-r0.json").path), keptInode, "a complete item was rewritten")
        try assertSameTree(reference, out)

        // Once complete, a rerun has nothing to do.
        let again = CapturedOutput()
        env.standardError = again
        XCTAssertEqual(PrestageCLI.main(["sweep", sweep, "--out", out.path], environment: env), .ok, again.text)
        XCTAssertTrue(again.text.contains("already holds this complete sweep"), again.text)
    }

    func testMergeRefusesIncompleteForeignMissingAndDuplicateShards() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let sweep = try t.file("warm.json", Self.smallSweep)
        let other = try t.file("other.json", Self.smallSweep.replacingOccurrences(of: "\"seed\": 7", with: "\"seed\": 8"))
        let dir = { (name: String) in t.root.appendingPathComponent(name).path }
        for i in 0..<2 { XCTAssertEqual(t.run(["sweep", sweep, "--shard", "\(i)/2", "--out", dir("s\(i)")]), .ok, t.err.text) }
        XCTAssertEqual(t.run(["sweep", other, "--shard", "1/2", "--out", dir("foreign1")]), .ok, t.err.text)
        XCTAssertEqual(t.run(["sweep", sweep, "--out", dir("whole")]), .ok, t.err.text)

        func refusal(_ args: [String]) -> String {
            let err = CapturedOutput()
            var env = t.environment
            env.standardError = err
            XCTAssertEqual(PrestageCLI.main(["merge"] + args + ["--out", dir("m")], environment: env), .badInput, "merge \(args) should fail")
            XCTAssertFalse(FileManager.default.fileExists(atPath: dir("m")))
            return err.text
        }
        XCTAssertTrue(refusal([dir("s0")]).contains("missing shard(s) 1/2"))
        XCTAssertTrue(refusal([dir("s0"), dir("s0")]).contains("duplicate shard 0/2"))
        XCTAssertTrue(refusal([dir("s0"), dir("foreign1")]).contains("a shard of a different sweep"))
        XCTAssertTrue(refusal([dir("s0"), dir("whole")]).contains("found a complete unsharded sweep"))
        XCTAssertTrue(refusal([dir("s0"), dir("nowhere")]).contains("nowhere: expected a shard directory"))
        // An incomplete shard (still .partial) and a shard with an item removed.
        try FileManager.default.moveItem(atPath: dir("s1"), toPath: dir("s1") + ".partial")
        XCTAssertTrue(refusal([dir("s0"), dir("s1")]).contains("the shard did not complete"))
        try FileManager.default.moveItem(atPath: dir("s1") + ".partial", toPath: dir("s1"))
        try FileManager.default.removeItem(atPath: dir("s1") + "/items/p0-r1.json")
        XCTAssertTrue(refusal([dir("s0"), dir("s1")]).contains("shard 1/2 is missing 1 item(s): p0-r1.json"))
        // A stray item from another shard.
        try FileManager.default.copyItem(atPath: dir("s0") + "/items/p0-r0.json", toPath: dir("s1") + "/items/p0-r0.json")
        XCTAssertTrue(refusal([dir("s0"), dir("s1")]).contains("s1/items/p0-r0.json: cannot use it as one of the items of shard 1/2"))
        XCTAssertEqual(t.run(["merge", dir("s0"), dir("s1")]), .badInput)
        XCTAssertTrue(t.err.text.contains("expected --out DIR"), t.err.text)
        XCTAssertEqual(t.run(["merge", dir("s0"), dir("s1"), "--out", dir("whole")]), .badInput)
        XCTAssertTrue(t.err.text.contains("--out \(dir("whole")): already exists"), t.err.text)
    }

    /// Bad sweep files and options: exit 2 with the file, the path in it and what was expected.
    /// A sweep of listed points runs exactly those points, in order, each the same scenario as the
    /// grid point with the same values (equal scenario hashes and metrics).
    func testListedPointsRunAsTheGridsSamePoints() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let grid = try t.file("grid.json", #"{ "scenario": "default", "replications": 1, "devices": 200, "set": { "horizonSeconds": 900 }, "grid": { "campaigns[0].warm.aheadSeconds": [0, 120], "infra.origin.workers": [8, 16] } }"#)
        let listed = try t.file("listed.json", #"{ "scenario": "default", "replications": 1, "devices": 200, "set": { "horizonSeconds": 900 }, "points": [ { "infra.origin.workers": 16, "campaigns[0].warm.aheadSeconds": 120 }, { "infra.origin.workers": 8, "campaigns[0].warm.aheadSeconds": 0 }, { "infra.origin.workers": 16, "campaigns[0].warm.aheadSeconds": 120 } ] }"#)
        let a = t.root.appendingPathComponent("grid").path, b = t.root.appendingPathComponent("listed").path
        XCTAssertEqual(t.run(["sweep", grid, "--out", a]), .ok, t.err.text)
        XCTAssertEqual(t.run(["sweep", listed, "--out", b]), .ok, t.err.text)
        func manifest(_ dir: String) throws -> SweepManifest {
            try JSONDecoder().decode(SweepManifest.self, from: Data(contentsOf: URL(fileURLWithPath: dir + "/sweep.json")))
        }
        let g = try manifest(a), l = try manifest(b)
        XCTAssertEqual(l.points.count, 3, "listed points are run as listed, repeats included")
        XCTAssertEqual(l.axes.map(\.field), ["campaigns[0].warm.aheadSeconds", "infra.origin.workers"])
        XCTAssertEqual(l.axes[1].values.map(\.plainText), ["16", "8"], "an axis lists its distinct values in order of appearance")
        // Grid points: (0, 8), (0, 16), (120, 8), (120, 16).
        XCTAssertEqual(l.points.map(\.scenarioHash), [g.points[3].scenarioHash, g.points[0].scenarioHash, g.points[3].scenarioHash])
        // points.csv, one row per point and metric: listed point 1 has grid point 0's rows (but the index).
        func rows(_ dir: String, point: Int) throws -> [Substring] {
            try String(contentsOfFile: dir + "/points.csv", encoding: .utf8).split(separator: "\n")
                .filter { $0.hasPrefix("\(point),") }.map { $0.drop { $0 != "," } }
        }
        XCTAssertGreaterThan(try rows(b, point: 1).count, 10)
        XCTAssertEqual(try rows(b, point: 1), try rows(a, point: 0), "the same point, the same figures")
        XCTAssertEqual(try rows(b, point: 0), try rows(b, point: 2))
    }

    func testBadSweepFilesAreReportedWithPathsAndNeverCrash() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let cases: [(String, [String])] = [
            (#"{ "scenario": "default", "gird": { "campaigns[0].warm.aheadSeconds": [0] } }"#, [#"unknown key "gird"; did you mean "grid"?"#]),
            (#"{ "scenario": "default", "grid": { "campaigns[0].warm.aheadSecs": [0, 60] } }"#, [#"grid["campaigns[0].warm.aheadSecs"][0] = 0"#, "did you mean \"aheadSeconds\""]),
            (#"{ "scenario": "default", "grid": { "campaigns[0].warm.aheadSeconds": ["ten"] } }"#, [#"grid["campaigns[0].warm.aheadSeconds"][0] = "ten""#, "expected a number"]),
            (#"{ "scenario": "default", "grid": { "campaigns[0].warm.aheadSeconds": [[1]] } }"#, ["grid[\"campaigns[0].warm.aheadSeconds\"][0]", "expected a number, a string or a boolean"]),
            (#"{ "scenario": "default", "grid": { "run.seed": [1, 2] } }"#, [#"grid["run.seed"]: expected a scenario field outside "run""#]),
            (#"{ "scenario": "default", "grid": { "campaigns[0].warm.aheadSeconds": [0, 0] } }"#, [#"[1]: expected distinct values, found 0 again"#]),
            (#"{ "scenario": "default", "grid": { "campaigns[0].warm.aheadSeconds": [] } }"#, ["expected 1...1000 values, found 0"]),
            (#"{ "scenario": "default", "grid": {} }"#, ["grid: expected an object of 1...8 fields, found 0 fields"]),
            // 8 fields × 1000 values: 10^24 points, more than an Int holds.
            ("{ \"scenario\": \"default\", \"grid\": { " + (0..<8).map { "\"f\($0)\": [" + (0..<1000).map(String.init).joined(separator: ",") + "]" }
                .joined(separator: ", ") + " } }", ["grid: expected at most 10000 points, found more than \(Int.max) (1000 × 1000 × 1000 × 1000 × 1000 × 1000 × 1000 × 1000)"]),
            ("{ \"scenario\": \"default\", \"grid\": { " + (0..<4).map { "\"f\($0)\": [" + (0..<11).map(String.init).joined(separator: ",") + "]" }
                .joined(separator: ", ") + " } }", ["grid: expected at most 10000 points, found 14641 (11 × 11 × 11 × 11)"]),
            (#"{ "scenario": "default", "replications": 0, "grid": { "horizonSeconds": [60] } }"#, ["replications: expected an integer in 1...10000, found 0"]),
            (#"{ "scenario": "nosuch", "grid": { "horizonSeconds": [60] } }"#, ["scenario: nosuch: expected a scenario file or a name"]),
            (#"{ "grid": { "horizonSeconds": [60] } }"#, [#"missing required key "scenario""#]),
            (#"{ "scenario": "default", "grid": { "campaigns[0].warm.aheadSeconds": [0, 900] } }"#, [#"grid["campaigns[0].warm.aheadSeconds"][1] = 900"#]),
            // Each value is valid alone; sending at 400 s after warming 500 s ahead is not.
            (#"{ "scenario": "default", "grid": { "campaigns[0].warm.aheadSeconds": [100, 500], "campaigns[0].sendStartSeconds": [400, 1000] } }"#,
             ["point 1 (campaigns[0].sendStartSeconds=400, campaigns[0].warm.aheadSeconds=500)"]),
            (#"[1, 2"#, ["warm.json:"]),
            // Listed points: one of grid and points, every point the same fields, each point whole.
            (#"{ "scenario": "default", "grid": { "horizonSeconds": [60] }, "points": [ { "horizonSeconds": 60 } ] }"#, [#"expected "grid" or "points", found both"#]),
            (#"{ "scenario": "default", "points": [] }"#, ["points: expected a list of 1...10000 points, found 0 points"]),
            (#"{ "scenario": "default", "points": [ { "horizonSeconds": 60 }, { "horizonSeconds": 90, "seedx": 1 } ] }"#,
             ["expected every point setting the fields of point 0 (horizonSeconds), found point 1 with seedx"]),
            (#"{ "scenario": "default", "set": { "horizonSeconds": 60 }, "points": [ { "horizonSeconds": 90 } ] }"#,
             [#"points["horizonSeconds"]: also fixed in "set""#]),
            (#"{ "scenario": "default", "points": [ { "campaigns[0].warm.aheadSeconds": 100, "campaigns[0].sendStartSeconds": 400 }, { "campaigns[0].warm.aheadSeconds": 500, "campaigns[0].sendStartSeconds": 400 } ] }"#,
             ["point 1 (campaigns[0].sendStartSeconds=400, campaigns[0].warm.aheadSeconds=500)"]),
        ]
        for (text, expected) in cases {
            let path = try t.file("warm.json", text)
            let err = CapturedOutput()
            var env = t.environment
            env.standardError = err
            XCTAssertEqual(PrestageCLI.main(["sweep", path, "--out", t.root.appendingPathComponent("never").path], environment: env), .badInput, text)
            for e in expected { XCTAssertTrue(err.text.contains(e), "\(text)\nexpected \(e) in:\n\(err.text)") }
            XCTAssertTrue(err.text.contains(path), "the message names the file: \(err.text)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: t.root.appendingPathComponent("never").path + ".partial"))
        }
        let good = try t.file("good.json", Self.smallSweep)
        for shard in ["3/3", "1", "-1/2", "a/b", "0/0"] {
            let err = CapturedOutput()
            var env = t.environment
            env.standardError = err
            XCTAssertEqual(PrestageCLI.main(["sweep", good, "--shard", shard], environment: env), .badInput)
            XCTAssertTrue(err.text.contains("--shard: expected i/N with 0 ≤ i < N ≤ 10000 (e.g. 0/4), found \"\(shard)\""), err.text)
        }
        // The memory guard sizes the largest point at --jobs replications at once.
        let small = try TestEnvironment(availableBytes: 8 << 20)
        defer { small.cleanUp() }
        XCTAssertEqual(small.run(["sweep", good, "--out", small.root.appendingPathComponent("m").path]), .badInput)
        XCTAssertTrue(small.err.text.contains("refusing to run: the scenario needs about"), small.err.text)
        XCTAssertTrue(small.err.text.contains("(300 devices, "), small.err.text)
        XCTAssertEqual(small.run(["sweep", good, "--jobs", "1", "--force-memory", "--out", small.root.appendingPathComponent("m").path]), .ok, small.err.text)
        // An --out holding another sweep is refused, not overwritten.
        let out = t.root.appendingPathComponent("taken").path
        XCTAssertEqual(t.run(["sweep", good, "--out", out]), .ok, t.err.text)
        let other = try t.file("other.json", Self.smallSweep.replacingOccurrences(of: "\"replications\": 2", with: "\"replications\": 3"))
        XCTAssertEqual(t.run(["sweep", other, "--out", out]), .badInput)
        XCTAssertTrue(t.err.text.contains("holds a different sweep"), t.err.text)
    }
}
