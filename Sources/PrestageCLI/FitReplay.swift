import Foundation
import Experiments
import LogFit
import ScenarioFormat
import ReportKit


/// `prestage fit --replay SCENARIO`: runs SCENARIO with the overlay (small population, two
/// replications) and prints simulated figures beside the logged ones.
enum FitReplay {
    static let replications = 2

    static func run(scenario name: String, overlay: ScenarioOverlay, outcome: FitOutcome, devices: Int,
                    environment env: CommandEnvironment) -> ExitCode {
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
        let aggregate: RunAggregate
        do {
            let board = ProgressBoard(output: env.standardError, live: false, replications: replications, horizonSeconds: scenario.world.horizonSeconds)
            let results = try ReplicationRunner(scenario: scenario, jobs: min(env.processorCount, replications)).run(progress: board)
            board.finish()
            aggregate = try RunAggregate(results: results, confidenceLevel: scenario.run.confidenceLevel)
        } catch {
            env.standardError.write("prestage fit --replay: the run failed: \(error)\n")
            return .runFailed
        }
        func metric(_ n: String) -> Double? { aggregate.metrics.first { $0.name == n }?.mean }
        var rows: [[String]] = [["figure", "logged", "simulated"]]
        func row(_ name: String, _ logged: Double?, _ simulated: Double?) {
            guard logged != nil || simulated != nil else { return }
            rows.append([name, logged.map { TextNumber.format($0, significant: 4) } ?? "—", simulated.map { TextNumber.format($0, significant: 4) } ?? "—"])
        }
        let total = outcome.edge?.series("edge.totalSeconds")
        row("edge hit ratio", outcome.edge?.hitRatio?.estimate, metric("edge.prestageHitRatio"))
        row("download p50 s (logged: edge time-taken)", total?.loggedQuantile(0.5), metric("extension.download.p50Seconds"))
        row("download p95 s (logged: edge time-taken)", total?.loggedQuantile(0.95), metric("extension.download.p95Seconds"))
        let rejected = metric("origin.rejected503"), requests = metric("origin.requests")
        row("origin 503 share", outcome.edge?.origin503Share?.estimate,
            rejected.flatMap { r in requests.flatMap { $0 > 0 ? r / $0 : nil } })
        let all = outcome.push?.platform("all")
        let delivered = metric("pushes.targeted").map { $0 * (1 - (metric("outcomes.notDeliveredShare") ?? 0)) }
        row("opened / delivered", all?.openedShareOfDelivered?.estimate,
            metric("taps.count").flatMap { t in delivered.flatMap { $0 > 0 ? t / $0 : nil } })
        row("delivered / sent", all?.delivered?.estimate, metric("outcomes.notDeliveredShare").map { 1 - $0 })
        var text = "replay: \(scenario.name) with the overlay, \(devices) devices, \(replications) replications (simulated = mean over replications)\n"
        text += alignedTable(rows).map { "  " + $0 }.joined(separator: "\n") + "\n"
        text += "  (the simulated download includes the device's network; the logged time-taken is the edge's own)\n"
        env.standardOutput.write(text)
        return .ok
    }
}
