import Foundation
import XCTest

/// The progress display as a user sees it: through a pseudo-terminal (`script`) a redrawn bar with
/// elapsed time, replications, rate and an ETA that does not creep up; through a pipe one line per
/// replication.
final class ProgressTerminalTests: XCTestCase {
    static let binary = TestEnvironment.packageRoot.appendingPathComponent(".build/debug/prestage")

    private func capture(_ executable: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, String(decoding: data, as: UTF8.self))
        return String(decoding: data, as: UTF8.self)
    }

    func testBarOnATerminalAndOneLinePerReplicationOtherwise() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary.path) else {
            throw XCTSkip("\(Self.binary.path) is not built (swift build --build-tests builds it)")
        }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { throw XCTSkip("script (util-linux) is not installed") }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("prestage-pty-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let run = [Self.binary.path, "run", "default", "--devices", "400", "--replications", "4", "--jobs", "1"]
        // `script -qec CMD /dev/null` runs CMD with a pseudo-terminal as its standard error.
        // A wide terminal shows every part of the line.
        let command = "stty cols 200 rows 24; " + (run + ["--out", root.appendingPathComponent("tty").path]).joined(separator: " ")
        let terminal = try capture("/usr/bin/script", ["-qec", command, "/dev/null"])
        let frames = terminal.components(separatedBy: "\r").filter { $0.hasPrefix("[") }
        XCTAssertGreaterThanOrEqual(frames.count, 4, "a frame per finished replication at least:\n\(terminal)")
        let last = try XCTUnwrap(frames.last)
        XCTAssertTrue(last.hasPrefix("[########################] 100% · "), last)
        XCTAssertTrue(last.contains(" elapsed · 4/4 replications · ") && last.contains(" events/s · ETA 0:00"), last)
        XCTAssertFalse(terminal.contains("replication 1/4 done"), "no per-replication lines on a terminal")
        // The ETA of successive frames never creeps up.
        let etas = frames.compactMap { frame -> Int? in
            guard let range = frame.range(of: "ETA ") else { return nil }
            let parts = frame[range.upperBound...].prefix { $0 != "\u{1B}" }.split(separator: ":").compactMap { Int($0) }
            return parts.reduce(0) { $0 * 60 + $1 }
        }
        // (An ETA goes up only past 1.2 times the one shown, `ProgressEstimate.raiseShare`; shown in whole
        // seconds rounded up, a shown b stands for more than b − 1.)
        for (before, after) in zip(etas, etas.dropFirst()) where after > before {
            XCTAssertGreaterThan(Double(after), Double(before - 1) * 1.2, "ETA crept up: \(etas)")
        }

        let piped = try capture(Self.binary.path, Array(run.dropFirst()) + ["--out", root.appendingPathComponent("pipe").path])
        let lines = piped.split(separator: "\n").filter { $0.hasPrefix("replication ") }
        XCTAssertEqual(lines.count, 4, piped)
        XCTAssertFalse(piped.contains("\r"), "no redrawing without a terminal")
    }

    /// In an 80-column terminal every redraw fits in 79 columns (never wrapping into a new line):
    /// carriage return, the line, erase to its end; the only newline of the progress is the last.
    func testRedrawsFitAnEightyColumnTerminal() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary.path) else {
            throw XCTSkip("\(Self.binary.path) is not built (swift build --build-tests builds it)")
        }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { throw XCTSkip("script (util-linux) is not installed") }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("prestage-pty80-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let run = [Self.binary.path, "run", "default", "--devices", "3000", "--replications", "3", "--jobs", "1",
                   "--out", root.appendingPathComponent("tty").path]
        let terminal = try capture("/usr/bin/script", ["-qec", "stty cols 80 rows 24; " + run.joined(separator: " "), "/dev/null"])
        // The progress is what lies between the first redraw and the newline that ends it.
        // (The terminal turns that newline into "\r\n", one Character in Swift: search, don't scan.)
        let first = try XCTUnwrap(terminal.range(of: "\r["), terminal)
        let end = try XCTUnwrap(terminal.range(of: "\r\n", range: first.upperBound..<terminal.endIndex), terminal)
        let frames = terminal[first.lowerBound..<end.lowerBound].components(separatedBy: "\r").filter { !$0.isEmpty }
        XCTAssertGreaterThanOrEqual(frames.count, 3, terminal)
        for frame in frames {
            XCTAssertTrue(frame.hasSuffix("\u{1B}[K"), "each redraw erases to the end of the line: \(frame.debugDescription)")
            let visible = frame.replacingOccurrences(of: "\u{1B}[K", with: "")
            XCTAssertLessThanOrEqual(visible.count, 79, "a redraw wider than the terminal wraps: \(visible)")
            XCTAssertTrue(visible.hasPrefix("["), visible)
        }
        // The full line would not fit: parts were dropped, the ETA kept.
        let last = try XCTUnwrap(frames.last).replacingOccurrences(of: "\u{1B}[K", with: "")
        XCTAssertTrue(last.hasPrefix("[########################] 100% · "), last)
        XCTAssertTrue(last.contains("ETA 0:00"), last)
        XCTAssertFalse(last.contains("events/s"), "the rate is the first part dropped at 80 columns: \(last)")
    }
}
