// Tap-to-paint over time: the columns of tap-to-paint-windows.csv (one row per window of tap time)
// and what each counts, stated once for the CSV writer, the report's chart and docs/metrics.md.

/// One column of a per-window table.
package struct WindowColumn: Sendable, Equatable {
    /// The CSV header, e.g. "p95Seconds".
    package let name: String
    package let unit: MetricUnit
    /// What the value is, in words (docs/metrics.md states it exactly so).
    package let meaning: String
}

extension MetricTable {
    /// The tap-to-paint quantiles read per window.
    package enum WindowQuantile: String, Sendable, CaseIterable {
        case p50
        case p95

        /// The quantile as a probability.
        package var probability: Double { self == .p50 ? 0.5 : 0.95 }
    }

    /// What every per-window tap-to-paint figure is over.
    package static let tapToPaintWindowSample = "painted taps whose tap fell in the window, all replications pooled"

    /// The results file of the tap-to-paint quantiles over time.
    package static let tapToPaintWindowsFile = "tap-to-paint-windows.csv"

    /// The columns of `tapToPaintWindowsFile`, in order: the window, the pooled count, one column per
    /// `WindowQuantile`.
    package static let tapToPaintWindowColumns: [WindowColumn] = [
        WindowColumn(name: "windowStartSecond", unit: .seconds,
                     meaning: "the window's first second of tap time, from second 0 of the horizon (the tap's instant, not the paint's)"),
        WindowColumn(name: "windowSeconds", unit: .seconds, meaning: "the window's width (\(PushMetrics.tapToPaintWindowSeconds) s; doubled for horizons over 6 h)"),
        WindowColumn(name: "paintedTaps", unit: .count, meaning: tapToPaintWindowSample + " (a sum, not a mean per replication)"),
    ] + WindowQuantile.allCases.map {
        WindowColumn(name: $0.rawValue + "Seconds", unit: .seconds,
                     meaning: "tap-to-paint \($0.rawValue) of the " + tapToPaintWindowSample + "; empty when there are none")
    }
}
