import Foundation
import ReportKit
import ScenarioFormat

/// `prestage list`: the library, one scenario per row with its size, whether it has objectives,
/// a rough cost, and its question wrapped to fit `widthMax` columns.
struct ListCommand: ParsableCommand {
    static let configuration = CommandSpec("list", summary: "list the scenario library: size, objectives, rough cost and the question each answers", options: [],
                                           exitCodes: [ExitCodeDoc(.ok), ExitCodeDoc(.badInput, "a bad command line")])

    static let helpFooter = """

    cost is a rough class of a default run on 2 cores, from devices × replications at about
    100 000 device-replications per second (judgement from the measurements in docs/performance.md:
    default, 20 000 devices × 6, about 0.5 s; 5 M devices, about a minute per replication):
    seconds (under a minute), minutes (under an hour), hours.
    """

    /// Widest line printed (a wide terminal's 100 columns).
    static let widthMax = 100
    /// Device-replications a default run simulates per second on 2 cores (judgement, see the help).
    static let deviceReplicationsPerSecond = 100_000.0

    init(parsed: ParsedCommand) {}

    /// The rough cost class of `devices` × `replications`.
    static func costClass(devices: Int, replications: Int) -> String {
        let seconds = Double(devices) * Double(replications) / deviceReplicationsPerSecond
        return seconds < 60 ? "seconds" : seconds < 3_600 ? "minutes" : "hours"
    }

    /// `text` broken at spaces into lines of at most `width` characters (a longer word stands alone).
    static func wrapped(_ text: String, width: Int) -> [String] {
        var lines: [String] = [], line = ""
        for word in text.split(separator: " ") {
            if line.isEmpty { line = String(word) } else if line.count + 1 + word.count <= width { line += " " + word } else {
                lines.append(line)
                line = String(word)
            }
        }
        if !line.isEmpty || lines.isEmpty { lines.append(line) }
        return lines
    }

    func execute(environment env: CommandEnvironment) -> ExitCode {
        let library = ScenarioLibrary(directories: env.scenarioDirectories)
        let entries = library.entries()
        guard !entries.isEmpty else {
            env.standardError.write("prestage list: no scenario files found in \(env.scenarioDirectories.map(\.path).joined(separator: ", "))\n")
            return .badInput
        }
        var rows: [(name: String, devices: String, slo: String, cost: String, question: String)] = []
        for e in entries {
            if let s = try? ScenarioLoader.load(e.name, library: library).scenario {
                let devices = s.world.population.devices
                rows.append((e.name, TextFormat.count(devices), s.slo.isEmpty ? "—" : "\(s.slo.count)",
                             Self.costClass(devices: devices, replications: s.run.replications), e.question))
            } else {
                rows.append((e.name, "?", "?", "?", e.question))
            }
        }
        let header = (name: "scenario", devices: "devices", slo: "slo", cost: "cost", question: "question")
        let nameWidth = max(header.name.count, rows.map(\.name.count).max() ?? 0)
        let devicesWidth = max(header.devices.count, rows.map(\.devices.count).max() ?? 0)
        let sloWidth = header.slo.count, costWidth = "minutes".count
        let indent = nameWidth + devicesWidth + sloWidth + costWidth + 8
        let questionWidth = max(20, Self.widthMax - indent)
        func pad(_ s: String, _ w: Int) -> String { s + String(repeating: " ", count: max(0, w - s.count)) }
        func padLeft(_ s: String, _ w: Int) -> String { String(repeating: " ", count: max(0, w - s.count)) + s }
        var text = ""
        for row in [header] + rows {
            let question = Self.wrapped(row.question, width: questionWidth)
            text += pad(row.name, nameWidth) + "  " + padLeft(row.devices, devicesWidth) + "  " + padLeft(row.slo, sloWidth) + "  "
                + pad(row.cost, costWidth) + "  " + question[0] + "\n"
            for more in question.dropFirst() { text += String(repeating: " ", count: indent) + more + "\n" }
        }
        env.standardOutput.write(text)
        return .ok
    }
}
