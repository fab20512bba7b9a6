import Foundation
import XCTest
@testable import ReportKit

final class AxisTicksTests: XCTestCase {
    func testLinearExamples() {
        // 0…1234 in at most 8 intervals: step 100 needs 13, step 200 needs 7 → 0, 200, …, 1400.
        XCTAssertEqual(AxisTicks.linear(0, 1234, maxIntervals: 8).values, [0, 200, 400, 600, 800, 1000, 1200, 1400])
        // At most 3 intervals: 200 needs 7, 500 needs 3.
        // A budget of 1 is raised to 2: -1…1 needs two intervals whatever the step.
        XCTAssertEqual(AxisTicks.linear(-1000, 234, maxIntervals: 1).values, [-1000, 0, 1000])
        XCTAssertEqual(AxisTicks.linear(0, 1234, maxIntervals: 3).values, [0, 500, 1000, 1500])
        // Decimal steps are exact multiples, not accumulated sums (0.6, not 0.6000000000000001).
        let unit = AxisTicks.linear(0, 1, maxIntervals: 5)
        XCTAssertEqual(unit.values, [0, 0.2, 0.4, 0.6, 0.8, 1])
        XCTAssertEqual(unit.decimals, 1)
        // -37…81 in at most 6: step 20 spans -40…100 (7 intervals), step 50 spans -50…100 (3).
        XCTAssertEqual(AxisTicks.linear(-37, 81, maxIntervals: 6).values, [-50, 0, 50, 100])
        XCTAssertEqual(AxisTicks.linear(0.013, 0.0171, maxIntervals: 5).values, [0.013, 0.014, 0.015, 0.016, 0.017, 0.018])
        XCTAssertEqual(AxisTicks.linear(0.013, 0.0171, maxIntervals: 5).decimals, 3)
    }

    func testLinearDegenerateInputStillGivesAUsableAxis() {
        XCTAssertEqual(AxisTicks.linear(0, 0).values.first, 0)
        XCTAssertEqual(AxisTicks.linear(0, 0).values.last, 1)
        let single = AxisTicks.linear(5, 5)
        XCTAssertLessThan(single.lower, 5)
        XCTAssertGreaterThan(single.upper, 5)
        let nan = AxisTicks.linear(.nan, .infinity)
        XCTAssertTrue(nan.values.allSatisfy { $0.isFinite })
        XCTAssertGreaterThanOrEqual(nan.values.count, 2)
        // Reversed bounds are accepted (treated as the same range).
        XCTAssertEqual(AxisTicks.linear(10, 0, maxIntervals: 5).values.first, 0)
        XCTAssertGreaterThanOrEqual(AxisTicks.linear(10, 0, maxIntervals: 5).values.last ?? 0, 10)
    }

    /// Over a grid of ranges and interval budgets: the axis covers the range, ticks are evenly spaced
    /// multiples of a 1-2-5 step, the interval count respects the budget, and the step is the smallest
    /// 1-2-5 step that does (the next smaller one would exceed the budget).
    func testLinearPropertiesOverAGridOfRanges() {
        let lows: [Double] = [-1000, -3.7, 0, 0.013, 12, 987_654]
        let spans: [Double] = [0.001, 0.37, 1, 9.99, 1234, 1e6]
        for low in lows {
            for span in spans {
                for maxIntervals in 1...10 {
                    let high = low + span
                    let ticks = AxisTicks.linear(low, high, maxIntervals: maxIntervals)
                    let context = "range \(low)…\(high), max \(maxIntervals): \(ticks.values)"
                    XCTAssertLessThanOrEqual(ticks.lower, low, context)
                    XCTAssertGreaterThanOrEqual(ticks.upper, high, context)
                    XCTAssertLessThanOrEqual(ticks.values.count - 1, max(maxIntervals, 2), context)
                    XCTAssertGreaterThanOrEqual(ticks.values.count, 2, context)
                    // Far from zero (987654.0001…) tick differences carry ~1e-10 absolute rounding, so the
                    // mantissa is compared with a tolerance of 1e-4: ample to tell 1, 2 and 5 apart.
                    let step = (ticks.upper - ticks.lower) / Double(ticks.values.count - 1)
                    let exponent = floor(log10(step) + 1e-6)
                    let mantissa = step / pow(10, exponent)
                    XCTAssertTrue([1.0, 2, 5].contains { abs($0 - mantissa) < 1e-4 }, "step \(step) is not 1-2-5; \(context)")
                    for index in 1..<ticks.values.count {
                        // Tolerance: a few ulps of the tick magnitude (ticks are correctly rounded decimals).
                        XCTAssertEqual(ticks.values[index] - ticks.values[index - 1], step,
                                       accuracy: step * 1e-6 + abs(ticks.values[index]) * 1e-15, context)
                    }
                    let lowerSteps = ticks.lower / step
                    XCTAssertEqual(lowerSteps.rounded(), lowerSteps, accuracy: 1e-6 * max(1, abs(lowerSteps)), "lower is a multiple of the step; \(context)")
                    let smaller = mantissa < 1.5 ? 0.5 * step : (mantissa < 3 ? 0.5 * step : 0.4 * step)
                    let smallerIntervals = ceil(high / smaller - 1e-9) - floor(low / smaller + 1e-9)
                    XCTAssertGreaterThan(smallerIntervals, Double(max(maxIntervals, 2)), "a smaller 1-2-5 step (\(smaller)) would fit; \(context)")
                }
            }
        }
    }

    func testLogarithmicExamples() {
        // 30…4000 spans 20…5000 (2.4 decades ≤ 3): every 1-2-5 value.
        XCTAssertEqual(AxisTicks.logarithmic(30, 4000).values, [20, 50, 100, 200, 500, 1000, 2000, 5000])
        // 0.5…2e6 spans 6.6 decades: powers of ten plus the two ends.
        let wide = AxisTicks.logarithmic(0.5, 2e6)
        XCTAssertEqual(wide.values, [0.5, 1, 10, 100, 1000, 10_000, 100_000, 1_000_000, 2_000_000])
        XCTAssertEqual(wide.decimals, 1)
        // Exact 1-2-5 bounds are kept, not widened.
        XCTAssertEqual(AxisTicks.logarithmic(100, 1000).values, [100, 200, 500, 1000])
        // A non-positive lower bound (log of 0) falls back to one decade below the upper bound.
        XCTAssertEqual(AxisTicks.logarithmic(0, 100).values, [10, 20, 50, 100])
    }
}
