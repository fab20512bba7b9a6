import Foundation
import ScenarioFormat

/// Which end of the knob `prestage plan` looks for.
package enum PlanGoal: String, Codable, Sendable {
    /// The largest value that meets every objective (objectives hold below a boundary).
    case maximize
    /// The smallest value that meets every objective (objectives hold above a boundary).
    case minimize
}

/// How close the two sides of the answer must be: absolute, or a share of the passing value.
package enum PlanTolerance: Codable, Sendable, Equatable {
    case absolute(Double)
    case relative(Double)

    /// Parses `X` or `X%` (X > 0).
    package static func parse(_ text: String) -> PlanTolerance? {
        let percent = text.hasSuffix("%")
        guard let x = Double(percent ? String(text.dropLast()) : text), x.isFinite, x > 0 else { return nil }
        return percent ? .relative(x / 100) : .absolute(x)
    }

    /// The width allowed when `passing` is the value that passes (relative: of its magnitude, or
    /// of `failing`'s when `passing` is 0).
    func width(passing: Double, failing: Double) -> Double {
        switch self {
        case let .absolute(x): return x
        case let .relative(r): return r * (passing != 0 ? abs(passing) : abs(failing))
        }
    }

    /// `x` for people, rounded to a tenth of the tolerance at `x` (to a power of ten): the search
    /// cannot tell values closer than the tolerance apart, so more digits are noise
    /// (75807.775 at 1 % shows as 75810, at 5 % or 10 % as 75800, with an absolute 50 as 75808).
    /// Integers stay integers; the plan's JSON and CSV keep every digit.
    package func display(_ x: Double) -> String {
        let step = width(passing: x, failing: x) / 10
        guard x.isFinite, step.isFinite, step > 0 else { return ScenarioKnob.numberText(x) }
        let unit = pow(10, (log10(step)).rounded(.down))
        let rounded = (x / unit).rounded() * unit
        if unit < 1, x == x.rounded() { return ScenarioKnob.numberText(x) }
        // Print no more decimals than the unit has (0.1 → 1 decimal), without binary noise.
        let decimals = max(0, Int(-log10(unit).rounded(.up)))
        return decimals == 0 ? ScenarioKnob.numberText(rounded) : String(format: "%.\(min(decimals, 12))f", rounded)
    }

    /// The finest resolution a search may be asked for, relative to the range's magnitude: 10⁻⁹
    /// (judgement). A double carries about 16 significant digits, so the bisection reaches
    /// adjacent representable values near 10⁻¹⁶; 10⁻⁹ keeps every width, ratio and logarithm the
    /// search and its grid comparison compute exact to well under the tolerance itself.
    package static let resolutionMin = 1e-9

    /// Why this tolerance cannot be searched for over `lower...upper`, nil when it can: a
    /// relative one below `resolutionMin`, or an absolute one below `resolutionMin` times the
    /// range's largest magnitude.
    package func problem(lower: Double, upper: Double) -> String? {
        switch self {
        case let .relative(r) where r < Self.resolutionMin:
            return "\(String(format: "%g", r * 100)) % is finer than the search can resolve: at least \(String(format: "%g", Self.resolutionMin * 100)) %"
        case let .absolute(x):
            let finest = Self.resolutionMin * max(abs(lower), abs(upper))
            guard x < finest else { return nil }
            return "\(String(format: "%g", x)) is finer than the search can resolve over \(ScenarioKnob.numberText(lower))…\(ScenarioKnob.numberText(upper)): "
                + "at least \(String(format: "%g", finest)) (\(String(format: "%g", Self.resolutionMin * 100)) % of the range's largest magnitude)"
        default:
            return nil
        }
    }

    /// "10 %" or "5000".
    package var text: String {
        switch self {
        case let .absolute(x): return ScenarioKnob.numberText(x)
        case let .relative(r): return ScenarioKnob.numberText(r * 100) + " %"
        }
    }
}

/// One evaluated knob value: the replications run there and the objectives' verdicts.
package struct PlanEvaluation: Codable, Sendable, Equatable {
    /// The knob's value.
    package let value: Double
    /// Replications run (indices 0..<replications; the same indices, hence the same random
    /// numbers, at every value).
    package let replications: Int
    /// Every objective's interval and verdict.
    package let slo: SLOReport
    /// The `--for` value whose evaluation this repeats without running it (`plan --for-trend`: the
    /// user states how the objectives move with the `--for` knob, and a verdict carried the way
    /// it cannot change is not re-run); nil for an evaluation run here.
    package var carriedFrom: Double? = nil
    /// Set when the value was judged on its first replications only (`plan
    /// --provisional-midpoints`): undecided there, it steered the bisection as a pass or not
    /// without the stated confidence. Nil for every verdict with the stated confidence (and for
    /// every value the answer names as passing).
    package var provisional: PlanProvisional? = nil
    /// `slo.verdict`.
    package var verdict: SLOVerdict { slo.verdict }
    /// The replications run for this evaluation here (0 for a carried one).
    package var replicationsRun: Int { carriedFrom == nil ? replications : 0 }

    package init(value: Double, replications: Int, slo: SLOReport) {
        self.value = value
        self.replications = replications
        self.slo = slo
    }
}

/// What a plan found.
package struct PlanAnswer: Codable, Sendable, Equatable {
    package enum Status: String, Codable, Sendable {
        /// `lastPass` passes and `firstFail` does not, within the tolerance.
        case boundary
        /// Even the far end of the range passes: the boundary lies beyond the range.
        case allPass
        /// Not even the safe end passes; `best` is the value closest to passing.
        case nonePass
    }
    package let status: Status
    /// The last value that passes with the stated confidence (nil: none does).
    package let lastPass: Double?
    /// The nearest value beyond `lastPass` that does not pass (fails, or stays undecided at the
    /// replication cap): the bisection's other end, within the tolerance of `lastPass`.
    package let firstNotPassing: Double?
    /// The nearest value beyond `lastPass` that fails with the stated confidence: the boundary
    /// lies in [lastPass, firstFail] (nil: none was shown to fail).
    package let firstFail: Double?
    /// Values between the two that stay undecided at the replication cap (the objective is too
    /// close to its threshold there to tell with that many replications).
    package let undecided: [Double]
    /// Values between the two judged on their first replications only (`plan
    /// --provisional-midpoints`), not shown to pass there; nil when there are none. Like an
    /// undecided value they are not passing, not failing.
    package var provisional: [Double]? = nil
    /// The objective that fails first at `firstFail` (or at `best`).
    package let binding: ServiceLevelObjective?
    /// The binding objective's verdict there.
    package let bindingVerdict: SLOVerdict?
    /// For `nonePass`: the evaluated value with the smallest violation.
    package let best: Double?

    /// One line for people, values rounded to the tolerance's resolution.
    package func sentence(knob: String, goal: PlanGoal, tolerance: PlanTolerance) -> String {
        func num(_ x: Double?) -> String { x.map { tolerance.display($0) } ?? "—" }
        let bind = binding.map { " (binding: \($0.text), \(bindingVerdict?.rawValue ?? "")" + ")" } ?? ""
        switch status {
        case .boundary:
            let zone = undecided.isEmpty ? "" : "; undecided at the replication cap: \(undecided.map { num($0) }.joined(separator: ", "))"
            let unproven = (provisional ?? []).isEmpty ? ""
                : "; not shown to pass on the first replications (provisional, not run further): \((provisional ?? []).map { num($0) }.joined(separator: ", "))"
            return "\(knob): last passing \(num(lastPass)), first failing \(num(firstFail))\(zone)\(unproven)\(bind)"
        case .allPass:
            return "\(knob): every value in the range passes, up to \(num(lastPass)); the boundary lies beyond the range"
        case .nonePass:
            return "\(knob): nothing in the range passes\(bind); closest to passing: \(num(best))"
        }
    }

}

/// The noisy bisection of `prestage plan`. Objectives are assumed monotone in the knob (they hold
/// on one side of a boundary). A value is evaluated with `initialReplications`; while its verdict
/// is undecided, replications are added (to the count the observed spread says would decide it,
/// at least doubling, at most `maxReplications`); a value still undecided at the cap counts as not
/// passing, so the answer passes with the stated confidence. Replication r is the same stream at
/// every value (common random numbers), so differences between values are not noise.
package struct PlanSearch: Sendable {
    package let lower: Double
    package let upper: Double
    package let isInteger: Bool
    package let goal: PlanGoal
    package let tolerance: PlanTolerance
    package let initialReplications: Int
    package let maxReplications: Int
    /// Every replication count is a multiple of this (uncertain inputs drawn once per that many
    /// replications: only whole draws are judged). 1 by default.
    package var replicationStep: Int = 1
    /// Judge the values that only steer the bisection on `initialReplications` (`plan
    /// --provisional-midpoints`, `PlanSearch+Provisional`): an undecided value whose point
    /// estimates all lie on the passing side is a provisional pass, any other undecided one a
    /// provisional non-pass. When the bracket closes, its passing end is topped up to the stated
    /// confidence (as every value is without this); if it then does not pass, it becomes the
    /// other end and the bisection resumes from the nearest value on the safe side that passed
    /// or passed provisionally (the safe end, run if it was not). The far end of an all-pass
    /// answer, and the safe end of a none-pass one, are always topped up. False by default.
    package var provisional = false

    package init(lower: Double, upper: Double, isInteger: Bool, goal: PlanGoal, tolerance: PlanTolerance,
                initialReplications: Int, maxReplications: Int) {
        self.lower = lower
        self.upper = upper
        self.isInteger = isInteger
        self.goal = goal
        self.tolerance = tolerance
        self.initialReplications = max(2, initialReplications)
        self.maxReplications = max(self.initialReplications, maxReplications)
    }

    /// Runs the search; `evaluate(value, replications)` returns the objectives checked on
    /// replications 0..<replications at `value`.
    ///
    /// `previous` is the answer found for a neighbouring value of a second knob (`plan --for`).
    /// When it is a bracket inside this range, that bracket is tried first: its passing end, then
    /// its other end. Where both verdicts repeat, the answer is found in two evaluations instead of
    /// a full bisection; otherwise the bisection continues from whatever the two showed. Nothing
    /// is assumed about how the answer moves with the second knob: every value in the answer is
    /// evaluated here, with the same replications and confidence as without a bracket.
    /// - Returns: every evaluation (final replication count per value, in the order tried) and the answer.
    /// `verdicts` (from `carriedVerdicts`, `plan --for-trend`) are taken as evaluated: a value
    /// among them is never run, and a carried fail bounds the bisection as a run one would.
    package func run<E: Error>(from previous: PlanAnswer? = nil, verdicts: CarriedVerdicts = CarriedVerdicts(),
                               _ evaluate: (Double, Int) throws(E) -> SLOReport) throws(E) -> (evaluations: [PlanEvaluation], answer: PlanAnswer) {
        try run(bracket: carried(previous), verdicts: verdicts, evaluate)
    }

    /// The search, `bracket` (a passing end strictly on the safe side of a non-passing one, both
    /// in the range) tried first as `run(from:)` tries a carried bracket; nil: from the range's ends.
    func run<E: Error>(bracket seed: (pass: Double, notPassing: Double)?, verdicts: CarriedVerdicts = CarriedVerdicts(),
                       _ evaluate: (Double, Int) throws(E) -> SLOReport) throws(E) -> (evaluations: [PlanEvaluation], answer: PlanAnswer) {
        var evaluations: [PlanEvaluation] = verdicts.inRange(lower...upper)
        let step = max(1, replicationStep)
        let cap = max(step, maxReplications / step * step)
        func whole(_ n: Int) -> Int { min(cap, (n + step - 1) / step * step) }
        /// Replications added while undecided (to the count the observed spread says would
        /// decide it, at least doubling, at most the cap), from `n` already run.
        func topUp(_ value: Double, _ n0: Int, _ report0: SLOReport) throws(E) -> PlanEvaluation {
            var n = n0, report = report0
            while report.verdict == .undecided, n < cap {
                let wanted = report.evaluations.compactMap { $0.verdict == .undecided ? $0.replicationsToDecide : nil }.max() ?? 2 * n
                n = whole(max(2 * n, wanted))
                report = try evaluate(value, n)
            }
            return PlanEvaluation(value: value, replications: n, slo: report)
        }
        /// `value` with the stated confidence (a provisional evaluation there topped up in place).
        func decide(_ value: Double) throws(E) -> PlanEvaluation {
            if let i = evaluations.firstIndex(where: { $0.value == value }) {
                guard evaluations[i].provisional != nil else { return evaluations[i] }
                let e = try topUp(value, evaluations[i].replications, evaluations[i].slo)
                evaluations[i] = e
                return e
            }
            let n = whole(initialReplications)
            let e = try topUp(value, n, try evaluate(value, n))
            evaluations.append(e)
            return e
        }
        /// `value` as the bisection steers by it: with `provisional`, on the first replications only.
        // Off from the first provisional pass that a top-up overturns: near this boundary the first
        // replications mislead, so the rest of the search decides every value as without the option.
        var steeringProvisionally = provisional
        func probe(_ value: Double) throws(E) -> PlanEvaluation {
            guard steeringProvisionally else { return try decide(value) }
            if let done = evaluations.first(where: { $0.value == value }) { return done }
            let n = whole(initialReplications)
            var e = PlanEvaluation(value: value, replications: n, slo: try evaluate(value, n))
            if n < cap { e.provisional = e.slo.provisionalVerdict }
            evaluations.append(e)
            return e
        }
        // The safe end is where objectives hold: the low end when maximising.
        let safe = goal == .maximize ? lower : upper, far = goal == .maximize ? upper : lower
        func beyond(_ a: Double, _ b: Double) -> Bool { goal == .maximize ? a > b : a < b }
        func nonePass(_ safeEval: PlanEvaluation) -> (evaluations: [PlanEvaluation], answer: PlanAnswer) {
            let best = evaluations.min { $0.slo.binding?.violation ?? 0 < $1.slo.binding?.violation ?? 0 }
            return (evaluations, PlanAnswer(status: .nonePass, lastPass: nil, firstNotPassing: safe,
                                            firstFail: safeEval.verdict == .fail ? safe : nil, undecided: [], binding: safeEval.slo.binding?.objective,
                                            bindingVerdict: safeEval.slo.binding?.verdict, best: best?.value))
        }
        /// The safe end, shown to pass or not: probed, and topped up unless it steers as a pass (a
        /// none-pass answer is always stated with the confidence).
        func safeEnd() throws(E) -> PlanEvaluation {
            let e = try probe(safe)
            return e.steersAsPass ? e : try decide(safe)
        }
        var pass = safe
        // The nearest value beyond `pass` known not to pass (nil: none yet; the far end is then
        // the other side of the bracket, not run).
        var farEval: PlanEvaluation? = nil
        /// After the passing end, topped up to `proven`, did not pass: it is the new other end; the
        /// provisional passes on its safe side (down to the nearest value that passed with the stated
        /// confidence) are suspects, decided by bisecting over them, and the search goes on from the
        /// highest that passes with full decisions (the safe end if none does, run if it was not).
        /// Returns the none-pass answer when not even the safe end passes.
        func fallBack(from proven: PlanEvaluation) throws(E) -> (evaluations: [PlanEvaluation], answer: PlanAnswer)? {
            steeringProvisionally = false
            farEval = proven
            if proven.value == safe { return nonePass(proven) }
            // Toward the far end: the steering passes on the safe side of the new other end.
            let below = evaluations.filter { beyond(proven.value, $0.value) && $0.steersAsPass }.sorted { beyond($1.value, $0.value) }
            let floor = below.lastIndex { $0.provisional == nil }
            var low = floor.map { $0 + 1 } ?? 0, high = below.count
            var found = floor.map { below[$0].value }
            // Bisect over the suspects below[low..<high]: a pass vouches for those below it, a non-pass
            // for those above it (objectives are monotone in the knob).
            while low < high {
                let mid = (low + high) / 2
                let e = try decide(below[mid].value)
                if e.verdict == .pass { found = e.value; low = mid + 1 } else { farEval = e; high = mid }
            }
            if let found {
                pass = found
                return nil
            }
            if let e = evaluations.first(where: { $0.value == safe }), e.verdict != .pass { return nonePass(e) }
            // A seed bracket's passing end stood in for the safe end, which was not run.
            let safeEval = try decide(safe)
            guard safeEval.verdict == .pass else { return nonePass(safeEval) }
            pass = safe
            return nil
        }
        if let bracket = seed {
            let passing = try probe(bracket.pass)
            if passing.steersAsPass {
                pass = bracket.pass
                let other = try probe(bracket.notPassing)
                if other.steersAsPass { pass = bracket.notPassing } else { farEval = other }
            } else {
                farEval = passing
                let safeEval = try safeEnd()
                guard safeEval.steersAsPass else { return nonePass(safeEval) }
            }
        } else if let p = verdicts.pass?.value, (lower...upper).contains(p) {
            // A carried pass: the safe end passes too (objectives are monotone in the knob), so it
            // is not run.
            pass = p
        } else {
            let safeEval = try safeEnd()
            guard safeEval.steersAsPass else { return nonePass(safeEval) }
        }
        // A carried pass further toward the far end, or a carried fail nearer than the far end,
        // narrows the bracket as a run verdict would.
        if let p = verdicts.pass?.value, (lower...upper).contains(p), beyond(p, pass),
           farEval.map({ beyond($0.value, p) }) ?? true {
            pass = p
        }
        if let f = verdicts.fail, (lower...upper).contains(f.value), beyond(f.value, pass),
           farEval.map({ beyond($0.value, f.value) }) ?? true {
            farEval = f
        }
        // The far end is run only once a value between has passed (or no value is left between):
        // when the first midpoint does not pass, monotonicity says the far end does not either,
        // and the (often most expensive) far end is never run.
        while true {
            let notPassing = farEval?.value ?? far
            let gap = abs(notPassing - pass)
            var mid = midpoint(pass, notPassing)
            if isInteger { mid = goal == .maximize ? mid.rounded(.down) : mid.rounded(.up) }
            let bracketed = gap <= tolerance.width(passing: pass, failing: notPassing) || (isInteger && gap <= 1)
                || mid == pass || mid == notPassing
            if !bracketed {
                let e = try probe(mid)
                if !e.steersAsPass { farEval = e; continue }
                pass = mid
                if farEval != nil { continue }
            } else if farEval != nil {
                // The bracket is closed: its passing end must pass with the stated confidence. A
                // provisional pass is topped up; if it then does not pass, it is the new other end.
                guard evaluations.contains(where: { $0.value == pass && $0.provisional == .pass }) else { break }
                let proven = try decide(pass)
                if proven.verdict == .pass { break }
                if let none = try fallBack(from: proven) { return none }
                continue
            }
            var e = try probe(far)
            // An all-pass answer's far end is always shown to pass with the stated confidence.
            let provisionalPass = e.provisional == .pass
            if provisionalPass { e = try decide(far) }
            guard e.verdict != .pass else {
                return (evaluations, PlanAnswer(status: .allPass, lastPass: far, firstNotPassing: nil, firstFail: nil, undecided: [], binding: nil, bindingVerdict: nil, best: nil))
            }
            farEval = e
            // A provisional pass at the far end that did not hold.
            if provisionalPass, let none = try fallBack(from: e) { return none }
        }
        guard let farEval else { preconditionFailure("the loop leaves only with a value that does not pass") }
        // Beyond the last pass, toward the far end: the nearest shown to fail, and the undecided
        // (or provisionally not passing) ones before it.
        let past = evaluations.filter { beyond($0.value, pass) }
            .sorted { beyond($1.value, $0.value) }
        let failed = past.first { $0.verdict == .fail }
        let before = past.prefix { $0.verdict != .fail }
        let binding = (failed ?? farEval).slo.binding
        var answer = PlanAnswer(status: .boundary, lastPass: pass, firstNotPassing: farEval.value, firstFail: failed?.value,
                                undecided: before.filter { $0.provisional == nil }.map(\.value), binding: binding?.objective,
                                bindingVerdict: binding?.verdict, best: nil)
        let unproven = before.filter { $0.provisional != nil }.map(\.value)
        if !unproven.isEmpty { answer.provisional = unproven }
        return (evaluations, answer)
    }

    /// `previous`'s bracket when it can seed this search: a boundary strictly inside the range,
    /// its passing end on the safe side of the other.
    func carried(_ previous: PlanAnswer?) -> (pass: Double, notPassing: Double)? {
        guard let previous, previous.status == .boundary, let p = previous.lastPass, let q = previous.firstNotPassing,
              p.isFinite, q.isFinite, (lower...upper).contains(p), (lower...upper).contains(q) else { return nil }
        guard goal == .maximize ? p < q : p > q else { return nil }
        return (p, q)
    }

    /// Whether the range is bisected on a log scale: a relative tolerance over a range of one
    /// sign without 0, where equal ratios (not equal differences) are the resolution asked for.
    var bisectsGeometrically: Bool {
        if case .relative = tolerance { return lower > 0 && upper > 0 || lower < 0 && upper < 0 }
        return false
    }

    /// The next value between `a` and `b`: the geometric mean when bisecting on a log scale (each
    /// step halves the log of the ratio, so a range of ratio R reaches a relative tolerance r in
    /// ⌈log₂(ln R / ln(1 + r))⌉ steps), the arithmetic mean otherwise.
    func midpoint(_ a: Double, _ b: Double) -> Double {
        guard bisectsGeometrically else { return (a + b) / 2 }
        let m = (a.sign == .minus ? -1.0 : 1.0) * (abs(a) * abs(b)).squareRoot()
        // Keep it strictly inside (rounding can land on an end when the two are adjacent doubles).
        return min(max(m, min(a, b)), max(a, b))
    }

    /// Replications a full grid would use for the same resolution, each point with the initial
    /// count. Absolute tolerance: one point per tolerance step across the range. Relative
    /// tolerance: points spaced by the ratio 1 + r across a range of one sign (the grid a user
    /// asking for r % everywhere would run: ⌈ln(upper/lower) / ln(1 + r)⌉ + 1 points); across 0,
    /// steps of r times the answer.
    /// Counted in `Double` and capped at `gridPointsMax`, so no tolerance, however fine, can
    /// overflow the count.
    package func gridReplications(answer: PlanAnswer) -> Int {
        let points: Double
        switch tolerance {
        case let .absolute(x):
            points = ((upper - lower) / max(x, isInteger ? 1 : 1e-12)).rounded(.up) + 1
        case let .relative(r) where bisectsGeometrically:
            let ratio = max(abs(upper), abs(lower)) / min(abs(upper), abs(lower))
            let geometric = (log(ratio) / log(1 + r)).rounded(.up) + 1
            points = isInteger ? min(geometric, (upper - lower).rounded() + 1) : geometric
        case .relative:
            let step = tolerance.width(passing: answer.lastPass ?? answer.best ?? lower, failing: upper)
            points = ((upper - lower) / max(step, isInteger ? 1 : 1e-12)).rounded(.up) + 1
        }
        let capped = points.isFinite ? min(points, Self.gridPointsMax) : Self.gridPointsMax
        return Int(capped) * initialReplications
    }

    /// The most grid points the comparison counts: 10¹², judgement (far beyond any grid anyone
    /// would run, and small enough that times the replications it fits an `Int`).
    static let gridPointsMax: Double = 1e12
}
