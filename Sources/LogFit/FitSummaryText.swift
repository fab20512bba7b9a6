import Foundation
import Stochastic

/// The few lines `prestage fit` prints: what was read and the chosen fit per series.
package enum FitSummaryText {
    package static func render(_ o: FitOutcome, overlay: ScenarioOverlay) -> String {
        func g(_ v: Double) -> String { String(format: "%.4g", v) }
        var l = ["prestage fit: \(o.linesRead) lines, \(o.rowsUsed) rows used, \(o.problems.count) malformed (\(Int(o.linesPerSecond)) lines/s)"]
        for s in FitReport.allSeries(o) where !s.name.hasPrefix("pop.") {
            let params = s.best.parameters.map { "\($0.name) \(g($0.estimate)) [\(g($0.lower)), \(g($0.upper))]" }.joined(separator: ", ")
            l.append("  \(s.name): \(s.best.family.rawValue) \(params); KS D \(g(s.best.goodness.ksStatistic)), n \(s.sample.observed.count)+\(s.sample.censored.count) censored")
        }
        if let h = o.edge?.hitRatio { l.append("  edge hit ratio: \(g(h.estimate)) [\(g(h.lower)), \(g(h.upper))]") }
        for p in o.push?.platforms ?? [] {
            guard let t = p.taps else { continue }
            l.append("  push.\(p.platform).tap: open probability \(g(t.eventProbability)), \(t.components.count) lognormal component(s), medians \(t.components.map { g($0.median) }.joined(separator: ", ")) s")
        }
        l.append("  overlay: \(overlay.set.count) path(s): \(overlay.set.keys.sorted().joined(separator: ", "))")
        return l.joined(separator: "\n") + "\n"
    }
}
