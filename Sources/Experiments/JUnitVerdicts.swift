import ReportKit
import ScenarioFormat

// The verdicts of `run --fail-on-slo`, `compare --fail-on-regression` and `plan --fail-on-slo` as
// JUnit XML (`--junit FILE`), beside `bench`'s: a failed case in the file is exactly what makes the
// command's gate exit 3.

extension SLOReport {
    /// One suite (the scenario) with one case per objective: failed when the objective fails or
    /// is undecided (`run --fail-on-slo` exits 3 for either), its mean, interval and replications
    /// to decide as the output.
    package func junit(scenarioName: String) -> JUnitXML {
        let cases = evaluations.map { e -> JUnitXML.Case in
            let interval = e.lower.flatMap { lo in e.upper.map { "[\(TextNumber.format(lo, significant: 4)), \(TextNumber.format($0, significant: 4))]" } } ?? "—"
            let detail = "mean \(e.mean.map { TextNumber.format($0, significant: 4) } ?? "not produced"), interval \(interval) over \(e.n) replications"
                + (e.replicationsToDecide.map { "; ≈\($0) replications would decide it" } ?? "")
            return JUnitXML.Case(name: e.objective.text, failure: e.verdict == .pass ? nil : "\(e.verdictText): " + detail, output: detail)
        }
        return JUnitXML(name: "prestage run", classPrefix: "prestage.run", suites: [JUnitXML.Suite(name: scenarioName, cases: cases)])
    }
}

extension PlanDocument {
    /// One suite (the scenario) with one case per answer (per `--for` value): failed when nothing in
    /// the range passes (`plan --fail-on-slo` exits 3), the answer's sentence as the output.
    package var junit: JUnitXML {
        let cases = zip(frontier, answerLines).map { point, line in
            JUnitXML.Case(name: point.forValue.map { "\(forKnob?.path ?? "")=\(ScenarioKnob.numberText($0))" } ?? knob.path,
                          failure: point.answer.lastPass == nil ? line : nil, output: line)
        }
        return JUnitXML(name: "prestage plan", classPrefix: "prestage.plan", suites: [JUnitXML.Suite(name: scenarioName, cases: cases)])
    }
}
