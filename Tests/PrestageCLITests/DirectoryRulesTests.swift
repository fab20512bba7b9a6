import Foundation
import XCTest
@testable import Experiments
@testable import PrestageCLI
@testable import ScenarioFormat

/// Every command that writes a directory (`plan`, `fit --report`, `testbed`, and `sweep`'s items)
/// under the rules of `run`'s results directory: one owner, a user's directory refused before any
/// work, work in DIR.partial, stored work checked on every read (a rerun, `--ingest`), nothing
/// followed through a link; a signal's message says where the results are.
final class DirectoryRulesTests: XCTestCase {
    static let planArguments = ["--vary", "campaigns[0].sendRatePerMinute=3000..300000", "--tolerance", "25%", "--replications-max", "4"]

    /// Runs the tiny plan into `out` and returns its plan.json.
    func plan(_ t: TestEnvironment, _ file: String, _ out: String, extra: [String] = [], file line: UInt = #line) throws -> Data {
        XCTAssertEqual(t.run(["plan", file] + Self.planArguments + ["--out", out] + extra), .ok, t.err.text, line: line)
        return try Data(contentsOf: URL(fileURLWithPath: out + "/plan.json"))
    }

    func evaluationFiles(_ directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory + "/evaluations").sorted()
    }

    /// Changing one stored value (0 to 7 rejections) moved the old plan's answer; now the file's
    /// content hash gives it away, it is named and run again, and the plan is unchanged.
    func testAnEditedOrMisplacedEvaluationIsRunAgainNotBelieved() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let file = try t.file("plan-tiny.json", PlanCommandTests.scenario)
        let out = t.root.appendingPathComponent("plan").path
        let first = try plan(t, file, out)
        let names = try evaluationFiles(out)
        XCTAssertGreaterThan(names.count, 4)
        // Every stored replication that saw no 503 now claims 7 of them.
        var edited = 0
        for name in names {
            let url = URL(fileURLWithPath: out + "/evaluations/" + name)
            let text = try String(contentsOf: url, encoding: .utf8)
            let changed = text.replacingOccurrences(of: "\"origin.rejected503\" : 0,", with: "\"origin.rejected503\" : 7,")
            if changed != text { edited += 1; try changed.write(to: url, atomically: true, encoding: .utf8) }
        }
        XCTAssertGreaterThan(edited, 0, "no stored replication with 0 rejections to edit")
        // One replication copied over another (misplaced).
        let r0 = try XCTUnwrap(names.first { $0.hasSuffix("-r0.json") })
        let r1 = r0.replacingOccurrences(of: "-r0.json", with: "-r1.json")
        XCTAssertTrue(names.contains(r1))
        try FileManager.default.removeItem(atPath: out + "/evaluations/" + r1)
        try FileManager.default.copyItem(atPath: out + "/evaluations/" + r0, toPath: out + "/evaluations/" + r1)
        let before = t.err.text.count
        let second = try plan(t, file, out)
        let err = String(t.err.text.dropFirst(before))
        XCTAssertTrue(err.contains("contentHash: expected the hash of the evaluation's contents"), err)
        XCTAssertTrue(err.contains("(a misplaced file); running it again"), err)
        XCTAssertEqual(second, first, "an edited evaluation changed the plan")
        XCTAssertFalse(t.out.text.contains("(0 run now"), t.out.text)
    }

    /// An evaluations/ holding anything but evaluation files, or that is a link, is refused
    /// (exit 2) naming the entry; nothing is replaced.
    func testStrayHiddenOrLinkedEntriesInEvaluationsAreRefused() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let file = try t.file("plan-tiny.json", PlanCommandTests.scenario)
        let out = t.root.appendingPathComponent("plan").path
        let first = try plan(t, file, out)
        let args = ["plan", file] + Self.planArguments + ["--out", out]
        for (entry, make) in [("notes.txt", { (p: String) in try Data("mine".utf8).write(to: URL(fileURLWithPath: p)) }),
                              (".hidden", { (p: String) in try Data("mine".utf8).write(to: URL(fileURLWithPath: p)) }),
                              ("0123456789abcdef0123456789abcdef-r0.json", { (p: String) in try FileManager.default.createSymbolicLink(atPath: p, withDestinationPath: "/etc/hostname") })] {
            let path = out + "/evaluations/" + entry
            try make(path)
            XCTAssertEqual(t.run(args), .badInput, entry)
            XCTAssertTrue(t.err.text.contains(path + ": cannot use it as one of plan evaluations"), t.err.text)
            XCTAssertFalse(FileManager.default.fileExists(atPath: out + ".partial"), "a refusal left a partial directory")
            XCTAssertFalse(FileManager.default.fileExists(atPath: t.root.appendingPathComponent(".plan.lock").path), "a refusal left the lock file")
            try FileManager.default.removeItem(atPath: path)
        }
        // evaluations/ itself a link to another directory.
        let elsewhere = t.root.appendingPathComponent("elsewhere").path
        try FileManager.default.moveItem(atPath: out + "/evaluations", toPath: elsewhere)
        try FileManager.default.createSymbolicLink(atPath: out + "/evaluations", withDestinationPath: elsewhere)
        XCTAssertEqual(t.run(args), .badInput)
        XCTAssertTrue(t.err.text.contains(out + "/evaluations: cannot read plan evaluations in: it is a symbolic link"), t.err.text)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: out + "/plan.json")), first)
    }

    /// A DIR that is not earlier plan results (a user's plan.md beside their notes, a run's
    /// results, a symbolic link) is refused before any work, untouched, with no lock file left;
    /// a second plan on a live DIR is refused naming the owner.
    func testOutThatIsNotEarlierPlanResultsIsRefusedBeforeAnyWork() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let file = try t.file("plan-tiny.json", PlanCommandTests.scenario)
        let users = t.root.appendingPathComponent("mine").path
        try FileManager.default.createDirectory(atPath: users, withIntermediateDirectories: true)
        try Data("my notes".utf8).write(to: URL(fileURLWithPath: users + "/plan.md"))
        let args = ["plan", file] + Self.planArguments
        XCTAssertEqual(t.run(args + ["--out", users]), .badInput)
        XCTAssertTrue(t.err.text.contains("--out: \(users): cannot replace: it is not completed results (no plan.json)"), t.err.text)
        XCTAssertEqual(try String(contentsOfFile: users + "/plan.md", encoding: .utf8), "my notes")
        XCTAssertFalse(t.err.text.contains("replications →"), "the refusal came after work")
        // A run's results directory.
        let run = t.root.appendingPathComponent("run").path
        XCTAssertEqual(t.run(["run", file, "--out", run]), .ok, t.err.text)
        let runFiles = try FileManager.default.contentsOfDirectory(atPath: run).sorted()
        XCTAssertEqual(t.run(args + ["--out", run]), .badInput)
        XCTAssertTrue(t.err.text.contains("\(run): cannot replace: it is not earlier results"), t.err.text)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: run).sorted(), runFiles)
        // A symbolic link, to a directory and dangling.
        let link = t.root.appendingPathComponent("link").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: t.root.appendingPathComponent("nowhere").path)
        XCTAssertEqual(t.run(args + ["--out", link]), .badInput)
        XCTAssertTrue(t.err.text.contains("it is a symbolic link"), t.err.text)
        XCTAssertFalse(FileManager.default.fileExists(atPath: t.root.appendingPathComponent("nowhere").path))
        for name in ["mine", "run", "link"] {
            XCTAssertFalse(FileManager.default.fileExists(atPath: t.root.appendingPathComponent(".\(name).lock").path), "lock file left beside \(name)")
        }
        // A live owner.
        let live = t.root.appendingPathComponent("live")
        let lock = try OutputLock.acquire(in: t.root, name: "live", owner: OutputOwner(pid: 4242, host: "node7", started: "2026-12-01T11:00:00Z", command: "prestage plan x"))
        defer { lock.release() }
        XCTAssertEqual(t.run(args + ["--out", live.path]), .badInput)
        XCTAssertTrue(t.err.text.contains("another run is writing it: pid 4242 on host node7"), t.err.text)
        XCTAssertFalse(FileManager.default.fileExists(atPath: live.path + ".partial"))
    }

    /// `--ingest` checks the merged sweep as `merge` checks a shard: an edited item (a stale
    /// content hash), a stray file or an incomplete directory is refused and nothing is stored.
    func testIngestRefusesAnEditedItemAStrayOrAnIncompleteSweep() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let file = try t.file("plan-tiny.json", PlanCommandTests.scenario)
        let out = t.root.appendingPathComponent("cluster").path, step = t.root.appendingPathComponent("step.json").path
        let args = ["plan", file] + Self.planArguments + ["--out", out, "--emit-sweep", step]
        XCTAssertEqual(t.run(args), .ok, t.err.text)
        XCTAssertTrue(t.out.text.contains("next step"), t.out.text)
        // The plan waits in DIR.partial, its marker saying for what.
        let marker = try String(contentsOfFile: out + ".partial/INCOMPLETE", encoding: .utf8)
        XCTAssertTrue(marker.contains("waits for the replications of its next step"), marker)
        let merged = t.root.appendingPathComponent("merged").path
        XCTAssertEqual(t.run(["sweep", step, "--out", merged]), .ok, t.err.text)
        let item = merged + "/items/p0-r0.json"
        let original = try String(contentsOfFile: item, encoding: .utf8)
        let edited = original.replacingOccurrences(of: "\"name\" : \"origin.rejected503\",\n      \"unit\" : \"count\",\n      \"value\" : 0",
                                                   with: "\"name\" : \"origin.rejected503\",\n      \"unit\" : \"count\",\n      \"value\" : 7")
        XCTAssertNotEqual(edited, original, "the item has no 0-rejection value to edit:\n\(original)")
        try edited.write(toFile: item, atomically: true, encoding: .utf8)
        let ingest = args + ["--ingest", merged]
        XCTAssertEqual(t.run(ingest), .badInput)
        XCTAssertTrue(t.err.text.contains("\(item): contentHash: expected the hash of the item's contents"), t.err.text)
        XCTAssertEqual(try evaluationFiles(out + ".partial"), [], "a refused ingest stored replications")
        try original.write(toFile: item, atomically: true, encoding: .utf8)
        // A stray file in items/.
        try Data("x".utf8).write(to: URL(fileURLWithPath: merged + "/items/.notes"))
        XCTAssertEqual(t.run(ingest), .badInput)
        XCTAssertTrue(t.err.text.contains(merged + "/items/.notes: cannot use it as one of the items of this sweep"), t.err.text)
        try FileManager.default.removeItem(atPath: merged + "/items/.notes")
        // An incomplete sweep.
        try Data("prestage: this directory is incomplete".utf8).write(to: URL(fileURLWithPath: merged + "/INCOMPLETE"))
        XCTAssertEqual(t.run(ingest), .badInput)
        XCTAssertTrue(t.err.text.contains("the sweep did not complete"), t.err.text)
        try FileManager.default.removeItem(atPath: merged + "/INCOMPLETE")
        // The sound directory is taken.
        XCTAssertEqual(t.run(ingest), .ok, t.err.text)
        XCTAssertTrue(t.err.text.contains("--ingest: stored 2 replications"), t.err.text)
        XCTAssertEqual(try evaluationFiles(out + ".partial").count, 2)
    }

    /// A signal during the commit is held until the commit ends, and the message says where the
    /// results are (they were committed); one during the work marks DIR.partial and says so.
    func testASignalDuringTheCommitTellsWhereTheResultsAre() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let directory = try ResultsDirectory.begin(in: t.root, name: "r")
        let output = CapturedOutput()
        var exits: [Int32] = []
        let interrupt = InterruptGuard(directory: directory, output: output, command: "prestage run", installing: false) { exits.append($0) }
        let sigint = try XCTUnwrap(InterruptGuard.handled.first { $0.signal == SIGINT })
        let final = try interrupt.committing { () throws -> URL in
            interrupt.deliver(sigint)
            XCTAssertEqual(exits, [], "the signal acted during the commit")
            return try directory.commit()
        }
        XCTAssertEqual(exits, [130])
        XCTAssertTrue(output.text.contains("interrupted while committing; the results are complete in \(final.path)"), output.text)
        XCTAssertFalse(output.text.contains("partial results left"), output.text)
        XCTAssertFalse(FileManager.default.fileExists(atPath: final.path + "/INCOMPLETE"))
        // After the commit the handlers are gone: a late signal does nothing.
        interrupt.deliver(sigint)
        XCTAssertEqual(exits, [130])
        // While working: the marker names the signal and the message the partial directory.
        let working = try ResultsDirectory.begin(in: t.root, name: "w")
        let output2 = CapturedOutput()
        var exits2: [Int32] = []
        let guard2 = InterruptGuard(directory: working, output: output2, installing: false) { exits2.append($0) }
        guard2.deliver(try XCTUnwrap(InterruptGuard.handled.first { $0.signal == SIGQUIT }))
        XCTAssertEqual(exits2, [131])
        XCTAssertTrue(output2.text.contains("quit; partial results left in \(working.partialURL.path)"), output2.text)
        XCTAssertTrue(try String(contentsOf: working.partialURL.appendingPathComponent("INCOMPLETE"), encoding: .utf8).contains("quit (SIGQUIT)"))
    }

    /// A stale sweep partial whose items/ is a link, or holds a hidden file, is refused: the
    /// resume never writes outside the output directory or carries a file into the results.
    func testSweepResumeRefusesALinkedItemsDirectoryAndHiddenFiles() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let file = try t.file("plan-tiny.json", PlanCommandTests.scenario)
        let sweep = try t.file("s.json", """
            { "scenario": "\(file)", "replications": 2, "seed": 3, "grid": { "campaigns[0].sendRatePerMinute": [6000, 12000] } }
            """)
        let out = t.root.appendingPathComponent("s").path
        XCTAssertEqual(t.run(["sweep", sweep, "--out", out]), .ok, t.err.text)
        // Make it a stale partial again.
        try FileManager.default.moveItem(atPath: out, toPath: out + ".partial")
        try Data("prestage: this directory is incomplete\n".utf8).write(to: URL(fileURLWithPath: out + ".partial/INCOMPLETE"))
        try Data("x".utf8).write(to: URL(fileURLWithPath: out + ".partial/items/.carried"))
        XCTAssertEqual(t.run(["sweep", sweep, "--out", out]), .badInput)
        XCTAssertTrue(t.err.text.contains(out + ".partial/items/.carried: cannot use it as one of the items of this sweep"), t.err.text)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
        try FileManager.default.removeItem(atPath: out + ".partial/items/.carried")
        let outside = t.root.appendingPathComponent("outside").path
        try FileManager.default.moveItem(atPath: out + ".partial/items", toPath: outside)
        try FileManager.default.createSymbolicLink(atPath: out + ".partial/items", withDestinationPath: outside)
        let outsideBefore = try FileManager.default.contentsOfDirectory(atPath: outside).sorted()
        XCTAssertEqual(t.run(["sweep", sweep, "--out", out]), .badInput)
        XCTAssertTrue(t.err.text.contains(out + ".partial/items: cannot read the items of this sweep in: it is a symbolic link"), t.err.text)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outside).sorted(), outsideBefore)
    }

    /// `fit --report DIR` refuses a directory that is not an earlier fit report (a user's
    /// report.md beside other files) before fitting, and replaces an earlier report.
    func testFitReportRefusesAUsersDirectoryAndReplacesAnEarlierReport() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let log = TestEnvironment.packageRoot.appendingPathComponent("Tests/LogFitTests/Samples/cloudfront.log").path
        let users = t.root.appendingPathComponent("docs").path
        try FileManager.default.createDirectory(atPath: users, withIntermediateDirectories: true)
        try Data("my report".utf8).write(to: URL(fileURLWithPath: users + "/report.md"))
        try Data("notes".utf8).write(to: URL(fileURLWithPath: users + "/notes.txt"))
        XCTAssertEqual(t.run(["fit", log, "--format", "cloudfront", "--report", users]), .badInput)
        XCTAssertTrue(t.err.text.contains("--report: \(users): cannot replace: it is not earlier results: it holds \"notes.txt\""), t.err.text)
        XCTAssertEqual(try String(contentsOfFile: users + "/report.md", encoding: .utf8), "my report")
        XCTAssertFalse(FileManager.default.fileExists(atPath: t.root.appendingPathComponent(".docs.lock").path))
        let report = t.root.appendingPathComponent("fit").path
        XCTAssertEqual(t.run(["fit", log, "--format", "cloudfront", "--report", report]), .ok, t.err.text)
        let first = try FileManager.default.contentsOfDirectory(atPath: report).sorted()
        XCTAssertTrue(first.contains("report.md") && first.contains { $0.hasPrefix("qq-") }, "\(first)")
        XCTAssertEqual(t.run(["fit", log, "--format", "cloudfront", "--report", report]), .ok, t.err.text)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: report).sorted(), first)
        XCTAssertFalse(FileManager.default.fileExists(atPath: report + ".partial"))
    }

    /// `testbed --out DIR` refuses a user's directory before any component starts, untouched and
    /// with no lock file left.
    func testTestbedRefusesAUsersDirectoryBeforeStarting() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let users = t.root.appendingPathComponent("bench-notes").path
        try FileManager.default.createDirectory(atPath: users, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: users + "/testbed-report.md"))
        XCTAssertEqual(t.run(["testbed", "default", "--devices", "20", "--seconds", "20", "--out", users]), .badInput, t.err.text)
        XCTAssertTrue(t.err.text.contains("--out: \(users): cannot replace: it is not completed results (no testbed-results.json)"), t.err.text)
        XCTAssertFalse(t.err.text.contains("origin"), "a component started: \(t.err.text)")
        XCTAssertEqual(try String(contentsOfFile: users + "/testbed-report.md", encoding: .utf8), "mine")
        XCTAssertFalse(FileManager.default.fileExists(atPath: t.root.appendingPathComponent(".bench-notes.lock").path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: users + ".partial"))
    }
}
