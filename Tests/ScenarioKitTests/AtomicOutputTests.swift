import XCTest
@testable import ScenarioKit

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
        // Interrupted here: only the partial directory exists, marked INCOMPLETE.
        XCTAssertEqual(try listing(directory), ["run-42.partial"])
        XCTAssertEqual(try listing(run.partialURL), ["INCOMPLETE", "summary.json"])
        XCTAssertThrowsError(try run.write(Data(), named: "INCOMPLETE"))
        XCTAssertThrowsError(try run.write(Data(), named: "../escape"))

        let final = try run.commit()
        XCTAssertEqual(final.lastPathComponent, "run-42")
        XCTAssertEqual(try listing(directory), ["run-42"])
        XCTAssertEqual(try listing(final), ["summary.json"])
    }

    func testLeftoversAndExistingResults() throws {
        // A marked leftover from an interrupted run is cleared on the next begin.
        let first = try ResultsDirectory.begin(in: directory, name: "r")
        try first.write(Data("old".utf8), named: "stale.json")
        let second = try ResultsDirectory.begin(in: directory, name: "r")
        XCTAssertEqual(try listing(second.partialURL), ["INCOMPLETE"])
        try second.write(Data("1".utf8), named: "a.json")
        try second.commit()

        // Committing over existing results needs consent.
        let third = try ResultsDirectory.begin(in: directory, name: "r")
        try third.write(Data("2".utf8), named: "b.json")
        XCTAssertThrowsError(try third.commit()) {
            XCTAssertEqual(($0 as? FileOutputError)?.reason, "it already exists")
        }
        try third.commit(replacingExisting: true)
        XCTAssertEqual(try listing(directory), ["r"])
        XCTAssertEqual(try listing(directory.appendingPathComponent("r")), ["b.json"])

        // An unmarked directory with the partial name is not ours to delete.
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("s.partial"), withIntermediateDirectories: false)
        XCTAssertThrowsError(try ResultsDirectory.begin(in: directory, name: "s"))
        XCTAssertThrowsError(try ResultsDirectory.begin(in: directory, name: "a/b"))
    }
}
