import Foundation
import XCTest
@testable import ReportKit

/// Loads the rendered sample report in a real headless Chromium and checks what a reader would get:
/// the page loads without console errors or blocked resources, the DOM holds every chart and heading,
/// and a screenshot is produced. Skipped only when Chromium is absent outside CI (`make test` installs it;
/// with CI set a missing browser is a failure).
///
/// Set REPORTKIT_ARTIFACTS_DIR to keep the HTML and the screenshot for a look.
final class HeadlessBrowserTests: XCTestCase {
    /// Generous bound for one Chromium run on a loaded 2-core machine (a run takes ~1-2 s here).
    private static let browserTimeoutSeconds = 60.0

    func testSampleReportRendersInHeadlessChromium() throws {
        guard let chromium = Self.chromiumExecutable() else {
            if ProcessInfo.processInfo.environment["CI"] == nil {
                throw XCTSkip("chromium is not installed (`make deps` installs it); this test is required when CI is set")
            }
            XCTFail("CI is set but no chromium executable is on PATH; `make test` must install the Debian package chromium")
            return
        }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("reportkit-browser-" + ProcessInfo.processInfo.globallyUniqueString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let report = SampleReport.report(title: "Sample <b>report</b> & checks")
        let htmlFile = directory.appendingPathComponent("report.html")
        try Data(HTMLRenderer().render(report).utf8).write(to: htmlFile)
        let url = htmlFile.absoluteString
        let common = ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
                      "--enable-logging=stderr", "--v=0"]

        // 1. The DOM after load: every chart, every heading, escaped title, no scripts.
        let dom = try run(chromium, arguments: common + ["--user-data-dir=" + directory.appendingPathComponent("profile-dom").path,
                                                         "--dump-dom", url], in: directory, name: "dump-dom")
        XCTAssertEqual(dom.exitCode, 0, "chromium --dump-dom exit status; stderr tail:\n\(dom.stderr.suffix(2000))")
        assertNoLoadErrors(dom.stderr, step: "dump-dom")
        XCTAssertEqual(dom.stdout.components(separatedBy: "<svg").count - 1, SampleReport.chartCount, "inline <svg> charts in the DOM")
        XCTAssertTrue(dom.stdout.contains("<h1>Sample &lt;b&gt;report&lt;/b&gt; &amp; checks</h1>"), "escaped title as the h1")
        XCTAssertFalse(dom.stdout.contains("<b>report</b>"), "the title's markup must not become elements")
        for heading in ["Headline metrics"] + report.sections.map({ $0.title }) {
            XCTAssertTrue(dom.stdout.contains(">" + heading + "</h2>"), "h2 \(heading)")
        }
        XCTAssertFalse(dom.stdout.contains("<script"), "no script elements")

        // 2. A screenshot: a real PNG of the requested size with non-trivial content.
        let png = directory.appendingPathComponent("report.png")
        let shot = try run(chromium, arguments: common + ["--user-data-dir=" + directory.appendingPathComponent("profile-shot").path,
                                                          "--screenshot=" + png.path, "--window-size=1200,2000", url],
                           in: directory, name: "screenshot")
        XCTAssertEqual(shot.exitCode, 0, "chromium --screenshot exit status; stderr tail:\n\(shot.stderr.suffix(2000))")
        assertNoLoadErrors(shot.stderr, step: "screenshot")
        let bytes = [UInt8](try Data(contentsOf: png))
        XCTAssertEqual(Array(bytes.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "PNG signature")
        // A blank 1200×2000 page compresses to well under 20 kB; text and charts make it far larger.
        XCTAssertGreaterThan(bytes.count, 20_000, "screenshot size in bytes")
        if bytes.count >= 24 {
            let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
            let height = bytes[20..<24].reduce(0) { $0 << 8 | Int($1) }
            XCTAssertEqual([width, height], [1200, 2000], "PNG IHDR size")
        }

        if let keep = ProcessInfo.processInfo.environment["REPORTKIT_ARTIFACTS_DIR"] {
            let target = URL(fileURLWithPath: keep)
            try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
            for file in [htmlFile, png] {
                let destination = target.appendingPathComponent(file.lastPathComponent)
                try? FileManager.default.removeItem(at: destination)
                try FileManager.default.copyItem(at: file, to: destination)
            }
        }
    }

    /// Chromium logs page console messages (script errors, CSP refusals of external resources) as
    /// `INFO:CONSOLE` lines and network failures as `net::ERR_…`; a self-contained page produces none.
    private func assertNoLoadErrors(_ stderr: String, step: String) {
        let offending = stderr.split(separator: "\n").filter { line in
            line.contains("CONSOLE") || line.contains("Uncaught") || line.contains("ERR_") || line.contains("violates")
        }
        XCTAssertTrue(offending.isEmpty, "\(step): page load problems:\n" + offending.joined(separator: "\n"))
    }

    private struct RunResult {
        let exitCode: Int32
        let stdout: String
        let stderr: String
    }

    /// Runs the browser with output to files (no pipe can fill up), killing it after the timeout.
    private func run(_ executable: URL, arguments: [String], in directory: URL, name: String) throws -> RunResult {
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
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var environment = ProcessInfo.processInfo.environment
        if environment["HOME"] == nil { environment["HOME"] = directory.path }
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = stdoutHandle
        process.standardError = stderrHandle
        try process.run()
        let deadline = Date().addingTimeInterval(Self.browserTimeoutSeconds)
        while process.isRunning && Date() < deadline { usleep(50_000) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            XCTFail("chromium \(name) did not finish within \(Self.browserTimeoutSeconds) s")
        }
        let stdout = String(decoding: (try? Data(contentsOf: stdoutFile)) ?? Data(), as: UTF8.self)
        let stderr = String(decoding: (try? Data(contentsOf: stderrFile)) ?? Data(), as: UTF8.self)
        return RunResult(exitCode: process.terminationStatus, stdout: stdout, stderr: stderr)
    }

    /// `chromium` (Debian) or `chromium-browser` on PATH.
    private static func chromiumExecutable() -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            for name in ["chromium", "chromium-browser"] {
                let candidate = String(directory) + "/" + name
                if FileManager.default.isExecutableFile(atPath: candidate) { return URL(fileURLWithPath: candidate) }
            }
        }
        return nil
    }
}
