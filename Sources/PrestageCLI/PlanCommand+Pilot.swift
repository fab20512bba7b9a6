import Experiments
import Foundation
import ScenarioFormat

/// `plan --pilot-scale K [--pilot-margin X%]`: scaled pilot runs narrow the range before the
/// full-size probes decide (`PlanSearch.runPiloted`, `ScaledPilot`).
extension PlanCommand {
    /// `--pilot-scale K`.
    static let pilotScaleOption = Option.string("pilot-scale", valueName: "K",
                                                 help: "first search at 1/K of the devices with every shared capacity scaled by 1/K; full-size runs then decide, from its bracket widened (K ≥ 2)")
    /// `--pilot-margin X%`.
    static let pilotMarginOption = Option.string("pilot-margin", valueName: "X%",
                                                 help: "widen the pilot's bracket by this share on each side before the full-size search (default 25%)")

    /// The largest `--pilot-margin`: 1 000 % (judgement: wider than that, the pilot narrows nothing).
    static let pilotMarginMax = 10.0

    /// The pilot of `base` asked for, its margin, or the message of the bad input (exit 2).
    static func pilotSettings(scale scaleText: String?, marginText: String?, base: ScenarioFile, emitting: Bool, ingesting: Bool)
        -> Result<(pilot: ScaledPilot, margin: Double)?, PlanPilotInputError> {
        guard let scaleText else {
            if let marginText { return .failure(PlanPilotInputError(message: "--pilot-margin: \(marginText) is given without --pilot-scale K")) }
            return .success(nil)
        }
        guard let scale = Int(scaleText) else {
            return .failure(PlanPilotInputError(message: "--pilot-scale: expected an integer ≥ \(ScaledPilot.scaleMin) (the pilot runs 1/K of the devices), found \(DisplayText.quoted(scaleText))"))
        }
        if let problem = ScaledPilot.problem(scale: scale, devices: base.world.population.devices) {
            return .failure(PlanPilotInputError(message: "--pilot-scale: \(problem)"))
        }
        if let problem = ScaledPilot.problem(uncertainIn: base) {
            return .failure(PlanPilotInputError(message: "--pilot-scale: \(problem)"))
        }
        if emitting || ingesting {
            return .failure(PlanPilotInputError(message: "--pilot-scale: runs its pilots on this machine; it cannot be combined with \(emitting ? "--emit-sweep" : "--ingest")"))
        }
        var margin = PlanSearch.pilotMarginDefault
        if let text = marginText {
            let number = text.hasSuffix("%") ? Double(text.dropLast()).map { $0 / 100 } : Double(text)
            guard let m = number, m.isFinite, m > 0, m <= pilotMarginMax else {
                return .failure(PlanPilotInputError(message: "--pilot-margin: expected a share > 0 and ≤ \(Int(pilotMarginMax * 100)) % (e.g. 25% or 0.25), found \"\(text)\""))
            }
            margin = m
        }
        return .success((ScaledPilot(scale: scale), margin))
    }
}

/// A bad `--pilot-scale` or `--pilot-margin`.
struct PlanPilotInputError: Error {
    let message: String
}
