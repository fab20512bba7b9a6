import Foundation
import ScenarioFormat
import SimStats

/// The verdict of one gate check.
package enum BenchVerdict: String, Sendable, Equatable {
    /// No significant worsening, or one within the practical threshold.
    case pass
    /// Significantly better and beyond the threshold (passes).
    case improvement
    /// Significantly worse AND beyond the practical threshold (fails).
    case regression
    /// The fingerprint differs from the baseline's (fails: update the baseline deliberately).
    case changed
    /// The metric is in the baseline but the run no longer produces it (fails).
    case missing
    /// Not compared (too few finite pairs, or a debug build for speed); passes with a note.
    case skipped

    /// Whether this verdict fails the gate.
    var fails: Bool { self == .regression || self == .changed || self == .missing }
}

/// One scenario × metric line of the gate.
package struct BenchMetricCheck: Sendable, Equatable {
    /// The scenario's name.
    let scenario: String
    /// The metric and its threshold.
    let gate: BenchMetricGate
    /// The metric's unit.
    let unit: String
    /// Mean of the baseline's values (nil if it has none).
    let baselineMean: Double?
    /// Mean of this run's values (nil if it has none).
    let nowMean: Double?
    /// Paired interval for E[now − baseline] at `BenchSuite.confidenceLevel`.
    let difference: ConfidenceInterval?
    /// The practical threshold in the metric's unit (≥ 0; a worsening larger than this counts).
    let threshold: Double?
    /// The decision.
    let verdict: BenchVerdict
    /// Why, in a few words ("significant, beyond threshold", "within threshold", …).
    let note: String
}

/// One scenario's fingerprint check.
package struct BenchFingerprintCheck: Sendable, Equatable {
    /// The scenario's name.
    let scenario: String
    /// The recorded fingerprint.
    let baseline: BenchFingerprint
    /// This run's fingerprint.
    let now: BenchFingerprint
    /// `.pass` when equal, else `.changed`.
    let verdict: BenchVerdict
}

/// The CPU-time ratio (informational; the speed gate is `BenchInstructionCheck`).
package struct BenchSpeedCheck: Sendable, Equatable {
    /// The recorded suite ratio (CPU time of the scenarios ÷ the calibration loop's).
    package let baselineRatio: Double?
    /// This run's suite ratio.
    package let nowRatio: Double?
    /// nowRatio ÷ baselineRatio.
    package let factor: Double?
    /// `.pass` when measured (informational, never fails), `.skipped` when not measured.
    package let verdict: BenchVerdict
    /// Why, and the CPU times measured.
    package let note: String

    /// A check with these values.
    package init(baselineRatio: Double?, nowRatio: Double?, factor: Double?, verdict: BenchVerdict, note: String) {
        self.baselineRatio = baselineRatio
        self.nowRatio = nowRatio
        self.factor = factor
        self.verdict = verdict
        self.note = note
    }
}

/// The gate's decisions, as pure functions of baseline and run values.
package enum BenchGate {
    /// Compares one gated metric: paired over replications (same seed and replication count as
    /// the baseline, so replication r of both used the same random streams).
    ///
    /// Regression iff the paired interval excludes 0 on the worse side AND the mean difference is
    /// worse than `gate.threshold(baselineMean:)`. Pairs where either side has no value are
    /// dropped; fewer than 2 pairs → skipped. A baseline metric the run lacks → missing.
    /// - Complexity: O(replications).
    static func check(scenario: String, gate: BenchMetricGate, unit: String, baseline: [Double?]?, now: [Double?]?) -> BenchMetricCheck {
        func mean(_ v: [Double?]?) -> Double? {
            let f = (v ?? []).compactMap { $0 }
            return f.isEmpty ? nil : f.reduce(0, +) / Double(f.count)
        }
        let bMean = mean(baseline), nMean = mean(now)
        func result(_ d: ConfidenceInterval?, _ t: Double?, _ v: BenchVerdict, _ note: String) -> BenchMetricCheck {
            BenchMetricCheck(scenario: scenario, gate: gate, unit: unit, baselineMean: bMean, nowMean: nMean,
                             difference: d, threshold: t, verdict: v, note: note)
        }
        guard let baseline, bMean != nil else {
            return result(nil, nil, .skipped, now == nil ? "not produced" : "not in the baseline")
        }
        guard let now, nMean != nil else { return result(nil, nil, .missing, "in the baseline, not produced now") }
        guard baseline.count == now.count else {
            return result(nil, nil, .skipped, "replication counts differ (\(baseline.count) vs \(now.count))")
        }
        var a: [Double] = [], b: [Double] = []
        for i in baseline.indices { if let x = baseline[i], let y = now[i] { a.append(x); b.append(y) } }
        guard a.count >= 2, let pc = try? PairedComparison(baseline: a, variant: b, better: gate.better, level: BenchSuite.confidenceLevel)
        else { return result(nil, nil, .skipped, "fewer than 2 replications with a value in both") }
        let d = pc.pairedDifference
        let t = gate.threshold(baselineMean: a.reduce(0, +) / Double(a.count))
        let worsening = gate.better == .lower ? d.mean : -d.mean
        switch pc.verdict {
        case .noSignificantDifference:
            return result(d, t, .pass, "no significant difference")
        case .significantRegression:
            return worsening > t ? result(d, t, .regression, "significantly worse, beyond the threshold")
                                 : result(d, t, .pass, "significantly worse, within the threshold")
        case .significantImprovement:
            return -worsening > t ? result(d, t, .improvement, "significantly better, beyond the threshold")
                                  : result(d, t, .pass, "significantly better, within the threshold")
        }
    }

    /// Every gated metric of one scenario, in `BenchSuite.gates` order.
    package static func checks(_ run: BenchScenarioRun, baseline: BenchBaseline) -> [BenchMetricCheck] {
        BenchSuite.gates.map { gate in
            let now = run.metrics.first { $0.name == gate.name }
            let base = baseline.metric(gate.name)
            return check(scenario: run.scenario.name, gate: gate, unit: now?.unit ?? base?.unit ?? "", baseline: base?.values, now: now?.values)
        }
    }

    /// Equal fingerprints pass; any difference (hash or event count) is `changed`.
    /// A fingerprint that differs is `.changed` (a failure) when `judged`, else `.skipped` (reported).
    package static func check(scenario: String, baseline: BenchFingerprint, now: BenchFingerprint, judged: Bool = true) -> BenchFingerprintCheck {
        BenchFingerprintCheck(scenario: scenario, baseline: baseline, now: now, verdict: baseline == now ? .pass : judged ? .changed : .skipped)
    }

    /// The CPU-time ratio against its baseline: informational (`.pass`), never a failure; CPU time
    /// on a shared machine moves too much between runs of one binary to gate on.
    package static func checkSpeed(baselineRatio: Double, nowRatio: Double) -> BenchSpeedCheck {
        let factor = nowRatio / baselineRatio
        return BenchSpeedCheck(baselineRatio: baselineRatio, nowRatio: nowRatio, factor: factor, verdict: .pass,
                               note: "informational (the gate counts instructions instead)")
    }
}
