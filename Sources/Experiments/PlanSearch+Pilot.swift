import Foundation
import ScenarioFormat

/// What a scaled pilot did for one answer (`pilot` of a frontier point in plan.json).
package struct PlanPilotRecord: Codable, Sendable, Equatable {
    /// K: the pilot ran 1/K of the devices with every capacity scaled by 1/K (`ScaledPilot`).
    package let scale: Int
    /// The pilot's evaluations, in the order tried (knob values in full-size units: a pilot at
    /// 60 000 pushes/min sends 60 000 / K).
    package let evaluations: [PlanEvaluation]
    /// The pilot's answer (a guide, not a verdict).
    package let answer: PlanAnswer
    /// The bracket the full-size search tried first: the pilot's, widened by the margin on each
    /// side within the plan's range (its passing end, then its other end). Nil: the pilot gave none.
    package let passEdge: Double?
    package let notPassingEdge: Double?
    /// Whether a full-size run contradicted that bracket (its passing end did not pass, or its
    /// other end passed), so the search went on over the rest of the plan's range at full size.
    package let contradicted: Bool

    /// Pilot replications behind `answer`.
    package var replications: Int { evaluations.reduce(0) { $0 + $1.replications } }
}

extension PlanSearch {
    /// The share the pilot's bracket is widened by on each side before the full-size search:
    /// 25 % (judgement, against the validation in docs/performance.md: a pilot's answer can sit
    /// a few percent from the full-size one, and rounded small capacities move it further).
    package static let pilotMarginDefault = 0.25

    /// The noisy bisection with a scaled pilot. `pilot` (replications of the scenario at 1/K) is
    /// searched first over the whole range; its bracket, widened by `margin` on each side, is then
    /// the first thing the full-size search (`full`) evaluates: its passing end, then its other
    /// end, exactly as a carried `--for` bracket (`run(from:)`). Full-size runs alone make the
    /// answer. When both edges repeat at full size, the bisection stays inside the widened bracket;
    /// when one is contradicted (the passing end does not pass, or the other end passes), the
    /// full-size search falls back to the plan's whole range beyond it (the safe end and the values
    /// below the passing end, or the values past the other end up to the far end), so the answer
    /// brackets the boundary within the tolerance as a search without a pilot does.
    /// - Parameter previousPilot: the previous `--for` value's pilot answer, carried into this pilot.
    /// - Returns: the full-size evaluations (in the order tried), the answer, and the pilot's record.
    /// - Parameter verdicts: full-size verdicts carried from the previous `--for` value (`--for-trend`).
    package func runPiloted<E: Error>(previousPilot: PlanAnswer? = nil, verdicts: CarriedVerdicts = CarriedVerdicts(), scale: Int,
                                      margin: Double = Self.pilotMarginDefault,
                                      pilot: (Double, Int) throws(E) -> SLOReport,
                                      full: (Double, Int) throws(E) -> SLOReport) throws(E) -> (evaluations: [PlanEvaluation], answer: PlanAnswer, pilot: PlanPilotRecord) {
        let guide = try run(from: previousPilot, pilot)
        let bracket = widened(guide.answer, margin: margin)
        let decided = try run(bracket: bracket, verdicts: verdicts, full)
        var contradicted = false
        if let bracket {
            // A provisional pass that still stands counts as the pass it steered by.
            let passed = decided.evaluations.first { $0.value == bracket.pass }?.steersAsPass ?? false
            let other = decided.evaluations.first { $0.value == bracket.notPassing }?.steersAsPass ?? false
            // The far end passing is what a pilot where everything passes foresaw.
            contradicted = !passed || (other && bracket.notPassing != (goal == .maximize ? upper : lower))
        }
        return (decided.evaluations, decided.answer,
                PlanPilotRecord(scale: scale, evaluations: guide.evaluations, answer: guide.answer, passEdge: bracket?.pass,
                                notPassingEdge: bracket?.notPassing, contradicted: contradicted))
    }

    /// The bracket the full-size search tries first after a pilot answered `guide`: its passing
    /// end moved toward the safe end and its other end toward the far end by `margin` (a ratio
    /// 1 + margin when bisecting on a log scale, else margin times the bracket's larger magnitude),
    /// within the range, integer fields rounded outward. A pilot where everything passes gives the
    /// far end and the value `margin` before it; one where nothing passes gives none. Nil also
    /// when the two would not be distinct values in order.
    func widened(_ guide: PlanAnswer, margin: Double) -> (pass: Double, notPassing: Double)? {
        let far = goal == .maximize ? upper : lower
        // +1: toward the far end.
        let towardFar: Double = goal == .maximize ? 1 : -1
        func moved(_ x: Double, _ direction: Double, by reference: Double) -> Double {
            var y: Double
            if bisectsGeometrically {
                // One sign without 0: up multiplies the magnitude of a positive value, divides a negative one's.
                let f = 1 + margin
                y = (direction > 0) == (x > 0) ? x * f : x / f
            } else {
                y = x + direction * margin * reference
            }
            if isInteger { y = direction > 0 ? y.rounded(.up) : y.rounded(.down) }
            return min(max(y, lower), upper)
        }
        let pass: Double, notPassing: Double
        switch guide.status {
        case .boundary:
            guard let p = guide.lastPass, let q = guide.firstNotPassing else { return nil }
            let reference = max(abs(p), abs(q), tolerance.width(passing: p, failing: q))
            pass = moved(p, -towardFar, by: reference)
            notPassing = moved(q, towardFar, by: reference)
        case .allPass:
            pass = moved(far, -towardFar, by: max(abs(far), tolerance.width(passing: far, failing: far)))
            notPassing = far
        case .nonePass:
            // No bracket: the full-size search evaluates the safe end first anyway, and a pilot failing
            // there is more likely the pilot's own error (a load that does not shrink with K, such as
            // each PoP's first misses) than a world where nothing passes.
            return nil
        }
        guard goal == .maximize ? pass < notPassing : pass > notPassing else { return nil }
        return (pass, notPassing)
    }
}
