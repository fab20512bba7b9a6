import XCTest
@testable import LogFit
@testable import Experiments
@testable import PrestageCLI
@testable import ScenarioFormat

/// `prestage fit` and `--overlay` end to end, in-process.
final class FitCommandTests: XCTestCase {
    func environment(_ out: CapturedOutput, _ err: CapturedOutput) -> CommandEnvironment {
        CommandEnvironment(standardOutput: out, standardError: err, errorIsTerminal: false, scenarioDirectories: [OverlayTests.scenarios],
                           resultsParent: FileManager.default.temporaryDirectory, availableMemory: { AvailableMemory(bytes: 64 << 30, source: "test") },
                           processorCount: 2, handlesInterrupts: false)
    }

    func testFitWritesOverlayAndReportThenRunAndValidateTakeIt() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let out = CapturedOutput(), err = CapturedOutput()
        let overlay = dir.url.appendingPathComponent("overlay.json").path
        let report = dir.url.appendingPathComponent("report").path
        let code = PrestageCLI.main(["fit", Samples.path("cloudflare.ndjson"), "--format", "cloudflare", "--push", Samples.path("pushes.csv"),
                                     "--out", overlay, "--report", report], environment: environment(out, err))
        XCTAssertEqual(code, .ok, err.text)
        XCTAssertTrue(err.text.contains("cloudflare.ndjson:79: the object is cut off"), err.text)
        XCTAssertTrue(err.text.contains("edge.hit.firstByteSeconds: "), err.text)
        let md = try String(contentsOfFile: report + "/report.md", encoding: .utf8)
        XCTAssertTrue(md.contains("## Overlay") && md.contains("qq-edge.hit.firstByteSeconds.svg"), md)
        XCTAssertTrue(FileManager.default.fileExists(atPath: report + "/qq-edge.hit.firstByteSeconds.svg"))
        XCTAssertEqual(PrestageCLI.main(["validate", "default", "--overlay", overlay], environment: environment(out, err)), .ok, err.text)
        XCTAssertEqual(PrestageCLI.main(["validate", "default", "--overlay", dir.url.appendingPathComponent("none.json").path],
                                        environment: environment(out, err)), .badInput)
    }

    /// A gzip log cut off in transfer once gave exit 0 and an overlay fitted from the part read;
    /// now it is refused (exit 2) and nothing is written, unless --allow-truncated asks for it.
    func testTruncatedGzipIsRefusedUnlessAllowed() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let whole = try Data(contentsOf: URL(fileURLWithPath: Samples.path("cloudfront.log.gz")))
        let cut = dir.url.appendingPathComponent("cut.log.gz")
        try whole.prefix(whole.count / 2).write(to: cut)
        let overlay = dir.url.appendingPathComponent("overlay.json").path
        let out = CapturedOutput(), err = CapturedOutput()
        let args = ["fit", cut.path, "--format", "cloudfront", "--out", overlay]
        XCTAssertEqual(PrestageCLI.main(args, environment: environment(out, err)), .badInput, err.text)
        XCTAssertTrue(err.text.contains("\(cut.path): the input ends early") && err.text.contains("--allow-truncated"), err.text)
        XCTAssertFalse(FileManager.default.fileExists(atPath: overlay), "nothing is written")
        XCTAssertEqual(PrestageCLI.main(args + ["--allow-truncated"], environment: environment(out, err)), .ok, err.text)
        XCTAssertTrue(FileManager.default.fileExists(atPath: overlay))
    }

    /// An overlay is read as strictly as a scenario file: a key given twice (where the last would
    /// silently win) is refused with its line and column, like a trailing comma.
    func testOverlayWithADuplicateKeyIsRefused() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.url.appendingPathComponent("overlay.json").path
        func overlay(_ set: String) throws {
            try Data(#"{"format": "\#(ScenarioOverlay.formatName)", "version": \#(ScenarioOverlay.version), "set": \#(set)}"#.utf8)
                .write(to: URL(fileURLWithPath: path))
        }
        let out = CapturedOutput(), err = CapturedOutput()
        try overlay(#"{"users.readProbability": 0.5}"#)
        XCTAssertEqual(PrestageCLI.main(["validate", "default", "--overlay", path], environment: environment(out, err)), .ok, err.text)
        try overlay(#"{"users.readProbability": 0.5, "users.readProbability": 0.9}"#)
        XCTAssertEqual(PrestageCLI.main(["validate", "default", "--overlay", path], environment: environment(out, err)), .badInput)
        XCTAssertTrue(err.text.contains("--overlay \(path): ") && err.text.contains("duplicate key \"users.readProbability\""), err.text)
        try overlay(#"{"users.readProbability": 0.5,}"#)
        XCTAssertEqual(PrestageCLI.main(["validate", "default", "--overlay", path], environment: environment(out, err)), .badInput)
    }

    /// An `--out` that cannot be a file (its directory missing, or a directory itself) is bad input,
    /// refused before the logs are read, with the path, what is wrong and what was expected.
    func testOutIntoAMissingDirectoryOrOntoADirectoryExitsTwo() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let missing = dir.url.appendingPathComponent("no-such-dir/overlay.json").path
        for (out, message) in [
            (missing, "--out \(missing): the directory \(dir.url.appendingPathComponent("no-such-dir").path) does not exist; expected a file in an existing directory"),
            (dir.url.path, "--out \(dir.url.path): is a directory; expected a file path"),
        ] {
            let stdout = CapturedOutput(), err = CapturedOutput()
            let code = PrestageCLI.main(["fit", Samples.path("cloudfront.log"), "--format", "cloudfront", "--out", out], environment: environment(stdout, err))
            XCTAssertEqual(code, .badInput, err.text)
            XCTAssertTrue(err.text.contains(message), err.text)
            XCTAssertFalse(err.text.contains("malformed"), "refused before the logs are read: \(err.text)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.url.appendingPathComponent("no-such-dir").path))
    }

    func testNoUsableRowsAndBadOptionsExitTwoWithTheReason() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let empty = try dir.file("empty.log", "#Version: 1.0\n")
        for (arguments, message) in [
            (["fit", empty, "--format", "cloudfront"], "no usable rows"),
            (["fit", empty, "--format", "akamai"], "--format akamai: expected one of cloudfront, cloudflare, csv, push"),
            (["fit", empty], "--format is required"),
            (["fit", empty, "--format", "csv"], "the time column is required"),
            (["fit", empty, "--format", "push", "--timeout-seconds", "-1"], "--timeout-seconds -1"),
        ] {
            let out = CapturedOutput(), err = CapturedOutput()
            XCTAssertEqual(PrestageCLI.main(arguments, environment: environment(out, err)), .badInput, arguments.joined(separator: " "))
            XCTAssertTrue(err.text.contains(message), err.text)
        }
    }
}
