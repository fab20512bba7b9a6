import Foundation

/// Tick values for a chart axis: "nice" numbers on a 1-2-5 ladder (…, 0.1, 0.2, 0.5, 1, 2, 5, 10, …).
package struct AxisTicks: Sendable, Equatable {
    /// The axis starts here (a multiple of `step` on a linear axis; a 1-2-5 value on a log axis).
    package let lower: Double
    /// The axis ends here; `lower ... upper` covers the requested range.
    package let upper: Double
    /// The tick values in increasing order, `lower` and `upper` included.
    package let values: [Double]
    /// Digits after the point needed to print every tick exactly (0 for integer steps).
    package let decimals: Int

    /// Largest number of intervals an axis may have, whatever the caller asks for.
    package static let intervalsMax = 50

    /// Tick indices stay below 2^52 so they, and index × mantissa, are exact.
    private static let indexMax = 4_503_599_627_370_496.0

    /// Linear ticks covering `low ... high` with the smallest 1-2-5 step that needs at most
    /// `maxIntervals` intervals (clamped to 2...`intervalsMax`: a range across zero never fits in one). `lower` is the largest multiple of the step ≤ `low`, `upper` the smallest
    /// ≥ `high`. An empty or degenerate range (`low == high`, non-finite bounds) is widened to a unit range.
    /// Ticks are computed as integer multiples of the step (no accumulated rounding error).
    ///
    /// Example: `linear(0, 1234, maxIntervals: 8)` → step 200, ticks 0, 200, …, 1400.
    /// - Complexity: O(maxIntervals).
    package static func linear(_ low: Double, _ high: Double, maxIntervals: Int = 6) -> AxisTicks {
        let intervals = min(max(maxIntervals, 2), intervalsMax)
        let finite = [low, high].filter { $0.isFinite }
        var lo = finite.min() ?? 0
        var hi = finite.max() ?? 0
        if hi - lo <= 0 {
            if lo == 0 { hi = 1 } else { let pad = abs(lo) * 0.5; lo -= pad; hi += pad }
        }
        guard (hi - lo).isFinite else {
            // A range wider than the largest Double: no nice step exists; show the two ends.
            return AxisTicks(lower: lo, upper: hi, values: [lo, hi], decimals: 0)
        }
        // Start one 1-2-5 rung below the raw step and climb until the range fits in `intervals` and the tick
        // indices are exact integers (|index| < 2^52, so far-from-zero ranges cannot overflow Int64).
        var exponent = Int((log10((hi - lo) / Double(intervals))).rounded(.down)) - 1
        var rung = 0
        let mantissas: [Int64] = [1, 2, 5]
        while true {
            let step = Self.step(mantissa: mantissas[rung], exponent: exponent)
            let first = (lo / step).rounded(.down)
            let last = (hi / step).rounded(.up)
            if last - first <= Double(intervals) && last > first && abs(first) < Self.indexMax && abs(last) < Self.indexMax {
                let firstIndex = Int64(first)
                let count = Int64(last - first)
                let values = (0...count).map { value(index: firstIndex + $0, mantissa: mantissas[rung], exponent: exponent) }
                return AxisTicks(lower: values[0], upper: values[values.count - 1], values: values,
                                 decimals: max(0, -exponent))
            }
            rung += 1
            if rung == mantissas.count { rung = 0; exponent += 1 }
        }
    }

    /// Logarithmic ticks covering `low ... high` (both > 0; non-positive or non-finite input is replaced by
    /// a one-decade range around the valid bound). The axis runs from the largest 1-2-5 value ≤ `low` to the
    /// smallest ≥ `high`. Ticks are every 1-2-5 value when the axis spans at most `detailedDecadesMax`
    /// decades, else only powers of ten (plus the end points).
    ///
    /// Example: `logarithmic(30, 4000)` → 20, 50, 100, 200, 500, 1000, 2000, 5000.
    /// - Complexity: O(decades).
    package static func logarithmic(_ low: Double, _ high: Double, detailedDecadesMax: Int = 3) -> AxisTicks {
        var lo = low, hi = high
        if !(lo > 0 && lo.isFinite) { lo = (hi > 0 && hi.isFinite) ? hi / 10 : 1 }
        if !(hi > 0 && hi.isFinite) || hi < lo { hi = lo * 10 }
        if hi == lo { hi = lo * 10 }
        // Every 1-2-5 value in [floor(lo), ceil(hi)] as (mantissa, exponent) pairs, computed exactly.
        let exponentLow = Int(log10(lo).rounded(.down))
        let exponentHigh = Int(log10(hi).rounded(.up))
        let mantissas: [Int64] = [1, 2, 5]
        var ladder: [(value: Double, exponent: Int, isDecade: Bool)] = []
        for exponent in exponentLow...exponentHigh {
            for mantissa in mantissas {
                ladder.append((value(index: 1, mantissa: mantissa, exponent: exponent), exponent, mantissa == 1))
            }
        }
        let startIndex = ladder.lastIndex { $0.value <= lo * (1 + 1e-12) } ?? 0
        let endIndex = ladder.firstIndex { $0.value >= hi * (1 - 1e-12) } ?? ladder.count - 1
        let span = ladder[startIndex...endIndex]
        let decades = log10(span[endIndex].value / span[startIndex].value)
        let detailed = decades <= Double(detailedDecadesMax) + 1e-9
        let kept = span.enumerated().filter { offset, rung in
            detailed || rung.isDecade || offset == 0 || offset == span.count - 1
        }.map { $0.element }
        let decimals = max(0, -(kept.map { $0.exponent }.min() ?? 0))
        return AxisTicks(lower: kept[0].value, upper: kept[kept.count - 1].value, values: kept.map { $0.value },
                         decimals: decimals)
    }

    private static func step(mantissa: Int64, exponent: Int) -> Double { value(index: 1, mantissa: mantissa, exponent: exponent) }

    /// index × mantissa × 10^exponent, computed so decimal steps print exactly (3 × 0.1 is 0.3, not 0.30000000000000004).
    private static func value(index: Int64, mantissa: Int64, exponent: Int) -> Double {
        var power = 1.0
        for _ in 0..<abs(exponent) { power *= 10 }
        let units = Double(index * mantissa)
        return exponent >= 0 ? units * power : units / power
    }
}
