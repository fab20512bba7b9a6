import Foundation
import XCTest

enum Hex {
    static func encode(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// Decodes a literal written in a test; a malformed literal is a bug in the test itself.
    static func decode(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> [UInt8] {
        let chars = Array(text.utf8)
        var out: [UInt8] = []
        var i = 0
        while i + 1 < chars.count {
            guard let byte = UInt8(String(decoding: chars[i...(i + 1)], as: UTF8.self), radix: 16) else {
                XCTFail("bad hex literal \(text)", file: file, line: line)
                return []
            }
            out.append(byte)
            i += 2
        }
        if chars.count % 2 != 0 { XCTFail("odd-length hex literal \(text)", file: file, line: line) }
        return out
    }
}

#if os(Linux) || os(macOS)
/// Runs `python3 -c script` with `input` on stdin and returns its stdout; fails the test (returns nil)
/// if python3 is missing or exits non-zero. `make test` installs python3 (see Makefile APT_PACKAGES).
func runPython(_ script: String, input: String, file: StaticString = #filePath, line: UInt = #line) -> String? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", script]
    let stdin = Pipe()
    let stdout = Pipe()
    let stderr = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stderr
    do {
        try process.run()
    } catch {
        XCTFail("could not start python3: \(error)", file: file, line: line)
        return nil
    }
    // The script reads all of stdin before writing, so writing everything first cannot deadlock.
    stdin.fileHandleForWriting.write(Data(input.utf8))
    try? stdin.fileHandleForWriting.close()
    let output = stdout.fileHandleForReading.readDataToEndOfFile()
    let errors = stderr.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        XCTFail("python3 exited with \(process.terminationStatus): \(String(decoding: errors, as: UTF8.self))",
            file: file, line: line)
        return nil
    }
    return String(decoding: output, as: UTF8.self)
}
#endif
