import Foundation
import XCTest
@testable import Experiments
@testable import PrestageCLI
@testable import ScenarioFormat

/// Who may write a results directory, and what a later run does with what an earlier one left:
/// one live owner, stale leftovers replaced, a user's directories never deleted, signals recorded.
final class ResultsOwnershipTests: XCTestCase {
    static let binary = TestEnvironment.packageRoot.appendingPathComponent(".build/debug/prestage")

    /// The built executable, or a skip.
    func builtBinary() throws -> URL {
        guard FileManager.default.isExecutableFile(atPath: Self.binary.path) else { throw XCTSkip("no debug build of prestage at \(Self.binary.path)") }
        return Self.binary
    }

    /// Starts a long run of the built executable writing to `out` and returns once its partial
    /// directory holds scenario.json (the run owns the directory from then on).
    /// With `ignoringQuit`, the run starts with SIGQUIT ignored, as a command started in the
    /// background by a non-interactive shell does (`sh -c 'trap "" QUIT; exec …'`).
    func startLongRun(_ out: URL, extra: [String] = [], ignoringQuit: Bool = false) throws -> Process {
        let process = Process()
        let arguments = ["run", "black-friday-flash-sale", "--devices", "400000", "--replications", "2", "--jobs", "1", "--out", out.path] + extra
        if ignoringQuit {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "trap '' QUIT; exec \"$0\" \"$@\"", try builtBinary().path] + arguments
        } else {
            process.executableURL = try builtBinary()
            process.arguments = arguments
        }
        process.currentDirectoryURL = TestEnvironment.packageRoot
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let scenarioFile = out.path + ".partial/scenario.json"
        let deadline = Date().addingTimeInterval(30)
        while !FileManager.default.fileExists(atPath: scenarioFile), process.isRunning, Date() < deadline { usleep(20_000) }
        usleep(300_000)  // the signal handlers are installed right after scenario.json is written
        XCTAssertTrue(process.isRunning, "the run ended before the test could use it")
        return process
    }

    /// Two runs with the same --out: the second is refused (exit 2) naming the first, and the
    /// first's partial directory is left alone.
    func testSecondRunOnALiveDirectoryIsRefusedNamingTheOwner() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let out = t.root.appendingPathComponent("X")
        let first = try startLongRun(out)
        defer { if first.isRunning { kill(first.processIdentifier, SIGKILL); first.waitUntilExit() } }
        let inode = try FileManager.default.attributesOfItem(atPath: out.path + ".partial")[.systemFileNumber] as? Int

        XCTAssertEqual(t.run(["run", "default", "--devices", "50", "--replications", "1", "--out", out.path]), .badInput, t.err.text)
        XCTAssertTrue(t.err.text.contains("another run is writing it: pid \(first.processIdentifier) on host "), t.err.text)
        XCTAssertTrue(t.err.text.contains("prestage run black-friday-flash-sale"), t.err.text)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: out.path + ".partial")[.systemFileNumber] as? Int, inode,
                       "the live run's directory was replaced")
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path))
        let marker = try String(contentsOfFile: out.path + ".partial/INCOMPLETE", encoding: .utf8)
        XCTAssertTrue(marker.contains("pid: \(first.processIdentifier)"), marker)

        // Once the owner is gone (SIGKILL: no handler runs), the leftover is stale and replaced.
        kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()
        XCTAssertEqual(t.run(["run", "default", "--devices", "50", "--replications", "1", "--out", out.path]), .ok, t.err.text)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out.appendingPathComponent("run-info.json").path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path + ".partial"))
    }

    /// A user's own `X.partial/` (with a file named INCOMPLETE that this tool did not write) is
    /// never deleted: the run is refused and the directory is left as it was.
    func testUsersOwnPartialDirectoryIsNeverDeleted() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let partial = t.root.appendingPathComponent("X.partial")
        try FileManager.default.createDirectory(at: partial, withIntermediateDirectories: true)
        try Data("my to-do list\n".utf8).write(to: partial.appendingPathComponent("INCOMPLETE"))
        try Data("thesis draft\n".utf8).write(to: partial.appendingPathComponent("chapter1.tex"))
        XCTAssertEqual(t.run(["run", "default", "--devices", "50", "--replications", "1", "--out", t.root.appendingPathComponent("X").path]), .badInput)
        XCTAssertTrue(t.err.text.contains("not a leftover of this tool"), t.err.text)
        XCTAssertEqual(try String(contentsOf: partial.appendingPathComponent("chapter1.tex"), encoding: .utf8), "thesis draft\n")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: partial.path).sorted(), ["INCOMPLETE", "chapter1.tex"])
    }

    /// What a kill at start (an empty `X.partial/`: a full disk, a kill before the marker) or in an
    /// earlier version's commit (every result file, no marker) leaves is stale: the next run
    /// replaces it instead of refusing until someone removes it by hand.
    func testStaleUnmarkedLeftoversDoNotBlockReruns() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let out = t.root.appendingPathComponent("X")
        let args = ["run", "default", "--devices", "50", "--replications", "1", "--out", out.path]
        try FileManager.default.createDirectory(at: URL(fileURLWithPath: out.path + ".partial"), withIntermediateDirectories: true)
        XCTAssertEqual(t.run(args), .ok, t.err.text)
        // Every result file, no marker: a commit cut between removing the marker and the rename.
        try FileManager.default.copyItem(atPath: out.path, toPath: out.path + ".partial")
        XCTAssertEqual(t.run(args), .ok, t.err.text)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path + ".partial"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.appendingPathComponent("INCOMPLETE").path))
    }

    /// SIGINT (Ctrl-C), SIGQUIT (Ctrl-\\) and SIGTERM (a scheduler's preemption) during a real run
    /// leave NAME.partial with its INCOMPLETE marker naming the signal, and exit 130, 131 and 143;
    /// SIGQUIT also when the run inherited it ignored (it was ignored and the run exited 0).
    func testSignalsAreRecordedInTheMarker() throws {
        for (signal, code, text, ignoringQuit) in [(SIGINT, Int32(130), "interrupted (SIGINT)", false), (SIGTERM, 143, "terminated (SIGTERM", false),
                                                   (SIGQUIT, 131, "quit (SIGQUIT)", false), (SIGQUIT, 131, "quit (SIGQUIT)", true)] {
            let t = try TestEnvironment()
            defer { t.cleanUp() }
            let out = t.root.appendingPathComponent("cut")
            let process = try startLongRun(out, ignoringQuit: ignoringQuit)
            kill(process.processIdentifier, signal)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationReason, .exit)
            XCTAssertEqual(process.terminationStatus, code)
            let marker = try String(contentsOfFile: out.path + ".partial/INCOMPLETE", encoding: .utf8)
            XCTAssertTrue(marker.contains(text), marker)
            XCTAssertFalse(FileManager.default.fileExists(atPath: out.path))
        }
    }

    /// A closed pipe on standard output and error (`prestage run … 2>&1 | head -c 10`) does not
    /// kill the run: it completes and exits 0. SIGPIPE is reset to its default for the child
    /// (`env --default-signal`), as a shell pipeline has it.
    func testClosedOutputPipeDoesNotKillTheRun() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let binary = try builtBinary()
        let out = t.root.appendingPathComponent("piped")
        let pipe = Pipe()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.currentDirectoryURL = TestEnvironment.packageRoot
        process.arguments = ["--default-signal=PIPE", binary.path, "run", "default", "--devices", "200", "--replications", "2", "--out", out.path]
        process.standardOutput = pipe
        process.standardError = pipe
        try pipe.fileHandleForReading.close()
        try process.run()
        try pipe.fileHandleForWriting.close()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .exit, "killed by signal \(process.terminationStatus)")
        XCTAssertEqual(process.terminationStatus, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out.appendingPathComponent("run-info.json").path))
    }
}
