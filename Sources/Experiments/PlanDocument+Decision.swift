import Foundation
import PushModel
import ReportKit
import ScenarioFormat

/// The plan's answer as a decision: one sentence per `--for` value in the knob's words and units
/// ("Warming at the send: send rate at most 75,800 pushes/min (5,000,000 devices sent in 66 min);
/// from 80,000 pushes/min “Origin 503 rejections ≤ 0” fails."), consecutive values with the same
/// answer merged, then what it holds for: the population, the overrides, the confidence and the knob's
/// path.
extension PlanDocument {
    /// The knob's title with its path: "send rate (campaigns[0].sendRatePerMinute)".
    var knobTitle: String { ScenarioFieldUnit.title(path: knob.path) }

    /// A knob value in its unit for people: rates and counts grouped or with M/bn, seconds as s/min/h,
    /// shares as %, bytes in kB/MB/GB (rounded to the tolerance first).
    static func valueText(_ x: Double, unit: ScenarioFieldUnit, tolerance: PlanTolerance?) -> String {
        let v = tolerance.flatMap { Double($0.display(x)) } ?? x
        func grouped(_ y: Double) -> String {
            abs(y) >= 1e6 ? HumanScale.format(y, unit: .count) : (y == y.rounded() ? TextFormat.count(Int(y)) : TextNumber.format(y, significant: 4))
        }
        switch unit {
        case .pushesPerMinute: return grouped(v) + " pushes/min"
        case .pushesPerHour: return grouped(v) + " pushes/h"
        case .count, .none: return grouped(v)
        case .seconds: return durationText(v)
        case .fraction: return HumanScale.format(v, unit: .ratio)
        case .bytes: return HumanScale.format(v, unit: .bytes)
        case .bitsPerSecond: return HumanScale.format(v, unit: .bitsPerSecond)
        }
    }

    /// "0 s", "45 s", "2 min", "1.5 h".
    static func durationText(_ s: Double) -> String {
        if abs(s) < 120 { return TextNumber.format(s, significant: 3) + " s" }
        if abs(s) < 7200 { return TextNumber.format(s / 60, significant: 3) + " min" }
        return TextNumber.format(s / 3600, significant: 3) + " h"
    }

    /// An objective in words: "Origin 503 rejections ≤ 0".
    static func objectiveText(_ o: ServiceLevelObjective) -> String { SLOReport.displayObjective(o) }

    /// What a `--for` value means: "Warming at the send", "Warming 2 min ahead", or "With origin workers = 32".
    func forText(_ values: [Double]) -> String {
        guard let list = forKnob else { return "" }
        let unit = ScenarioFieldUnit(path: list.path, isInteger: values.allSatisfy { $0 == $0.rounded() })
        func joined(_ texts: [String]) -> String {
            texts.count <= 1 ? texts.joined() : texts.dropLast().joined(separator: ", ") + " or " + (texts.last ?? "")
        }
        if list.path.hasSuffix("warm.aheadSeconds") {
            return "Warming " + joined(values.map { $0 == 0 ? "at the send" : Self.valueText($0, unit: unit, tolerance: nil) + " ahead" })
        }
        return "With " + ScenarioFieldUnit.title(path: list.path) + " " + joined(values.map { Self.valueText($0, unit: unit, tolerance: nil) })
    }

    /// One frontier point's answer, without the `--for` prefix.
    func decision(_ p: PlanFrontierPoint) -> String {
        let unit = knob.unit
        func v(_ x: Double) -> String { Self.valueText(x, unit: unit, tolerance: tolerance) }
        let bound = goal == .maximize ? "at most" : "at least"
        let beyond = goal == .maximize ? "from" : "at or below"
        let provisionalEnd = p.answer.firstNotPassing.flatMap { q in p.evaluations.first { $0.value == q && $0.provisional != nil } }
        let binding = (provisionalEnd?.slo.binding?.objective ?? p.answer.binding).map { "“" + Self.objectiveText($0) + "”" } ?? "an objective"
        // The other end judged provisionally: not shown to pass there, whatever fails further on.
        let bindingVerdict = provisionalEnd.map { "is not shown to be met on its first \($0.replications) replications (provisional)" }
            ?? (p.answer.bindingVerdict == .fail ? "fails" : "is not met with the stated confidence")
        switch p.answer.status {
        case .boundary:
            guard let last = p.answer.lastPass else { return "" }
            var text = knobTitle + " " + bound + " " + v(last)
            if unit == .pushesPerMinute && knob.path.hasSuffix("sendRatePerMinute") && last > 0 {
                text += " (" + TextFormat.count(devices) + " devices sent in " + Self.durationText(Double(devices) / last * 60) + ")"
            }
            if let next = p.answer.firstNotPassing ?? p.answer.firstFail {
                text += "; " + beyond + " " + v(next) + " " + binding + " " + bindingVerdict
            }
            return text
        case .allPass:
            return "every " + knobTitle + " up to " + v(goal == .maximize ? knob.upper : knob.lower)
                + " meets every objective (the boundary lies beyond the range tried)"
        case .nonePass:
            return "no " + knobTitle + " in " + v(knob.lower) + "…" + v(knob.upper) + " meets " + binding
                + (p.answer.best.map { "; closest to passing: " + v($0) } ?? "")
        }
    }

    /// The decision sentences: consecutive `--for` values with the same answer merged.
    package var decisionLines: [String] {
        var groups: [(values: [Double], text: String)] = []
        for p in frontier {
            let text = decision(p)
            if let lastGroup = groups.last, lastGroup.text == text, let value = p.forValue {
                groups[groups.count - 1].values.append(value)
            } else {
                groups.append((p.forValue.map { [$0] } ?? [], text))
            }
        }
        return groups.map { g in
            let sentence = g.text.prefix(1).uppercased() + g.text.dropFirst() + "."
            return g.values.isEmpty ? sentence : forText(g.values) + ": " + g.text + "."
        }
    }

    /// What the decision holds for: population, overrides, confidence, knob path, replications.
    package var decisionContext: String {
        let levels = Array(Set(objectives.map(\.confidence))).sorted()
        let confidence = levels.map { HumanScale.format($0, unit: .ratio) }.joined(separator: " / ")
        let used = frontier.reduce(0) { $0 + $1.replicationsUsed }
        return "At \(TextFormat.count(devices)) devices"
            + (overrides.isEmpty ? " (scenario file as written)" : " (" + overrides.joined(separator: " ") + ")")
            + "; each verdict with \(confidence) confidence over \(TextFormat.count(used)) replications in all; "
            + knobTitle + " is " + knob.path + (forKnob.map { ", " + ScenarioFieldUnit.title(path: $0.path) + " is " + $0.path } ?? "") + "."
    }
}
