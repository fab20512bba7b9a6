import XCTest
import Stochastic
@testable import SimStats

final class ConfidenceIntervalTests: XCTestCase {
    func testHalfWidthMatchesTextbookTQuantile() throws {
        // x = 1...5: mean 3, S² = 2.5. t_{4, 0.975} = 2.776445 (standard t table).
        let ci = try ConfidenceInterval.studentT(sample: [1, 2, 3, 4, 5], level: 0.95)
        XCTAssertEqual(ci.mean, 3, accuracy: 1e-12)
        XCTAssertEqual(ci.halfWidth, 2.776445 * 2.5.squareRoot() / 5.0.squareRoot(), accuracy: 1e-5)
        XCTAssertEqual(ci.n, 5)
        XCTAssertEqual(ci.degreesOfFreedom, 4)
        XCTAssertEqual(ci.lower, ci.mean - ci.halfWidth)
        XCTAssertEqual(ci.upper, ci.mean + ci.halfWidth)
        XCTAssertTrue(ci.contains(3) && !ci.contains(10))
    }

    func testCoverageOfNinetyPercentIntervalsOnNormalData() throws {
        // 2000 intervals from n = 10 N(5, 2²) replications each; the count covering 5 is
        // Binomial(2000, 0.9): mean 1800, sd √(2000·0.9·0.1) ≈ 13.4. Accept mean ± 4.5 sd.
        let seed: UInt64 = 20_261_129
        let z = try normalDraws(seed: seed, count: 20_000)
        var covered = 0
        for k in 0..<2000 {
            let sample = (0..<10).map { 5 + 2 * z[k * 10 + $0] }
            if try ConfidenceInterval.studentT(sample: sample, level: 0.9).contains(5) { covered += 1 }
        }
        let sd = (2000 * 0.9 * 0.1).squareRoot()
        XCTAssertLessThanOrEqual(abs(Double(covered) - 1800), 4.5 * sd, "covered \(covered)/2000, seed \(seed)")
    }

    func testInvalidInputsAreErrors() {
        XCTAssertThrowsError(try ConfidenceInterval.studentT(sample: [1], level: 0.95)) {
            XCTAssertEqual($0 as? StatisticsError, .tooFewValues(needed: 2, found: 1))
        }
        XCTAssertThrowsError(try ConfidenceInterval.studentT(sample: [1, 2], level: 1.0)) {
            XCTAssertEqual($0 as? StatisticsError, .invalidConfidenceLevel(1.0))
        }
        XCTAssertThrowsError(try ConfidenceInterval.studentT(sample: [1, .nan, 2], level: 0.9)) {
            XCTAssertEqual(($0 as? StatisticsError)?.description, "value [1]: expected a finite number, found nan")
        }
    }

    func testCodableRoundTripAndValidation() throws {
        let ci = try ConfidenceInterval.studentT(sample: [2, 4, 9], level: 0.99)
        let data = try JSONEncoder().encode(ci)
        XCTAssertEqual(try JSONDecoder().decode(ConfidenceInterval.self, from: data), ci)
        let bad = Data(#"{"mean":1,"halfWidth":-1,"level":0.9,"n":3,"degreesOfFreedom":2}"#.utf8)
        XCTAssertThrowsError(try JSONDecoder().decode(ConfidenceInterval.self, from: bad))
    }
}

final class RunningMomentsTests: XCTestCase {
    func testWelfordIsStableWithLargeOffset() {
        // 1e9 + {4, 7, 13, 16}: mean 1e9 + 10, S² = (36 + 9 + 9 + 36) / 3 = 30 exactly.
        var m = RunningMoments()
        for x in [4.0, 7, 13, 16] { m.add(1e9 + x) }
        XCTAssertEqual(m.mean, 1e9 + 10, accuracy: 1e-6)
        XCTAssertEqual(m.variance ?? -1, 30, accuracy: 1e-6)
        XCTAssertEqual(m.minimum, 1e9 + 4)
        XCTAssertEqual(m.maximum, 1e9 + 16)
    }

    func testChanMergeEqualsSequentialAccumulation() throws {
        let seed: UInt64 = 77
        let xs = try normalDraws(seed: seed, count: 1001).map { 1000 + 50 * $0 }
        var all = RunningMoments()
        xs.forEach { all.add($0) }
        var shards = [RunningMoments](repeating: RunningMoments(), count: 3)
        for (i, x) in xs.enumerated() { shards[i % 3].add(x) }
        var merged = RunningMoments()
        merged.merge(RunningMoments())  // merging an empty accumulator is a no-op
        shards.forEach { merged.merge($0) }
        XCTAssertEqual(merged.count, all.count)
        // Both are sums of ~1000 rounded terms; relative agreement to 1e-12 is ~1000 ulps of slack.
        XCTAssertEqual(merged.mean, all.mean, accuracy: 1e-12 * abs(all.mean), "seed \(seed)")
        XCTAssertEqual(merged.variance ?? 0, all.variance ?? 1, accuracy: 1e-9 * (all.variance ?? 1), "seed \(seed)")
        XCTAssertEqual(merged.minimum, all.minimum)
        XCTAssertEqual(merged.maximum, all.maximum)
        XCTAssertNil(RunningMoments().variance)
    }
}

final class ReplicationPlannerTests: XCTestCase {
    func testAnswerIsTheSmallestNMeetingTheTarget() throws {
        for (s, h) in [(10.0, 1.0), (3.0, 2.5), (1.0, 0.05)] {
            let n = try XCTUnwrap(try ReplicationPlanner.replicationsNeeded(
                standardDeviation: s, targetHalfWidth: h, level: 0.95, maximumReplications: 100_000))
            func halfWidth(_ k: Int) -> Double {
                Quantiles.studentT(p: 0.975, degreesOfFreedom: Double(k - 1)) * s / Double(k).squareRoot()
            }
            XCTAssertLessThanOrEqual(halfWidth(n), h, "s \(s) h \(h)")
            if n > 2 { XCTAssertGreaterThan(halfWidth(n - 1), h, "s \(s) h \(h) n \(n)") }
            // For large n the t quantile tends to z = 1.959964: n ≥ (z s / h)².
            XCTAssertGreaterThanOrEqual(Double(n), (1.959964 * s / h) * (1.959964 * s / h) - 1e-9)
        }
    }

    func testPilotStartsTheSearchAndLimitsAreReported() throws {
        let pilot = try RunningMoments(validating: [10, 12, 11, 13, 9, 10, 12, 11, 10, 12])
        // A loose target is already met by the pilot's 10 replications.
        XCTAssertEqual(try ReplicationPlanner.replicationsNeeded(pilot: pilot, targetHalfWidth: 100, level: 0.95,
                                                                 maximumReplications: 1000), 10)
        XCTAssertNil(try ReplicationPlanner.replicationsNeeded(pilot: pilot, targetHalfWidth: 0.001, level: 0.95,
                                                               maximumReplications: 50))
        XCTAssertThrowsError(try ReplicationPlanner.replicationsNeeded(standardDeviation: 1, targetHalfWidth: 0,
                                                                      level: 0.95, maximumReplications: 10))
        XCTAssertThrowsError(try ReplicationPlanner.replicationsNeeded(standardDeviation: 1, targetHalfWidth: 1,
                                                                      level: 0.95, maximumReplications: 10_000_000))
    }
}
