import Experiments
import Foundation
import ScenarioFormat

/// How `prestage bench` counts instructions: whether it may, whether it must, and the test knob.
struct InstructionCounting {
    /// Why the count is skipped (`--no-instructions`, a debug build), nil to count.
    let skip: String?
    /// `--require-instructions`: a count that cannot be made or compared fails the gate.
    let required: Bool
    /// `--slowdown-percent`: extra work worth this share of the baseline's instructions.
    let slowdownPercent: Int?
    /// The `bench-instructions` arguments (suite, overrides).
    let childArguments: [String]

    /// This very executable (the child is `prestage bench-instructions`).
    static var executable: URL { URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath() }

    /// Counts the suite's workload under callgrind, with `extraIterations` of the test knob.
    func count(_ entries: [BenchCommand.Entry], extraIterations: Int = 0, environment env: CommandEnvironment)
        -> Result<BenchInstructionMeasurement, CommandMessage> {
        if let skip { return .failure(CommandMessage(skip)) }
        env.standardError.write("bench: counting instructions (callgrind) of replication 0 of \(entries.count) scenario(s) … ")
        do {
            let m = try InstructionCounter.count(executable: Self.executable,
                                                 arguments: childArguments + (extraIterations > 0 ? ["--extra-iterations", "\(extraIterations)"] : []),
                                                 scenarios: entries.map(\.scenario.name).sorted())
            env.standardError.write("\(m.profile.total) instructions, \(m.events) events\n")
            return .success(m)
        } catch let e as InstructionCounter.Unavailable {
            env.standardError.write("skipped\n")
            return .failure(CommandMessage(e.description))
        } catch {
            env.standardError.write("failed\n")
            return .failure(CommandMessage("\(error)"))
        }
    }

    /// The gate's instruction check against `baseline/instructions.json`.
    func check(_ entries: [BenchCommand.Entry], baseline: URL, report: inout BenchReport, environment env: CommandEnvironment) -> BenchInstructionCheck {
        if let skip { return .skipped(skip) }
        func unable(_ why: String, _ b: BenchInstructionBaseline? = nil) -> BenchInstructionCheck {
            required ? .failed(why + " (--require-instructions)", baseline: b) : .skipped(why, baseline: b)
        }
        let recorded: BenchInstructionBaseline
        do {
            guard let b = try BenchInstructionBaseline.load(in: baseline) else {
                return unable("no \(BenchInstructionBaseline.fileName) in \(baseline.path): record one with `make bench-baseline`")
            }
            recorded = b
        } catch {
            report.errors.append(error.description)
            return .skipped("instruction baseline unreadable")
        }
        guard recorded.scenarios == entries.map(\.scenario.name).sorted(), recorded.devicesMax == BenchInstructions.devicesMax else {
            return unable("the counted workload changed since \(BenchInstructionBaseline.fileName) was recorded (scenarios or devices cap): regenerate it", recorded)
        }
        let extra = slowdownPercent.map { Int(Double(recorded.instructions) * Double($0) / 100 / BenchInstructions.instructionsPerBurnIteration) } ?? 0
        if extra > 0 { report.notes.append("test knob --slowdown-percent \(slowdownPercent ?? 0): \(extra) extra iterations inside the counted region") }
        switch count(entries, extraIterations: extra, environment: env) {
        case let .success(m): return BenchInstructionCheck.compare(m, baseline: recorded)
        case let .failure(why): return unable(why.description, recorded)
        }
    }
}
