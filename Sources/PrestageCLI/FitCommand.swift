import Foundation
import Experiments
import LogFit
import ScenarioFormat



/// `prestage fit LOGS... --format FORMAT [--out overlay.json] [--report DIR] [--replay SCENARIO]`.
enum FitCommand {
    static let spec = CommandSpec("fit", summary: "fit distributions to CDN and push-analytics logs and write a scenario overlay",
                                  positionals: ["LOG..."], options: [
        OptionSpec("format", .string, valueName: "FORMAT", help: "cloudfront, cloudflare, csv or push (required)"),
        OptionSpec("out", .string, valueName: "FILE", help: "where the overlay goes (default: standard output)"),
        OptionSpec("report", .string, valueName: "DIR", help: "write report.md and QQ plots (SVG) here"),
        OptionSpec("push", .string, valueName: "FILE", repeatable: true, help: "a push-analytics CSV read as well"),
        OptionSpec("map", .string, valueName: "SPEC", repeatable: true,
                   help: "csv columns as FIELD=COLUMN[:UNIT],... (time, pop, cache, ttfb, total, origin, bytes, status; s, ms, us)"),
        OptionSpec("timeout-seconds", .string, valueName: "S", help: "durations at or above S are censored at S"),
        OptionSpec("send-time", .string, valueName: "TIME", help: "the campaign's send (ISO 8601 or epoch; default: first sent_at)"),
        OptionSpec("replay", .string, valueName: "SCENARIO", help: "run SCENARIO with the overlay and print simulated figures beside the logged ones"),
        OptionSpec("replay-devices", .integer(1...1_000_000), valueName: "N", help: "devices in the replay (default 2000)"),
    ], exitCodes: [ExitCodeDoc(.ok), ExitCodeDoc(.runFailed, "the replay or the output failed"),
                   ExitCodeDoc(.badInput, "bad input (command line, unreadable file, bad header, no usable rows, an --out in a missing directory)")])

    static let helpFooter = """

    LOG... are read as FORMAT (gzip or plain). Push analytics (sent_at, delivered_at, opened_at,
    platform[, network]) can be added to CDN logs with --push FILE. See docs/calibrate.md.

    examples:
      prestage fit Tests/LogFitTests/Samples/cloudfront.log --format cloudfront --report fit-report
      prestage fit logs/*.gz --format cloudfront --push pushes.csv --out overlay.json --replay default
      prestage run default --overlay overlay.json
    """

    static let replayDevicesDefault = 2000

    static func execute(logs: [String], parsed: ParsedCommand, environment env: CommandEnvironment) -> ExitCode {
        func fail(_ message: String) -> ExitCode {
            env.standardError.write("prestage fit: \(message)\n")
            return .badInput
        }
        guard let formatName = parsed.string("format") else { return fail("--format is required: one of \(LogFormat.allCases.map(\.rawValue).joined(separator: ", "))") }
        guard let format = LogFormat(rawValue: formatName) else {
            return fail("--format \(formatName): expected one of \(LogFormat.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        if let out = parsed.string("out"), let problem = OutputFilePath.problem(option: "out", path: out) { return fail(problem) }
        var request = FitRequest(logs: logs, format: format)
        request.pushLogs = parsed.strings("push")
        do {
            if !parsed.strings("map").isEmpty || format == .csv { request.mapping = try CSVMapping(parsing: parsed.strings("map")) }
        } catch {
            return fail(error.description)
        }
        if let t = parsed.string("timeout-seconds") {
            guard let v = Double(t), v > 0, v.isFinite else { return fail("--timeout-seconds \(t): expected a number of seconds > 0") }
            request.timeoutSeconds = v
        }
        if let s = parsed.string("send-time") {
            guard let v = Array(s.utf8).withUnsafeBufferPointer({ Timestamp.parse($0) }) else {
                return fail("--send-time \(s): expected an ISO 8601 time (with zone) or an epoch number")
            }
            request.sendTimeSeconds = v
        }
        let outcome: FitOutcome
        do { outcome = try LogFitter.run(request) } catch { return fail(error.description) }
        for q in outcome.problems.quoted { env.standardError.write("prestage fit: malformed: \(q)\n") }
        if outcome.problems.count > outcome.problems.quoted.count {
            env.standardError.write("prestage fit: … \(outcome.problems.count - outcome.problems.quoted.count) more malformed line(s)\n")
        }
        for note in outcome.problems.fileNotes { env.standardError.write("prestage fit: \(note)\n") }
        let overlay = OverlayBuilder.build(outcome)
        do {
            let data = try overlay.encoded()
            if let out = parsed.string("out") {
                try AtomicWriter.write(data, to: URL(fileURLWithPath: out))
            } else {
                env.standardOutput.write(String(decoding: data, as: UTF8.self) + "\n")
            }
            if let dir = parsed.string("report") {
                _ = try FitReport.write(outcome, overlay: overlay, to: URL(fileURLWithPath: dir, isDirectory: true))
            }
        } catch {
            env.standardError.write("prestage fit: cannot write the output: \(error)\n")
            return .runFailed
        }
        env.standardError.write(FitSummaryText.render(outcome, overlay: overlay))
        if let scenario = parsed.string("replay") {
            return FitReplay.run(scenario: scenario, overlay: overlay, outcome: outcome,
                                 devices: parsed.integer("replay-devices") ?? replayDevicesDefault, environment: env)
        }
        return .ok
    }
}
