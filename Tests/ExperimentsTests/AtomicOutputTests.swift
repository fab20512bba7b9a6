import XCTest
@testable import Experiments

final class AtomicOutputTests: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("scenariokit-\(getpid())-\(name.filter(\.isLetter))", isDirectory: true)
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private func listing(_ url: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
    }

    func testAtomicWriteReplacesContentAndLeavesNoTemporaryFiles() throws {
        let file = directory.appendingPathComponent("summary.json")
        try AtomicWriter.write(Data("first".utf8), to: file)
        XCTAssertEqual(try String(contentsOf: file, encoding: .utf8), "first")
        try AtomicWriter.write(Data("second, longer".utf8), to: file)
        try AtomicWriter.write(Data(), to: directory.appendingPathComponent("empty"))
        XCTAssertEqual(try String(contentsOf: file, encoding: .utf8), "second, longer")
        XCTAssertEqual(try listing(directory), ["empty", "summary.json"])
    }

    func testAtomicWriteFailureNamesThePathAndLeavesNothing() throws {
        let missing = directory.appendingPathComponent("no-such-dir/out.json")
        XCTAssertThrowsError(try AtomicWriter.write(Data("x".utf8), to: missing)) { error in
            let e = error as? FileOutputError
            XCTAssertEqual(e?.operation, "create a temporary file")
            XCTAssertTrue(e?.path.hasPrefix(self.directory.path + "/no-such-dir/.out.json.tmp-") ?? false, "\(error)")
        }
        XCTAssertEqual(try listing(directory), [])
    }

    func testResultsDirectoryIsMarkedIncompleteUntilCommitted() throws {
        let run = try ResultsDirectory.begin(in: directory, name: "run-42")
        try run.write(Data("{}".utf8), named: "summary.json")
        // Interrupted here: only the partial directory exists, marked INCOMPLETE, and the lock.
        XCTAssertEqual(try listing(directory), [".run-42.lock", "run-42.partial"])
        XCTAssertEqual(try listing(run.partialURL), ["INCOMPLETE", "summary.json"])
        XCTAssertThrowsError(try run.write(Data(), named: "INCOMPLETE"))
        XCTAssertThrowsError(try run.write(Data(), named: "../escape"))

        let final = try run.commit()
        XCTAssertEqual(final.lastPathComponent, "run-42")
        XCTAssertEqual(try listing(directory), ["run-42"])
        XCTAssertEqual(try listing(final), ["summary.json"])
    }

    /// An output that is a symbolic link (here one that points nowhere) is refused at once, not
    /// after the run, when the commit would refuse to replace it; a refused output leaves
    /// nothing beside it, not even the lock file.
    func testALinkedOutputIsRefusedBeforeAnyWorkAndARefusalLeavesNoLock() throws {
        let link = directory.appendingPathComponent("out")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: directory.appendingPathComponent("gone").path)
        XCTAssertThrowsError(try ResultsDirectory.begin(in: directory, name: "out")) { error in
            XCTAssertTrue("\(error)".contains("symbolic link") && "\(error)".contains("which does not exist"), "\(error)")
        }
        XCTAssertEqual(try listing(directory), ["out"])
        let lock = try OutputLock.acquire(in: directory, name: "out", owner: .current(command: "test"))
        XCTAssertThrowsError(try ResultsDirectory.resume(lock))
        XCTAssertEqual(try listing(directory), ["out"])

        // A user's NAME.partial is refused and kept as it was; the lock file goes.
        let mine = directory.appendingPathComponent("mine.partial")
        try FileManager.default.createDirectory(at: mine, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: mine.appendingPathComponent("notes.txt"))
        XCTAssertThrowsError(try ResultsDirectory.begin(in: directory, name: "mine"))
        XCTAssertEqual(try listing(directory), ["mine.partial", "out"])
        XCTAssertEqual(try listing(mine), ["notes.txt"])
    }

    func testLeftoversAndExistingResults() throws {
        // A marked leftover from an interrupted run is cleared on the next begin.
        let first = try ResultsDirectory.begin(in: directory, name: "r")
        try first.write(Data("old".utf8), named: "stale.json")
        first.lock.release()  // its owner is gone
        let second = try ResultsDirectory.begin(in: directory, name: "r")
        XCTAssertEqual(try listing(second.partialURL), ["INCOMPLETE"])
        try second.write(Data("1".utf8), named: "a.json")
        try second.commit()

        // Committing over existing results needs consent, and names what may be replaced.
        let third = try ResultsDirectory.begin(in: directory, name: "r")
        try third.write(Data("2".utf8), named: "b.json")
        XCTAssertThrowsError(try third.commit()) {
            XCTAssertEqual(($0 as? FileOutputError)?.reason, "it already exists")
        }
        try third.commit(replacing: ResultsDirectory.Replaceable(files: ["b.json"], marker: "a.json"))
        XCTAssertEqual(try listing(directory), ["r"])
        XCTAssertEqual(try listing(directory.appendingPathComponent("r")), ["b.json"])

        // An unmarked directory with the partial name holding other files is not ours to delete.
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("s.partial"), withIntermediateDirectories: false)
        try Data("mine".utf8).write(to: directory.appendingPathComponent("s.partial/notes.txt"))
        XCTAssertThrowsError(try ResultsDirectory.begin(in: directory, name: "s"))
        XCTAssertEqual(try listing(directory.appendingPathComponent("s.partial")), ["notes.txt"])
        XCTAssertThrowsError(try ResultsDirectory.begin(in: directory, name: "a/b"))
    }

    /// `--out` naming an existing directory that is not earlier results (a project, the home
    /// directory, a typo) must never be deleted: it is refused, with what it holds, and left intact.
    func testOnlyEarlierResultsAreReplaced() throws {
        let results = ResultsDirectory.Replaceable(files: ["summary.json", "report.md"], marker: "run-info.json")
        let fm = FileManager.default
        let target = directory.appendingPathComponent("out")
        XCTAssertNoThrow(try ResultsDirectory.checkReplaceable(target, results), "a missing directory is fine")

        // A directory with other files: refused before and at commit; it and its files stay.
        try fm.createDirectory(at: target.appendingPathComponent(".git"), withIntermediateDirectories: true)
        for f in ["Package.swift", "run-info.json", "summary.json", "a", "b", "c", "d", "e"] {
            try Data("keep".utf8).write(to: target.appendingPathComponent(f))
        }
        let expected = "it is not earlier results: it holds \".git\", \"Package.swift\", \"a\", \"b\", \"c\" and 2 more, which a run does not write; choose another output directory or remove it by hand"
        XCTAssertThrowsError(try ResultsDirectory.checkReplaceable(target, results)) {
            XCTAssertEqual($0 as? FileOutputError, FileOutputError(operation: "replace", path: target.path, reason: expected))
        }
        let run = try ResultsDirectory.begin(in: directory, name: "out")
        try run.write(Data("new".utf8), named: "summary.json")
        XCTAssertThrowsError(try run.commit(replacing: results)) {
            XCTAssertEqual(($0 as? FileOutputError)?.reason, expected)
        }
        XCTAssertEqual(try listing(target), [".git", "Package.swift", "a", "b", "c", "d", "e", "run-info.json", "summary.json"])
        XCTAssertEqual(try String(contentsOf: target.appendingPathComponent("summary.json"), encoding: .utf8), "keep")
        XCTAssertEqual(try listing(directory), [".out.lock", "out", "out.partial"], "nothing moved aside or removed")

        // Results files but no marker: an unfinished or foreign directory, refused.
        let noMarker = directory.appendingPathComponent("no-marker")
        try fm.createDirectory(at: noMarker, withIntermediateDirectories: false)
        try Data().write(to: noMarker.appendingPathComponent("summary.json"))
        XCTAssertThrowsError(try ResultsDirectory.checkReplaceable(noMarker, results)) {
            XCTAssertEqual(($0 as? FileOutputError)?.reason, "it is not completed results (no run-info.json); choose another output directory or remove it by hand")
        }

        // A file, and a symbolic link to earlier results, are refused too.
        let file = directory.appendingPathComponent("file")
        try Data("keep".utf8).write(to: file)
        XCTAssertThrowsError(try ResultsDirectory.checkReplaceable(file, results)) {
            XCTAssertEqual(($0 as? FileOutputError)?.reason, "it is not a directory, not earlier results; choose another output directory or remove it by hand")
        }
        let earlier = directory.appendingPathComponent("earlier")
        try fm.createDirectory(at: earlier, withIntermediateDirectories: false)
        try Data().write(to: earlier.appendingPathComponent("run-info.json"))
        try Data().write(to: earlier.appendingPathComponent("report.md"))
        XCTAssertNoThrow(try ResultsDirectory.checkReplaceable(earlier, results))
        let link = directory.appendingPathComponent("link")
        try fm.createSymbolicLink(at: link, withDestinationURL: earlier)
        XCTAssertThrowsError(try ResultsDirectory.checkReplaceable(link, results)) {
            XCTAssertEqual(($0 as? FileOutputError)?.reason, "it is a symbolic link, not earlier results; choose another output directory or remove it by hand")
        }

        // Earlier results (a subset of the files, with the marker) are replaced.
        let again = try ResultsDirectory.begin(in: directory, name: "earlier")
        try again.write(Data("new".utf8), named: "summary.json")
        try again.commit(replacing: results)
        XCTAssertEqual(try listing(earlier), ["summary.json"])
        XCTAssertFalse(try listing(directory).contains { $0.hasPrefix(".earlier.old-") }, "the replaced results are removed")
    }
}
