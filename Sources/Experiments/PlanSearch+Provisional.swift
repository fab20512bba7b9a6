import Foundation
import ScenarioFormat

/// How a value judged on its first replications only steered the bisection (`plan
/// --provisional-midpoints`): a verdict short of the stated confidence, never part of an answer.
package enum PlanProvisional: String, Codable, Sendable, Equatable {
    /// Undecided on the first replications, no objective failed, and every objective's point
    /// estimate on its passing side (a mean within its threshold, a chance constraint's share of
    /// replications within its threshold at least its probability): the bisection moved on as
    /// if it passed.
    case pass
    /// Undecided on the first replications with some point estimate on the failing side: the
    /// bisection moved on as if it did not pass.
    case notPassing
}

extension PlanEvaluation {
    /// Whether the bisection treats this value as passing: a pass with the stated confidence, or a
    /// provisional pass.
    package var steersAsPass: Bool { provisional == nil ? verdict == .pass : provisional == .pass }
}

extension SLOReport {
    /// How an undecided report steers a provisional bisection: `.pass` when no objective failed
    /// and every objective's point estimate lies on its passing side, `.notPassing` otherwise.
    /// Nil when the report is decided (a pass or a fail already has the stated confidence).
    package var provisionalVerdict: PlanProvisional? {
        guard verdict == .undecided else { return nil }
        let onPassingSide = evaluations.allSatisfy { e in
            guard e.verdict != .fail, let mean = e.mean else { return false }
            if let q = e.objective.probability {
                guard let k = e.withinThreshold, e.n > 0 else { return false }
                return Double(k) / Double(e.n) >= q
            }
            return e.objective.isMet(by: mean)
        }
        return onPassingSide ? .pass : .notPassing
    }
}
