import Foundation
import Experiments
import LogFit
import PushModel
import ScenarioFormat
import ReportKit


/// One side of a replay comparison: an estimate and its confidence interval (lower ≤ estimate ≤ upper).
struct ReplayEstimate: Equatable, Sendable {
    let estimate: Double
    let lower: Double
    let upper: Double

    /// The half of the interval on the side of `other`: a Clopper–Pearson interval near 0 or 1 is
    /// lopsided, and only the side facing the other figure says how far this one could be off toward it.
    func halfWidth(toward other: Double) -> Double { other >= estimate ? upper - estimate : estimate - lower }
}

/// A figure's verdict.
enum ReplayVerdict: String, Sendable {
    case agree
    case disagree
    case notComparable = "not comparable"
}

/// The agreement rule of `prestage fit --replay`.
///
/// With h_sim and h_log the half-widths (at the replay's level, 95 %) of the simulated and the
/// logged interval on the side facing the other figure, the two agree when
/// |sim − logged| ≤ √(h_sim² + h_log²). For two independent, normal estimates with standard
/// errors se_sim and se_log, h = z·se (z = 1.96), so the rule is |sim − logged| ≤ z·√(se_sim² + se_log²):
/// a two-sided test of "same value" at 5 %. The simulated half-width keeps its own Student t
/// quantile (2.78 for 5 replications), so few replications widen the allowance instead of
/// overstating the simulation's precision. Overlapping intervals (|d| ≤ h_sim + h_log) would be a
/// test at about 0.6 % for equal errors (too lenient), and "the simulated mean inside the logged
/// interval" would ignore the simulation's own noise.
enum ReplayAgreement {
    /// √(h_sim² + h_log²), the largest difference that still agrees.
    static func allowance(simulated s: ReplayEstimate, logged l: ReplayEstimate) -> Double {
        let hs = s.halfWidth(toward: l.estimate), hl = l.halfWidth(toward: s.estimate)
        return (hs * hs + hl * hl).squareRoot()
    }

    /// agree / disagree by the rule; not comparable when a side is missing.
    static func verdict(simulated: ReplayEstimate?, logged: ReplayEstimate?) -> ReplayVerdict {
        guard let s = simulated, let l = logged else { return .notComparable }
        return abs(s.estimate - l.estimate) <= allowance(simulated: s, logged: l) ? .agree : .disagree
    }
}

/// `prestage fit --replay SCENARIO`: runs SCENARIO with the overlay (small population, at least
/// five replications) and compares each logged figure with the simulated one: both intervals, a
/// verdict by `ReplayAgreement`, and the scenario inputs the figure depends on.
enum FitReplay {
    static let replicationsDefault = 5

    /// One row of the table.
    struct Row {
        let figure: String
        let logged: ReplayEstimate?
        let simulated: ReplayEstimate?
        /// Why the two are not compared even though both exist (they measure different things).
        let differentQuantities: String?
        let dependsOn: String
        var verdict: ReplayVerdict {
            differentQuantities == nil ? ReplayAgreement.verdict(simulated: simulated, logged: logged) : .notComparable
        }
    }

    static func run(scenario name: String, overlay: ScenarioOverlay, outcome: FitOutcome, devices: Int, replications: Int,
                    failOnDisagreement: Bool, environment env: CommandEnvironment) -> ExitCode {
        let scenario: ScenarioFile
        do {
            let assignments = try overlay.assignments()
            scenario = try ScenarioLoader.load(name, library: ScenarioLibrary(directories: env.scenarioDirectories), set: assignments,
                                               flags: .init(devices: devices, replications: replications)).scenario
        } catch let error as ScenarioLoadError {
            env.standardError.write("prestage fit --replay: \(error.description)\n")
            return .badInput
        } catch {
            env.standardError.write("prestage fit --replay: \(error)\n")
            return .badInput
        }
        let results: [ReplicationResult]
        do {
            let board = ProgressBoard(output: env.standardError, live: false, replications: replications, horizonSeconds: scenario.world.horizonSeconds)
            results = try ReplicationRunner(scenario: scenario, jobs: min(env.processorCount, replications)).run(progress: board)
            board.finish()
        } catch {
            env.standardError.write("prestage fit --replay: the run failed: \(error)\n")
            return .runFailed
        }
        let level = scenario.run.confidenceLevel
        let rows = self.rows(outcome: outcome, results: results, world: scenario.world, level: level)
        env.standardOutput.write(render(rows, scenario: scenario.name, devices: devices, replications: replications, level: level,
                                        window: window(scenario.world)))
        return failOnDisagreement && rows.contains { $0.verdict == .disagree } ? .gateNotPassed : .ok
    }

    /// Seconds from the first campaign's send to the horizon: what the simulation can see of a push.
    static func window(_ world: PushWorldConfig) -> Double? {
        guard let c = world.campaigns.first else { return nil }
        return world.horizonSeconds - c.sendStartSeconds
    }

    /// The simulated figure per replication → mean and t interval (nil when a replication has none).
    static func simulated(_ results: [ReplicationResult], level: Double, _ value: ([String: Double]) -> Double?) -> ReplayEstimate? {
        var values: [Double] = []
        for r in results {
            let metrics = Dictionary(r.metrics.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
            guard let v = value(metrics), v.isFinite else { return nil }
            values.append(v)
        }
        // The run's own summary of a metric: the mean and its Student t interval over replications.
        guard values.count >= 2, let ci = MetricSummary(name: "", unit: "", better: "none", values: values, level: level).confidenceInterval else { return nil }
        return ReplayEstimate(estimate: ci.mean, lower: ci.mean - ci.halfWidth, upper: ci.mean + ci.halfWidth)
    }

    /// A logged share's (estimate, lower, upper).
    static func logged(_ p: (Double, Double, Double)?) -> ReplayEstimate? { p.map { ReplayEstimate(estimate: $0.0, lower: $0.1, upper: $0.2) } }

    static func rows(outcome: FitOutcome, results: [ReplicationResult], world: PushWorldConfig, level: Double) -> [Row] {
        func sim(_ value: @escaping ([String: Double]) -> Double?) -> ReplayEstimate? { simulated(results, level: level, value) }
        func ratio(_ n: String, _ d: String) -> ([String: Double]) -> Double? {
            { m in m[n].flatMap { n in m[d].flatMap { $0 > 0 ? n / $0 : nil } } }
        }
        var rows: [Row] = []
        let edge = outcome.edge
        // The simulated hit ratio is the campaign's pre-staging after the send; the log's whole span
        // also holds the organic traffic before it, so the log is cut at the send.
        let fromSend = edge?.sendTimeSeconds != nil
        if let edge {
            rows.append(Row(figure: fromSend ? "edge hit ratio from the send" : "edge hit ratio (whole log: no send time)",
                            logged: logged((fromSend ? edge.hitRatioFromSend : edge.hitRatio).map { ($0.estimate, $0.lower, $0.upper) }),
                            simulated: sim { $0[MetricID.edgePrestageHitRatio.rawValue] },
                            differentQuantities: nil,
                            dependsOn: "campaigns[].warm.mode, campaigns[].cacheControl.maxAgeSeconds, infra.edgeCache.background, infra.edgeCache.capacityBytes"))
            let total = edge.series("edge.totalSeconds")
            for (p, metric) in [(0.5, MetricID.extensionDownloadP50), (0.95, MetricID.extensionDownloadP95)] {
                let estimate = total.flatMap { t in t.loggedQuantile(p).map { q in (q, t.loggedQuantileInterval(p, level: level)) } }
                rows.append(Row(figure: "download p\(Int(p * 100)) s",
                                logged: estimate.flatMap { e in e.1.map { ReplayEstimate(estimate: e.0, lower: $0.lower, upper: $0.upper) } },
                                simulated: sim { $0[metric.rawValue] },
                                differentQuantities: "the log's time-taken is the edge's own (request in to last byte out); the simulated download adds the device's connection set-up and network",
                                dependsOn: "infra.networks.CLASS, infra.connectionSetup, population.networkMix (simulated side)"))
            }
            rows.append(Row(figure: fromSend ? "origin 503 share from the send" : "origin 503 share (whole log: no send time)",
                            logged: logged((fromSend ? edge.origin503ShareFromSend : edge.origin503Share).map { ($0.estimate, $0.lower, $0.upper) }),
                            simulated: sim(ratio(MetricID.originRejected503.rawValue, MetricID.originRequests.rawValue)),
                            differentQuantities: nil,
                            dependsOn: "infra.origin.workers, infra.origin.queueMax, infra.origin.serviceSeconds"))
        }
        if let all = outcome.push?.platform("all") {
            let w = window(world)
            let within = w.map { " within \(TextNumber.format($0, significant: 6)) s of the send" } ?? ""
            // Pushes the simulation did not get to the app by the horizon: never delivered, or held (Doze, silent hold) and expired.
            let notDelivered = { (m: [String: Double]) -> Double? in
                m[MetricID.outcomesNotDeliveredShare.rawValue].map { $0 + (m[MetricID.outcomesDeferredThenExpiredShare.rawValue] ?? 0) }
            }
            rows.append(Row(figure: "opened / delivered" + within,
                            logged: w.flatMap { logged(all.openedWithin($0, level: level).map { ($0.estimate, $0.lower, $0.upper) }) },
                            simulated: sim { m in
                                guard let taps = m[MetricID.tapsCount.rawValue], let sent = m[MetricID.pushesTargeted.rawValue], let lost = notDelivered(m) else { return nil }
                                let delivered = sent * (1 - lost)
                                return delivered > 0 ? taps / delivered : nil
                            },
                            differentQuantities: nil,
                            dependsOn: "users.segments[].iosOpenProbability, users.segments[].androidOpenProbability, users.tapDelaySeconds, horizonSeconds"))
            rows.append(Row(figure: "delivered / sent" + within,
                            logged: w.flatMap { logged(all.deliveredWithin($0, level: level).map { ($0.estimate, $0.lower, $0.upper) }) },
                            simulated: sim { notDelivered($0).map { 1 - $0 } },
                            differentQuantities: nil,
                            dependsOn: "campaigns[].deliveryLatencySeconds, providers.*.deliveryLatencySeconds, providers.*.unregisteredShare, campaigns[].messageTtlSeconds, campaigns[].androidPriority, population.doze, population.iosForceQuitShare (silent pushes)"))
        }
        return rows
    }

    static func format(_ e: ReplayEstimate?) -> String {
        guard let e else { return "—" }
        func f(_ x: Double) -> String { TextNumber.format(x, significant: 4) }
        return "\(f(e.estimate)) [\(f(e.lower)), \(f(e.upper))]"
    }

    static func render(_ rows: [Row], scenario: String, devices: Int, replications: Int, level: Double, window: Double?) -> String {
        let percent = TextNumber.format(level * 100, significant: 3) + " %"
        var table: [[String]] = [["figure", "logged [\(percent) interval]", "simulated [\(percent) interval]", "verdict", "depends on"]]
        for r in rows { table.append([r.figure, format(r.logged), format(r.simulated), r.verdict.rawValue, r.dependsOn]) }
        var widths = [Int](repeating: 0, count: table[0].count)
        for row in table { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        let lines = table.map { row in
            row.enumerated().map { i, cell in i == row.count - 1 ? cell : cell.padding(toLength: widths[i], withPad: " ", startingAt: 0) }.joined(separator: "  ")
        }
        var text = "replay: \(scenario) with the overlay, \(devices) devices, \(replications) replications "
            + "(simulated = mean over replications, Student t interval)\n"
        text += lines.map { "  " + $0 }.joined(separator: "\n") + "\n"
        text += "  agree: |simulated − logged| ≤ √(h_sim² + h_log²), h = each interval's half-width on the side facing the other figure\n"
        for r in rows {
            if let why = r.differentQuantities { text += "  \(r.figure): not compared: \(why)\n" }
            else if r.verdict == .notComparable { text += "  \(r.figure): not compared: \(r.logged == nil ? "no logged interval" : "no simulated interval (a replication without the figure)")\n" }
        }
        let agree = rows.filter { $0.verdict == .agree }.map(\.figure)
        let disagree = rows.filter { $0.verdict == .disagree }.map(\.figure)
        let other = rows.filter { $0.verdict == .notComparable }.map(\.figure)
        text += "replay: \(agree.count) of \(rows.count) figures agree"
        if !disagree.isEmpty { text += "; disagree: " + disagree.joined(separator: ", ") }
        if !other.isEmpty { text += "; not comparable: " + other.joined(separator: ", ") }
        return text + "\n"
    }
}
