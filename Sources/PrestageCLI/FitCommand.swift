import Foundation
import Experiments
import LogFit
import ScenarioFormat



/// `prestage fit LOGS... --format FORMAT [--out overlay.json] [--report DIR] [--replay SCENARIO]`.
struct FitCommand: ParsableCommand {
    /// `--format FORMAT`.
    static let formatOption = Option.string("format", valueName: "FORMAT", help: "cloudfront, cloudflare, csv or push (required)")
    /// `--out FILE`: a file, not a results directory.
    static let outOption = Option.string("out", valueName: "FILE", help: "where the overlay goes (default: standard output)")
    /// An earlier report `--report DIR` may replace: report.md and its QQ plots, nothing else.
    static let earlierReport = ResultsDirectory.Replaceable(files: ["report.md"], marker: "report.md", filePrefixes: ["qq-"])
    /// `--report DIR`.
    static let reportOption = Option.string("report", valueName: "DIR", help: "write report.md and QQ plots (SVG) here")
    /// `--push FILE` (repeatable).
    static let pushOption = Option.strings("push", valueName: "FILE", help: "a push-analytics CSV read as well")
    /// `--map SPEC` (repeatable).
    static let mapOption = Option.strings("map", valueName: "SPEC",
                                          help: "csv columns as FIELD=COLUMN[:UNIT],... (time, pop, cache, ttfb, total, origin, bytes, status; s, ms, us)")
    /// `--timeout-seconds S`.
    static let timeoutSecondsOption = Option.string("timeout-seconds", valueName: "S", help: "durations at or above S are censored at S")
    /// `--send-time TIME`.
    static let sendTimeOption = Option.string("send-time", valueName: "TIME", help: "the campaign's send (ISO 8601 or epoch; default: first sent_at)")
    /// `--replay SCENARIO`.
    static let replayOption = Option.string("replay", valueName: "SCENARIO", help: "run SCENARIO with the overlay and judge each simulated figure against the logged one")
    /// `--replay-devices N`.
    static let replayDevicesOption = Option.integer("replay-devices", 1...1_000_000, valueName: "N", help: "devices in the replay (default 2000)")
    /// `--replay-replications N`: at least 2, for an interval over replications.
    static let replayReplicationsOption = Option.integer("replay-replications", 2...10_000, valueName: "N",
                                                         help: "replications in the replay (default \(FitReplay.replicationsDefault); at least 2 for an interval)")
    /// `--fail-on-disagreement`.
    static let failOnDisagreementOption = Option.flag("fail-on-disagreement", help: "exit 3 when a replay figure disagrees with the log")
    /// `--allow-truncated`.
    static let allowTruncatedOption = Option.flag("allow-truncated", help: "fit the lines read from a log that ends early (a truncated or corrupt gzip) instead of refusing it")

    static let configuration = CommandSpec("fit", summary: "fit distributions to CDN and push-analytics logs and write a scenario overlay",
                                           positionals: ["LOG..."], declaring: [
        formatOption, outOption, reportOption, pushOption, mapOption, timeoutSecondsOption, sendTimeOption, replayOption, replayDevicesOption,
        replayReplicationsOption, failOnDisagreementOption, allowTruncatedOption,
    ], exitCodes: [ExitCodeDoc(.ok), ExitCodeDoc(.runFailed, "the replay or the output failed"),
                   ExitCodeDoc(.badInput, "bad input (command line, unreadable file, bad header, no usable rows, a log that ends early without --allow-truncated, an --out in a missing directory)"),
                   ExitCodeDoc(.gateNotPassed, "a replay figure disagrees with the log (--fail-on-disagreement); the overlay and report are written")])

    static let helpFooter = """

    LOG... are read as FORMAT (gzip or plain). Push analytics (sent_at, delivered_at, opened_at,
    platform[, network]) can be added to CDN logs with --push FILE. See docs/calibrate.md.

    examples:
      prestage fit Tests/LogFitTests/Samples/cloudfront.log --format cloudfront --report fit-report
      prestage fit logs/*.gz --format cloudfront --push pushes.csv --out overlay.json --replay default
      prestage fit logs/*.gz --format cloudfront --push pushes.csv --out overlay.json --replay default --fail-on-disagreement
      prestage run default --overlay overlay.json
    """

    static let replayDevicesDefault = 2000

    /// LOG...
    let logs: [String]
    /// `--format` as given.
    let formatName: String?
    /// `--out`.
    let out: String?
    /// `--report`.
    let report: String?
    /// `--push`.
    let pushLogs: [String]
    /// `--map`.
    let maps: [String]
    /// `--timeout-seconds` as given.
    let timeoutSeconds: String?
    /// `--send-time` as given.
    let sendTime: String?
    /// `--replay`.
    let replay: String?
    /// `--replay-devices`.
    let replayDevices: Int?
    /// `--replay-replications`.
    let replayReplications: Int?
    /// `--fail-on-disagreement`.
    let failOnDisagreement: Bool
    /// `--allow-truncated`.
    let allowTruncated: Bool

    init(parsed: ParsedCommand) {
        logs = parsed.positionals
        formatName = parsed[Self.formatOption]
        out = parsed[Self.outOption]
        report = parsed[Self.reportOption]
        pushLogs = parsed[Self.pushOption]
        maps = parsed[Self.mapOption]
        timeoutSeconds = parsed[Self.timeoutSecondsOption]
        sendTime = parsed[Self.sendTimeOption]
        replay = parsed[Self.replayOption]
        replayDevices = parsed[Self.replayDevicesOption]
        replayReplications = parsed[Self.replayReplicationsOption]
        failOnDisagreement = parsed[Self.failOnDisagreementOption]
        allowTruncated = parsed[Self.allowTruncatedOption]
    }

    func execute(environment env: CommandEnvironment) -> ExitCode {
        func fail(_ message: String) -> ExitCode {
            env.standardError.write("prestage fit: \(message)\n")
            return .badInput
        }
        guard let formatName else { return fail("--format is required: one of \(LogFormat.allCases.map(\.rawValue).joined(separator: ", "))") }
        guard let format = LogFormat(rawValue: formatName) else {
            return fail("--format \(formatName): expected one of \(LogFormat.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        if replay == nil {
            if replayDevices != nil { return fail("--replay-devices needs --replay SCENARIO") }
            if replayReplications != nil { return fail("--replay-replications needs --replay SCENARIO") }
            if failOnDisagreement { return fail("--fail-on-disagreement needs --replay SCENARIO") }
        }
        if let out, let problem = OutputFilePath.problem(option: "out", path: out) { return fail(problem) }
        var request = FitRequest(logs: logs, format: format)
        request.pushLogs = pushLogs
        do {
            if !maps.isEmpty || format == .csv { request.mapping = try CSVMapping(parsing: maps) }
        } catch {
            return fail(error.description)
        }
        if let t = timeoutSeconds {
            guard let v = Double(t), v > 0, v.isFinite else { return fail("--timeout-seconds \(t): expected a number of seconds > 0") }
            request.timeoutSeconds = v
        }
        if let s = sendTime {
            guard let v = Array(s.utf8).withUnsafeBufferPointer({ Timestamp.parse($0) }) else {
                return fail("--send-time \(s): expected an ISO 8601 time (with zone) or an epoch number")
            }
            request.sendTimeSeconds = v
        }
        // --report DIR is a results directory like a run's: owned, refused unless it is an earlier
        // fit report, checked now (before the fit), written in DIR.partial and committed.
        var reportDirectory: ResultsDirectory? = nil
        if let dir = report {
            let url = URL(fileURLWithPath: dir).standardizedFileURL
            let parent = url.deletingLastPathComponent(), name = url.lastPathComponent
            do {
                let lock = try ResultsDirectory.claim(in: parent, name: name, owner: env.owner(), replacing: Self.earlierReport)
                reportDirectory = try ResultsDirectory.begin(lock, ownFiles: Self.earlierReport.files)
            } catch { return fail("--report: \(error)") }
        }
        let outcome: FitOutcome
        do { outcome = try LogFitter.run(request) } catch {
            reportDirectory.map { RunCommand.markIncomplete($0, reason: "The fit failed: \(error)") }
            return fail(error.description)
        }
        for q in outcome.problems.quoted { env.standardError.write("prestage fit: malformed: \(q)\n") }
        if outcome.problems.count > outcome.problems.quoted.count {
            env.standardError.write("prestage fit: … \(outcome.problems.count - outcome.problems.quoted.count) more malformed line(s)\n")
        }
        for note in outcome.problems.fileNotes { env.standardError.write("prestage fit: \(note)\n") }
        // A log that ends early (a gzip cut off in transfer, a corrupt block) would be fitted from
        // whatever part was read, silently: refused unless asked for, before anything is written.
        if !outcome.problems.fileNotes.isEmpty && !allowTruncated {
            reportDirectory.map { RunCommand.markIncomplete($0, reason: "The logs end early; nothing was written") }
            return fail("\(outcome.problems.fileNotes.count) log(s) end early (above); nothing written. "
                        + "Fix or re-fetch them, or pass --allow-truncated to fit the lines read")
        }
        let overlay = OverlayBuilder.build(outcome)
        do {
            let data = try overlay.encoded()
            if let out {
                try AtomicWriter.write(data, to: URL(fileURLWithPath: out))
            } else {
                env.standardOutput.write(String(decoding: data, as: UTF8.self) + "\n")
            }
            if let reportDirectory {
                _ = try FitReport.write(outcome, overlay: overlay, to: reportDirectory.partialURL)
                try reportDirectory.commit(replacing: Self.earlierReport)
            }
        } catch {
            env.standardError.write("prestage fit: cannot write the output: \(error)\n")
            reportDirectory.map { RunCommand.markIncomplete($0, reason: "Writing the report failed: \(error)") }
            return .runFailed
        }
        env.standardError.write(FitSummaryText.render(outcome, overlay: overlay))
        if let scenario = replay {
            return FitReplay.run(scenario: scenario, overlay: overlay, outcome: outcome,
                                 devices: replayDevices ?? Self.replayDevicesDefault,
                                 replications: replayReplications ?? FitReplay.replicationsDefault,
                                 failOnDisagreement: failOnDisagreement, environment: env)
        }
        return .ok
    }
}
