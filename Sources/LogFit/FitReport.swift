import Foundation
import Stochastic

/// The fit report: `report.md` (inputs, problems, every candidate fit with intervals, AIC, BIC and
/// KS, shares, the overlay) and one QQ plot SVG per fitted series.
package enum FitReport {
    /// Points per QQ plot.
    static let qqPoints = 60

    /// Writes the report into `directory` (created if missing); returns the files written.
    package static func write(_ o: FitOutcome, overlay: ScenarioOverlay, to directory: URL) throws -> [URL] {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var written: [URL] = []
        var plots: [String: String] = [:]
        func plot(_ name: String, _ sample: CensoredSample, quantile: (Double) -> Double) throws {
            let file = "qq-" + name.replacingOccurrences(of: "/", with: "_") + ".svg"
            let svg = QQPlot.svg(title: name, points: GoodnessOfFitTest.qqPoints(sample, count: qqPoints, quantile: quantile))
            let url = directory.appendingPathComponent(file)
            try Data(svg.utf8).write(to: url, options: .atomic)
            written.append(url)
            plots[name] = file
        }
        for s in allSeries(o) { try plot(s.name, s.sample) { s.best.quantile($0) } }
        for p in o.push?.platforms ?? [] {
            if let t = p.taps, let sample = p.tapSample {
                // The Kaplan–Meier curve estimates P(tap ≤ t) = p · F(t): compare against that.
                try plot("push.\(p.platform).tapSeconds", sample) { u in u < t.eventProbability ? t.quantile(u / t.eventProbability) : .infinity }
            }
        }
        let url = directory.appendingPathComponent("report.md")
        try Data(markdown(o, overlay: overlay, plots: plots).utf8).write(to: url, options: .atomic)
        written.append(url)
        return written
    }

    static func allSeries(_ o: FitOutcome) -> [SeriesFit] {
        var out = o.edge?.series ?? []
        for pop in o.edge?.pops ?? [] { out += [pop.hitFirstByte, pop.upstream].compactMap { $0 } }
        out += (o.push?.platforms ?? []).compactMap(\.delivery)
        return out
    }

    static func g(_ v: Double?) -> String { v.map { String(format: "%.4g", $0) } ?? "—" }

    static func share(_ p: Proportion?) -> String {
        guard let p else { return "—" }
        return "\(g(p.estimate)) [\(g(p.lower)), \(g(p.upper))] (\(p.successes)/\(p.trials))"
    }

    static func markdown(_ o: FitOutcome, overlay: ScenarioOverlay, plots: [String: String]) -> String {
        let level = Int((o.request.confidenceLevel * 100).rounded())
        var l: [String] = ["# Fit report", ""]
        l.append("Format `\(o.request.format.rawValue)`; files: \((o.request.logs + o.request.pushLogs).map { "`\($0)`" }.joined(separator: ", ")).")
        l.append("\(o.linesRead) lines read, \(o.rowsUsed) rows used, \(o.problems.count) malformed; \(Int(o.linesPerSecond)) lines/s while reading.")
        l.append("Intervals: \(level) % (parametric: Wald on the log scale from the observed information; mixtures: bootstrap percentiles; shares: Clopper–Pearson).")
        l.append("Fits use a uniform reservoir sample of at most \(EdgeAccumulator.reservoirCapacity) values per series (\(EdgeAccumulator.popReservoirCapacity) per PoP, \(PushAccumulator.reservoirCapacity) per push series); counts and shares use every row.")
        if o.problems.count > 0 || !o.problems.fileNotes.isEmpty {
            l += ["", "## Malformed input", ""]
            l += o.problems.quoted.map { "- " + $0 }
            if o.problems.count > o.problems.quoted.count { l.append("- … and \(o.problems.count - o.problems.quoted.count) more") }
            l += o.problems.fileNotes.map { "- " + $0 }
        }
        if let e = o.edge {
            l += ["", "## Edge", "", "| share | estimate [CI] (count) |", "| --- | --- |"]
            l.append("| hit ratio (hits / (hits + misses)) | \(share(e.hitRatio)) |")
            l.append("| edge errors / requests | \(share(e.errorShare)) |")
            l.append("| origin 503 / origin requests | \(share(e.origin503Share)) |")
            l.append("| origin 5xx / origin requests | \(share(e.origin5xxShare)) |")
            if e.zeroDurations > 0 { l += ["", "\(e.zeroDurations) durations logged as 0 (below the log's resolution) were left out of the fits."] }
            for s in e.series { l += seriesTable(s, plots: plots) }
            if !e.pops.isEmpty {
                l += ["", "### PoPs (largest first; popIndex = row)", "", "| popIndex | PoP | requests | hit ratio [CI] | hit TTFB fit | upstream fit |", "| --- | --- | --- | --- | --- | --- |"]
                for (i, p) in e.pops.enumerated() {
                    l.append("| \(i) | \(p.code.isEmpty ? "(unknown)" : p.code) | \(p.requests) | \(share(p.hitRatio)) | \(p.hitFirstByte.map(describe) ?? "—") | \(p.upstream.map(describe) ?? "—") |")
                }
            }
            if !e.hitRatioAroundSend.isEmpty {
                l += ["", "### Hit ratio by minute around the send", "", "| minute from send | hit ratio | requests |", "| --- | --- | --- |"]
                for m in e.hitRatioAroundSend { l.append("| \(m.minute) | \(g(m.hitRatio)) | \(m.requests) |") }
            }
        }
        if let p = o.push {
            l += ["", "## Pushes", ""]
            l.append("Unopened delivered pushes are right-censored at the log's end (\(g(p.logEndSeconds)) s since 1970) minus their delivery; the tap model is a lognormal mixture with a never-open share (EM), so the open probability is estimated with the censoring, not as opened/delivered.")
            if p.zeroDelays > 0 { l.append("\(p.zeroDelays) delays of 0 s (timestamp resolution) were left out of the delay fits.") }
            for pl in p.platforms {
                l += ["", "### \(pl.platform)", "", "| figure | value |", "| --- | --- |"]
                l.append("| pushes | \(pl.pushes) |")
                l.append("| delivered share | \(share(pl.delivered)) |")
                l.append("| opened / delivered (naive, censoring ignored) | \(share(pl.openedShareOfDelivered)) |")
                if let t = pl.taps {
                    l.append("| open probability (cure model) | \(g(t.eventProbability)) |")
                    l.append("| tap-delay mixture | \(t.components.count) lognormal component(s), log L \(g(t.logLikelihood)), AIC \(g(t.aic)), BIC \(g(t.bic)), KS D \(g(t.goodness.ksStatistic)) |")
                    let names = t.components.count == 3 ? ["burst", "body", "tail"] : t.components.indices.map { "component \($0)" }
                    for (i, c) in t.components.enumerated() {
                        l.append("| \(names[i]) | weight \(g(c.weight)), median \(g(c.median)) s, σ \(g(c.sigma)) |")
                    }
                    for iv in t.intervals { l.append("| \(iv.name) (bootstrap) | \(g(iv.estimate)) [\(g(iv.lower)), \(g(iv.upper))] |") }
                    if let file = plots["push.\(pl.platform).tapSeconds"] { l.append("| QQ plot | ![tap delay](\(file)) |") }
                }
                if !pl.networks.isEmpty {
                    l.append("| networks | \(pl.networks.keys.sorted().map { "\($0) \(pl.networks[$0]!)" }.joined(separator: ", ")) |")
                }
                if let d = pl.delivery { l += seriesTable(d, plots: plots) }
            }
        }
        l += ["", "## Overlay", "", "| path | value |", "| --- | --- |"]
        for key in overlay.set.keys.sorted() { l.append("| `\(key)` | \(render(overlay.set[key]!)) |") }
        l += overlay.notes.map { "- " + $0 }
        return l.joined(separator: "\n") + "\n"
    }

    static func describe(_ s: SeriesFit) -> String {
        "\(s.best.family.rawValue) " + s.best.parameters.map { "\($0.name) \(g($0.estimate))" }.joined(separator: ", ") + " (n \(s.sample.observed.count))"
    }

    static func seriesTable(_ s: SeriesFit, plots: [String: String]) -> [String] {
        var l = ["", "### \(s.name) (\(s.unit))", ""]
        let q = s.loggedQuantiles
        let grid = s.sample.resolution > 0 ? " on a \(g(s.sample.resolution)) \(s.unit) grid (each value fitted as its grid cell)" : ""
        l.append("\(s.sample.observed.count) observed\(grid), \(s.sample.censored.count) censored; logged p50 \(g(q[0])), p90 \(g(q[1])), p99 \(g(q[2])); fitted p50 \(g(s.best.quantile(0.5))), p90 \(g(s.best.quantile(0.9))), p99 \(g(s.best.quantile(0.99))).")
        l += ["", "| family | parameters [CI] | log L | AIC | BIC | KS D | KS p |", "| --- | --- | --- | --- | --- | --- | --- |"]
        for (i, f) in s.fits.enumerated() {
            let params = f.parameters.map { "\($0.name) \(g($0.estimate)) [\(g($0.lower)), \(g($0.upper))]" }.joined(separator: "; ")
            l.append("| \(i == 0 ? "**\(f.family.rawValue)**" : f.family.rawValue) | \(params) | \(g(f.logLikelihood)) | \(g(f.aic)) | \(g(f.bic)) | \(g(f.goodness.ksStatistic)) | \(g(f.goodness.ksPValue)) |")
        }
        if let file = plots[s.name] { l += ["", "![QQ \(s.name)](\(file))"] }
        return l
    }

    static func render(_ v: OverlayValue) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let text = (try? encoder.encode(v)).map { String(decoding: $0, as: UTF8.self) } ?? "?"
        return "`" + (text.count > 300 ? String(text.prefix(300)) + "…" : text) + "`"
    }
}
