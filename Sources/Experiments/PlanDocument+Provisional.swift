import Foundation
import ReportKit
import ScenarioFormat

/// What a plan with provisional midpoints (`plan --provisional-midpoints`) says about the values
/// it judged on their first replications only.
extension PlanDocument {
    /// The replications cell of an evaluation: "3, provisional pass" for a provisional one.
    static func provisionalText(_ e: PlanEvaluation) -> String? {
        switch e.provisional {
        case .pass?: return "\(e.replications), provisional pass"
        case .notPassing?: return "\(e.replications), provisional, not shown to pass"
        case nil: return nil
        }
    }

    /// The CSV cell: "pass", "not passing" or "" (a verdict with the stated confidence).
    static func provisionalCell(_ e: PlanEvaluation) -> String {
        switch e.provisional {
        case .pass?: return "pass"
        case .notPassing?: return "not passing"
        case nil: return ""
        }
    }

    /// With `--provisional-midpoints`: which values were only provisional, and why that is enough
    /// (nil without the option).
    var provisionalText: String? {
        guard provisional == true else { return nil }
        let all = frontier.flatMap { p in p.evaluations.filter { $0.provisional != nil }.map { (p.forValue, $0) } }
        let head = "Provisional midpoints (--provisional-midpoints): a value that only steers the bisection was judged on its first "
            + "\(initialReplications) replications; undecided there, it counted as passing when every objective's point estimate was on "
            + "its passing side, else as not passing, and was not run further. Every verdict in the answer has the stated confidence: "
            + "the last pass was topped up to it (and the far end of an all-pass answer, and the safe end of a none-pass one)."
        guard !all.isEmpty else { return head + " No value stayed provisional." }
        func list(_ kind: PlanProvisional) -> String {
            let items = all.filter { $0.1.provisional == kind }.map { f, e in
                (f.map { "\(forKnob?.path ?? "")=\(ScenarioKnob.numberText($0)): " } ?? "") + "\(tolerance.display(e.value)) (\(e.replications) replications)"
            }
            return items.isEmpty ? "none" : items.joined(separator: ", ")
        }
        return head + " Only provisional, passing: " + list(.pass) + "; objectives are assumed monotone in the knob, so each lies on the safe side "
            + "of its answer's proven last pass and passes by monotonicity, not by its own replications. Only provisional, not shown to pass: "
            + list(.notPassing) + "; each lies beyond its answer's last pass (or safe end) and is, like an undecided value, neither a pass nor a fail "
            + "(no first fail is named from it)."
    }
}
