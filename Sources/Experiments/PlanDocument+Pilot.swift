import Foundation
import ReportKit
import ScenarioFormat

/// The pilot's part of a plan's answer lines.
extension PlanDocument {
    /// "(pilot at 1/5, 1,200 devices: 20 replications, bracket 9 930…10 700; tried first at full
    /// size as 7 940…13 400, which held)".
    func pilotText(_ pilot: PlanPilotRecord) -> String {
        func num(_ x: Double?) -> String { x.map { tolerance.display($0) } ?? "—" }
        let found: String
        switch pilot.answer.status {
        case .boundary: found = "bracket \(num(pilot.answer.lastPass))…\(num(pilot.answer.firstNotPassing))"
        case .allPass: found = "every value passes"
        case .nonePass: found = "nothing passes"
        }
        let edges = pilot.passEdge == nil ? "no bracket to try at full size"
            : "tried first at full size as \(num(pilot.passEdge))…\(num(pilot.notPassingEdge)), "
              + (pilot.contradicted ? "contradicted there, so the full-size search went on over the whole range" : "which held")
        return "(pilot at 1/\(pilot.scale), \(TextFormat.count(devices / pilot.scale)) devices: \(pilot.replications) replications, \(found); \(edges))"
    }
}
