import Foundation
import XCTest

/// Runs headless Chromium on a file for the browser tests: finds the executable, runs it with output to
/// files (no pipe can fill up) and a timeout, and keeps artifacts (HTML, screenshots) for review.
package enum ChromiumHarness {
    /// Generous bound for one Chromium run on a loaded 2-core machine (a run takes ~1-2 s here).
    package static let timeoutSeconds = 90.0

    /// Flags for every run: headless, no sandbox (containers), no GPU, page console messages on stderr.
    package static let commonArguments = ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
                                  "--enable-logging=stderr", "--v=0"]

    package struct RunResult {
        package let exitCode: Int32
        package let stdout: String
        package let stderr: String
        package let timedOut: Bool
    }

    /// `chromium` (Debian) or `chromium-browser` on PATH; when absent, a skip outside CI and a failure with CI set.
    package static func executable() throws -> URL {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            for name in ["chromium", "chromium-browser"] {
                let candidate = String(directory) + "/" + name
                if FileManager.default.isExecutableFile(atPath: candidate) { return URL(fileURLWithPath: candidate) }
            }
        }
        if ProcessInfo.processInfo.environment["CI"] == nil {
            throw XCTSkip("chromium is not installed (`make deps` installs it); this test is required when CI is set")
        }
        throw HarnessError.noChromium
    }

    package enum HarnessError: Error, CustomStringConvertible {
        case noChromium
        package var description: String { "CI is set but no chromium executable is on PATH; `make test` must install the Debian package chromium" }
    }

    /// A fresh scratch directory (the caller removes it).
    package static func scratchDirectory(_ name: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent(name + "-" + ProcessInfo.processInfo.globallyUniqueString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Runs the browser, killing it after `timeoutSeconds`.
    package static func run(_ executable: URL, arguments: [String], in directory: URL, name: String) throws -> RunResult {
        let stdoutFile = directory.appendingPathComponent(name + ".stdout")
        let stderrFile = directory.appendingPathComponent(name + ".stderr")
        try Data().write(to: stdoutFile)
        try Data().write(to: stderrFile)
        let stdoutHandle = try FileHandle(forWritingTo: stdoutFile)
        let stderrHandle = try FileHandle(forWritingTo: stderrFile)
        defer {
            try? stdoutHandle.close()
            try? stderrHandle.close()
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = commonArguments + ["--user-data-dir=" + directory.appendingPathComponent("profile-" + name).path] + arguments
        process.currentDirectoryURL = directory
        var environment = ProcessInfo.processInfo.environment
        if environment["HOME"] == nil { environment["HOME"] = directory.path }
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = stdoutHandle
        process.standardError = stderrHandle
        try process.run()
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while process.isRunning && Date() < deadline { usleep(50_000) }
        let timedOut = process.isRunning
        if timedOut {
            process.terminate()
            process.waitUntilExit()
        }
        let stdout = String(decoding: (try? Data(contentsOf: stdoutFile)) ?? Data(), as: UTF8.self)
        let stderr = String(decoding: (try? Data(contentsOf: stderrFile)) ?? Data(), as: UTF8.self)
        return RunResult(exitCode: process.terminationStatus, stdout: stdout, stderr: stderr, timedOut: timedOut)
    }

    /// Chromium logs page console messages (script errors, CSP refusals of external resources) as
    /// `INFO:CONSOLE` lines and network failures as `net::ERR_…`; a self-contained page produces none.
    package static func loadProblems(_ stderr: String) -> [String] {
        stderr.split(separator: "\n").map(String.init).filter { line in
            line.contains("CONSOLE") || line.contains("Uncaught") || line.contains("ERR_") || line.contains("violates")
        }
    }

    /// Where screenshots and pages are kept for review: REPORTKIT_ARTIFACTS_DIR, else
    /// `.build/test-artifacts/report` in the package.
    package static func artifactsDirectory() -> URL {
        if let keep = ProcessInfo.processInfo.environment["REPORTKIT_ARTIFACTS_DIR"] { return URL(fileURLWithPath: keep) }
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return packageRoot.appendingPathComponent(".build/test-artifacts/report")
    }

    /// Copies `files` into the artifacts directory (replacing older copies).
    package static func keep(_ files: [URL]) throws {
        let target = artifactsDirectory()
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        for file in files {
            let destination = target.appendingPathComponent(file.lastPathComponent)
            try? FileManager.default.removeItem(at: destination)
            try FileManager.default.copyItem(at: file, to: destination)
        }
    }

    /// The PNG's width and height from its IHDR chunk; nil when `bytes` is not a PNG.
    package static func pngSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard bytes.count >= 24, Array(bytes.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] else { return nil }
        return (bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }, bytes[20..<24].reduce(0) { $0 << 8 | Int($1) })
    }
}
