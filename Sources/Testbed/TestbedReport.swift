import Foundation
import ReportKit

/// `testbed-report.md` / `.html`: what ran, the agreement table with verdicts, the explanations
/// of every disagreement, the testbed's own counters.
package enum TestbedReport {
    package static func build(plan: TestbedPlan, measurement m: TestbedMeasurement, comparison c: TestbedComparison,
                             toolVersion: String, scenarioHash: String) -> Report {
        let agreeing = c.rows.filter { $0.agrees == true }.count
        let judged = c.rows.filter { $0.agrees != nil }.count
        let notJudged = c.rows.filter { $0.verdict == "not judged" }.count
        var setup: [ReportBlock] = [
            .paragraph("The scenario \(plan.original.name) was scaled down to \(plan.options.devices) devices over \(Int(plan.options.seconds)) s and run twice: on real software on 127.0.0.1 (Varnish \(plan.popCount) edge(s) and \(plan.shieldCount) shield(s) with xkey, a Python origin, a user-space link shaper, PreloadKitFoundation's PreloadDriver per device over plain http to the loopback host) and in the model (\(plan.scaled.run.replications) replications, seed \(plan.seed))."),
            .paragraph("Scaling (applied to both runs): " + plan.adjustments.joined(separator: "; ") + "."),
            .paragraph("Verdict: \(agreeing) of \(judged) compared quantities agree within their stated tolerance"
                       + (notJudged > 0 ? "; \(notJudged) latency quantities were not judged (the machine was too busy, see below)." : ".")),
        ]
        let pressure = m.cpuPressurePercent.map { String(format: ", CPU pressure %.0f %%", $0) } ?? ""
        setup.append(.paragraph(String(format: "Machine during the device phase: CPU stretch %.2f (a runnable thread waited for a core that many times the work; latencies are judged up to %.1f), 1-minute load average %.2f on %d cores",
                                       m.cpuStretch, TestbedComparison.cpuStretchLimit, m.loadAverage, m.processors) + pressure + "."))
        if let overhead = m.overheadSeconds {
            setup.append(.paragraph(String(format: "Testbed overhead per download: %.1f ms, the median download time of %d calibration devices (the campaign's assets, cached at edge 0, over a link with no delay and no rate limit, spread over the send window). It is what URLSession, the driver, the store, the shaper and Varnish add; the model has none of it, so it is subtracted from every download sample before comparing.",
                                           overhead * 1e3, m.calibration.count)))
        }
        if m.warmSeconds > 0 { setup.append(.paragraph("The warm call (real requests to every warmed node) took \(String(format: "%.2f", m.warmSeconds)) s.")) }
        let table = Table(caption: "Testbed against model", columns: [
            .init("Quantity"), .init("Testbed", alignment: .trailing), .init("Model", alignment: .trailing),
            .init("Tolerance", alignment: .trailing), .init("Rule"), .init("Verdict"),
        ], rows: c.rows.map { r in
            [.text(r.metric), cell(r.testbed, r.unit), cell(r.model, r.unit), cell(r.tolerance, r.unit), .text(r.toleranceRule),
             .text(r.verdict)]
        })
        let differing = c.rows.filter { $0.agrees == false }
        var explanation: [ReportBlock] = differing.isEmpty
            ? [.paragraph("Every quantity with data on both sides agrees within its tolerance.")]
            : differing.map { .paragraph("\($0.metric): \($0.explanation)") }
        explanation.append(.paragraph("Tolerances: ratios 0.05 + 2 binomial standard errors of the testbed's count; quantiles: the model's value inside the testbed's distribution-free 99 % interval (order statistics) widened by 10 % + 20 ms; counts max(3, 25 % + 2√model); bytes 10 %; distributions by a two-sample Kolmogorov–Smirnov test at α = \(KolmogorovSmirnov.alpha) against the model's merged histogram."))
        let records = m.records
        let outcomes = Dictionary(grouping: records, by: \.outcome).map { ($0.key, $0.value.count) }.sorted { $0.0 < $1.0 }
        let counters = Table(caption: "Testbed counters", columns: [.init("Counter"), .init("Value", alignment: .trailing)], rows: [
            [.text("devices"), .count(records.count)],
            [.text("taps / instant / paint failed"), .text("\(records.filter(\.tapped).count) / \(records.filter(\.tapInstant).count) / \(records.filter(\.paintFailed).count)")],
            [.text("pre-stage fetches started / timed out / failed"), .text("\(records.reduce(0) { $0 + $1.fetchesStarted }) / \(records.reduce(0) { $0 + $1.fetchesTimedOut }) / \(records.reduce(0) { $0 + $1.fetchesFailed })")],
            [.text("edge hits / misses / collapsed (device phase)"), .text("\(m.edge.hits) / \(m.edge.misses) / \(m.edge.collapsed)")],
            [.text("shield hits / misses / collapsed"), .text("\(m.shield.hits) / \(m.shield.misses) / \(m.shield.collapsed)")],
            [.text("origin requests / 200 / 304 / 503"), .text("\(m.origin.requests) / \(m.origin.served) / \(m.origin.notModified) / \(m.origin.rejected503)")],
        ] + outcomes.map { [.text("outcome " + $0.0), .count($0.1)] })
        return Report(title: "Testbed: \(plan.original.name) on real software vs the model",
                      scenario: ScenarioSummary(name: plan.scaled.name, question: plan.original.question),
                      provenance: RunProvenance(seed: plan.seed, replications: plan.scaled.run.replications, toolVersion: toolVersion,
                                                scenarioHash: scenarioHash),
                      headlines: [],
                      sections: [ReportSection(title: "Set-up", blocks: setup),
                                 ReportSection(title: "Agreement", blocks: [.table(table)]),
                                 ReportSection(title: "Where they differ, and why", blocks: explanation),
                                 ReportSection(title: "Testbed counters", blocks: [.table(counters)])])
    }

    static func cell(_ v: Double?, _ unit: String) -> TableCell {
        guard let v else { return .empty }
        switch unit {
        case "ratio": return .percent(v, decimals: 1)
        case "s": return .number(v, decimals: 3)
        case "D": return .number(v, decimals: 3)
        default: return .number(v, decimals: 0)
        }
    }

    /// What each device measured (`testbed-devices.json`), in device order.
    package static func devicesJSON(_ records: [DeviceRecord]) -> Data {
        let rows: [[String: Any]] = records.map { r in
            var o: [String: Any] = ["device": r.index, "network": r.networkName, "pop": r.pop, "outcome": r.outcome,
                                    "downloadSeconds": r.downloadSeconds, "fetchesStarted": r.fetchesStarted,
                                    "fetchesTimedOut": r.fetchesTimedOut, "fetchesFailed": r.fetchesFailed,
                                    "backgroundBytes": r.backgroundBytes, "foregroundBytes": r.foregroundBytes,
                                    "tapped": r.tapped, "tapInstant": r.tapInstant, "paintFailed": r.paintFailed]
            if let t = r.tapToPaintSeconds { o["tapToPaintSeconds"] = t }
            if let p = r.problem { o["problem"] = p }
            return o
        }
        return (try? JSONSerialization.data(withJSONObject: rows, options: [.sortedKeys])) ?? Data()
    }

    /// Machine-readable rows (`testbed-results.json`).
    package static func json(_ c: TestbedComparison) -> Data {
        let rows: [[String: Any]] = c.rows.map { r in
            var o: [String: Any] = ["metric": r.metric, "unit": r.unit, "rule": r.toleranceRule,
                                    "verdict": r.verdict]
            if let v = r.testbed { o["testbed"] = v }
            if let v = r.model { o["model"] = v }
            if let v = r.tolerance { o["tolerance"] = v }
            return o
        }
        let samples: [String: Any] = ["extensionDownloadSeconds": c.testbedDownloads, "tapToPaintSeconds": c.testbedTapToPaint]
        return (try? JSONSerialization.data(withJSONObject: ["rows": rows, "allAgree": c.allAgree, "testbedSamples": samples],
                                            options: [.prettyPrinted, .sortedKeys])) ?? Data()
    }
}
