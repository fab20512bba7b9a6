import Foundation
import XCTest
@testable import Experiments
@testable import ScenarioFormat

/// `PlanSearch` against a boundary known analytically: an origin pool of c workers without a
/// queue (M/M/c/c: an arrival finding every worker busy gets a 503) whose 503 share is Erlang's
/// loss formula B(c, λ/μ). The objective "503 share ≤ 5 %" holds exactly for λ ≤ λ*, with
/// B(c, λ*/μ) = 0.05; the plan's answer must bracket λ*.
final class PlanSearchTests: XCTestCase {
    /// Erlang B by the stable recursion B(0) = 1, B(k) = a·B(k−1) / (k + a·B(k−1)).
    static func erlangB(servers c: Int, load a: Double) -> Double {
        var b = 1.0
        for k in 1...c { b = a * b / (Double(k) + a * b) }
        return b
    }

    /// The load a with B(c, a) = target (B rises with a), by bisection to 1e-12.
    static func loadFor(blocking target: Double, servers c: Int) -> Double {
        var lo = 0.0, hi = Double(c) * 4
        for _ in 0..<200 {
            let mid = (lo + hi) / 2
            if erlangB(servers: c, load: mid) < target { lo = mid } else { hi = mid }
        }
        return (lo + hi) / 2
    }

    /// SplitMix64 uniforms in (0, 1): one stream per (seed, replication), the same at every λ
    /// (common random numbers, as `PlanEvaluator` gives the simulator).
    struct Uniforms {
        var state: UInt64
        init(seed: UInt64, replication: Int) { state = seed &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(replication) &* 0xBF58_476D_1CE4_E5B9 }
        mutating func next() -> Double {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            return (Double(z >> 11) + 0.5) / 9_007_199_254_740_992
        }
    }

    /// The 503 share of `arrivals` Poisson(λ) arrivals at c workers with exponential(μ = 1)
    /// service and no queue, after `warmup` arrivals.
    static func lossShare(lambda: Double, servers c: Int, arrivals: Int, warmup: Int, seed: UInt64, replication: Int) -> Double {
        var u = Uniforms(seed: seed, replication: replication)
        var busyUntil: [Double] = []
        var t = 0.0, rejected = 0
        for i in 0..<(warmup + arrivals) {
            t += -log(u.next()) / lambda
            let service = -log(u.next())
            busyUntil.removeAll { $0 <= t }
            if busyUntil.count < c { busyUntil.append(t + service) } else if i >= warmup { rejected += 1 }
        }
        return Double(rejected) / Double(arrivals)
    }

    func testPlanBracketsTheErlangLossBoundaryForSeveralSeedsWithAQuarterOfTheGridsReplications() {
        let c = 10, target = 0.05
        let boundary = Self.loadFor(blocking: target, servers: c)
        XCTAssertEqual(Self.erlangB(servers: c, load: boundary), target, accuracy: 1e-9)
        XCTAssertEqual(boundary, 6.216, accuracy: 0.001, "B(10, 6.216) = 5 % (Erlang tables)")
        let objective = ServiceLevelObjective(metric: "origin.rejected503Share", op: .atMost, threshold: target, confidence: 0.95)
        let search = PlanSearch(lower: 1, upper: 20, isInteger: false, goal: .maximize, tolerance: .relative(0.03),
                                initialReplications: 4, maxReplications: 32)
        for seed: UInt64 in [1, 2, 3, 4, 5] {
            let (evaluations, answer) = search.run { (lambda: Double, n: Int) -> SLOReport in
                let values = (0..<n).map { Self.lossShare(lambda: lambda, servers: c, arrivals: 20_000, warmup: 500, seed: seed, replication: $0) }
                return SLOReport([objective]) { _ in values }
            }
            XCTAssertEqual(answer.status, .boundary, "seed \(seed)")
            guard let pass = answer.lastPass, let fail = answer.firstFail, let notPassing = answer.firstNotPassing else {
                return XCTFail("seed \(seed): no bracket")
            }
            XCTAssertLessThanOrEqual(pass, boundary, "seed \(seed): the last passing λ lies at or below λ* = \(boundary)")
            XCTAssertGreaterThanOrEqual(fail, boundary, "seed \(seed): the first failing λ lies at or above λ*")
            XCTAssertLessThanOrEqual(notPassing - pass, 0.03 * pass + 1e-9, "seed \(seed): stopped at the tolerance")
            XCTAssertLessThanOrEqual(fail - pass, 0.10 * pass, "seed \(seed): the bracket is narrow")
            XCTAssertEqual(answer.binding, objective)
            let used = evaluations.reduce(0) { $0 + $1.replications }
            let grid = search.gridReplications(answer: answer)
            print("PlanSearchTests: seed \(seed): λ in [\(pass), \(fail)] (λ* = \(boundary)), undecided \(answer.undecided), \(evaluations.count) values, \(used) replications; grid \(grid)")
            XCTAssertLessThanOrEqual(4 * used, grid, "seed \(seed): \(used) replications against a grid's \(grid)")
        }
    }

    func testARelativeToleranceBisectsOnALogScaleAndStopsInTheStepsTheMathsGives() {
        // Passes for x ≤ 37.3 (no noise). A range of ratio R = 1000 bisected on a log scale reaches
        // a 10 % bracket in ⌈log₂(ln R / ln 1.1)⌉ = ⌈log₂ 72.48⌉ = 7 steps: 9 values with the two ends.
        // (Halving the difference instead tries 11 values here: 1, 1000, 500.5, 250.75, …, 38.07.)
        let objective = ServiceLevelObjective(metric: "m", op: .atMost, threshold: 37.3)
        let search = PlanSearch(lower: 1, upper: 1000, isInteger: false, goal: .maximize, tolerance: .relative(0.10),
                                initialReplications: 2, maxReplications: 2)
        let result = search.run { (x: Double, n: Int) -> SLOReport in SLOReport([objective]) { _ in [Double](repeating: x, count: n) } }
        let steps = Int((log2(log(1000.0) / log(1.1))).rounded(.up))
        XCTAssertEqual(steps, 7)
        XCTAssertEqual(Array(result.evaluations.prefix(3).map(\.value)), [1, 1000.0.squareRoot(), 1000], "the first midpoint passed: the far end next")
        // When the first midpoint fails, the far end is known to fail (monotone objectives) and is never run.
        let low = ServiceLevelObjective(metric: "m", op: .atMost, threshold: 5)
        let lowResult = search.run { (x: Double, n: Int) -> SLOReport in SLOReport([low]) { _ in [Double](repeating: x, count: n) } }
        XCTAssertFalse(lowResult.evaluations.contains { $0.value == 1000 }, "values tried: \(lowResult.evaluations.map(\.value))")
        XCTAssertEqual(lowResult.answer.status, .boundary)
        XCTAssertLessThanOrEqual(lowResult.answer.lastPass ?? 0, 5)
        XCTAssertGreaterThan(lowResult.answer.firstFail ?? 0, 5)
        XCTAssertLessThanOrEqual(result.evaluations.count, steps + 2, "values tried: \(result.evaluations.map(\.value))")
        guard let pass = result.answer.lastPass, let fail = result.answer.firstFail else { return XCTFail("no bracket") }
        XCTAssertLessThanOrEqual(pass, 37.3)
        XCTAssertGreaterThan(fail, 37.3)
        XCTAssertLessThanOrEqual(fail - pass, 0.10 * pass)
        // The grid at the same resolution: ⌈ln 1000 / ln 1.1⌉ + 1 = 74 points of 2 replications.
        XCTAssertEqual(search.gridReplications(answer: result.answer), 148)
        // A tolerance too fine to search is refused before any evaluation; were one searched
        // anyway, the grid count is capped instead of trapping (ln(1 + 1e-17) is 0).
        XCTAssertNil(PlanTolerance.relative(0.1).problem(lower: 1, upper: 1000))
        XCTAssertNotNil(PlanTolerance.relative(1e-17).problem(lower: 1, upper: 1000))
        XCTAssertNil(PlanTolerance.absolute(1e-5).problem(lower: 1, upper: 1000))
        XCTAssertNotNil(PlanTolerance.absolute(1e-7).problem(lower: 1, upper: 1000))
        let tiny = PlanSearch(lower: 1, upper: 1000, isInteger: false, goal: .maximize, tolerance: .relative(1e-17),
                              initialReplications: 2, maxReplications: 2)
        XCTAssertEqual(tiny.gridReplications(answer: result.answer), 2_000_000_000_000)
        let tinyAbsolute = PlanSearch(lower: 1, upper: 1000, isInteger: false, goal: .maximize, tolerance: .absolute(1e-300),
                                      initialReplications: 2, maxReplications: 2)
        XCTAssertEqual(tinyAbsolute.gridReplications(answer: result.answer), 2_000_000_000_000)
        // An absolute tolerance keeps halving the difference.
        let absolute = PlanSearch(lower: 0, upper: 100, isInteger: false, goal: .maximize, tolerance: .absolute(1),
                                  initialReplications: 2, maxReplications: 2)
        XCTAssertEqual(absolute.midpoint(0, 100), 50)
        XCTAssertEqual(search.midpoint(1, 100), 10, accuracy: 1e-12)
    }

    func testNothingPassesAndEverythingPassesAreSaidPlainly() {
        let objective = ServiceLevelObjective(metric: "m", op: .atMost, threshold: 10)
        let search = PlanSearch(lower: 20, upper: 30, isInteger: true, goal: .maximize, tolerance: .absolute(1),
                                initialReplications: 3, maxReplications: 6)
        let none = search.run { (x: Double, n: Int) -> SLOReport in SLOReport([objective]) { _ in (0..<n).map { x + Double($0) } } }
        XCTAssertEqual(none.answer.status, .nonePass)
        XCTAssertNil(none.answer.lastPass)
        XCTAssertEqual(none.answer.best, 20)
        let all = search.run { (x: Double, n: Int) -> SLOReport in SLOReport([objective]) { _ in (0..<n).map { x / 10 + Double($0) / 100 } } }
        XCTAssertEqual(all.answer.status, .allPass)
        XCTAssertEqual(all.answer.lastPass, 30)
        XCTAssertEqual(all.evaluations.map(\.value), [20, 25, 30], "the safe end, the midpoint, then (it passed) the far end")
    }

    func testMinimizeFindsTheLowestPassingIntegerValue() {
        // Objective holds for x ≥ 37 (metric = x, must be ≥ 36.5; a tiny spread across replications).
        let objective = ServiceLevelObjective(metric: "m", op: .atLeast, threshold: 36.5)
        let search = PlanSearch(lower: 1, upper: 100, isInteger: true, goal: .minimize, tolerance: .absolute(1),
                                initialReplications: 3, maxReplications: 12)
        let result = search.run { (x: Double, n: Int) -> SLOReport in SLOReport([objective]) { _ in (0..<n).map { x + Double($0 % 3 - 1) * 0.01 } } }
        XCTAssertEqual(result.answer.status, .boundary)
        XCTAssertEqual(result.answer.lastPass, 37)
        XCTAssertEqual(result.answer.firstFail, 36)
        XCTAssertEqual(result.answer.firstNotPassing, 36)
        XCTAssertEqual(result.answer.undecided, [])
    }

    func testVerdictsReadTheWholeIntervalAndUndecidedSaysHowManyReplicationsWouldDecide() {
        let o = ServiceLevelObjective(metric: "m", op: .atMost, threshold: 1.0)
        XCTAssertEqual(SLOEvaluation(o, values: [0.5, 0.6, 0.55]).verdict, .pass)
        XCTAssertEqual(SLOEvaluation(o, values: [1.5, 1.6, 1.55]).verdict, .fail)
        let values = [0.7, 1.1, 0.9, 1.0]  // mean 0.925, s = 0.17078, t(0.975, 3) = 3.182446
        let e = SLOEvaluation(o, values: values)
        XCTAssertEqual(e.verdict, .undecided)
        // n ≈ (t·s / |mean − threshold|)² = (3.182446 · 0.170783 / 0.075)² = 52.5 → 53.
        XCTAssertEqual(e.replicationsToDecide, 53)
        XCTAssertEqual(SLOEvaluation(o, values: [1.0]).verdict, .undecided, "one value: no interval")
        XCTAssertEqual(SLOEvaluation(o, values: [.nan, .nan]).mean, nil)
        let report = SLOReport([o, ServiceLevelObjective(metric: "k", op: .atLeast, threshold: 5)]) { $0 == "m" ? [0.5, 0.6] : [1, 1.1] }
        XCTAssertEqual(report.verdict, .fail)
        XCTAssertEqual(report.binding?.objective.metric, "k")
    }

    func testAChanceConstraintIsJudgedByItsExactBoundAndSaysHowManyCleanReplicationsDecideIt() {
        // "No 503 on 95 % of days": three clean replications bound the chance of a clean day only
        // above 0.05^(1/3) ≈ 37 %, so the verdict is undecided and names 59 clean replications.
        let no503 = ServiceLevelObjective(metric: "origin.rejected503", op: .atMost, threshold: 0, confidence: 0.95, probability: 0.95)
        let three = SLOReport([no503]) { _ in [0, 0, 0] }.evaluations[0]
        XCTAssertEqual(three.verdict, .undecided)
        XCTAssertEqual(three.withinThreshold, 3)
        XCTAssertEqual(three.shareLower ?? 0, 0.368, accuracy: 0.001)
        XCTAssertEqual(three.replicationsToDecide, 59)
        XCTAssertEqual(three.intervalText, "P in [0.3684, 1]")
        XCTAssertEqual(three.meanText, "0 (3 of 3 within)")
        XCTAssertEqual(SLOReport([no503]) { _ in Array(repeating: 0, count: 59) }.verdict, .pass)
        XCTAssertEqual(SLOReport([no503]) { _ in Array(repeating: 0, count: 58) }.verdict, .undecided)
        // Rejections on most days fail it: 1 clean of 5 puts the upper bound far below 0.95.
        let bad = SLOReport([no503]) { _ in [0, 9, 4, 30, 2] }.evaluations[0]
        XCTAssertEqual(bad.verdict, .fail)
        XCTAssertLessThan(bad.shareUpper ?? 1, 0.95)
        // The t interval of the same values would straddle 0 and be undecided; the mean's interval
        // is not what a chance constraint reads.
        XCTAssertNil(bad.lower)
        // 1 of 12 days with 503s at q 0.9 and 90 %: undecided, and more replications at the observed
        // share 11/12 would decide it (≈ 0.917 > 0.9): the count is finite and above 12.
        let q90 = ServiceLevelObjective(metric: "origin.rejected503", op: .atMost, threshold: 0, confidence: 0.9, probability: 0.9)
        let oneOfTwelve = SLOReport([q90]) { _ in Array(repeating: 0, count: 11) + [3] }.evaluations[0]
        XCTAssertEqual(oneOfTwelve.verdict, .undecided)
        let toDecide = try? XCTUnwrap(oneOfTwelve.replicationsToDecide)
        XCTAssertGreaterThan(toDecide ?? 0, 12)
        XCTAssertEqual(q90.cleanReplicationsToPass, 22)
        XCTAssertEqual(q90.text, "origin.rejected503 <= 0 in ≥ 90 % of replications at 90 %")
    }

    func testThePlannerAddsReplicationsUntilAChanceConstraintIsDecided() throws {
        // Below 100 no replication has 503s; above, every one does. Starting at 3 replications the
        // planner must reach the 22 clean ones that show q 0.9 at 90 % before it calls a value passing.
        let q90 = ServiceLevelObjective(metric: "origin.rejected503", op: .atMost, threshold: 0, confidence: 0.9, probability: 0.9)
        let search = PlanSearch(lower: 10, upper: 1000, isInteger: true, goal: .maximize, tolerance: .absolute(50),
                                initialReplications: 3, maxReplications: 22)
        var counts: [Int] = []
        let (evaluations, answer) = search.run { value, n in
            counts.append(n)
            return SLOReport([q90]) { _ in Array(repeating: value <= 100 ? 0 : 7, count: n) }
        }
        XCTAssertEqual(answer.status, .boundary)
        XCTAssertLessThanOrEqual(try XCTUnwrap(answer.lastPass), 100)
        XCTAssertGreaterThan(try XCTUnwrap(answer.firstNotPassing), 100)
        XCTAssertTrue(evaluations.filter { $0.verdict == .pass }.allSatisfy { $0.replications == 22 }, "\(evaluations.map { ($0.value, $0.replications) })")
        XCTAssertTrue(counts.contains(22))
        // Failing values are decided early: 0 of 3 within puts the upper bound at 1 − 0.1^(1/3) ≈ 0.54.
        XCTAssertTrue(evaluations.filter { $0.verdict == .fail }.allSatisfy { $0.replications == 3 })
    }

    func testIntervalsAreClippedToTheMetricsRangeWithoutChangingAVerdict() {
        // A count's t interval [-4.9, 9.4] reads [0, 9.4]; a share's never passes 1.
        let few503 = ServiceLevelObjective(metric: "origin.rejected503", op: .atMost, threshold: 5)
        let e = SLOReport([few503]) { _ in [0, 0, 0, 9] }.evaluations[0]
        XCTAssertEqual(e.lower, 0)
        XCTAssertEqual(e.verdict, .undecided)
        let most = ServiceLevelObjective(metric: "edge.prestageHitRatio", op: .atLeast, threshold: 0.9)
        let hits = SLOReport([most]) { _ in [0.999, 0.93, 1] }.evaluations[0]
        XCTAssertEqual(hits.upper, 1)
        XCTAssertEqual(hits.verdict, .undecided)
        XCTAssertEqual(SLOReport([most]) { _ in [0.95, 0.85, 0.93] }.verdict, .undecided)
    }

    func testToleranceParsing() {
        XCTAssertEqual(PlanTolerance.parse("10%"), .relative(0.1))
        XCTAssertEqual(PlanTolerance.parse("5000"), .absolute(5000))
        XCTAssertNil(PlanTolerance.parse("0"))
        XCTAssertNil(PlanTolerance.parse("-3%"))
        XCTAssertNil(PlanTolerance.parse("abc"))
    }

    /// People read plan values to the tolerance's resolution (a tenth of it, to a power of ten).
    func testValuesForPeopleAreRoundedToTheTolerance() {
        XCTAssertEqual(PlanTolerance.relative(0.01).display(75807.775), "75810")
        XCTAssertEqual(PlanTolerance.relative(0.05).display(75807.775), "75800")
        XCTAssertEqual(PlanTolerance.relative(0.10).display(33740.47951142095), "33700")
        XCTAssertEqual(PlanTolerance.absolute(50).display(75807.775), "75808")
        XCTAssertEqual(PlanTolerance.absolute(0.05).display(0.123456), "0.123")
        XCTAssertEqual(PlanTolerance.absolute(1).display(12), "12", "an integer stays an integer")
        XCTAssertEqual(PlanTolerance.relative(0.25).display(0), "0")
    }
}

/// A bracket carried from one `--for` value to the next: verified afresh, and a full bisection's
/// answer when it does not hold.
final class PlanSearchCarryTests: XCTestCase {
    /// Deterministic objective "x ≤ threshold" (no noise: each verdict is exact).
    func run(_ search: PlanSearch, threshold: Double, from previous: PlanAnswer?) -> (evaluations: [PlanEvaluation], answer: PlanAnswer) {
        let objective = ServiceLevelObjective(metric: "m", op: .atMost, threshold: threshold)
        return search.run(from: previous) { (x: Double, n: Int) -> SLOReport in SLOReport([objective]) { _ in [Double](repeating: x, count: n) } }
    }

    func testABracketThatStillHoldsIsConfirmedInTwoEvaluations() {
        let search = PlanSearch(lower: 1, upper: 1000, isInteger: false, goal: .maximize, tolerance: .relative(0.10),
                                initialReplications: 2, maxReplications: 2)
        let first = run(search, threshold: 37.3, from: nil)
        XCTAssertGreaterThan(first.evaluations.count, 2)
        // The boundary moved, but stays inside the old bracket: two evaluations confirm it.
        let second = run(search, threshold: 37.5, from: first.answer)
        XCTAssertEqual(second.evaluations.map(\.value), [first.answer.lastPass!, first.answer.firstNotPassing!])
        XCTAssertEqual(second.answer.status, .boundary)
        XCTAssertEqual(second.answer.lastPass, first.answer.lastPass)
    }

    /// Wherever the boundary moves, the carried search brackets it within the tolerance, as the
    /// search from the range's ends does; it never tries more values than that search plus the two
    /// bracket ends (every bisection step halves the same log-width).
    func testWhereverTheBoundaryMovesTheAnswerBracketsItWithinTheTolerance() {
        for goal in [PlanGoal.maximize, .minimize] {
            let search = PlanSearch(lower: 1, upper: 1000, isInteger: false, goal: goal, tolerance: .relative(0.05),
                                    initialReplications: 2, maxReplications: 2)
            let objective = { (t: Double) in ServiceLevelObjective(metric: "m", op: goal == .maximize ? .atMost : .atLeast, threshold: t) }
            func solve(_ t: Double, from previous: PlanAnswer?) -> (evaluations: [PlanEvaluation], answer: PlanAnswer) {
                search.run(from: previous) { (x: Double, n: Int) -> SLOReport in SLOReport([objective(t)]) { _ in [Double](repeating: x, count: n) } }
            }
            var previous: PlanAnswer? = nil
            for t in [37.3, 40, 12, 500, 501, 2, 990] {
                let fresh = solve(t, from: nil), carried = solve(t, from: previous)
                for (name, r) in [("fresh", fresh), ("carried", carried)] {
                    XCTAssertEqual(r.answer.status, .boundary, "\(goal) t=\(t) \(name)")
                    guard let p = r.answer.lastPass, let q = r.answer.firstFail else { XCTFail("\(goal) t=\(t) \(name): no bracket"); continue }
                    if goal == .maximize { XCTAssertTrue(p <= t && t < q, "\(goal) t=\(t) \(name): [\(p), \(q)]") }
                    else { XCTAssertTrue(q < t && t <= p, "\(goal) t=\(t) \(name): [\(q), \(p)]") }
                    XCTAssertLessThanOrEqual(abs(q - p), 0.05 * p + 1e-9, "\(goal) t=\(t) \(name)")
                }
                XCTAssertLessThanOrEqual(carried.evaluations.count, fresh.evaluations.count + 2, "\(goal) t=\(t)")
                previous = carried.answer
            }
        }
    }

    /// A bracket whose passing end no longer passes falls back to the safe end; one whose safe end
    /// fails reads "nothing passes", as without a bracket.
    func testABrokenBracketFallsBackToTheRangesEnds() {
        let search = PlanSearch(lower: 1, upper: 1000, isInteger: false, goal: .maximize, tolerance: .relative(0.10),
                                initialReplications: 2, maxReplications: 2)
        let first = run(search, threshold: 300, from: nil)
        let lower = run(search, threshold: 0.5, from: first.answer)
        XCTAssertEqual(lower.answer.status, .nonePass)
        XCTAssertEqual(lower.evaluations.map(\.value), [first.answer.lastPass!, 1])
        let allPass = run(search, threshold: 5_000, from: first.answer)
        XCTAssertEqual(allPass.answer.status, .allPass)
        XCTAssertEqual(allPass.answer.lastPass, 1000)
    }
}
