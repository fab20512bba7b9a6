import Foundation
import PushModel
import ScenarioFormat
import SimStats

/// One model metric the regression gate watches, with its practical threshold.
///
/// A difference (now − baseline, paired over the same replication seeds) is a regression only
/// when it is statistically significant on the worse side (the paired interval at
/// `BenchSuite.confidenceLevel` excludes 0) AND its mean is worse than
/// `threshold(baselineMean:)` = max(`relative` · |baseline mean|, `absolute`).
struct BenchMetricGate: Sendable, Equatable {
    /// The metric's name in `summary.json`, e.g. "tapToPaint.p95Seconds".
    let name: String
    /// Which direction is better.
    let better: BetterDirection
    /// Relative part of the practical threshold (0.05 = 5 % of the baseline mean).
    let relative: Double
    /// Absolute part of the practical threshold, in the metric's unit (0.01 = 1 point of a ratio).
    let absolute: Double
    /// How the threshold reads in reports, e.g. "+5 % or +50 ms".
    let thresholdText: String

    /// A gate; see the properties.
    init(_ name: String, better: BetterDirection, relative: Double = 0, absolute: Double, text: String) {
        self.name = name
        self.better = better
        self.relative = relative
        self.absolute = absolute
        self.thresholdText = text
    }

    /// The smallest worsening that counts: max(relative · |baselineMean|, absolute) (≥ 0).
    func threshold(baselineMean: Double) -> Double { max(relative * abs(baselineMean), absolute) }
}

/// The fixed parts of `prestage bench`: the watched metrics and their thresholds, the confidence
/// level, the instruction margin and the default locations. The gated metrics and their thresholds
/// come from PushModel's `MetricTable`; docs/ci.md describes them.
package enum BenchSuite {
    /// The gated metrics, in report order.
    static let gates: [BenchMetricGate] = MetricTable.benchGated.map { id in
        let spec = id.spec
        guard let gate = spec.gate, let better = spec.better.direction else {
            preconditionFailure("MetricTable.benchGated lists \(spec.name) without a gate and a better direction")
        }
        return BenchMetricGate(spec.name, better: better, relative: gate.relative, absolute: gate.absolute, text: gate.text)
    }

    /// Confidence level of the paired intervals. 99 % rather than 95 %: the gate makes tens of
    /// comparisons per run, and the practical threshold must be exceeded as well.
    static let confidenceLevel = 0.99

    /// The speed gate fails when the counted workload (`BenchInstructions.countedRun`) executes
    /// more than this factor times the baseline's instructions (+3 %). Callgrind counts the same
    /// binary to within a few instructions run after run, whatever the machine's load; CPU time on
    /// a loaded 2-core machine moved by ×1.26 between three runs of one binary, so it is reported
    /// but never fails the gate.
    package static let instructionMarginFactor = 1.03
    /// Functions listed in the report's "where it moved" table.
    static let instructionFunctionRows = 12
    /// Rounds of (calibration, every scenario's replication 0) timed; the reported ratio is the
    /// median of the per-round ratios (informational).
    package static let speedRounds = 5
    /// `--update-baseline` records the median suite ratio of this many measurements (odd).
    package static let speedBaselineMeasurements = 3

    /// Most scenario files a suite directory may hold.
    package static let scenariosMax = 32
    /// Largest baseline file read, bytes.
    static let baselineBytesMax = 16 << 20

    /// Suite directory, relative to a scenario directory (`scenarios/bench`).
    package static let suiteSubdirectory = "bench"
    /// Baseline directory under the results parent (`results/baseline`).
    package static let baselineSubdirectory = "baseline"
    /// Report directory under the results parent (`results/bench`).
    package static let outSubdirectory = "bench"

    /// The gate watching `name`, if any.
    static func gate(named name: String) -> BenchMetricGate? { gates.first { $0.name == name } }
}
