import Foundation
import XCTest
@testable import Experiments
@testable import ScenarioFormat

/// Verdicts carried along the `--for` knob under a stated trend (`plan --for-trend`): a carried
/// value is never run, the answers bracket the boundary within the tolerance exactly as a search
/// that runs every verdict does, and only the verdict the trend cannot change is carried.
final class PlanSearchTrendTests: XCTestCase {
    /// The frontier of the deterministic objective "x ≤ threshold(w)" along `forValues`, each
    /// value's search from the previous one's bracket, with or without `trend`; every value run is
    /// recorded per `--for` value.
    func frontier(_ search: PlanSearch, forValues: [Double], threshold: (Double) -> Double, trend: PlanForTrend?)
        -> (points: [(evaluations: [PlanEvaluation], answer: PlanAnswer)], ran: [[Double]]) {
        var points: [(evaluations: [PlanEvaluation], answer: PlanAnswer)] = []
        var ran: [[Double]] = []
        var previous: (w: Double, evaluations: [PlanEvaluation], answer: PlanAnswer)? = nil
        for w in forValues {
            let t = threshold(w)
            let objective = ServiceLevelObjective(metric: "m", op: search.goal == .maximize ? .atMost : .atLeast, threshold: t)
            var values: [Double] = []
            var verdicts = CarriedVerdicts()
            if let trend, let p = previous {
                verdicts = PlanSearch.carriedVerdicts(answer: p.answer, evaluations: p.evaluations, from: p.w, to: w, trend: trend)
            }
            let r = search.run(from: previous?.answer, verdicts: verdicts) { (x: Double, n: Int) -> SLOReport in
                values.append(x)
                return SLOReport([objective]) { _ in [Double](repeating: x, count: n) }
            }
            points.append(r)
            ran.append(values)
            previous = (w, r.evaluations, r.answer)
        }
        return (points, ran)
    }

    /// Warming further ahead: the boundary never moves down as w grows (trend better). The carried
    /// last pass is not run again; where the boundary stayed, one evaluation (the old first fail)
    /// confirms the answer instead of two.
    func testACarriedPassIsNotRunAndTheAnswersAreTheSame() throws {
        let search = PlanSearch(lower: 1, upper: 1000, isInteger: false, goal: .maximize, tolerance: .relative(0.10),
                                initialReplications: 2, maxReplications: 2)
        let ws: [Double] = [0, 120, 300, 600]
        let threshold = { (w: Double) in w < 300 ? 100.0 : 180 }
        let plain = frontier(search, forValues: ws, threshold: threshold, trend: nil)
        let trend = frontier(search, forValues: ws, threshold: threshold, trend: .better)
        for i in ws.indices {
            XCTAssertEqual(trend.points[i].answer, plain.points[i].answer, "w = \(ws[i])")
            guard i > 0, let carried = plain.points[i - 1].answer.lastPass else { continue }
            XCTAssertFalse(trend.ran[i].contains(carried), "w = \(ws[i]): the carried pass \(carried) was run again")
            XCTAssertEqual(trend.points[i].evaluations.first { $0.value == carried }?.carriedFrom, ws[i - 1] == 120 ? 0 : ws[i - 1],
                           "w = \(ws[i]): the carried evaluation names the --for value it ran at")
            XCTAssertEqual(trend.ran[i].count, plain.ran[i].count - 1, "w = \(ws[i])")
            XCTAssertEqual(trend.points[i].evaluations.filter { $0.carriedFrom != nil }.map(\.replicationsRun), [0])
        }
        // At w = 120 the boundary stayed: the old first fail alone is run.
        XCTAssertEqual(trend.ran[1], [plain.points[0].answer.firstNotPassing!])
    }

    /// Where every rate passes from some w on (warm-ahead 120 s and more in `black-friday-plan`),
    /// the far end's pass carries: the next values run nothing at all, not even the safe end
    /// (objectives are monotone in the knob, so a carried pass vouches for every value before it).
    func testAnAllPassCarriesWithoutRunningAnything() {
        let search = PlanSearch(lower: 1, upper: 1000, isInteger: false, goal: .maximize, tolerance: .relative(0.10),
                                initialReplications: 2, maxReplications: 2)
        let ws: [Double] = [0, 120, 300, 600]
        let threshold = { (w: Double) in w == 0 ? 80.0 : 5_000 }
        let plain = frontier(search, forValues: ws, threshold: threshold, trend: nil)
        let trend = frontier(search, forValues: ws, threshold: threshold, trend: .better)
        XCTAssertEqual(trend.points.map(\.answer), plain.points.map(\.answer))
        XCTAssertEqual(trend.points[2].answer.status, .allPass)
        XCTAssertEqual(trend.ran[2], [], "w = 300: the far end's pass carried from 120")
        XCTAssertEqual(trend.ran[3], [])
        XCTAssertEqual(trend.points[3].evaluations.map(\.carriedFrom), [120], "carried on, naming where it ran")
        XCTAssertGreaterThan(plain.ran[2].count, 0)
    }

    /// Objectives that worsen with w (trend worse): the first fail carries, never a pass; and with
    /// the --for values given in decreasing order a stated `better` carries fails too (moving down
    /// a `better` knob is moving the way the objectives worsen).
    func testAFailCarriesTheWayTheObjectivesWorsen() throws {
        for goal in [PlanGoal.maximize, .minimize] {
            let search = PlanSearch(lower: 1, upper: 1000, isInteger: false, goal: goal, tolerance: .relative(0.05),
                                    initialReplications: 2, maxReplications: 2)
            // maximize "x ≤ t": worse means t falls; minimize "x ≥ t": worse means t rises.
            let worsening = { (w: Double) in goal == .maximize ? 400 - w / 2 : 50 + w / 2 }
            for (ws, trend) in [([0.0, 100, 200, 400], PlanForTrend.worse), ([400.0, 200, 100, 0], .better)] {
                let threshold = trend == .worse ? worsening : { worsening(400 - $0) }
                let plain = frontier(search, forValues: ws, threshold: threshold, trend: nil)
                let carried = frontier(search, forValues: ws, threshold: threshold, trend: trend)
                for i in ws.indices {
                    let a = carried.points[i].answer
                    let t = threshold(ws[i])
                    XCTAssertEqual(a.status, .boundary, "\(goal) \(trend) w = \(ws[i])")
                    guard let p = a.lastPass, let q = a.firstFail else { XCTFail("\(goal) \(trend) w = \(ws[i]): no bracket"); continue }
                    if goal == .maximize { XCTAssertTrue(p <= t && t < q, "\(goal) w = \(ws[i]): [\(p), \(q)] for \(t)") }
                    else { XCTAssertTrue(q < t && t <= p, "\(goal) w = \(ws[i]): [\(q), \(p)] for \(t)") }
                    XCTAssertLessThanOrEqual(abs(q - p), 0.05 * p + 1e-9, "\(goal) w = \(ws[i])")
                    for e in carried.points[i].evaluations where e.carriedFrom != nil {
                        XCTAssertEqual(e.verdict, .fail, "\(goal) \(trend) w = \(ws[i]): only fails carry this way")
                        XCTAssertFalse(carried.ran[i].contains(e.value), "\(goal) w = \(ws[i]): a carried fail was run")
                    }
                    if i > 0 {
                        XCTAssertEqual(carried.points[i].evaluations.filter { $0.carriedFrom != nil }.count, 1, "\(goal) \(trend) w = \(ws[i])")
                        XCTAssertLessThanOrEqual(carried.ran[i].count, plain.ran[i].count, "\(goal) \(trend) w = \(ws[i])")
                    }
                }
            }
        }
    }

    /// Random monotone worlds (thresholds that never fall along w, random steps, either goal):
    /// with trend `better` every answer brackets its boundary within the tolerance, no carried
    /// value is run, and the frontier never runs more values than without the trend.
    func testRandomMonotoneFrontiersAreBracketedWithFewerEvaluations() {
        var state: UInt64 = 0x5EED_2026_1204
        func uniform() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / 9_007_199_254_740_992
        }
        var savedTotal = 0
        for world in 0..<200 {
            let goal: PlanGoal = world % 2 == 0 ? .maximize : .minimize
            let search = PlanSearch(lower: 1, upper: 1000, isInteger: world % 3 == 0, goal: goal, tolerance: .relative(0.05),
                                    initialReplications: 2, maxReplications: 2)
            let ws: [Double] = (0..<5).map { Double($0) * 60 }
            // The boundary moves the way the objectives improve: up for maximize, down for minimize.
            var t = 2 + uniform() * 500
            var thresholds: [Double] = []
            for _ in ws {
                thresholds.append(t)
                let step = uniform() < 0.4 ? 0 : uniform() * 100
                t = goal == .maximize ? min(990, t + step) : max(2, t - step)
            }
            let threshold = { (w: Double) in thresholds[Int(w / 60)] }
            let plain = frontier(search, forValues: ws, threshold: threshold, trend: nil)
            let carried = frontier(search, forValues: ws, threshold: threshold, trend: .better)
            for i in ws.indices {
                let a = carried.points[i].answer, t = thresholds[i]
                guard let p = a.lastPass, let q = a.firstFail, a.status == .boundary else {
                    XCTFail("world \(world) w = \(ws[i]): no bracket (\(a))"); continue
                }
                if goal == .maximize { XCTAssertTrue(p <= t && t < q, "world \(world) w = \(ws[i]): [\(p), \(q)] for \(t)") }
                else { XCTAssertTrue(q < t && t <= p, "world \(world) w = \(ws[i]): [\(q), \(p)] for \(t)") }
                // Within the tolerance, or (integers) no integer strictly between on the search's rounded
                // midpoint: the bisection's own stopping rule, the same with and without the trend.
                let m = search.midpoint(p, q)
                let rounded = goal == .maximize ? m.rounded(.down) : m.rounded(.up)
                XCTAssertTrue(abs(q - p) <= 0.05 * p + 1e-9 || (search.isInteger && (abs(q - p) <= 1 || rounded == p || rounded == q)),
                              "world \(world) w = \(ws[i]): [\(p), \(q)]")
                for e in carried.points[i].evaluations where e.carriedFrom != nil {
                    XCTAssertFalse(carried.ran[i].contains(e.value), "world \(world) w = \(ws[i])")
                }
            }
            let runPlain = plain.ran.reduce(0) { $0 + $1.count }, runCarried = carried.ran.reduce(0) { $0 + $1.count }
            XCTAssertLessThanOrEqual(runCarried, runPlain, "world \(world)")
            savedTotal += runPlain - runCarried
        }
        // Each --for value after the first whose old bracket held saves its passing end's run.
        XCTAssertGreaterThan(savedTotal, 200, "evaluations saved over 200 worlds of 5 values")
    }

    /// Nothing carries between equal or non-finite values, and a previous answer without a pass
    /// (or a fail) lends nothing of that kind.
    func testNothingCarriesWithoutAVerdictOfTheRightKind() {
        let search = PlanSearch(lower: 1, upper: 1000, isInteger: false, goal: .maximize, tolerance: .relative(0.10),
                                initialReplications: 2, maxReplications: 2)
        let objective = ServiceLevelObjective(metric: "m", op: .atMost, threshold: 0.5)
        let none = search.run { (x: Double, n: Int) -> SLOReport in SLOReport([objective]) { _ in [Double](repeating: x, count: n) } }
        XCTAssertEqual(none.answer.status, .nonePass)
        XCTAssertNil(PlanSearch.carriedVerdicts(answer: none.answer, evaluations: none.evaluations, from: 0, to: 60, trend: .better).pass)
        XCTAssertEqual(PlanSearch.carriedVerdicts(answer: none.answer, evaluations: none.evaluations, from: 0, to: 60, trend: .worse).fail?.value, 1)
        XCTAssertEqual(PlanSearch.carriedVerdicts(answer: none.answer, evaluations: none.evaluations, from: 60, to: 60, trend: .worse), CarriedVerdicts())
        XCTAssertEqual(PlanSearch.carriedVerdicts(answer: none.answer, evaluations: none.evaluations, from: .nan, to: 60, trend: .worse), CarriedVerdicts())
    }
}
