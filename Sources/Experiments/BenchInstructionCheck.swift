import Foundation

/// The instruction-count check of `prestage bench`: the counted workload's instructions against
/// `results/baseline/instructions.json`, with the split by module and the functions that moved.
package struct BenchInstructionCheck: Sendable, Equatable {
    /// One module's or function's row: baseline (nil if not recorded) and now.
    package struct Row: Sendable, Equatable {
        package let name: String
        package let baseline: UInt64?
        package let now: UInt64
        /// now − baseline, nil without a baseline figure.
        package var change: Int64? { baseline.map { Int64(bitPattern: now &- $0) } }
    }

    /// The recorded count (nil: none recorded).
    package let baseline: UInt64?
    /// This run's count (nil: not counted).
    package let now: UInt64?
    /// now ÷ baseline.
    package let factor: Double?
    /// Events the workload processed when the baseline was recorded.
    package let eventsBaseline: UInt64?
    /// Events it processed now.
    package let eventsNow: UInt64?
    /// `.regression` beyond `BenchSuite.instructionMarginFactor`, `.improvement` below its inverse,
    /// `.skipped` when not counted (no valgrind, debug build, `--no-instructions`, no baseline).
    package let verdict: BenchVerdict
    /// Why.
    package let note: String
    /// Self instructions by module (most expensive now first).
    package let modules: [Row]
    /// The functions whose self count moved most (largest |change| first; a function new among
    /// the most expensive counts with its whole count), at most `BenchSuite.instructionFunctionRows`.
    package let functions: [Row]

    /// A check that was not made.
    package static func skipped(_ note: String, baseline: BenchInstructionBaseline? = nil) -> BenchInstructionCheck {
        BenchInstructionCheck(baseline: baseline?.instructions, now: nil, factor: nil, eventsBaseline: baseline?.events, eventsNow: nil, verdict: .skipped,
                              note: note, modules: [], functions: [])
    }

    /// A check that failed to run although required (`--require-instructions`).
    package static func failed(_ note: String, baseline: BenchInstructionBaseline? = nil) -> BenchInstructionCheck {
        BenchInstructionCheck(baseline: baseline?.instructions, now: nil, factor: nil, eventsBaseline: baseline?.events, eventsNow: nil, verdict: .missing,
                              note: note, modules: [], functions: [])
    }

    /// Regression iff now ÷ baseline > `margin`; improvement iff below 1 ÷ `margin`.
    package static func compare(_ m: BenchInstructionMeasurement, baseline b: BenchInstructionBaseline,
                               margin: Double = BenchSuite.instructionMarginFactor) -> BenchInstructionCheck {
        let now = m.profile.total
        let factor = Double(now) / Double(b.instructions)
        let verdict: BenchVerdict = factor > margin ? .regression : (factor < 1 / margin ? .improvement : .pass)
        let percent = TextNumber.format((margin - 1) * 100, significant: 3)
        var note = verdict == .regression ? "more instructions than the baseline by more than \(percent) %"
            : (verdict == .improvement ? "fewer instructions than the baseline by more than \(percent) % (record it: `make bench-baseline`)"
                : "within ±\(percent) %")
        if m.events != b.events {
            note += "; the workload processed \(m.events) events, the baseline \(b.events) (behaviour changed: compare per event)"
        }
        if m.counter != b.counter { note += "; counted with \(m.counter), the baseline with \(b.counter)" }
        let baseModules = Dictionary(b.modules.map { ($0.name, $0.instructions) }, uniquingKeysWith: +)
        var modules = m.profile.modules.map { Row(name: $0.module, baseline: baseModules[$0.module] ?? 0, now: $0.instructions) }
        let present = Set(modules.map(\.name))
        modules += b.modules.filter { !present.contains($0.name) }.map { Row(name: $0.name, baseline: $0.instructions, now: 0) }
        return BenchInstructionCheck(baseline: b.instructions, now: now, factor: factor, eventsBaseline: b.events, eventsNow: m.events, verdict: verdict,
                                     note: note, modules: modules, functions: functionRows(m.profile, baseline: b))
    }

    /// Functions of the baseline's list and of this profile's most expensive, by |change|.
    static func functionRows(_ p: CallgrindProfile, baseline b: BenchInstructionBaseline) -> [Row] {
        var nowByName: [String: UInt64] = [:]
        for f in p.functions { nowByName[f.name] = f.instructions }
        let recorded = Dictionary(b.functions.map { ($0.name, $0.instructions) }, uniquingKeysWith: +)
        var rows = b.functions.map { Row(name: $0.name, baseline: $0.instructions, now: nowByName[$0.name] ?? 0) }
        rows += p.functions.prefix(BenchInstructionBaseline.functionsKept).filter { recorded[$0.name] == nil }
            .map { Row(name: $0.name, baseline: nil, now: $0.instructions) }
        // A function new among the most expensive ranks by its whole count (its baseline was below
        // the recorded list's last entry, so that is about how much it grew).
        func magnitude(_ r: Row) -> UInt64 { r.change.map { $0.magnitude } ?? r.now }
        rows = rows.filter { $0.change != 0 }
        rows.sort { magnitude($0) != magnitude($1) ? magnitude($0) > magnitude($1) : $0.name < $1.name }
        return Array(rows.prefix(BenchSuite.instructionFunctionRows))
    }
}
