/// How the objectives move with the `--for` knob, as the user states it (`plan --for-trend`): a
/// statement about the world, not something the plan checks. Warming further ahead never adds
/// origin load, so for `--for campaigns[0].warm.aheadSeconds=…` the objectives get no worse as
/// the value grows (`better`).
package enum PlanForTrend: String, Codable, Sendable, CaseIterable {
    /// The objectives get no worse as the `--for` value grows: a value that passed at a smaller
    /// `--for` value passes at a larger one.
    case better
    /// The objectives get no better as the `--for` value grows: a value that failed at a smaller
    /// `--for` value fails at a larger one.
    case worse
}

/// The verdicts one `--for` value's search lends the next under a stated trend: at most its last
/// pass and its first fail, each the evaluation as run there, marked carried.
package struct CarriedVerdicts: Sendable, Equatable {
    package var pass: PlanEvaluation?
    package var fail: PlanEvaluation?

    package init(pass: PlanEvaluation? = nil, fail: PlanEvaluation? = nil) {
        self.pass = pass
        self.fail = fail
    }

    /// The carried evaluations inside `range`, pass first.
    func inRange(_ range: ClosedRange<Double>) -> [PlanEvaluation] {
        [pass, fail].compactMap { $0 }.filter { range.contains($0.value) }
    }
}

extension PlanSearch {
    /// What the search at `--for` value `to` may take from the one at `from` (its `answer`, its
    /// `evaluations`) when the objectives move with the `--for` knob as `trend` says. Moving the
    /// way the objectives improve, the last pass still passes; moving the way they worsen, the
    /// first value shown to fail still fails (an undecided one is not carried: it may fail or stay
    /// undecided). A verdict `from` itself carried carries on, still naming the `--for` value it
    /// was run at (the trend is transitive). Only verdicts with the stated confidence carry, never
    /// a provisional one (`plan --provisional-midpoints`).
    package static func carriedVerdicts(answer: PlanAnswer, evaluations: [PlanEvaluation], from: Double, to: Double,
                                        trend: PlanForTrend) -> CarriedVerdicts {
        guard from != to, from.isFinite, to.isFinite else { return CarriedVerdicts() }
        let improving = (to > from) == (trend == .better)
        func evaluation(at value: Double?, _ verdict: SLOVerdict) -> PlanEvaluation? {
            guard let value, var e = evaluations.first(where: { $0.value == value && $0.verdict == verdict && $0.provisional == nil }) else { return nil }
            e.carriedFrom = e.carriedFrom ?? from
            return e
        }
        return improving ? CarriedVerdicts(pass: evaluation(at: answer.lastPass, .pass))
                         : CarriedVerdicts(fail: evaluation(at: answer.firstFail, .fail))
    }
}
