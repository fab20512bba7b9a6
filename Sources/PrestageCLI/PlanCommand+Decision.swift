import Experiments
import Foundation

extension PlanCommand {
    /// What `plan` prints after its table (the answer lines and the replications): the decision as
    /// the plan report leads with it (the warning when the plan ran at another size than the
    /// scenario's question first, then one sentence per answer and what it holds for), where the
    /// plan is, and one next step.
    static func decisionLines(_ document: PlanDocument, planPath: String) -> [String] {
        var lines = ["decision:"]
        if let warning = document.sizeWarning { lines.append("  " + warning) }
        lines += document.decisionLines.map { "  " + $0 }
        lines.append("  " + document.decisionContext)
        lines.append("plan: " + planPath)
        lines.append(nextStep(document))
        return lines
    }

    /// One next step: widen the range when an answer lies outside it, else read the plan.
    static func nextStep(_ document: PlanDocument) -> String {
        let statuses = document.frontier.map(\.answer.status)
        let path = document.knob.path
        if statuses.contains(.nonePass) {
            return "next: no value of \(path) in the range passes (for some answer): try a wider --vary range, or another knob (prestage help plan)"
        }
        if statuses.contains(.allPass) {
            return "next: every value tried passes (for some answer): the boundary lies beyond the range; widen --vary to find it"
        }
        return "next: open the plan (above) in a browser"
    }
}
