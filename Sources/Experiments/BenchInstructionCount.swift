import Foundation
import ScenarioFormat

/// `results/baseline/instructions.json`: the instructions the counted workload
/// (`BenchInstructions.countedRun`) executed when the baseline was recorded, in total and by
/// module, plus the most expensive functions, so the gate's report can say where a count grew.
/// Deterministic for a given code, toolchain and valgrind (no times, no machine facts).
package struct BenchInstructionBaseline: Codable, Sendable, Equatable {
    /// Identifies the file format.
    static let formatName = "prestage-bench-instructions/1"
    /// The file's name in the baseline directory.
    package static let fileName = "instructions.json"
    /// Functions kept in the file (the most expensive ones).
    static let functionsKept = 40

    /// One module's or function's count.
    package struct Count: Codable, Sendable, Equatable {
        /// Module name, or the function's symbol.
        package var name: String
        /// Self instructions.
        package var instructions: UInt64
    }

    /// `formatName`.
    var format: String
    /// Which counter produced the figures ("callgrind (valgrind-3.19.0)").
    package var counter: String
    /// The suite's scenario names, sorted (the counted workload).
    package var scenarios: [String]
    /// `BenchInstructions.devicesMax` when recorded.
    package var devicesMax: Int
    /// Events the counted workload processed.
    package var events: UInt64
    /// Instructions inside `countedRun`.
    package var instructions: UInt64
    /// Self instructions by module, most expensive first.
    package var modules: [Count]
    /// The most expensive functions (self instructions), most expensive first.
    package var functions: [Count]

    /// The baseline of a count.
    package init(_ c: BenchInstructionMeasurement) {
        format = Self.formatName
        counter = c.counter
        scenarios = c.scenarios
        devicesMax = c.devicesMax
        events = c.events
        instructions = c.profile.total
        modules = c.profile.modules.map { Count(name: $0.module, instructions: $0.instructions) }
        functions = c.profile.functions.prefix(Self.functionsKept).map { Count(name: $0.name, instructions: $0.instructions) }
    }

    /// Instructions per processed event.
    package var instructionsPerEvent: Double { events == 0 ? 0 : Double(instructions) / Double(events) }

    /// Reads `directory/instructions.json`; nil if absent.
    /// - Throws: `CommandMessage` if it exists but cannot be used.
    package static func load(in directory: URL) throws(CommandMessage) -> BenchInstructionBaseline? {
        let url = directory.appendingPathComponent(fileName)
        guard let b = try OptionalBaselineFile.load(BenchInstructionBaseline.self, url, what: "instruction baseline", format: \.format, expected: formatName)
        else { return nil }
        guard b.instructions > 0 else { throw CommandMessage("\(url.path): instructions: expected a count > 0, found 0") }
        return b
    }
}

/// One count of the workload under callgrind.
package struct BenchInstructionMeasurement: Sendable, Equatable {
    /// "callgrind (valgrind-3.19.0)".
    package let counter: String
    /// The suite's scenario names, sorted.
    package let scenarios: [String]
    /// `BenchInstructions.devicesMax` used.
    package let devicesMax: Int
    /// Events the workload processed (printed by the child).
    package let events: UInt64
    /// The parsed profile of `countedRun`.
    package let profile: CallgrindProfile
}

/// Runs `prestage bench-instructions` under callgrind and reads the profile.
package enum InstructionCounter {
    /// Why no count was made (the gate reports it as skipped, or fails with `--require-instructions`).
    package struct Unavailable: Error, Sendable, CustomStringConvertible {
        package let description: String
    }

    /// `valgrind` on `PATH` (or `$VALGRIND`), nil when absent.
    package static func valgrind(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL? {
        if let v = environment["VALGRIND"], !v.isEmpty { return FileManager.default.isExecutableFile(atPath: v) ? URL(fileURLWithPath: v) : nil }
        for dir in (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = String(dir) + "/valgrind"
            if FileManager.default.isExecutableFile(atPath: path) { return URL(fileURLWithPath: path) }
        }
        return nil
    }

    /// Counts the workload: `valgrind --tool=callgrind --toggle-collect=… EXECUTABLE bench-instructions ARGUMENTS`
    /// in an environment of only `SWIFT_DETERMINISTIC_HASHING=1` (hash seeds would otherwise differ
    /// per process; the caller's environment would shift the stack and with it the alignment-
    /// dependent paths of `memcpy`, which moved the count by 0.08 % when only the arguments differed).
    /// - Throws: `Unavailable` (no valgrind) or `CommandMessage` (the child failed, no profile).
    package static func count(executable: URL, arguments: [String], scenarios: [String]) throws -> BenchInstructionMeasurement {
        guard let valgrind = valgrind() else {
            throw Unavailable(description: "valgrind not found on PATH: instructions not counted (install the Debian package valgrind; `make deps` does)")
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("prestage-callgrind-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("callgrind.out"), log = dir.appendingPathComponent("valgrind.log")
        let p = Process()
        p.executableURL = valgrind
        p.arguments = ["--tool=callgrind", "--toggle-collect=" + BenchInstructions.toggleSymbol, "--compress-strings=no", "--compress-pos=no",
                       "--callgrind-out-file=" + out.path, "--log-file=" + log.path, executable.path, "bench-instructions"] + arguments
        p.environment = ["SWIFT_DETERMINISTIC_HASHING": "1"]
        let stdout = Pipe()
        p.standardOutput = stdout
        p.standardError = FileHandle.nullDevice
        try p.run()
        let printed = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            let tail = (try? String(contentsOf: log, encoding: .utf8)).map { String($0.suffix(600)) } ?? ""
            throw CommandMessage("instruction count: `valgrind … \(executable.lastPathComponent) bench-instructions` exited with \(p.terminationStatus)\(printed.isEmpty ? "" : ": " + printed)\(tail.isEmpty ? "" : "\n" + tail)")
        }
        guard let events = printed.split(separator: "\n").compactMap({ line -> UInt64? in
            line.hasPrefix("events ") ? UInt64(line.dropFirst("events ".count)) : nil
        }).first else { throw CommandMessage("instruction count: the child printed no `events N` line (\(printed.prefix(200)))") }
        guard let text = try? String(contentsOf: out, encoding: .utf8) else {
            throw CommandMessage("instruction count: callgrind wrote no profile at \(out.path)")
        }
        let profile: CallgrindProfile
        do { profile = try CallgrindProfile.parse(text) } catch { throw CommandMessage("instruction count: \(out.path): \(error)") }
        guard profile.total > 0 else {
            throw CommandMessage("instruction count: nothing collected: is \(BenchInstructions.toggleSymbol) still the symbol of BenchInstructions.countedRun?")
        }
        let version = (text.split(separator: "\n").first { $0.hasPrefix("creator: ") }).map { String($0.dropFirst("creator: ".count)) } ?? "valgrind"
        return BenchInstructionMeasurement(counter: "callgrind (\(version))", scenarios: scenarios, devicesMax: BenchInstructions.devicesMax,
                                           events: events, profile: profile)
    }
}
